"""Writes the small ORC fixtures of tests/orc_files.rs with pyarrow (the C++ ORC writer):
integer-family columns with nulls, as file versions 0.11 (RLE v1) and 0.12 (RLE v2), NONE and
ZLIB, several stripes. All four hold the same table, whose values are in ints.json.gz: {"rows": N, "columns": {name:
[values]}}, booleans as 0/1, dates as days since 1970-01-01, nulls as null. Also the groups_*.orc files of
tests/orc_row_groups.rs (several stripes and row groups; see below). Run: python3 make_fixtures.py (pyarrow >= 15;
the groups files were written with pyarrow 26)."""
import datetime
import gzip
import json
import random

import pyarrow as pa
import pyarrow.orc as orc

N = 2000
rng = random.Random(20261122)


def with_nulls(values, rate):
    return [None if rng.random() < rate else v for v in values]


def columns():
    sorted_keys = sorted(rng.randrange(0, 1 << 24) for _ in range(N))
    return {
        "flag": with_nulls([rng.random() < 0.3 for _ in range(N)], 0.1),
        "tiny": with_nulls([rng.choice([-128, -1, 0, 1, 7, 127]) for _ in range(N)], 0.05),
        "small": with_nulls([(i * 7) % 65536 - 32768 for i in range(N)], 0.2),
        "id": list(range(1, N + 1)),
        "qty": with_nulls([rng.randrange(1, 51) for _ in range(N)], 0.0),
        "key": with_nulls(sorted_keys, 0.01),
        "big": with_nulls(
            [rng.randrange(-(1 << 63), 1 << 63) if i % 16 == 0 else i - 1000 for i in range(N)],
            0.1,
        ),
        "day": with_nulls([10000 + i // 40 for i in range(N)], 0.15),
        "all_null": [None] * N,
    }


TYPES = {
    "flag": pa.bool_(),
    "tiny": pa.int8(),
    "small": pa.int16(),
    "id": pa.int32(),
    "qty": pa.int32(),
    "key": pa.int64(),
    "big": pa.int64(),
    "day": pa.date32(),
    "all_null": pa.int32(),
}

cols = columns()
arrays = {}
for name, values in cols.items():
    if name == "day":
        epoch = datetime.date(1970, 1, 1)
        arrays[name] = pa.array(
            [None if v is None else epoch + datetime.timedelta(days=v) for v in values],
            TYPES[name],
        )
    else:
        arrays[name] = pa.array(values, TYPES[name])
table = pa.table(arrays)
expected = {"rows": N, "columns": {k: [int(x) if isinstance(x, bool) else x for x in v] for k, v in cols.items()}}

for version in ["0.11", "0.12"]:
    for compression in ["uncompressed", "zlib"]:
        name = f"ints_v{version.replace('.', '')}_{compression}"
        orc.write_table(
            table,
            f"{name}.orc",
            file_version=version,
            compression=compression,
            stripe_size=2048,
            batch_size=512,
            row_index_stride=1000,
        )
with gzip.open("ints.json.gz", "wt") as f:
    json.dump(expected, f, separators=(",", ":"))


# Row-group fixtures for tests/orc_row_groups.rs: 25,000 rows in several stripes (whose row
# counts are not multiples of the stride) with a row index every 1,000 (0.11) or 1,100 (0.12)
# rows, so that row groups start inside runs and bytes. Columns with nulls, without nulls, with
# nulls only in the last stripe (earlier stripes have no PRESENT stream, and their row index no
# PRESENT positions), with whole row groups of nulls, and long runs. The ZLIB files add `wide`,
# 64-bit values that RLE cannot shrink but Deflate can (a period of 97), so its DATA streams
# span several compression chunks (the C++ writer's smallest chunk is 64 KiB) and row groups
# start in later chunks too. The tests compare the row-group decode with the whole-stripe
# decode, so no values file is written; `id` is the row number (1-based).
GROUP_ROWS = 25_000
grng = random.Random(20261123)


def group_columns():
    n = GROUP_ROWS
    runs = []
    while len(runs) < n:
        runs.extend([grng.randrange(-1000, 1000)] * grng.choice([1, 2, 5, 11, 300, 700, 2100]))
    runs = runs[:n]
    period = [grng.randrange(-(1 << 63), 1 << 63) for _ in range(97)]
    return {
        "flag": [None if grng.random() < 0.1 else grng.random() < 0.3 for _ in range(n)],
        "dense_flag": [(i // 3) % 5 == 0 or grng.random() < 0.05 for i in range(n)],
        "tiny": [
            None if grng.random() < 0.05
            else grng.randrange(-128, 128) if (i // 200) % 6 == 1
            else 3
            for i in range(n)
        ],
        "small": [
            None if grng.random() < 0.05 else (32767 if i % 2000 == 500 else -32768)
            if i % 1000 == 500 else i - 12500
            for i in range(n)
        ],
        "id": list(range(1, n + 1)),
        "late_nulls": [None if i >= 20_000 and grng.random() < 0.3 else i for i in range(n)],
        "runs": runs,
        "big": [
            None if grng.random() < 0.1
            else grng.randrange(-(1 << 63), 1 << 63) if i % 4096 == 0
            else grng.randrange(-(1 << 40), 1 << 40) if i % 500 == 0
            else grng.randrange(0, 100) if (i // 1000) % 5 == 2
            else (i // 50) % 100
            for i in range(n)
        ],
        "day": [None if grng.random() < 0.15 else 10000 + i // 40 for i in range(n)],
        "sparse": [
            None if 5000 <= i < 8500 or grng.random() < 0.95 else grng.randrange(0, 1 << 20)
            for i in range(n)
        ],
        "all_null": [None] * n,
        "wide": [None if grng.random() < 0.02 else period[i % 97] for i in range(n)],
    }


GROUP_TYPES = {
    "flag": pa.bool_(),
    "dense_flag": pa.bool_(),
    "tiny": pa.int8(),
    "small": pa.int16(),
    "id": pa.int32(),
    "late_nulls": pa.int32(),
    "runs": pa.int64(),
    "big": pa.int64(),
    "day": pa.date32(),
    "sparse": pa.int32(),
    "all_null": pa.int32(),
    "wide": pa.int64(),
}

group_arrays = {}
for name, values in group_columns().items():
    if name == "day":
        epoch = datetime.date(1970, 1, 1)
        values = [None if v is None else epoch + datetime.timedelta(days=v) for v in values]
    group_arrays[name] = pa.array(values, GROUP_TYPES[name])
group_table = pa.table(group_arrays)
# The C++ writer checks the stripe size after every batch, and its estimate of an uncompressed
# stripe is never under 64 KiB, of a ZLIB one small until a 64 KiB chunk fills: so each batch
# is one stripe here, and batches of 6,500 and 9,500 rows make stripes that end mid row group.
BATCH = {False: 6500, True: 9500}
# 1,100 is not a multiple of 8, so row groups start mid-byte in PRESENT streams too.
STRIDE = {"0.11": 1000, "0.12": 1100}
for version in ["0.11", "0.12"]:
    for compression in ["uncompressed", "zlib"]:
        zlib = compression == "zlib"
        orc.write_table(
            group_table if zlib else group_table.drop_columns(["wide"]),
            f"groups_v{version.replace('.', '')}_{compression}.orc",
            file_version=version,
            compression=compression,
            compression_block_size=64 * 1024,
            stripe_size=1024,
            batch_size=BATCH[zlib],
            row_index_stride=STRIDE[version],
        )


# Sorted-key fixtures for tests/gpu_orc_files.rs (the block kernels' RLEv1 row groups sized by
# one varint length): `key` as TPC-H's l_orderkey (8 of every 32 keys used, 1 to 7 rows a key),
# from 1,030,001 on, so its zigzag varints grow from 3 to 4 bytes (at 2^20) in the second of
# three row groups; `spiky` keys of 3-byte varints with one 4-byte value in the middle of each
# row group (where no probe of its first groups sees it); `dip` as `key` but for one value of
# one byte in the middle of row group 1 (whose varints are otherwise of 3 or 4 bytes). RLE v1,
# row index every 10,000 rows.
KEY_ROWS = 30_000
krng = random.Random(20261129)


def key_columns():
    keys, key = [], 1_030_001
    while len(keys) < KEY_ROWS:
        keys.extend([key] * krng.randint(1, 7))
        key += 1 if key % 32 < 7 else 25
    keys = keys[:KEY_ROWS]
    spiky = [300_000 + k - 1_030_001 for k in keys]
    for i in range(5_003, KEY_ROWS, 10_000):
        spiky[i] = 3_000_000
    dip = list(keys)
    dip[15_003] = 5
    return {"key": keys, "spiky": spiky, "dip": dip}


key_values = key_columns()
key_table = pa.table({
    "key": pa.array(key_values["key"], pa.int64()),
    "spiky": pa.array(key_values["spiky"], pa.int32()),
    "dip": pa.array(key_values["dip"], pa.int64()),
})
for compression in ["uncompressed", "zlib"]:
    orc.write_table(
        key_table,
        f"keys_v011_{compression}.orc",
        file_version="0.11",
        compression=compression,
        row_index_stride=10_000,
    )
