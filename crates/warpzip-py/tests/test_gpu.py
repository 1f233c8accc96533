"""Tests that need a CUDA GPU: skipped unless WARPZIP_REQUIRE_GPU=1, and then they must pass
(without a GPU they fail, as they should)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import warpzip
from conftest import ORC_FIXTURES

pytestmark = pytest.mark.gpu

RNG = np.random.default_rng(9)


def test_gpu_is_used() -> None:
    info = warpzip.gpu_info()
    assert info["available"], info["reason"]
    assert info["device"] != "cpu"


@pytest.mark.parametrize("codec", ["deflate", "rle", "dfor", "tile", "orc-rle-v2"])
def test_gpu_round_trip_matches_cpu(codec: str) -> None:
    data = np.cumsum(RNG.integers(0, 3, 1_000_000)).astype(np.int32)
    blob = warpzip.compress(data, codec, device="cuda")
    assert warpzip.decompress(blob, device="cuda") == data.tobytes()
    assert warpzip.decompress(blob, device="cpu") == data.tobytes()


def test_gpu_gzip_and_orc() -> None:
    data = RNG.integers(0, 9, 2_000_000).astype(np.uint8).tobytes()
    assert warpzip.decompress(gzip.compress(data), device="cuda") == data
    pa = pytest.importorskip("pyarrow")
    path = ORC_FIXTURES / "ints_v012_zlib.orc"
    assert pa.table(warpzip.orc.read_table(path, device="cuda")).equals(
        pa.table(warpzip.orc.read_table(path, device="cpu")))


def test_cuda_arrays_in_and_out() -> None:
    cupy = pytest.importorskip("cupy")
    host = np.cumsum(RNG.integers(0, 3, 100_000)).astype(np.int64)
    dev = cupy.asarray(host)
    blob = warpzip.compress(dev, "dfor", device="cuda")
    assert blob == warpzip.compress(host, "dfor", device="cuda")
    out = cupy.empty_like(dev)
    stream = cupy.cuda.Stream()
    warpzip.decompress(blob, out=out, stream=stream.ptr)
    stream.synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), host)
    # Through DLPack only.
    out2 = cupy.zeros_like(dev)

    class DL:
        def __dlpack__(self, **kw):
            return out2.__dlpack__(**kw)

        def __dlpack_device__(self):
            return out2.__dlpack_device__()

    warpzip.decompress(blob, out=DL())
    np.testing.assert_array_equal(cupy.asnumpy(out2), host)
