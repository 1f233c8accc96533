"""numcodecs codecs (``warpzip.<codec>``), registered through the ``numcodecs.codecs`` entry
point group, so ``numcodecs.get_codec({"id": "warpzip.deflate"})`` and zarr v2 arrays find
them once warpzip is installed.

``warpzip.gzip`` writes standard gzip (zlib and Python's ``gzip`` read it) and reads gzip and
BGZF; the others write ``.wz`` containers. The typed codecs (tile bit-packing, ORC RLE, sz)
take the dtype from the array they are given.
"""

from __future__ import annotations

from typing import Any

from numcodecs.abc import Codec as _NumcodecsCodec

import warpzip as _wz

from ._codec_config import Configured


class _Codec(Configured, _NumcodecsCodec):
    """A warpzip codec: its streams describe themselves, so every one decodes alike."""

    def decode(self, buf: Any, out: Any = None) -> Any:
        if out is not None:
            return _wz.decompress(buf, out, device=self.device)
        return _wz.decompress(buf, device=self.device)

    def get_config(self) -> dict:
        return {"id": self.codec_id, **self._configuration()}


class _WarpzipCodec(_Codec):
    _codec = "deflate"
    _format = "wz"
    _config_keys = ("level", "chunk_size", "device")

    def __init__(self, level: int | None = None, chunk_size: int | None = None,
                 device: str = "auto") -> None:
        self.level = level
        self.chunk_size = chunk_size
        self.device = device

    def _options(self) -> dict:
        return {}

    def encode(self, buf: Any) -> bytes:
        return _wz.compress(buf, self._codec, self.level, chunk_size=self.chunk_size,
                            format=self._format, device=self.device, **self._options())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(level={self.level!r}, chunk_size={self.chunk_size!r})"


class Deflate(_WarpzipCodec):
    codec_id = "warpzip.deflate"
    _codec = "deflate"


class Gzip(_WarpzipCodec):
    """Standard gzip members, inflated on the GPU when one is usable."""

    codec_id = "warpzip.gzip"
    _codec = "deflate"
    _format = "gzip"


class Rle(_WarpzipCodec):
    codec_id = "warpzip.rle"
    _codec = "rle"


class Snappy(_WarpzipCodec):
    codec_id = "warpzip.snappy"
    _codec = "snappy"


class Lz4(_WarpzipCodec):
    codec_id = "warpzip.lz4"
    _codec = "lz4"


class For(_WarpzipCodec):
    codec_id = "warpzip.for"
    _codec = "for"


class Dfor(_WarpzipCodec):
    codec_id = "warpzip.dfor"
    _codec = "dfor"


class Rfor(_WarpzipCodec):
    codec_id = "warpzip.rfor"
    _codec = "rfor"


class Tile(_WarpzipCodec):
    codec_id = "warpzip.tile"
    _codec = "tile"


class OrcRleV1(_WarpzipCodec):
    codec_id = "warpzip.orc-rle-v1"
    _codec = "orc-rle-v1"


class OrcRleV2(_WarpzipCodec):
    codec_id = "warpzip.orc-rle-v2"
    _codec = "orc-rle-v2"


class Sz(_Codec):
    """Error-bounded lossy compression of float32/float64 chunks (one bound of ``abs``,
    ``rel``, ``pw_rel``)."""

    codec_id = "warpzip.sz"
    _config_keys = ("mode", "abs", "rel", "pw_rel", "fill", "device")

    def __init__(self, abs: float | None = None, rel: float | None = None,
                 pw_rel: float | None = None, fill: list | None = None, mode: str = "ratio",
                 device: str = "auto") -> None:
        self.abs, self.rel, self.pw_rel = abs, rel, pw_rel
        self.fill = list(fill or [])
        self.mode = mode
        self.device = device

    def encode(self, buf: Any) -> bytes:
        return _wz.lossy.compress(buf, abs=self.abs, rel=self.rel, pw_rel=self.pw_rel,
                                  fill=self.fill, mode=self.mode, device=self.device)


ALL = [Deflate, Gzip, Rle, Snappy, Lz4, For, Dfor, Rfor, Tile, OrcRleV1, OrcRleV2, Sz]


def register() -> None:
    """Registers every codec with numcodecs (the entry points do this on their own)."""
    from numcodecs.registry import register_codec

    for cls in ALL:
        register_codec(cls)
