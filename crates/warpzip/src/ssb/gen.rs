//! A generator of the Star Schema Benchmark's tables at any scale factor, with the
//! specification's cardinalities and dbgen's value distributions, written as dbgen writes them:
//! one `.tbl` file a table, a row a line, every field followed by `|`. The same scale factor
//! always gives the same bytes (one seeded generator a table).
//!
//! Cardinalities at scale factor SF: 30,000·SF customers, 2,000·SF suppliers,
//! 200,000·⌊1 + log2 SF⌋ parts (200,000·SF below SF 1), 1,500,000·SF orders of 1 to 7 lines
//! each, and the 2,557 days of 1992-1998. Every count is at least 1.

use crate::error::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

/// The 25 nations and their regions, as TPC-H and SSB list them.
pub const NATIONS: [(&str, &str); 25] = [
    ("ALGERIA", "AFRICA"),
    ("ARGENTINA", "AMERICA"),
    ("BRAZIL", "AMERICA"),
    ("CANADA", "AMERICA"),
    ("EGYPT", "MIDDLE EAST"),
    ("ETHIOPIA", "AFRICA"),
    ("FRANCE", "EUROPE"),
    ("GERMANY", "EUROPE"),
    ("INDIA", "ASIA"),
    ("INDONESIA", "ASIA"),
    ("IRAN", "MIDDLE EAST"),
    ("IRAQ", "MIDDLE EAST"),
    ("JAPAN", "ASIA"),
    ("JORDAN", "MIDDLE EAST"),
    ("KENYA", "AFRICA"),
    ("MOROCCO", "AFRICA"),
    ("MOZAMBIQUE", "AFRICA"),
    ("PERU", "AMERICA"),
    ("CHINA", "ASIA"),
    ("ROMANIA", "EUROPE"),
    ("SAUDI ARABIA", "MIDDLE EAST"),
    ("VIETNAM", "ASIA"),
    ("RUSSIA", "EUROPE"),
    ("UNITED KINGDOM", "EUROPE"),
    ("UNITED STATES", "AMERICA"),
];

const SEGMENTS: [&str; 5] = [
    "AUTOMOBILE",
    "BUILDING",
    "FURNITURE",
    "MACHINERY",
    "HOUSEHOLD",
];
const PRIORITIES: [&str; 5] = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI", "5-LOW"];
const SHIP_MODES: [&str; 7] = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"];
const COLORS: [&str; 92] = [
    "almond",
    "antique",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanched",
    "blue",
    "blush",
    "brown",
    "burlywood",
    "burnished",
    "chartreuse",
    "chiffon",
    "chocolate",
    "coral",
    "cornflower",
    "cornsilk",
    "cream",
    "cyan",
    "dark",
    "deep",
    "dim",
    "dodger",
    "drab",
    "firebrick",
    "floral",
    "forest",
    "frosted",
    "gainsboro",
    "ghost",
    "goldenrod",
    "green",
    "grey",
    "honeydew",
    "hot",
    "indian",
    "ivory",
    "khaki",
    "lace",
    "lavender",
    "lawn",
    "lemon",
    "light",
    "lime",
    "linen",
    "magenta",
    "maroon",
    "medium",
    "metallic",
    "midnight",
    "mint",
    "misty",
    "moccasin",
    "navajo",
    "navy",
    "olive",
    "orange",
    "orchid",
    "pale",
    "papaya",
    "peach",
    "peru",
    "pink",
    "plum",
    "powder",
    "puff",
    "purple",
    "red",
    "rose",
    "rosy",
    "royal",
    "saddle",
    "salmon",
    "sandy",
    "seashell",
    "sienna",
    "sky",
    "slate",
    "smoke",
    "snow",
    "spring",
    "steel",
    "tan",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "yellow",
];
const TYPE_SIZES: [&str; 6] = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"];
const TYPE_FINISHES: [&str; 5] = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"];
const TYPE_METALS: [&str; 5] = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"];
const CONTAINER_SIZES: [&str; 5] = ["SM", "LG", "MED", "JUMBO", "WRAP"];
const CONTAINER_KINDS: [&str; 8] = ["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Day names from Sunday (day number 1 in the week).
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
/// Days of 1992-1998.
pub const DAYS: u32 = 2557;
/// Orders are placed up to this many days before the last day, as in dbgen.
const ORDER_DATE_MARGIN: u32 = 151;

/// Row counts of the tables at one scale factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cardinality {
    /// Customers.
    pub customers: u32,
    /// Suppliers.
    pub suppliers: u32,
    /// Parts.
    pub parts: u32,
    /// Orders (each of 1 to 7 lineorder rows).
    pub orders: u32,
}

impl Cardinality {
    /// The counts at scale factor `sf` (a positive number); `Error::InvalidArgument` otherwise,
    /// or when a count would not fit a `u32` key.
    pub fn at(sf: f64) -> Result<Cardinality> {
        if !(sf.is_finite() && sf > 0.0 && sf <= 2000.0) {
            return Err(Error::InvalidArgument(format!(
                "scale factor {sf} (expected a number above 0 and at most 2000)"
            )));
        }
        let count = |x: f64| (x.round() as u32).max(1);
        let parts = if sf >= 1.0 {
            200_000.0 * (1.0 + sf.log2()).floor()
        } else {
            200_000.0 * sf
        };
        Ok(Cardinality {
            customers: count(30_000.0 * sf),
            suppliers: count(2_000.0 * sf),
            parts: count(parts),
            orders: count(1_500_000.0 * sf),
        })
    }
}

/// SplitMix64: small, fast and the same everywhere, so that the tables never depend on a
/// library's choice of generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }

    /// dbgen's variable-length text: `lo..=hi` characters of letters, digits, ',' and ' '.
    fn text(&mut self, lo: u32, hi: u32) -> String {
        const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ. ";
        let n = self.range(lo, hi);
        (0..n)
            .map(|_| ALPHABET[(self.next() % ALPHABET.len() as u64) as usize] as char)
            .collect()
    }

    /// A phone number of nation `nation`: `CC-NNN-NNN-NNNN`, the country code 10 + nation.
    fn phone(&mut self, nation: usize) -> String {
        format!(
            "{}-{}-{}-{}",
            nation + 10,
            self.range(100, 999),
            self.range(100, 999),
            self.range(1000, 9999)
        )
    }
}

/// A city of nation `nation`: the nation's name cut or padded to 9 characters, then a digit.
fn city(nation: usize, digit: u32) -> String {
    let name = NATIONS[nation].0;
    format!("{:<9.9}{digit}", name)
}

/// A calendar day of 1992-1998.
#[derive(Clone, Copy, Debug)]
struct Day {
    year: u32,
    /// 1 to 12.
    month: u32,
    /// 1 to 31.
    day: u32,
    /// 1 (Sunday) to 7 (Saturday).
    weekday: u32,
    /// 1 to 366.
    day_of_year: u32,
    last_of_month: bool,
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn month_days(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Every day of 1992-1998, in order (1992-01-01 was a Wednesday).
fn calendar() -> Vec<Day> {
    let mut days = Vec::with_capacity(DAYS as usize);
    let mut weekday = 4;
    for year in 1992..=1998 {
        let mut day_of_year = 0;
        for month in 1..=12 {
            let n = month_days(year, month);
            for day in 1..=n {
                day_of_year += 1;
                days.push(Day {
                    year,
                    month,
                    day,
                    weekday,
                    day_of_year,
                    last_of_month: day == n,
                });
                weekday = weekday % 7 + 1;
            }
        }
    }
    days
}

impl Day {
    /// `yyyymmdd`, the date's key.
    fn key(&self) -> u32 {
        self.year * 10_000 + self.month * 100 + self.day
    }
}

/// A part's retail price in cents, TPC-H's formula.
pub fn retail_price(partkey: u32) -> u32 {
    90_000 + (partkey / 10) % 20_001 + 100 * (partkey % 1_000)
}

/// One `.tbl` file being written.
struct TblWriter {
    out: BufWriter<std::fs::File>,
    line: String,
}

impl TblWriter {
    fn create(dir: &Path, table: &str) -> Result<TblWriter> {
        let file = std::fs::File::create(dir.join(format!("{table}.tbl")))?;
        Ok(TblWriter {
            out: BufWriter::with_capacity(1 << 20, file),
            line: String::with_capacity(256),
        })
    }

    /// Writes one row, every field followed by `|`.
    fn row(&mut self, fields: &[&dyn std::fmt::Display]) -> Result<()> {
        use std::fmt::Write as _;
        self.line.clear();
        for f in fields {
            // Writing to a String cannot fail.
            let _ = write!(self.line, "{f}|");
        }
        self.line.push('\n');
        self.out.write_all(self.line.as_bytes())?;
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// Writes `lineorder.tbl`, `date.tbl`, `customer.tbl`, `supplier.tbl` and `part.tbl` at scale
/// factor `sf` into `dir` (created if missing); returns the row counts.
pub fn generate(sf: f64, dir: &Path) -> Result<Cardinality> {
    let card = Cardinality::at(sf)?;
    std::fs::create_dir_all(dir)?;
    let days = calendar();
    write_date(dir, &days)?;
    write_customer(dir, card.customers)?;
    write_supplier(dir, card.suppliers)?;
    write_part(dir, card.parts)?;
    write_lineorder(dir, &card, &days)?;
    Ok(card)
}

fn write_date(dir: &Path, days: &[Day]) -> Result<()> {
    let mut w = TblWriter::create(dir, "date")?;
    for d in days {
        let month = MONTHS[d.month as usize - 1];
        let season = match d.month {
            12 => "Christmas",
            6..=8 => "Summer",
            1 | 2 => "Winter",
            3..=5 => "Spring",
            _ => "Fall",
        };
        let holiday = matches!((d.month, d.day), (1, 1) | (7, 4) | (12, 25));
        w.row(&[
            &d.key(),
            &format!("{month} {}, {}", d.day, d.year),
            &WEEKDAYS[d.weekday as usize - 1],
            &month,
            &d.year,
            &(d.year * 100 + d.month),
            &format!("{}{}", &month[..3], d.year),
            &d.weekday,
            &d.day,
            &d.day_of_year,
            &d.month,
            &((d.day_of_year - 1) / 7 + 1),
            &season,
            &u32::from(d.weekday == 7),
            &u32::from(d.last_of_month),
            &u32::from(holiday),
            &u32::from((2..=6).contains(&d.weekday)),
        ])?;
    }
    w.finish()
}

fn write_customer(dir: &Path, count: u32) -> Result<()> {
    let mut rng = Rng::new(0x5353_4201);
    let mut w = TblWriter::create(dir, "customer")?;
    for key in 1..=count {
        let nation = rng.range(0, 24) as usize;
        let digit = rng.range(0, 9);
        w.row(&[
            &key,
            &format!("Customer#{key:09}"),
            &rng.text(10, 40),
            &city(nation, digit),
            &NATIONS[nation].0,
            &NATIONS[nation].1,
            &rng.phone(nation),
            &rng.pick(&SEGMENTS),
        ])?;
    }
    w.finish()
}

fn write_supplier(dir: &Path, count: u32) -> Result<()> {
    let mut rng = Rng::new(0x5353_4202);
    let mut w = TblWriter::create(dir, "supplier")?;
    for key in 1..=count {
        let nation = rng.range(0, 24) as usize;
        let digit = rng.range(0, 9);
        w.row(&[
            &key,
            &format!("Supplier#{key:09}"),
            &rng.text(10, 40),
            &city(nation, digit),
            &NATIONS[nation].0,
            &NATIONS[nation].1,
            &rng.phone(nation),
        ])?;
    }
    w.finish()
}

fn write_part(dir: &Path, count: u32) -> Result<()> {
    let mut rng = Rng::new(0x5353_4203);
    let mut w = TblWriter::create(dir, "part")?;
    for key in 1..=count {
        let mfgr = rng.range(1, 5);
        let category = rng.range(1, 5);
        let brand = rng.range(1, 40);
        let name = format!("{} {}", rng.pick(&COLORS), rng.pick(&COLORS));
        let kind = format!(
            "{} {} {}",
            rng.pick(&TYPE_SIZES),
            rng.pick(&TYPE_FINISHES),
            rng.pick(&TYPE_METALS)
        );
        let container = format!(
            "{} {}",
            rng.pick(&CONTAINER_SIZES),
            rng.pick(&CONTAINER_KINDS)
        );
        w.row(&[
            &key,
            &name,
            &format!("MFGR#{mfgr}"),
            &format!("MFGR#{mfgr}{category}"),
            &format!("MFGR#{mfgr}{category}{brand}"),
            &rng.pick(&COLORS),
            &kind,
            &rng.range(1, 50),
            &container,
        ])?;
    }
    w.finish()
}

/// One line of an order before its order's total is known.
struct Line {
    custkey: u32,
    partkey: u32,
    suppkey: u32,
    quantity: u32,
    extended: u32,
    discount: u32,
    revenue: u32,
    supplycost: u32,
    tax: u32,
    commit: u32,
    shipmode: &'static str,
}

fn write_lineorder(dir: &Path, card: &Cardinality, days: &[Day]) -> Result<()> {
    let mut rng = Rng::new(0x5353_4204);
    let mut w = TblWriter::create(dir, "lineorder")?;
    let mut lines: Vec<Line> = Vec::with_capacity(7);
    for orderkey in 1..=card.orders {
        let custkey = rng.range(1, card.customers);
        let date = rng.range(0, DAYS - 1 - ORDER_DATE_MARGIN);
        let priority = rng.pick(&PRIORITIES);
        let count = rng.range(1, 7);
        lines.clear();
        let mut total = 0u64;
        for _ in 0..count {
            let partkey = rng.range(1, card.parts);
            let quantity = rng.range(1, 50);
            let price = retail_price(partkey);
            let extended = quantity * price;
            let discount = rng.range(0, 10);
            let tax = rng.range(0, 8);
            total +=
                u64::from(extended) * u64::from(100 - discount) * u64::from(100 + tax) / 10_000;
            lines.push(Line {
                custkey,
                partkey,
                suppkey: rng.range(1, card.suppliers),
                quantity,
                extended,
                discount,
                revenue: (u64::from(extended) * u64::from(100 - discount) / 100) as u32,
                supplycost: price * 6 / 10,
                tax,
                commit: date + rng.range(30, 90),
                shipmode: rng.pick(&SHIP_MODES),
            });
        }
        let total = u32::try_from(total).unwrap_or(u32::MAX);
        for (i, l) in lines.iter().enumerate() {
            let commit = days.get(l.commit as usize).map_or(0, Day::key);
            w.row(&[
                &orderkey,
                &(i + 1),
                &l.custkey,
                &l.partkey,
                &l.suppkey,
                &days[date as usize].key(),
                &priority,
                &0,
                &l.quantity,
                &l.extended,
                &total,
                &l.discount,
                &l.revenue,
                &l.supplycost,
                &l.tax,
                &commit,
                &l.shipmode,
            ])?;
        }
    }
    w.finish()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_calendar_has_every_day_of_seven_years() {
        let days = calendar();
        assert_eq!(days.len(), DAYS as usize);
        assert_eq!(days[0].key(), 19920101);
        assert_eq!(days[0].weekday, 4);
        assert_eq!(days.last().unwrap().key(), 19981231);
        // 1998-12-31 was a Thursday.
        assert_eq!(days.last().unwrap().weekday, 5);
    }

    #[test]
    fn cardinalities_follow_the_specification() {
        let one = Cardinality::at(1.0).unwrap();
        assert_eq!(
            (one.customers, one.suppliers, one.parts, one.orders),
            (30_000, 2_000, 200_000, 1_500_000)
        );
        assert_eq!(Cardinality::at(4.0).unwrap().parts, 600_000);
        assert_eq!(Cardinality::at(0.01).unwrap().parts, 2_000);
        assert!(Cardinality::at(0.0).is_err());
    }

    #[test]
    fn cities_are_nine_characters_and_a_digit() {
        assert_eq!(city(23, 1), "UNITED KI1");
        assert_eq!(city(18, 3), "CHINA    3");
    }
}
