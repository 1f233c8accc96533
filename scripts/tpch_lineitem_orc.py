#!/usr/bin/env python3
"""Write the integer columns of TPC-H lineitem as ORC files, for warpzip's ORC benchmarks.

The table is generated with `tpchgen-cli` (`pip install tpchgen-cli`) as Parquet, read with
pyarrow, cut down to integer-family columns and written twice with `pyarrow.orc.write_table`:

    lineitem_sf{N}_v011.orc   file_version="0.11"  integers in RLE v1 (DIRECT)
    lineitem_sf{N}_v012.orc   file_version="0.12"  integers in RLE v2 (DIRECT_V2)

both with ZLIB compression and pyarrow's default row index stride (10,000 rows) and stripe
size (64 MiB). Every column is non-null, so no PRESENT streams are written.

Columns (`--columns`, comma separated; default: the first eight):

    l_orderkey     bigint  (int64)   sorted, 1-7 lines per order
    l_partkey      bigint  (int64)   uniform in 1..200,000 x SF
    l_suppkey      bigint  (int64)   derived from l_partkey, 1..10,000 x SF
    l_linenumber   int     (int32)   1..7, counts up within an order
    l_quantity     int     (int32)   decimal(15,2) 1.00..50.00 cast to a whole number
    l_shipdate     date    (date32)  days since 1970-01-01
    l_commitdate   date    (date32)
    l_receiptdate  date    (date32)
  optional:
    l_discount     smallint (int16)  decimal 0.00..0.10 x 100 (0..10)
    l_tax          smallint (int16)  decimal 0.00..0.08 x 100 (0..8)
    l_extendedprice bigint (int64)   decimal(15,2) x 100 (cents)

Example (the benchmark input, written to /tmp/tpch):

    python3 scripts/tpch_lineitem_orc.py --scale 1 --out /tmp/tpch

Needs pyarrow (with its ORC module) and tpchgen-cli on PATH (or --tpchgen PATH, or
--parquet FILE to start from a lineitem Parquet file made earlier).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.orc as orc
import pyarrow.parquet as pq

DEFAULT_COLUMNS = [
    "l_orderkey",
    "l_partkey",
    "l_suppkey",
    "l_linenumber",
    "l_quantity",
    "l_shipdate",
    "l_commitdate",
    "l_receiptdate",
]

# Column -> (Arrow type written, multiplier applied to a decimal column before the cast).
COLUMN_TYPES = {
    "l_orderkey": (pa.int64(), None),
    "l_partkey": (pa.int64(), None),
    "l_suppkey": (pa.int64(), None),
    "l_linenumber": (pa.int32(), None),
    "l_quantity": (pa.int32(), 1),
    "l_shipdate": (pa.date32(), None),
    "l_commitdate": (pa.date32(), None),
    "l_receiptdate": (pa.date32(), None),
    "l_discount": (pa.int16(), 100),
    "l_tax": (pa.int16(), 100),
    "l_extendedprice": (pa.int64(), 100),
}

# ORC file version -> file name suffix (0.11: RLE v1, 0.12: RLE v2).
VERSIONS = [("0.11", "v011"), ("0.12", "v012")]

ROW_INDEX_STRIDE = 10000


def scale_name(scale):
    """`1.0` -> "1", `0.01` -> "0.01", for file names."""
    return f"{scale:g}"


def generate_parquet(tpchgen, scale, workdir, threads):
    """Runs tpchgen-cli for lineitem only; returns the Parquet file's path."""
    exe = shutil.which(tpchgen) or tpchgen
    cmd = [
        exe,
        "parquet",
        "--scale-factor",
        scale_name(scale),
        "--tables",
        "lineitem",
        "--output-dir",
        workdir,
        "--overwrite",
        "--no-progress",
        "--quiet",
    ]
    if threads:
        cmd += ["--num-threads", str(threads)]
    print("+ " + " ".join(cmd), flush=True)
    try:
        subprocess.run(cmd, check=True)
    except FileNotFoundError:
        sys.exit(f"error: {tpchgen!r} not found; install it with `pip install tpchgen-cli`")
    path = os.path.join(workdir, "lineitem.parquet")
    if not os.path.exists(path):
        sys.exit(f"error: tpchgen-cli did not write {path}")
    return path


def integer_table(source, columns):
    """The chosen lineitem columns, cast to their integer or date32 types."""
    arrays = []
    for name in columns:
        target, multiplier = COLUMN_TYPES[name]
        col = source.column(name)
        if multiplier is not None:
            if multiplier != 1:
                col = pc.multiply(col, pa.scalar(multiplier, col.type))
            # A safe cast: refuses (raises) if a value has a fractional part or overflows.
            col = pc.cast(col, target)
        elif col.type != target:
            col = pc.cast(col, target)
        arrays.append(col)
    return pa.table(arrays, names=columns)


def main():
    parser = argparse.ArgumentParser(
        description="Write TPC-H lineitem's integer columns as ORC files "
        "(RLE v1 / file_version 0.11 and RLE v2 / file_version 0.12, ZLIB).",
        epilog="Example: %(prog)s --scale 1 --out /tmp/tpch",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="TPC-H scale factor (default 1)")
    parser.add_argument("--out", required=True, help="output directory (created if missing)")
    parser.add_argument(
        "--columns",
        default=",".join(DEFAULT_COLUMNS),
        help="comma-separated columns to keep, in order (default: %(default)s; "
        "also: l_discount, l_tax, l_extendedprice)",
    )
    parser.add_argument(
        "--tpchgen", default="tpchgen-cli", help="tpchgen-cli executable (default: %(default)s)"
    )
    parser.add_argument(
        "--parquet",
        help="use this lineitem Parquet file (written by tpchgen-cli) instead of generating "
        "one; --scale then only names the output files",
    )
    parser.add_argument(
        "--keep-parquet",
        action="store_true",
        help="keep the generated lineitem.parquet in --out (default: a temporary directory)",
    )
    parser.add_argument("--threads", type=int, help="tpchgen-cli threads (default: all CPUs)")
    args = parser.parse_args()

    columns = [c.strip() for c in args.columns.split(",") if c.strip()]
    unknown = [c for c in columns if c not in COLUMN_TYPES]
    if unknown or not columns:
        parser.error(
            f"unknown column(s) {', '.join(unknown) or '(none given)'}; "
            f"known: {', '.join(COLUMN_TYPES)}"
        )
    if len(set(columns)) != len(columns):
        parser.error("a column is named twice in --columns")
    if args.scale <= 0:
        parser.error("--scale must be positive")

    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tpch_lineitem_") as tmp:
        if args.parquet:
            parquet_path = args.parquet
        else:
            workdir = args.out if args.keep_parquet else tmp
            parquet_path = generate_parquet(args.tpchgen, args.scale, workdir, args.threads)
        source = pq.read_table(parquet_path, columns=columns)
    table = integer_table(source, columns)
    del source

    width = sum(f.type.bit_width // 8 for f in table.schema)
    print(f"lineitem sf{scale_name(args.scale)}: {table.num_rows} rows, "
          f"{len(columns)} columns, {width} bytes/row decoded "
          f"({table.num_rows * width} bytes)")
    print("columns: " + ", ".join(f"{f.name}:{f.type}" for f in table.schema))

    total = 0
    for version, suffix in VERSIONS:
        path = os.path.join(args.out, f"lineitem_sf{scale_name(args.scale)}_{suffix}.orc")
        orc.write_table(
            table,
            path,
            file_version=version,
            compression="zlib",
            row_index_stride=ROW_INDEX_STRIDE,
        )
        size = os.path.getsize(path)
        total += size
        back = orc.ORCFile(path)
        if back.nrows != table.num_rows:
            sys.exit(f"error: {path} reads back {back.nrows} rows, wrote {table.num_rows}")
        print(f"{path}: {size} bytes ({size / 2**20:.2f} MiB), file_version {version}, "
              f"{back.nrows} rows, {back.nstripes} stripes")
    print(f"total: {total} bytes ({total / 2**20:.2f} MiB)")


if __name__ == "__main__":
    main()
