"""The HDF5 filter, registered with h5py by importing warpzip.hdf5."""

from __future__ import annotations

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")

import warpzip.hdf5  # noqa: E402


@pytest.mark.parametrize("codec,dtype", [("deflate", None), ("rle", None), ("lz4", None),
                                         ("dfor", "i64"), ("tile", "i64")])
def test_h5py_round_trip(tmp_path, codec, dtype) -> None:
    assert h5py.h5z.filter_avail(warpzip.hdf5.FILTER_ID)
    data = np.cumsum(np.random.default_rng(1).integers(0, 3, 100_000)).astype(np.int64)
    path = tmp_path / "f.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=data, chunks=(8192,),
                         **warpzip.hdf5.filter_options(codec, dtype=dtype))
    with h5py.File(path, "r") as f:
        ds = f["x"]
        assert ds._filters.keys() >= {str(warpzip.hdf5.FILTER_ID)} or ds.compression
        np.testing.assert_array_equal(ds[:], data)
        # Each chunk is a .wz container.
        raw = ds.id.read_direct_chunk((0,))[1]
        assert warpzip.info(raw)["codec"] == codec


def test_filter_id_is_in_the_testing_range() -> None:
    assert 256 <= warpzip.hdf5.FILTER_ID <= 511
    with pytest.raises(ValueError):
        warpzip.hdf5.filter_options("sz")
