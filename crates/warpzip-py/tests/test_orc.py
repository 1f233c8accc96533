"""ORC files read into Arrow tables, as pyarrow's own ORC reader reads them, and handed to
pyarrow, polars and duckdb through the Arrow PyCapsule interface."""

from __future__ import annotations

import sys

import pytest

import warpzip
from conftest import ORC_FIXTURES, ORC_TESTDATA

pa = pytest.importorskip("pyarrow")
po = pytest.importorskip("pyarrow.orc")

FILES = sorted(
    [p for p in ORC_FIXTURES.rglob("*.orc") if p.name != "union.orc"]
    + [p for p in ORC_TESTDATA.glob("*.orc")
       # pyarrow reads neither of these: a file whose root is not a struct, and an empty file.
       if p.name not in ("TestOrcFile.testTimestamp.orc", "zero.orc")]
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_same_table_as_pyarrow(path) -> None:
    expected = po.read_table(str(path))
    ours = warpzip.orc.read_table(path, device="cpu")
    assert ours.num_rows == expected.num_rows
    assert ours.column_names == expected.column_names
    assert pa.table(ours).equals(expected)


def test_columns_and_batches() -> None:
    path = ORC_TESTDATA / "TestOrcFile.testSeek.orc"
    expected = po.read_table(str(path))
    names = expected.column_names[:2][::-1]
    t = pa.table(warpzip.orc.read_table(path, columns=names))
    assert t.equals(expected.select(names))
    batches = list(warpzip.orc.read_batches(path, batch_rows=5000, device="cpu"))
    assert len(batches) > 1
    assert pa.concat_tables([pa.table(b) for b in batches]).equals(expected)
    # The reader as one Arrow stream.
    reader = warpzip.orc.read_batches(path, batch_rows=5000)
    assert pa.RecordBatchReader.from_stream(reader).read_all().equals(expected)
    with pytest.raises(warpzip.WarpzipError):
        reader.__arrow_c_stream__()


def test_errors() -> None:
    with pytest.raises(ValueError):
        warpzip.orc.read_table(ORC_TESTDATA / "TestOrcFile.test1.orc", columns=["no_such"])
    with pytest.raises(warpzip.UnsupportedError):
        warpzip.orc.read_table(ORC_FIXTURES / "types" / "union.orc")
    with pytest.raises(OSError):
        warpzip.orc.read_table(ORC_TESTDATA / "does-not-exist.orc")
    for bad in sorted((ORC_TESTDATA / "corrupt").glob("*.orc")):
        with pytest.raises(warpzip.CorruptDataError):
            warpzip.orc.read_table(bad)
    with pytest.raises(warpzip.CorruptDataError):
        warpzip.orc.read_table(ORC_TESTDATA / "zero.orc")


def test_schema() -> None:
    cols = warpzip.orc.schema(ORC_TESTDATA / "TestOrcFile.test1.orc")
    assert cols[0][0] == "boolean1"


def test_polars_and_duckdb() -> None:
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    path = ORC_FIXTURES / "keys_v011_zlib.orc"
    expected = po.read_table(str(path))
    t = warpzip.orc.read_table(path)
    df = pl.DataFrame(t)
    assert df.shape == (expected.num_rows, expected.num_columns)
    assert df.to_arrow().equals(pl.DataFrame(expected).to_arrow())
    col = expected.column_names[0]
    con = duckdb.connect()
    got = con.sql(f'SELECT count(*), sum("{col}") FROM t').fetchall()
    want = con.sql(f'SELECT count(*), sum("{col}") FROM expected').fetchall()
    assert got == want


def test_no_pyarrow_needed() -> None:
    # The package imports and reads without pyarrow: the capsule comes from Rust.
    import subprocess

    code = (
        "import sys; sys.modules['pyarrow'] = None; import warpzip;"
        f"t = warpzip.orc.read_table({str(ORC_TESTDATA / 'TestOrcFile.test1.orc')!r});"
        "c = t.__arrow_c_stream__(); print(t.num_rows, type(c).__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    assert out.split() == ["2", "PyCapsule"]
