"""numcodecs and zarr (v2 and v3) find warpzip's codecs through their entry points."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import warpzip

numcodecs = pytest.importorskip("numcodecs")
zarr = pytest.importorskip("zarr")

RNG = np.random.default_rng(5)

NUMCODECS_IDS = ["warpzip.deflate", "warpzip.gzip", "warpzip.rle", "warpzip.snappy",
                 "warpzip.lz4", "warpzip.for", "warpzip.dfor", "warpzip.rfor", "warpzip.tile",
                 "warpzip.orc-rle-v1", "warpzip.orc-rle-v2"]


@pytest.mark.parametrize("codec_id", NUMCODECS_IDS)
def test_numcodecs_registry(codec_id: str) -> None:
    codec = numcodecs.get_codec({"id": codec_id})
    assert codec.codec_id == codec_id
    data = np.cumsum(RNG.integers(0, 3, 20_000)).astype(np.int64)
    enc = codec.encode(data)
    dec = np.frombuffer(codec.decode(enc), dtype=np.int64)
    np.testing.assert_array_equal(dec, data)
    out = np.empty_like(data)
    codec.decode(enc, out=out)
    np.testing.assert_array_equal(out, data)
    again = numcodecs.get_codec(codec.get_config())
    assert again.get_config() == codec.get_config()


def test_numcodecs_gzip_is_standard_gzip() -> None:
    codec = numcodecs.get_codec({"id": "warpzip.gzip", "level": 6})
    data = RNG.integers(0, 5, 100_000).astype(np.uint8)
    assert gzip.decompress(codec.encode(data)) == data.tobytes()
    assert codec.decode(numcodecs.GZip(5).encode(data)) == data.tobytes()


def test_numcodecs_sz() -> None:
    codec = numcodecs.get_codec({"id": "warpzip.sz", "abs": 1e-3})
    field = RNG.standard_normal((50, 40)).astype(np.float32)
    back = np.frombuffer(codec.decode(codec.encode(field)), dtype=np.float32).reshape(50, 40)
    assert np.abs(back - field).max() <= 1e-3


def test_numcodecs_sz_config_keeps_its_device() -> None:
    codec = numcodecs.get_codec({"id": "warpzip.sz", "rel": 1e-2, "device": "cpu"})
    assert codec.get_config()["device"] == "cpu"
    again = numcodecs.get_codec(codec.get_config())
    assert again.device == "cpu" and again.get_config() == codec.get_config()
    assert "device" not in numcodecs.get_codec({"id": "warpzip.sz", "rel": 1e-2}).get_config()


def test_zarr_v2_array(tmp_path) -> None:
    data = np.cumsum(RNG.integers(0, 3, (200, 300)), axis=1).astype(np.int32)
    z = zarr.create_array(str(tmp_path / "v2.zarr"), shape=data.shape, chunks=(64, 64),
                          dtype=data.dtype, zarr_format=2,
                          compressors=numcodecs.get_codec({"id": "warpzip.deflate"}))
    z[:] = data
    again = zarr.open_array(str(tmp_path / "v2.zarr"), mode="r")
    np.testing.assert_array_equal(again[:], data)
    assert again.metadata.compressor.codec_id == "warpzip.deflate"


@pytest.mark.parametrize("name", ["warpzip.deflate", "warpzip.gzip", "warpzip.rle",
                                  "warpzip.snappy", "warpzip.lz4"])
def test_zarr_v3_bytes_codecs(tmp_path, name: str) -> None:
    from zarr.registry import get_codec_class

    data = RNG.integers(0, 4, (100, 120)).astype(np.uint16)
    codec = get_codec_class(name)()
    path = str(tmp_path / "a.zarr")
    z = zarr.create_array(path, shape=data.shape, chunks=(32, 50), dtype=data.dtype,
                          compressors=[codec])
    z[:] = data
    again = zarr.open_array(path, mode="r")
    np.testing.assert_array_equal(again[:], data)
    assert again.metadata.codecs[-1].to_dict()["name"] == name


@pytest.mark.parametrize("name", ["warpzip.for", "warpzip.dfor", "warpzip.rfor",
                                  "warpzip.tile"])
def test_zarr_v3_tile_codecs(tmp_path, name: str) -> None:
    from zarr.registry import get_codec_class

    data = np.cumsum(RNG.integers(0, 3, (100, 130)), axis=1).astype(np.int64)
    path = str(tmp_path / "t.zarr")
    z = zarr.create_array(path, shape=data.shape, chunks=(40, 64), dtype=data.dtype,
                          serializer=get_codec_class(name)(), compressors=None)
    z[:] = data
    np.testing.assert_array_equal(zarr.open_array(path, mode="r")[:], data)


def test_zarr_v3_lossy_array(tmp_path) -> None:
    from warpzip.zarr import Sz

    field = RNG.standard_normal((60, 70)).astype(np.float32)
    path = str(tmp_path / "lossy.zarr")
    z = zarr.create_array(path, shape=field.shape, chunks=(32, 32), dtype="float32",
                          serializer=Sz(abs=1e-2), compressors=None)
    z[:] = field
    again = zarr.open_array(path, mode="r")
    assert np.abs(again[:] - field).max() <= 1e-2
    assert again.metadata.codecs[0].to_dict() == {"name": "warpzip.sz",
                                                  "configuration": {"mode": "ratio", "abs": 0.01}}


def test_zarr_gzip_drop_in(tmp_path) -> None:
    from warpzip.zarr import GzipCodec

    data = RNG.integers(0, 6, (90, 80)).astype(np.int16)
    path = str(tmp_path / "g.zarr")
    # Written by zarr's own gzip codec, read back through warpzip's, and the other way.
    z = zarr.create_array(path, shape=data.shape, chunks=(30, 40), dtype=data.dtype,
                          compressors=[zarr.codecs.GzipCodec(level=5)])
    z[:] = data
    with zarr.config.set({"codecs.gzip": "warpzip.zarr.GzipCodec"}):
        again = zarr.open_array(path, mode="r")
        assert isinstance(again.metadata.codecs[-1], GzipCodec)
        np.testing.assert_array_equal(again[:], data)
        path2 = str(tmp_path / "g2.zarr")
        z2 = zarr.create_array(path2, shape=data.shape, chunks=(30, 40), dtype=data.dtype,
                               compressors=[{"name": "gzip", "configuration": {"level": 5}}])
        z2[:] = data
    plain = zarr.open_array(path2, mode="r")
    assert type(plain.metadata.codecs[-1]) is zarr.codecs.GzipCodec
    np.testing.assert_array_equal(plain[:], data)
