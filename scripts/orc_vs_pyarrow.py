#!/usr/bin/env python3
"""Whole ORC files to Arrow: warpzip's reader beside pyarrow's, in the same run.

For every ORC file given, pyarrow reads the file's bytes from host memory into a table
(`pyarrow.orc.ORCFile(...).read()`) on all of the host's cores and on one (pyarrow's CPU and I/O
thread pools set to that count), the median of --runs reads; then `warpzip bench --codec orc`
reads the same files (its "orc file to arrow" rows: all cores, one core, and the GPU when
--device gpu) and a Markdown table puts them side by side.

    python3 scripts/orc_vs_pyarrow.py --warpzip target/release/warpzip FILE.orc...

--make-lineitem SF --out DIR first writes TPC-H lineitem (all 16 columns, their own types:
decimal(15,2), date32, strings) at scale factor SF as ORC with SNAPPY, ZSTD and ZLIB
(file version 0.12, pyarrow's default stripe and row-index sizes), generated with
`tpchgen-cli` (`pip install tpchgen-cli`), and adds those files to the list.
"""

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

COMPRESSIONS = ["snappy", "zstd", "zlib"]


def make_lineitem(scale, out):
    """Writes lineitem_sf{scale}_{compression}.orc files into `out`; returns their paths."""
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lineitem_") as tmp:
        cmd = ["tpchgen-cli", "parquet", "--scale-factor", f"{scale:g}", "--tables",
               "lineitem", "--output-dir", tmp, "--overwrite", "--no-progress", "--quiet"]
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True)
        table = pq.read_table(os.path.join(tmp, "lineitem.parquet"))
    # tpchgen-cli writes string_view columns, which pyarrow's ORC writer does not take.
    table = table.cast(pa.schema([
        pa.field(f.name, pa.string() if f.type == pa.string_view() else f.type)
        for f in table.schema
    ]))
    paths = []
    for compression in COMPRESSIONS:
        path = os.path.join(out, f"lineitem_sf{scale:g}_{compression}.orc")
        orc.write_table(table, path, compression=compression, file_version="0.12")
        paths.append(path)
        print(f"wrote {path} ({os.path.getsize(path) >> 20} MiB)", file=sys.stderr)
    return paths


def pyarrow_ms(data, threads, runs):
    """Median milliseconds of pyarrow reading `data` (bytes of an ORC file) with `threads`."""
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    buf = pa.py_buffer(data)
    orc.ORCFile(pa.BufferReader(buf)).read()  # warm-up
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        table = orc.ORCFile(pa.BufferReader(buf)).read()
        times.append((time.perf_counter() - t) * 1e3)
        del table
    return statistics.median(times)


def warpzip_rows(binary, files, device, runs):
    """The "orc file to arrow" rows of `warpzip bench --codec orc` on `files`: {file: [(device, ms)]}."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        cmd = [binary, "bench", "-q", "--codec", "orc", "--device", device, "--runs",
               str(max(runs, 10)), "--csv", out.name, *files]
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        rows = {}
        with open(out.name, newline="") as f:
            for row in csv.DictReader(f):
                if row["what"] == "orc file to arrow":
                    name = row["input"].split(" (")[0]
                    rows.setdefault(name, []).append((row["device"], float(row["ms"])))
        return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", help="ORC files")
    p.add_argument("--warpzip", default="warpzip", help="the warpzip binary (default: on PATH)")
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu", "auto"],
                   help="warpzip's device (default cpu)")
    p.add_argument("--runs", type=int, default=5, help="timed reads per figure (default 5)")
    p.add_argument("--make-lineitem", type=float, metavar="SF",
                   help="first write TPC-H lineitem at this scale factor into --out")
    p.add_argument("--out", default="/tmp/lineitem-orc", help="where --make-lineitem writes")
    args = p.parse_args()
    files = list(args.files)
    if args.make_lineitem:
        files += make_lineitem(args.make_lineitem, args.out)
    if not files:
        p.error("no ORC files given")
    cores = os.cpu_count() or 1
    ours = warpzip_rows(args.warpzip, files, args.device, args.runs)
    print(f"pyarrow {pa.__version__}, {cores} cores; warpzip --device {args.device}\n")
    print("| file | size | reader | ms | x pyarrow (all cores) |")
    print("|---|---:|---|---:|---:|")
    for path in files:
        data = open(path, "rb").read()
        name = os.path.basename(path)
        base = pyarrow_ms(data, cores, args.runs)
        figures = [(f"pyarrow, {cores} threads", base),
                   ("pyarrow, 1 thread", pyarrow_ms(data, 1, args.runs))]
        figures += [(f"warpzip, {dev}", ms) for dev, ms in ours.get(name, [])]
        for reader, ms in figures:
            size = (f"{len(data) / 2**20:.1f} MiB" if len(data) >= 2**20
                    else f"{len(data) / 2**10:.1f} KiB")
            print(f"| {name} | {size} | {reader} | {ms:.1f} | "
                  f"{base / ms:.2f} |")
    pa.set_cpu_count(cores)


if __name__ == "__main__":
    main()
