#!/usr/bin/env python3
"""The Star Schema Benchmark's 13 answers from an independent SQL engine (DuckDB), as the
fixtures the SSB tests compare warpzip's engines with.

    python3 -m pip install duckdb
    warpzip ssb gen --sf 0.01 -o /tmp/ssb-0.01
    python3 scripts/ssb_fixtures.py /tmp/ssb-0.01 testdata/ssb/sf0.01

reads the five dbgen `.tbl` files of DIR and writes `q1.1.csv` ... `q4.3.csv` into OUT: a header
line, then the rows in the specification's order, fields quoted only where they must be. The
queries are the specification's (O'Neil et al., revision 3); the only additions are names for
the sums (`revenue`, `profit`) and, in flight 3, the group columns as tie-breakers after
`revenue desc`, so that the order is total.
"""

import csv
import os
import sys

import duckdb

TABLES = {
    "lineorder": [
        ("lo_orderkey", "INTEGER"), ("lo_linenumber", "INTEGER"), ("lo_custkey", "INTEGER"),
        ("lo_partkey", "INTEGER"), ("lo_suppkey", "INTEGER"), ("lo_orderdate", "INTEGER"),
        ("lo_orderpriority", "VARCHAR"), ("lo_shippriority", "VARCHAR"),
        ("lo_quantity", "INTEGER"), ("lo_extendedprice", "BIGINT"),
        ("lo_ordtotalprice", "BIGINT"), ("lo_discount", "INTEGER"), ("lo_revenue", "BIGINT"),
        ("lo_supplycost", "BIGINT"), ("lo_tax", "INTEGER"), ("lo_commitdate", "INTEGER"),
        ("lo_shipmode", "VARCHAR"),
    ],
    "date": [
        ("d_datekey", "INTEGER"), ("d_date", "VARCHAR"), ("d_dayofweek", "VARCHAR"),
        ("d_month", "VARCHAR"), ("d_year", "INTEGER"), ("d_yearmonthnum", "INTEGER"),
        ("d_yearmonth", "VARCHAR"), ("d_daynuminweek", "INTEGER"),
        ("d_daynuminmonth", "INTEGER"), ("d_daynuminyear", "INTEGER"),
        ("d_monthnuminyear", "INTEGER"), ("d_weeknuminyear", "INTEGER"),
        ("d_sellingseason", "VARCHAR"), ("d_lastdayinweekfl", "INTEGER"),
        ("d_lastdayinmonthfl", "INTEGER"), ("d_holidayfl", "INTEGER"),
        ("d_weekdayfl", "INTEGER"),
    ],
    "customer": [
        ("c_custkey", "INTEGER"), ("c_name", "VARCHAR"), ("c_address", "VARCHAR"),
        ("c_city", "VARCHAR"), ("c_nation", "VARCHAR"), ("c_region", "VARCHAR"),
        ("c_phone", "VARCHAR"), ("c_mktsegment", "VARCHAR"),
    ],
    "supplier": [
        ("s_suppkey", "INTEGER"), ("s_name", "VARCHAR"), ("s_address", "VARCHAR"),
        ("s_city", "VARCHAR"), ("s_nation", "VARCHAR"), ("s_region", "VARCHAR"),
        ("s_phone", "VARCHAR"),
    ],
    "part": [
        ("p_partkey", "INTEGER"), ("p_name", "VARCHAR"), ("p_mfgr", "VARCHAR"),
        ("p_category", "VARCHAR"), ("p_brand1", "VARCHAR"), ("p_color", "VARCHAR"),
        ("p_type", "VARCHAR"), ("p_size", "INTEGER"), ("p_container", "VARCHAR"),
    ],
}

FLIGHT1 = """select sum(lo_extendedprice * lo_discount) as revenue
from lineorder, date
where lo_orderdate = d_datekey and {date} and {discount} and {quantity}"""

FLIGHT2 = """select sum(lo_revenue) as revenue, d_year, p_brand1
from lineorder, date, part, supplier
where lo_orderdate = d_datekey and lo_partkey = p_partkey and lo_suppkey = s_suppkey
  and {part} and s_region = '{region}'
group by d_year, p_brand1
order by d_year, p_brand1"""

FLIGHT3 = """select {c} as {cn}, {s} as {sn}, d_year, sum(lo_revenue) as revenue
from customer, lineorder, supplier, date
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_orderdate = d_datekey
  and {where}
group by {c}, {s}, d_year
order by d_year asc, revenue desc, {c}, {s}"""

UK_CITIES = ("(c_city = 'UNITED KI1' or c_city = 'UNITED KI5') "
             "and (s_city = 'UNITED KI1' or s_city = 'UNITED KI5')")

QUERIES = {
    "q1.1": FLIGHT1.format(date="d_year = 1993", discount="lo_discount between 1 and 3",
                           quantity="lo_quantity < 25"),
    "q1.2": FLIGHT1.format(date="d_yearmonthnum = 199401",
                           discount="lo_discount between 4 and 6",
                           quantity="lo_quantity between 26 and 35"),
    "q1.3": FLIGHT1.format(date="d_weeknuminyear = 6 and d_year = 1994",
                           discount="lo_discount between 5 and 7",
                           quantity="lo_quantity between 26 and 35"),
    "q2.1": FLIGHT2.format(part="p_category = 'MFGR#12'", region="AMERICA"),
    "q2.2": FLIGHT2.format(part="p_brand1 between 'MFGR#2221' and 'MFGR#2228'", region="ASIA"),
    "q2.3": FLIGHT2.format(part="p_brand1 = 'MFGR#2239'", region="EUROPE"),
    "q3.1": FLIGHT3.format(c="c_nation", cn="c_nation", s="s_nation", sn="s_nation",
                           where="c_region = 'ASIA' and s_region = 'ASIA' "
                                 "and d_year >= 1992 and d_year <= 1997"),
    "q3.2": FLIGHT3.format(c="c_city", cn="c_city", s="s_city", sn="s_city",
                           where="c_nation = 'UNITED STATES' and s_nation = 'UNITED STATES' "
                                 "and d_year >= 1992 and d_year <= 1997"),
    "q3.3": FLIGHT3.format(c="c_city", cn="c_city", s="s_city", sn="s_city",
                           where=UK_CITIES + " and d_year >= 1992 and d_year <= 1997"),
    "q3.4": FLIGHT3.format(c="c_city", cn="c_city", s="s_city", sn="s_city",
                           where=UK_CITIES + " and d_yearmonth = 'Dec1997'"),
    "q4.1": """select d_year, c_nation, sum(lo_revenue - lo_supplycost) as profit
from date, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA'
  and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')
group by d_year, c_nation
order by d_year, c_nation""",
    "q4.2": """select d_year, s_nation, p_category, sum(lo_revenue - lo_supplycost) as profit
from date, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_region = 'AMERICA'
  and (d_year = 1997 or d_year = 1998) and (p_mfgr = 'MFGR#1' or p_mfgr = 'MFGR#2')
group by d_year, s_nation, p_category
order by d_year, s_nation, p_category""",
    "q4.3": """select d_year, s_city, p_brand1, sum(lo_revenue - lo_supplycost) as profit
from date, customer, supplier, part, lineorder
where lo_custkey = c_custkey and lo_suppkey = s_suppkey and lo_partkey = p_partkey
  and lo_orderdate = d_datekey and c_region = 'AMERICA' and s_nation = 'UNITED STATES'
  and (d_year = 1997 or d_year = 1998) and p_category = 'MFGR#14'
group by d_year, s_city, p_brand1
order by d_year, s_city, p_brand1""",
}


def load(con, tbl_dir):
    for name, columns in TABLES.items():
        # dbgen ends every row with '|': the reader sees one more, empty, field.
        spec = {c: t for c, t in columns}
        spec["trailing_field"] = "VARCHAR"
        path = os.path.join(tbl_dir, name + ".tbl")
        con.execute(
            f"create table {name} as select * exclude (trailing_field) from read_csv(?, "
            "delim = '|', header = false, quote = '', escape = '', columns = ?)",
            [path, spec],
        )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tbl_dir, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    con = duckdb.connect()
    load(con, tbl_dir)
    for name, sql in QUERIES.items():
        cur = con.execute(sql)
        header = [d[0] for d in cur.description]
        rows = cur.fetchall()
        with open(os.path.join(out_dir, name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(header)
            for row in rows:
                w.writerow(["" if v is None else str(v) for v in row])
        print(f"{name}: {len(rows)} rows")


if __name__ == "__main__":
    main()
