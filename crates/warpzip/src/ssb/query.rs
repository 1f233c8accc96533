//! The 13 queries of the Star Schema Benchmark (Q1.1 to Q4.3) as plans both engines run: range
//! filters on the fact table's quantity and discount, a probe of each dimension's map (key →
//! group code, or no match: a perfect hash table, since the keys are dense), and one measure
//! summed per group. The dimensions' filters and group attributes are evaluated here, on the
//! host, when the maps are built; the engines see only integers.

use super::columns::ColumnDir;
use super::schema::{self, Table};
use super::tbl::ColumnData;
use crate::error::{Error, Result};
use std::collections::HashMap;

/// One of the 13 queries: flight 1 to 4, and its number in the flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Query {
    /// 1 to 4.
    pub flight: u8,
    /// 1 to 3 (4 in flight 3).
    pub number: u8,
}

impl Query {
    /// Every query, in the specification's order.
    pub const ALL: [Query; 13] = [
        Query::new(1, 1),
        Query::new(1, 2),
        Query::new(1, 3),
        Query::new(2, 1),
        Query::new(2, 2),
        Query::new(2, 3),
        Query::new(3, 1),
        Query::new(3, 2),
        Query::new(3, 3),
        Query::new(3, 4),
        Query::new(4, 1),
        Query::new(4, 2),
        Query::new(4, 3),
    ];

    const fn new(flight: u8, number: u8) -> Query {
        Query { flight, number }
    }

    /// The query named `q2.1`, `Q2.1` or `2.1`.
    pub fn parse(name: &str) -> Result<Query> {
        let bare = name.trim_start_matches(['q', 'Q']);
        Query::ALL
            .iter()
            .find(|q| format!("{}.{}", q.flight, q.number) == bare)
            .copied()
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "unknown SSB query {name:?} (expected q1.1, q1.2, q1.3, q2.1, q2.2, q2.3, \
                     q3.1, q3.2, q3.3, q3.4, q4.1, q4.2 or q4.3)"
                ))
            })
    }

    /// `q2.1`.
    pub fn name(&self) -> String {
        format!("q{}.{}", self.flight, self.number)
    }
}

impl std::fmt::Display for Query {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A value of a result row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// SQL NULL: the sum of no rows.
    Null,
    /// An integer.
    Int(i64),
    /// Text.
    Text(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Null => Ok(()),
            Value::Int(v) => write!(f, "{v}"),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// A query's answer: its column names and its rows, in the specification's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryResult {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Vec<Value>>,
}

impl QueryResult {
    /// The answer as CSV: a header line, then a line a row (fields quoted only where they hold
    /// a comma, a quote or a line break).
    pub fn to_csv(&self) -> String {
        fn field(s: &str) -> String {
            if s.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        }
        let mut out = self
            .columns
            .iter()
            .map(|c| field(c))
            .collect::<Vec<_>>()
            .join(",");
        out.push('\n');
        for row in &self.rows {
            let line: Vec<String> = row.iter().map(|v| field(&v.to_string())).collect();
            out.push_str(&line.join(","));
            out.push('\n');
        }
        out
    }
}

/// The fact table's columns the queries read, in the order the GPU kernel numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Slot {
    OrderDate = 0,
    CustKey = 1,
    PartKey = 2,
    SuppKey = 3,
    Quantity = 4,
    Discount = 5,
    ExtendedPrice = 6,
    Revenue = 7,
    SupplyCost = 8,
}

/// Number of slots.
pub(crate) const SLOTS: usize = 9;

impl Slot {
    /// The lineorder column it holds.
    pub(crate) fn column(self) -> &'static str {
        match self {
            Slot::OrderDate => "lo_orderdate",
            Slot::CustKey => "lo_custkey",
            Slot::PartKey => "lo_partkey",
            Slot::SuppKey => "lo_suppkey",
            Slot::Quantity => "lo_quantity",
            Slot::Discount => "lo_discount",
            Slot::ExtendedPrice => "lo_extendedprice",
            Slot::Revenue => "lo_revenue",
            Slot::SupplyCost => "lo_supplycost",
        }
    }
}

/// What a query sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Measure {
    /// `lo_extendedprice * lo_discount` (flight 1).
    PriceTimesDiscount = 0,
    /// `lo_revenue` (flights 2 and 3).
    Revenue = 1,
    /// `lo_revenue - lo_supplycost` (flight 4).
    Profit = 2,
}

impl Measure {
    /// The slots it reads.
    pub(crate) fn slots(self) -> &'static [Slot] {
        match self {
            Measure::PriceTimesDiscount => &[Slot::ExtendedPrice, Slot::Discount],
            Measure::Revenue => &[Slot::Revenue],
            Measure::Profit => &[Slot::Revenue, Slot::SupplyCost],
        }
    }

    /// Its value for one row, as a two's-complement `u64` (sums wrap like `i64`s).
    pub(crate) fn of(self, price: u32, discount: u32, revenue: u32, cost: u32) -> u64 {
        match self {
            Measure::PriceTimesDiscount => u64::from(price) * u64::from(discount),
            Measure::Revenue => u64::from(revenue),
            Measure::Profit => u64::from(revenue).wrapping_sub(u64::from(cost)),
        }
    }
}

/// A probe of one dimension: the fact column holding its key, and its map from `key - base` to
/// 0 (no match) or 1 + the row's group code; the code times `stride` adds to the group index.
#[derive(Clone, Debug)]
pub(crate) struct Join {
    pub(crate) slot: Slot,
    pub(crate) base: u32,
    pub(crate) map: Vec<u32>,
    pub(crate) stride: u32,
}

impl Join {
    /// The group code of `key` (0 to count - 1), or `None` when no dimension row matches.
    #[inline]
    pub(crate) fn probe(&self, key: u32) -> Option<u32> {
        let at = key.wrapping_sub(self.base) as usize;
        match self.map.get(at) {
            Some(&m) if m != 0 => Some(m - 1),
            _ => None,
        }
    }
}

/// A column of the answer: a join's group attribute, or the measure.
#[derive(Clone, Copy, Debug)]
enum Output {
    Group(usize),
    Sum,
}

/// A query ready to run: what the engines execute, and how their sums become rows.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// `lo_quantity` in this inclusive range.
    pub(crate) quantity: Option<(u32, u32)>,
    /// `lo_discount` in this inclusive range.
    pub(crate) discount: Option<(u32, u32)>,
    /// The probes, in the order the engines run them.
    pub(crate) joins: Vec<Join>,
    pub(crate) measure: Measure,
    /// Group indexes: the product of the grouping joins' code counts.
    pub(crate) groups: usize,
    /// Per join, the label of each group code (empty for a join that does not group).
    labels: Vec<Vec<Value>>,
    outputs: Vec<(String, Output)>,
    /// Sort keys: output column and whether descending.
    order: Vec<(usize, bool)>,
}

impl Plan {
    /// The fact slots the plan reads.
    pub(crate) fn slots(&self) -> Vec<Slot> {
        let mut slots = Vec::new();
        if self.quantity.is_some() {
            slots.push(Slot::Quantity);
        }
        if self.discount.is_some() {
            slots.push(Slot::Discount);
        }
        slots.extend(self.joins.iter().map(|j| j.slot));
        slots.extend(self.measure.slots());
        let mut unique = Vec::new();
        for s in slots {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        unique
    }

    /// The answer from per-group sums and row counts (groups without rows are left out; a
    /// query without groups always has its one row).
    pub(crate) fn finish(&self, sums: &[u64], counts: &[u64]) -> QueryResult {
        let mut rows = Vec::new();
        for g in 0..self.groups {
            let count = counts.get(g).copied().unwrap_or(0);
            let grouped = self
                .outputs
                .iter()
                .any(|(_, o)| matches!(o, Output::Group(_)));
            if count == 0 && grouped {
                continue;
            }
            let row = self
                .outputs
                .iter()
                .map(|(_, out)| match *out {
                    Output::Sum if count == 0 => Value::Null,
                    Output::Sum => Value::Int(sums.get(g).copied().unwrap_or(0) as i64),
                    Output::Group(j) => {
                        let labels = &self.labels[j];
                        let code = (g / self.joins[j].stride as usize) % labels.len().max(1);
                        labels.get(code).cloned().unwrap_or(Value::Null)
                    }
                })
                .collect();
            rows.push(row);
        }
        rows.sort_by(|a: &Vec<Value>, b: &Vec<Value>| {
            for &(col, desc) in &self.order {
                let o = a[col].cmp(&b[col]);
                let o = if desc { o.reverse() } else { o };
                if o.is_ne() {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        });
        QueryResult {
            columns: self.outputs.iter().map(|(n, _)| n.clone()).collect(),
            rows,
        }
    }
}

/// A dimension table's columns a query needs.
struct Dim {
    cols: HashMap<&'static str, ColumnData>,
    rows: usize,
}

impl Dim {
    fn load(
        dir: &ColumnDir,
        table: &Table,
        cols: &[&'static str],
        compressed: bool,
    ) -> Result<Dim> {
        let mut map = HashMap::new();
        for &c in cols {
            map.insert(c, dir.column(table, c, compressed)?);
        }
        Ok(Dim {
            cols: map,
            rows: dir.rows(table.name),
        })
    }

    fn int(&self, col: &str, row: usize) -> u32 {
        self.cols
            .get(col)
            .and_then(|c| c.values().get(row).copied())
            .unwrap_or(0)
    }

    fn text(&self, col: &str, row: usize) -> &str {
        match self.cols.get(col) {
            Some(ColumnData::Text { codes, dict }) => codes
                .get(row)
                .and_then(|&c| dict.get(c as usize))
                .map_or("", String::as_str),
            _ => "",
        }
    }

    fn value(&self, col: &str, row: usize) -> Value {
        match self.cols.get(col) {
            Some(ColumnData::Int(_)) => Value::Int(i64::from(self.int(col, row))),
            _ => Value::Text(self.text(col, row).to_string()),
        }
    }
}

/// One probe as a query states it.
struct JoinSpec {
    table: Table,
    key: &'static str,
    slot: Slot,
    /// Columns the filter reads.
    reads: &'static [&'static str],
    filter: fn(&Dim, usize) -> bool,
    group: Option<&'static str>,
}

/// The map of one probe and the labels of its group codes.
fn build_join(dir: &ColumnDir, spec: &JoinSpec, compressed: bool) -> Result<(Join, Vec<Value>)> {
    let mut cols: Vec<&'static str> = vec![spec.key];
    cols.extend(spec.reads);
    cols.extend(spec.group);
    cols.dedup();
    let dim = Dim::load(dir, &spec.table, &cols, compressed)?;
    let passing: Vec<usize> = (0..dim.rows).filter(|&r| (spec.filter)(&dim, r)).collect();
    let labels: Vec<Value> = match spec.group {
        Some(g) => {
            let mut l: Vec<Value> = passing.iter().map(|&r| dim.value(g, r)).collect();
            l.sort();
            l.dedup();
            l
        }
        None => Vec::new(),
    };
    let keys: Vec<u32> = passing.iter().map(|&r| dim.int(spec.key, r)).collect();
    let base = keys.iter().copied().min().unwrap_or(0);
    let top = keys.iter().copied().max().unwrap_or(0);
    let len = if keys.is_empty() {
        0
    } else {
        (top - base) as usize + 1
    };
    let mut map = vec![0u32; len];
    for (&r, &k) in passing.iter().zip(&keys) {
        let code = match spec.group {
            Some(g) => labels.binary_search(&dim.value(g, r)).unwrap_or(0) as u32,
            None => 0,
        };
        map[(k - base) as usize] = code + 1;
    }
    Ok((
        Join {
            slot: spec.slot,
            base,
            map,
            stride: 0,
        },
        labels,
    ))
}

fn date(reads: &'static [&'static str], filter: fn(&Dim, usize) -> bool, group: bool) -> JoinSpec {
    JoinSpec {
        table: schema::DATE,
        key: "d_datekey",
        slot: Slot::OrderDate,
        reads,
        filter,
        group: group.then_some("d_year"),
    }
}

fn part(
    reads: &'static [&'static str],
    filter: fn(&Dim, usize) -> bool,
    group: Option<&'static str>,
) -> JoinSpec {
    JoinSpec {
        table: schema::PART,
        key: "p_partkey",
        slot: Slot::PartKey,
        reads,
        filter,
        group,
    }
}

fn supplier(
    reads: &'static [&'static str],
    filter: fn(&Dim, usize) -> bool,
    group: Option<&'static str>,
) -> JoinSpec {
    JoinSpec {
        table: schema::SUPPLIER,
        key: "s_suppkey",
        slot: Slot::SuppKey,
        reads,
        filter,
        group,
    }
}

fn customer(
    reads: &'static [&'static str],
    filter: fn(&Dim, usize) -> bool,
    group: Option<&'static str>,
) -> JoinSpec {
    JoinSpec {
        table: schema::CUSTOMER,
        key: "c_custkey",
        slot: Slot::CustKey,
        reads,
        filter,
        group,
    }
}

fn any(_: &Dim, _: usize) -> bool {
    true
}

fn year_1992_to_1997(d: &Dim, r: usize) -> bool {
    (1992..=1997).contains(&d.int("d_year", r))
}

fn year_1997_or_1998(d: &Dim, r: usize) -> bool {
    matches!(d.int("d_year", r), 1997 | 1998)
}

fn mfgr_1_or_2(d: &Dim, r: usize) -> bool {
    matches!(d.text("p_mfgr", r), "MFGR#1" | "MFGR#2")
}

fn uk_1_or_5(d: &Dim, r: usize, col: &str) -> bool {
    matches!(d.text(col, r), "UNITED KI1" | "UNITED KI5")
}

/// A query's statement: fact filters, probes (in the order they run), measure, outputs (the
/// probes' group attributes by probe index) and sort keys.
struct Statement {
    quantity: Option<(u32, u32)>,
    discount: Option<(u32, u32)>,
    joins: Vec<JoinSpec>,
    measure: Measure,
    outputs: Vec<(&'static str, Output)>,
    order: Vec<(usize, bool)>,
}

fn statement(q: Query) -> Statement {
    use Output::{Group, Sum};
    let flight1 = |quantity, discount, filter: fn(&Dim, usize) -> bool| Statement {
        quantity: Some(quantity),
        discount: Some(discount),
        joins: vec![date(
            &["d_year", "d_yearmonthnum", "d_weeknuminyear"],
            filter,
            false,
        )],
        measure: Measure::PriceTimesDiscount,
        outputs: vec![("revenue", Sum)],
        order: vec![],
    };
    let flight2 =
        |part_filter: fn(&Dim, usize) -> bool, supp_filter: fn(&Dim, usize) -> bool| Statement {
            quantity: None,
            discount: None,
            joins: vec![
                part(&["p_category", "p_brand1"], part_filter, Some("p_brand1")),
                supplier(&["s_region"], supp_filter, None),
                date(&[], any, true),
            ],
            measure: Measure::Revenue,
            outputs: vec![
                ("revenue", Sum),
                ("d_year", Group(2)),
                ("p_brand1", Group(0)),
            ],
            order: vec![(1, false), (2, false)],
        };
    let flight3 = |c: JoinSpec, s: JoinSpec, d: JoinSpec, cname, sname| Statement {
        quantity: None,
        discount: None,
        joins: vec![c, s, d],
        measure: Measure::Revenue,
        outputs: vec![
            (cname, Group(0)),
            (sname, Group(1)),
            ("d_year", Group(2)),
            ("revenue", Sum),
        ],
        order: vec![(2, false), (3, true), (0, false), (1, false)],
    };
    match (q.flight, q.number) {
        (1, 1) => flight1((0, 24), (1, 3), |d, r| d.int("d_year", r) == 1993),
        (1, 2) => flight1((26, 35), (4, 6), |d, r| {
            d.int("d_yearmonthnum", r) == 199401
        }),
        (1, 3) => flight1((26, 35), (5, 7), |d, r| {
            d.int("d_weeknuminyear", r) == 6 && d.int("d_year", r) == 1994
        }),
        (2, 1) => flight2(
            |d, r| d.text("p_category", r) == "MFGR#12",
            |d, r| d.text("s_region", r) == "AMERICA",
        ),
        (2, 2) => flight2(
            |d, r| ("MFGR#2221"..="MFGR#2228").contains(&d.text("p_brand1", r)),
            |d, r| d.text("s_region", r) == "ASIA",
        ),
        (2, 3) => flight2(
            |d, r| d.text("p_brand1", r) == "MFGR#2239",
            |d, r| d.text("s_region", r) == "EUROPE",
        ),
        (3, 1) => flight3(
            customer(
                &["c_region"],
                |d, r| d.text("c_region", r) == "ASIA",
                Some("c_nation"),
            ),
            supplier(
                &["s_region"],
                |d, r| d.text("s_region", r) == "ASIA",
                Some("s_nation"),
            ),
            date(&["d_year"], year_1992_to_1997, true),
            "c_nation",
            "s_nation",
        ),
        (3, 2) => flight3(
            customer(
                &["c_nation"],
                |d, r| d.text("c_nation", r) == "UNITED STATES",
                Some("c_city"),
            ),
            supplier(
                &["s_nation"],
                |d, r| d.text("s_nation", r) == "UNITED STATES",
                Some("s_city"),
            ),
            date(&["d_year"], year_1992_to_1997, true),
            "c_city",
            "s_city",
        ),
        (3, 3) => flight3(
            customer(
                &["c_city"],
                |d, r| uk_1_or_5(d, r, "c_city"),
                Some("c_city"),
            ),
            supplier(
                &["s_city"],
                |d, r| uk_1_or_5(d, r, "s_city"),
                Some("s_city"),
            ),
            date(&["d_year"], year_1992_to_1997, true),
            "c_city",
            "s_city",
        ),
        (3, _) => flight3(
            customer(
                &["c_city"],
                |d, r| uk_1_or_5(d, r, "c_city"),
                Some("c_city"),
            ),
            supplier(
                &["s_city"],
                |d, r| uk_1_or_5(d, r, "s_city"),
                Some("s_city"),
            ),
            date(
                &["d_yearmonth"],
                |d, r| d.text("d_yearmonth", r) == "Dec1997",
                true,
            ),
            "c_city",
            "s_city",
        ),
        (4, 1) => Statement {
            quantity: None,
            discount: None,
            joins: vec![
                customer(
                    &["c_region"],
                    |d, r| d.text("c_region", r) == "AMERICA",
                    Some("c_nation"),
                ),
                supplier(
                    &["s_region"],
                    |d, r| d.text("s_region", r) == "AMERICA",
                    None,
                ),
                part(&["p_mfgr"], mfgr_1_or_2, None),
                date(&[], any, true),
            ],
            measure: Measure::Profit,
            outputs: vec![
                ("d_year", Group(3)),
                ("c_nation", Group(0)),
                ("profit", Sum),
            ],
            order: vec![(0, false), (1, false)],
        },
        (4, 2) => Statement {
            quantity: None,
            discount: None,
            joins: vec![
                customer(
                    &["c_region"],
                    |d, r| d.text("c_region", r) == "AMERICA",
                    None,
                ),
                supplier(
                    &["s_region"],
                    |d, r| d.text("s_region", r) == "AMERICA",
                    Some("s_nation"),
                ),
                part(&["p_mfgr"], mfgr_1_or_2, Some("p_category")),
                date(&["d_year"], year_1997_or_1998, true),
            ],
            measure: Measure::Profit,
            outputs: vec![
                ("d_year", Group(3)),
                ("s_nation", Group(1)),
                ("p_category", Group(2)),
                ("profit", Sum),
            ],
            order: vec![(0, false), (1, false), (2, false)],
        },
        _ => Statement {
            quantity: None,
            discount: None,
            joins: vec![
                customer(
                    &["c_region"],
                    |d, r| d.text("c_region", r) == "AMERICA",
                    None,
                ),
                supplier(
                    &["s_nation"],
                    |d, r| d.text("s_nation", r) == "UNITED STATES",
                    Some("s_city"),
                ),
                part(
                    &["p_category"],
                    |d, r| d.text("p_category", r) == "MFGR#14",
                    Some("p_brand1"),
                ),
                date(&["d_year"], year_1997_or_1998, true),
            ],
            measure: Measure::Profit,
            outputs: vec![
                ("d_year", Group(3)),
                ("s_city", Group(1)),
                ("p_brand1", Group(2)),
                ("profit", Sum),
            ],
            order: vec![(0, false), (1, false), (2, false)],
        },
    }
}

/// Builds `query`'s plan from the dimension tables of `dir` (read from their `.wz` files when
/// `compressed`, else from their raw copies).
pub(crate) fn plan(query: Query, dir: &ColumnDir, compressed: bool) -> Result<Plan> {
    let st = statement(query);
    let mut joins = Vec::with_capacity(st.joins.len());
    let mut labels = Vec::with_capacity(st.joins.len());
    let mut groups: usize = 1;
    for spec in &st.joins {
        let (mut join, l) = build_join(dir, spec, compressed)?;
        if spec.group.is_some() {
            join.stride = u32::try_from(groups)
                .map_err(|_| Error::InvalidArgument("too many groups".into()))?;
            groups = groups.saturating_mul(l.len().max(1));
        }
        joins.push(join);
        labels.push(l);
    }
    if groups > 1 << 24 {
        return Err(Error::InvalidArgument(format!(
            "{query} would have {groups} groups"
        )));
    }
    Ok(Plan {
        quantity: st.quantity,
        discount: st.discount,
        joins,
        measure: st.measure,
        groups,
        labels,
        outputs: st
            .outputs
            .into_iter()
            .map(|(n, o)| (n.to_string(), o))
            .collect(),
        order: st.order,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        assert_eq!(Query::parse("q2.1").unwrap(), Query::new(2, 1));
        assert_eq!(Query::parse("Q3.4").unwrap(), Query::new(3, 4));
        assert_eq!(Query::parse("4.3").unwrap(), Query::new(4, 3));
        assert!(Query::parse("q1.4").is_err());
        assert!(Query::parse("q5.1").is_err());
    }

    #[test]
    fn csv_quotes_only_what_needs_it() {
        let r = QueryResult {
            columns: vec!["a".into(), "b".into()],
            rows: vec![vec![Value::Int(-3), Value::Text("x, y".into())]],
        };
        assert_eq!(r.to_csv(), "a,b\n-3,\"x, y\"\n");
    }
}
