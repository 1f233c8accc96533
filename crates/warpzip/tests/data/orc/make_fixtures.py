"""Writes the small ORC fixtures of tests/orc_files.rs with pyarrow (the C++ ORC writer):
integer-family columns with nulls, as file versions 0.11 (RLE v1) and 0.12 (RLE v2), NONE and
ZLIB, several stripes. All four hold the same table, whose values are in ints.json.gz: {"rows": N, "columns": {name:
[values]}}, booleans as 0/1, dates as days since 1970-01-01, nulls as null. Run: python3 make_fixtures.py (pyarrow >= 15)."""
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
