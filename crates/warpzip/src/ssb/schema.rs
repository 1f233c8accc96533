//! The five tables of the Star Schema Benchmark and their columns, in the order of the
//! specification (O'Neil, O'Neil, Chen: "Star Schema Benchmark", revision 3) and of dbgen's
//! `.tbl` files.

/// How a column is stored in a column directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColumnType {
    /// A non-negative integer below 2^32, stored as `u32` values.
    Int,
    /// Text, stored as `u32` codes into the column's sorted dictionary.
    Text,
}

/// One table: its name (also its `.tbl` file's stem and its folder in a column directory) and
/// its columns.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// `lineorder`, `date`, `customer`, `supplier` or `part`.
    pub name: &'static str,
    /// Its columns, in `.tbl` field order.
    pub columns: &'static [(&'static str, ColumnType)],
}

use ColumnType::{Int, Text};

/// The fact table.
pub const LINEORDER: Table = Table {
    name: "lineorder",
    columns: &[
        ("lo_orderkey", Int),
        ("lo_linenumber", Int),
        ("lo_custkey", Int),
        ("lo_partkey", Int),
        ("lo_suppkey", Int),
        ("lo_orderdate", Int),
        ("lo_orderpriority", Text),
        ("lo_shippriority", Text),
        ("lo_quantity", Int),
        ("lo_extendedprice", Int),
        ("lo_ordtotalprice", Int),
        ("lo_discount", Int),
        ("lo_revenue", Int),
        ("lo_supplycost", Int),
        ("lo_tax", Int),
        ("lo_commitdate", Int),
        ("lo_shipmode", Text),
    ],
};

/// The date dimension: one row a day of 1992-1998.
pub const DATE: Table = Table {
    name: "date",
    columns: &[
        ("d_datekey", Int),
        ("d_date", Text),
        ("d_dayofweek", Text),
        ("d_month", Text),
        ("d_year", Int),
        ("d_yearmonthnum", Int),
        ("d_yearmonth", Text),
        ("d_daynuminweek", Int),
        ("d_daynuminmonth", Int),
        ("d_daynuminyear", Int),
        ("d_monthnuminyear", Int),
        ("d_weeknuminyear", Int),
        ("d_sellingseason", Text),
        ("d_lastdayinweekfl", Int),
        ("d_lastdayinmonthfl", Int),
        ("d_holidayfl", Int),
        ("d_weekdayfl", Int),
    ],
};

/// The customer dimension.
pub const CUSTOMER: Table = Table {
    name: "customer",
    columns: &[
        ("c_custkey", Int),
        ("c_name", Text),
        ("c_address", Text),
        ("c_city", Text),
        ("c_nation", Text),
        ("c_region", Text),
        ("c_phone", Text),
        ("c_mktsegment", Text),
    ],
};

/// The supplier dimension.
pub const SUPPLIER: Table = Table {
    name: "supplier",
    columns: &[
        ("s_suppkey", Int),
        ("s_name", Text),
        ("s_address", Text),
        ("s_city", Text),
        ("s_nation", Text),
        ("s_region", Text),
        ("s_phone", Text),
    ],
};

/// The part dimension.
pub const PART: Table = Table {
    name: "part",
    columns: &[
        ("p_partkey", Int),
        ("p_name", Text),
        ("p_mfgr", Text),
        ("p_category", Text),
        ("p_brand1", Text),
        ("p_color", Text),
        ("p_type", Text),
        ("p_size", Int),
        ("p_container", Text),
    ],
};

/// Every table, the fact table first.
pub const TABLES: [Table; 5] = [LINEORDER, DATE, CUSTOMER, SUPPLIER, PART];

impl Table {
    /// The table named `name`.
    pub fn named(name: &str) -> Option<Table> {
        TABLES.iter().find(|t| t.name == name).copied()
    }

    /// The type of column `column`, if the table has it.
    pub fn column_type(&self, column: &str) -> Option<ColumnType> {
        self.columns
            .iter()
            .find(|(n, _)| *n == column)
            .map(|&(_, t)| t)
    }
}
