"""Writes the ORC fixtures of tests/orc_types.rs with pyarrow (the C++ ORC writer) and pyarrow's
own reading of each, so that the tests need no pyarrow.

One table of every type pyarrow writes (float, double, string with DIRECT and DICTIONARY
encodings, binary, decimal, timestamp, timestamp with local time zone, struct, list, map), with
nulls, an all-null column and several stripes and row groups, in every compression (NONE, ZLIB,
SNAPPY, LZ4, ZSTD) as file version 0.12 (RLE v2) and, ZLIB only, 0.11 (RLE v1); and a file of
the same schema without rows. The answers, `types.json.gz` for every file with rows (they all read back alike) and
`types_empty.json.gz`, are {"rows": N, "types": {name:
arrow type}, "columns": {name: [values]}} as pyarrow reads the file, with floats as numbers
(NaN and infinities as strings), binary as hex, decimals as strings of their digits, timestamps
as nanoseconds since 1970-01-01 UTC, structs as objects, maps as lists of [key, value].

Run: python3 make_types.py (pyarrow >= 15; the files were written with pyarrow 22)."""
import decimal
import gzip
import json
import math
import random

import pyarrow as pa
import pyarrow.orc as orc

N = 1000
rng = random.Random(20261205)


def maybe(v, rate):
    return None if rng.random() < rate else v


WORDS = ["apple", "banana", "cherry", "", "date", "elderberry", "fig", "grape \u00e9\u4e2d"]


def table(n):
    f = [maybe(rng.choice([0.0, -1.5, 3.25, 1e30, -7e-20, float(i)]), 0.1) for i in range(n)]
    d = [maybe(rng.uniform(-1e12, 1e12) if i % 7 else math.pi * i, 0.1) for i in range(n)]
    unique = [maybe(f"row-{i}-{rng.randrange(1 << 40):x}", 0.05) for i in range(n)]
    cat = [maybe(rng.choice(WORDS), 0.1) for _ in range(n)]
    binary = [maybe(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 9))), 0.1) for _ in range(n)]
    dec = [maybe(decimal.Decimal(rng.randrange(-10**9, 10**9)).scaleb(-2), 0.1) for _ in range(n)]
    dec38 = [
        maybe(decimal.Decimal(rng.randrange(-(10**37), 10**37)).scaleb(-6), 0.1) if i % 5 else
        decimal.Decimal(i - 1500).scaleb(-6)
        for i in range(n)
    ]
    # Nanoseconds since 1970: before 1970, before and after 2015, whole seconds, odd nanos.
    ts = []
    for i in range(n):
        secs = rng.randrange(-2_000_000_000, 4_000_000_000)
        nanos = rng.choice([0, 1, 500_000_000, 999_999_999, 123_456_000, rng.randrange(10**9)])
        ts.append(maybe(secs * 10**9 + nanos, 0.1))
    tsz = [maybe(1_420_070_400 * 10**9 + (i - 1500) * 1_000_001_001, 0.1) for i in range(n)]
    st = [
        maybe({"a": maybe(i, 0.2), "b": maybe(rng.choice(WORDS), 0.2)}, 0.15) for i in range(n)
    ]
    li = [
        maybe([maybe(rng.randrange(-(1 << 40), 1 << 40), 0.1) for _ in range(rng.randrange(0, 5))], 0.1)
        for _ in range(n)
    ]
    mp = [
        maybe([(f"k{j}", maybe(float(j) / 4, 0.2)) for j in range(rng.randrange(0, 4))], 0.1)
        for _ in range(n)
    ]
    nested = [
        maybe([maybe({"x": maybe([rng.randrange(100) for _ in range(rng.randrange(3))], 0.2)}, 0.2)
               for _ in range(rng.randrange(3))], 0.2)
        for _ in range(n)
    ]
    ints = [maybe(rng.randrange(-(1 << 31), 1 << 31), 0.1) for _ in range(n)]
    arrays = {
        "f32": pa.array(f, pa.float32()),
        "f64": pa.array(d, pa.float64()),
        "s_direct": pa.array(unique, pa.string()),
        "s_dict": pa.array(cat, pa.string()),
        "bin": pa.array(binary, pa.binary()),
        "dec": pa.array(dec, pa.decimal128(12, 2)),
        "dec38": pa.array(dec38, pa.decimal128(38, 6)),
        "ts": pa.array(ts, pa.timestamp("ns")),
        "tsz": pa.array(tsz, pa.timestamp("ns", tz="UTC")),
        "st": pa.array(st, pa.struct([("a", pa.int32()), ("b", pa.string())])),
        "li": pa.array(li, pa.list_(pa.int64())),
        "mp": pa.array(mp, pa.map_(pa.string(), pa.float64())),
        "nested": pa.array(nested, pa.list_(pa.struct([("x", pa.list_(pa.int16()))]))),
        "i32": pa.array(ints, pa.int32()),
        "null_s": pa.array([None] * n, pa.string()),
        "null_d": pa.array([None] * n, pa.float64()),
    }
    return pa.table(arrays)


def plain(value, typ):
    if value is None:
        return None
    if pa.types.is_floating(typ):
        return value if math.isfinite(value) else str(value)
    if pa.types.is_binary(typ):
        return value.hex()
    if pa.types.is_decimal(typ):
        return str(value)
    if pa.types.is_struct(typ):
        return {typ.field(i).name: plain(value[typ.field(i).name], typ.field(i).type)
                for i in range(typ.num_fields)}
    if pa.types.is_map(typ):
        return [[plain(k, typ.key_type), plain(v, typ.item_type)] for k, v in value]
    if pa.types.is_list(typ):
        return [plain(v, typ.value_type) for v in value]
    return value


def answers(path):
    """pyarrow's reading of `path`, in the answers' form."""
    t = orc.read_table(path)
    cols = {}
    for name in t.column_names:
        col = t.column(name).combine_chunks()
        typ = col.type
        if pa.types.is_timestamp(typ):
            values = col.cast(pa.int64()).to_pylist()
        else:
            values = [plain(v, typ) for v in col.to_pylist()]
        cols[name] = values
    types = {f.name: str(f.type) for f in t.schema}
    return {"rows": t.num_rows, "types": types, "columns": cols}


def write_answers(name, answer):
    # No time stamp in the gzip header: the same answers make the same bytes.
    with open(name, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        out.write(json.dumps(answer).encode())


t = table(N)
files = []
for comp in ["uncompressed", "zlib", "snappy", "lz4", "zstd"]:
    path = f"types_v012_{comp}.orc"
    orc.write_table(t, path, compression=comp, stripe_size=1024, batch_size=250, row_index_stride=100,
                    compression_block_size=64 * 1024, dictionary_key_size_threshold=0.5)
    files.append(path)
orc.write_table(t, "types_v011_zlib.orc", file_version="0.11", compression="zlib",
                stripe_size=1024, batch_size=250, row_index_stride=100, compression_block_size=64 * 1024,
                dictionary_key_size_threshold=0.5)
files.append("types_v011_zlib.orc")
# Every file reads back as the same table: one answer for all.
first = answers(files[0])
for path in files[1:]:
    assert answers(path) == first, path
write_answers("types.json.gz", first)
orc.write_table(t.slice(0, 0), "types_empty_zstd.orc", compression="zstd")
write_answers("types_empty.json.gz", answers("types_empty_zstd.orc"))

# Small seeds of the orc_file fuzz target (fuzz/corpus/orc_file): the first 20 rows.
small = table(N).slice(0, 20)
for comp in ["snappy", "lz4", "zstd"]:
    orc.write_table(small, f"../../../../../../fuzz/corpus/orc_file/types_{comp}.orc",
                    compression=comp, dictionary_key_size_threshold=0.5)
