"""zarr v3 codecs (``warpzip.<codec>``), registered through the ``zarr.codecs`` entry point
group, and :class:`GzipCodec`, a drop-in for zarr's own ``gzip`` codec that inflates on the
GPU when one is usable and writes the same standard gzip::

    zarr.config.set({"codecs.gzip": "warpzip.zarr.GzipCodec"})

Bytes-to-bytes: ``warpzip.deflate``, ``warpzip.gzip``, ``warpzip.rle``, ``warpzip.snappy``,
``warpzip.lz4``. Array-to-bytes: ``warpzip.sz`` (lossy float fields) and the integer tile
codecs ``warpzip.for``, ``warpzip.dfor``, ``warpzip.rfor``, ``warpzip.tile``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from zarr.abc.codec import ArrayBytesCodec, BytesBytesCodec
from zarr.codecs.gzip import GzipCodec as _ZarrGzip
from zarr.core.array_spec import ArraySpec
from zarr.core.buffer import Buffer, NDBuffer

import warpzip as _wz

from ._codec_config import Configured


def _to_host(chunk_bytes: Buffer) -> Any:
    return chunk_bytes.as_numpy_array()


class _Codec(Configured):
    """What every warpzip zarr codec shares: its configuration, and its chunks encoded and
    decoded off the event loop."""

    is_fixed_size = False

    @classmethod
    def from_dict(cls, data: dict) -> Any:
        return cls(**data.get("configuration", {}))

    def to_dict(self) -> dict:
        return {"name": self._name, "configuration": self._configuration()}

    async def _decode_single(self, chunk: Any, chunk_spec: ArraySpec) -> Any:
        return await asyncio.to_thread(self._decode_sync, chunk, chunk_spec)

    async def _encode_single(self, chunk: Any, chunk_spec: ArraySpec) -> Buffer | None:
        return await asyncio.to_thread(self._encode_sync, chunk, chunk_spec)

    def compute_encoded_size(self, _input_byte_length: int, _chunk_spec: ArraySpec) -> int:
        raise NotImplementedError


@dataclass(frozen=True)
class _WarpzipBytesCodec(_Codec, BytesBytesCodec):
    _name = "warpzip.deflate"
    _codec = "deflate"
    _format = "wz"
    _config_keys = ("level", "device")

    level: int | None = None
    device: str = "auto"

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer:
        out = _wz.decompress(_to_host(chunk_bytes), device=self.device)
        return chunk_spec.prototype.buffer.from_bytes(out)

    def _encode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer | None:
        out = _wz.compress(_to_host(chunk_bytes), self._codec, self.level,
                           format=self._format, device=self.device)
        return chunk_spec.prototype.buffer.from_bytes(out)


@dataclass(frozen=True)
class Deflate(_WarpzipBytesCodec):
    _name = "warpzip.deflate"
    _codec = "deflate"


@dataclass(frozen=True)
class Gzip(_WarpzipBytesCodec):
    _name = "warpzip.gzip"
    _codec = "deflate"
    _format = "gzip"


@dataclass(frozen=True)
class Rle(_WarpzipBytesCodec):
    _name = "warpzip.rle"
    _codec = "rle"


@dataclass(frozen=True)
class Snappy(_WarpzipBytesCodec):
    _name = "warpzip.snappy"
    _codec = "snappy"


@dataclass(frozen=True)
class Lz4(_WarpzipBytesCodec):
    _name = "warpzip.lz4"
    _codec = "lz4"


def _decode_array(chunk_bytes: Buffer, chunk_spec: ArraySpec, device: str) -> NDBuffer:
    dtype = chunk_spec.dtype.to_native_dtype()
    out = np.empty(chunk_spec.shape, dtype=dtype)
    _wz.decompress(_to_host(chunk_bytes), out, device=device)
    return chunk_spec.prototype.nd_buffer.from_ndarray_like(out)


@dataclass(frozen=True)
class _WarpzipArrayCodec(_Codec, ArrayBytesCodec):
    _name = "warpzip.tile"
    _codec = "tile"
    _config_keys = ("device",)

    device: str = "auto"

    def _encode_array(self, arr: Any) -> bytes:
        return _wz.compress(arr, self._codec, device=self.device)

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> NDBuffer:
        return _decode_array(chunk_bytes, chunk_spec, self.device)

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> Buffer | None:
        arr = np.ascontiguousarray(chunk_array.as_numpy_array())
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        return chunk_spec.prototype.buffer.from_bytes(self._encode_array(arr))


@dataclass(frozen=True)
class For(_WarpzipArrayCodec):
    _name = "warpzip.for"
    _codec = "for"


@dataclass(frozen=True)
class Dfor(_WarpzipArrayCodec):
    _name = "warpzip.dfor"
    _codec = "dfor"


@dataclass(frozen=True)
class Rfor(_WarpzipArrayCodec):
    _name = "warpzip.rfor"
    _codec = "rfor"


@dataclass(frozen=True)
class Tile(_WarpzipArrayCodec):
    _name = "warpzip.tile"
    _codec = "tile"


@dataclass(frozen=True)
class Sz(_WarpzipArrayCodec):
    """Error-bounded lossy float32/float64 chunks: one bound of ``abs``, ``rel``, ``pw_rel``."""

    _name = "warpzip.sz"
    _codec = "sz"
    _config_keys = ("mode", "abs", "rel", "pw_rel", "fill", "device")

    abs: float | None = None
    rel: float | None = None
    pw_rel: float | None = None
    fill: tuple = field(default=())
    mode: str = "ratio"

    def __post_init__(self) -> None:
        object.__setattr__(self, "fill", tuple(self.fill))
        if sum(v is not None for v in (self.abs, self.rel, self.pw_rel)) != 1:
            raise ValueError("warpzip.sz takes exactly one bound: abs, rel or pw_rel")

    def _encode_array(self, arr: Any) -> bytes:
        return _wz.lossy.compress(arr, abs=self.abs, rel=self.rel, pw_rel=self.pw_rel,
                                  fill=self.fill, mode=self.mode, device=self.device)


class GzipCodec(_ZarrGzip):
    """zarr's ``gzip`` codec (same name, configuration and bytes on disk), its chunks inflated
    by warpzip: on the GPU when one is usable."""

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer:
        return chunk_spec.prototype.buffer.from_bytes(_wz.decompress(_to_host(chunk_bytes)))

    def _encode_sync(self, chunk_bytes: Buffer, chunk_spec: ArraySpec) -> Buffer | None:
        out = _wz.compress(_to_host(chunk_bytes), "deflate", self.level, format="gzip")
        return chunk_spec.prototype.buffer.from_bytes(out)


ALL = [Deflate, Gzip, Rle, Snappy, Lz4, For, Dfor, Rfor, Tile, Sz]


def register() -> None:
    """Registers every codec with zarr (the entry points do this on their own)."""
    from zarr.registry import register_codec

    for cls in ALL:
        register_codec(cls._name, cls)
    register_codec("gzip", GzipCodec)
