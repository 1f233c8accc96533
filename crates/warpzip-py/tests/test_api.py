"""compress/decompress over bytes, memoryview and NumPy, in place and in batches; errors."""

from __future__ import annotations

import gzip
import threading
import zlib

import numpy as np
import pytest

import warpzip

RNG = np.random.default_rng(7)


def _ints(dtype: str, n: int = 50_000) -> np.ndarray:
    base = np.cumsum(RNG.integers(0, 5, n)).astype(dtype)
    base[::97] = 3
    return base


# Each codec with an input it accepts.
CASES = {
    "deflate": lambda: RNG.integers(0, 16, 200_000, dtype=np.uint8),
    "rle": lambda: np.repeat(RNG.integers(0, 4, 2000, dtype=np.uint8), 50),
    "snappy": lambda: RNG.integers(0, 8, 100_000, dtype=np.uint8),
    "lz4": lambda: RNG.integers(0, 8, 100_000, dtype=np.uint8),
    "orc-rle-v1": lambda: _ints("int64"),
    "orc-rle-v2": lambda: _ints("int32"),
    "for": lambda: _ints("uint32"),
    "dfor": lambda: _ints("int64"),
    "rfor": lambda: np.repeat(_ints("int32", 1000), 30),
    "tile": lambda: _ints("uint64"),
}


@pytest.mark.parametrize("codec", sorted(CASES))
def test_round_trip_numpy_bytes_memoryview(codec: str) -> None:
    arr = CASES[codec]()
    blob = warpzip.compress(arr, codec)
    assert warpzip.decompress(blob) == arr.tobytes()
    # From bytes and from a memoryview, the typed codecs told the dtype.
    dtype = None if codec in ("deflate", "rle", "snappy", "lz4") else warpzip.info(blob)["dtype"]
    assert warpzip.compress(arr.tobytes(), codec, dtype=dtype) == blob
    assert warpzip.compress(memoryview(arr), codec) == blob
    assert warpzip.decompress(memoryview(blob)) == arr.tobytes()
    assert warpzip.decompress(np.frombuffer(blob, dtype=np.uint8)) == arr.tobytes()
    # In place into a NumPy array of the right dtype and into a bytearray.
    out = np.empty_like(arr)
    assert warpzip.decompress(blob, out=out) is out
    np.testing.assert_array_equal(out, arr)
    buf = bytearray(arr.nbytes)
    warpzip.decompress(blob, out=buf)
    assert bytes(buf) == arr.tobytes()
    np.testing.assert_array_equal(warpzip.decompress_array(blob).reshape(-1).view(arr.dtype)
                                  if codec in ("deflate", "rle", "snappy", "lz4")
                                  else warpzip.decompress_array(blob), arr)


def test_sz_through_compress_matches_lossy_bound() -> None:
    field = RNG.standard_normal((64, 64)).astype(np.float32)
    blob = warpzip.compress(field, "sz", eb="abs:1e-2", dims=[64, 64])
    back = np.frombuffer(warpzip.decompress(blob), dtype=np.float32).reshape(64, 64)
    assert np.abs(back - field).max() <= 1e-2


def test_empty_input() -> None:
    for codec in ("deflate", "rle", "lz4", "snappy"):
        blob = warpzip.compress(b"", codec)
        assert warpzip.decompress(blob) == b""


def test_levels_and_chunk_size() -> None:
    data = bytes(RNG.integers(0, 4, 300_000, dtype=np.uint8))
    fast = warpzip.compress(data, "deflate", 1, chunk_size=65536)
    best = warpzip.compress(data, "deflate", 9, chunk_size=65536)
    assert warpzip.info(fast)["chunk_size"] == 65536
    assert len(best) <= len(fast)
    assert warpzip.decompress(best) == data


def test_gzip_interop_with_zlib_and_gzip() -> None:
    data = bytes(RNG.integers(0, 10, 500_000, dtype=np.uint8))
    ours = warpzip.compress(data, format="gzip")
    assert gzip.decompress(ours) == data
    assert zlib.decompress(ours, 16 + zlib.MAX_WBITS) == data
    # gzip from Python, multi-member, and BGZF read back.
    assert warpzip.decompress(gzip.compress(data)) == data
    assert warpzip.decompress(gzip.compress(data[:1000]) + gzip.compress(data[1000:])) == data
    bgzf = warpzip.compress(data, format="bgzf")
    assert gzip.decompress(bgzf) == data
    assert warpzip.decompress(bgzf) == data
    out = np.empty(len(data), dtype=np.uint8)
    warpzip.decompress(bgzf, out=out)
    assert out.tobytes() == data


def test_errors_are_exceptions() -> None:
    blob = bytearray(warpzip.compress(b"abc" * 10_000, "deflate"))
    blob[-5] ^= 0xFF
    with pytest.raises(warpzip.CorruptDataError) as e:
        warpzip.decompress(bytes(blob))
    assert isinstance(e.value, ValueError)
    with pytest.raises(warpzip.CorruptDataError):
        warpzip.decompress(b"not a compressed file")
    with pytest.raises(warpzip.CorruptDataError):
        warpzip.decompress(gzip.compress(b"x" * 1000)[:-3])
    with pytest.raises(ValueError):
        warpzip.compress(b"abc", "no-such-codec")
    with pytest.raises(ValueError):
        warpzip.compress(b"abc", "deflate", device="tpu")
    with pytest.raises(ValueError):
        warpzip.decompress(warpzip.compress(b"abc"), out=bytearray(2))
    with pytest.raises(ValueError):
        warpzip.decompress(warpzip.compress(b"abc"), out=b"123")
    with pytest.raises(TypeError):
        warpzip.compress(12345)
    with pytest.raises(ValueError):
        warpzip.compress(np.arange(10)[::2])
    with pytest.raises(ValueError):
        warpzip.compress(np.arange(10, dtype=">i4"), "dfor")


def test_gpu_unavailable_is_its_own_error() -> None:
    if warpzip.gpu_info()["available"]:
        pytest.skip("a GPU is usable here")
    with pytest.raises(warpzip.GpuUnavailableError):
        warpzip.compress(b"abc", device="cuda")
    with pytest.raises(warpzip.GpuUnavailableError):
        warpzip.decompress(warpzip.compress(b"abc"), device="cuda:1")


def test_gpu_info_says_why() -> None:
    info = warpzip.gpu_info()
    assert isinstance(info["available"], bool)
    assert info["reason"]
    assert info["device"] == ("cpu" if not info["available"] else info["name"])
    assert "nvrtc_note" in info


def test_codec_object_threads_and_batches() -> None:
    codec = warpzip.Codec("deflate", 6)
    items = [bytes(RNG.integers(0, 3, 20_000 + i, dtype=np.uint8)) for i in range(16)]
    blobs = codec.encode_batch(items)
    assert blobs == [warpzip.compress(x, "deflate", 6) for x in items]
    assert codec.decode_batch(blobs) == items
    outs = [bytearray(len(x)) for x in items]
    codec.decode_batch(blobs, outs)
    assert [bytes(o) for o in outs] == items
    results: list = [None] * 8

    def work(i: int) -> None:
        results[i] = codec.decode(codec.encode(items[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == items[:8]
    with pytest.raises(ValueError):
        warpzip.Codec("nope")


def test_select() -> None:
    values = RNG.integers(0, 1000, 10_000).astype(np.uint32)
    mask = RNG.random(10_000) < 0.3
    np.testing.assert_array_equal(warpzip.select(values, mask), values[mask])
    packed = np.packbits(mask, bitorder="little")
    np.testing.assert_array_equal(warpzip.select(values, packed, bits=True), values[mask])
    floats = RNG.random(1000)
    fm = floats > 0.5
    np.testing.assert_array_equal(warpzip.select(floats, fm), floats[fm])
    with pytest.raises(ValueError):
        warpzip.select(values, mask[:10])


class _DLPackOnly:
    """An array that offers only DLPack (no buffer protocol)."""

    def __init__(self, arr: np.ndarray) -> None:
        self._arr = arr

    def __dlpack__(self, **kwargs):
        return self._arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._arr.__dlpack_device__()


def test_dlpack_round_trip_on_the_cpu() -> None:
    arr = _ints("int32", 30_000)
    blob = warpzip.compress(_DLPackOnly(arr), "dfor")
    assert blob == warpzip.compress(arr, "dfor")
    out = np.zeros_like(arr)
    warpzip.decompress(blob, out=_DLPackOnly(out))
    np.testing.assert_array_equal(out, arr)
    # The result of decompress_array goes back out through DLPack.
    back = np.from_dlpack(warpzip.decompress_array(blob))
    np.testing.assert_array_equal(back, arr)
    with pytest.raises(ValueError):
        warpzip.compress(_DLPackOnly(arr.reshape(100, 300)[:, ::2]), "dfor")


def test_codecs_list() -> None:
    assert set(warpzip.codecs()) >= set(CASES) | {"sz"}
