"""warpzip: GPU compression of byte streams, integer columns and floating-point fields.

Whole-buffer compression and decompression of ``.wz`` files (byte for byte what the
``warpzip`` command writes) and of gzip and BGZF files, the lossy error-bounded ``sz`` codec
(:mod:`warpzip.lossy`), compaction by a mask (:func:`select`), ORC files read into Arrow
tables (:mod:`warpzip.orc`), and codecs for numcodecs and zarr (:mod:`warpzip.numcodecs`,
:mod:`warpzip.zarr`). Work runs on a CUDA GPU when one is usable (``device="auto"``) and on
the CPU otherwise; :func:`gpu_info` says which and why.

Inputs are anything with the buffer protocol (bytes, bytearray, memoryview, NumPy arrays),
read in place, and DLPack or CUDA arrays, copied from the device.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterable, Sequence

from . import _nvrtc

_nvrtc.preload()

from . import _warpzip  # noqa: E402
from ._buffers import Output, as_input  # noqa: E402
from ._warpzip import (  # noqa: E402
    ArrowTable,
    BatchReader,
    CorruptDataError,
    GpuUnavailableError,
    UnsupportedError,
    WarpzipError,
)

__all__ = [
    "ArrowTable",
    "BatchReader",
    "Codec",
    "CorruptDataError",
    "GpuUnavailableError",
    "UnsupportedError",
    "WarpzipError",
    "codecs",
    "compress",
    "decompress",
    "decompress_array",
    "gpu_info",
    "info",
    "lossy",
    "orc",
    "select",
]

__version__ = "0.1.0"

#: Codecs whose input is typed integers or floats: a NumPy array's dtype is recorded.
TYPED_CODECS = frozenset({"orc-rle-v1", "orc-rle-v2", "for", "dfor", "rfor", "tile", "sz"})


def codecs() -> list[str]:
    """The names of the codecs this build knows."""
    return list(_warpzip.codecs())


def compress(
    data: Any,
    codec: str = "deflate",
    level: int | None = None,
    *,
    chunk_size: int | None = None,
    dtype: str | None = None,
    format: str = "wz",
    device: str = "auto",
    reader: str = "auto",
    eb: str | None = None,
    dims: Sequence[int] | None = None,
    fill: Sequence[float] = (),
    mode: str = "ratio",
    stream: int | None = None,
) -> bytes:
    """Compresses ``data`` into a ``.wz`` file exactly as ``warpzip compress`` does with the
    same options, or into a gzip or BGZF file (``format="gzip"|"bgzf"``, codec deflate).

    ``codec`` is one of :func:`codecs` (deflate, rle, orc-rle-v1, orc-rle-v2, for, dfor, rfor,
    tile, sz, snappy, lz4). ``dtype`` (u8 ... f64) is recorded in the header; for the typed
    codecs it is taken from a NumPy array when not given. ``device`` is ``"auto"`` (a GPU when
    usable), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``. ``reader`` (auto, cpu, gpu) is the reader
    the file is meant for, which sets deflate's default chunk size as ``--for`` does. ``eb``
    (``"abs:1e-3"``, ``"rel:1e-4"``, ``"pw-rel:1e-2"``), ``dims``, ``fill`` and ``mode`` are the
    sz codec's options (:func:`warpzip.lossy.compress` is the array-level front end).
    ``stream`` orders the copy of a CUDA input after that stream's work.
    """
    inp = as_input(data, stream)
    if dtype is None and codec in TYPED_CODECS:
        dtype = inp.dtype
    return _warpzip.compress(
        inp.view, codec, level, chunk_size, dtype, format, device, reader, eb,
        None if dims is None else [int(d) for d in dims], [float(f) for f in fill], mode,
    )


def decompress(data: Any, out: Any = None, *, device: str = "auto",
               stream: int | None = None) -> Any:
    """Decompresses a ``.wz`` file, or a gzip/BGZF file (recognised by its first bytes), after
    checking every checksum. Returns new ``bytes``; with ``out=`` (a writable buffer, NumPy
    array, DLPack or CUDA array of exactly the uncompressed size) writes in place and returns
    ``out``. Damaged input raises :class:`CorruptDataError`."""
    inp = as_input(data, stream)
    if out is None:
        return _warpzip.decompress(inp.view, device)
    target = Output(out, stream)
    _warpzip.decompress_into(inp.view, target.view, device)
    target.finish()
    return out


def info(data: Any) -> dict:
    """What a ``.wz`` file's header says: codec, dtype, shape, sizes, chunk and frame counts,
    the codec's parameters in words, and whether every checksum matched."""
    return dict(_warpzip.info(as_input(data).view))


def decompress_array(data: Any, *, device: str = "auto") -> Any:
    """Decompresses a ``.wz`` file into a NumPy array of the dtype and shape its header
    records (a flat array where it records none; ``uint8`` for untyped bytes)."""
    import numpy as np

    inp = as_input(data)
    head = _warpzip.info(inp.view)
    name = head["dtype"]
    dtype = np.dtype("u1" if name == "bytes" else f"{name[0]}{int(name[1:]) // 8}")
    count = head["total_len"] // dtype.itemsize
    shape = tuple(head["shape"]) or (count,)
    out = np.empty(shape, dtype=dtype)
    _warpzip.decompress_into(inp.view, memoryview(out).cast("B"), device)
    return out


def select(values: Any, mask: Any, *, bits: bool = False, device: str = "auto") -> Any:
    """Keeps the values whose mask entry is set, in order (compressstore). ``mask`` holds a
    byte (or bool) a value, nonzero keeping it; with ``bits=True`` it is packed, least
    significant bit first. Returns a NumPy array for a NumPy input, ``bytes`` otherwise."""
    inp = as_input(values)
    dtype = inp.dtype or "u8"
    m = as_input(mask)
    out = _warpzip.select(inp.view, dtype, m.view, "bits" if bits else "flags", device)
    if hasattr(values, "dtype") and hasattr(values, "__array__"):
        import numpy as np

        return np.frombuffer(out, dtype=values.dtype).copy()
    return out


def gpu_info() -> dict:
    """Whether ``device="auto"`` uses a GPU and why or why not, with the GPU's name,
    architecture and SM count when it does, and where NVRTC was loaded from."""
    d = dict(_warpzip.gpu_info())
    d.update(_nvrtc.status())
    return d


class Codec:
    """A compressor/decompressor configured once and used many times, from any number of
    threads at once (it holds no mutable state; the work runs without the GIL).

    ``Codec("deflate", level=9).encode(data)`` equals ``compress(data, "deflate", 9)``."""

    def __init__(self, codec: str = "deflate", level: int | None = None, *,
                 device: str = "auto", threads: int | None = None, **options: Any) -> None:
        if codec not in _warpzip.codecs():
            raise ValueError(f"unknown codec '{codec}' (known: {', '.join(_warpzip.codecs())})")
        self.codec = codec
        self.level = level
        self.device = device
        self.options = dict(options)
        self._threads = threads or min(8, os.cpu_count() or 1)

    def __repr__(self) -> str:
        return f"warpzip.Codec({self.codec!r}, level={self.level!r}, device={self.device!r})"

    def encode(self, data: Any) -> bytes:
        """``data`` compressed into a ``.wz`` file."""
        return compress(data, self.codec, self.level, device=self.device, **self.options)

    def decode(self, data: Any, out: Any = None) -> Any:
        """A ``.wz`` or gzip file decompressed (into ``out`` when given)."""
        return decompress(data, out, device=self.device)

    def encode_batch(self, items: Iterable[Any]) -> list[bytes]:
        """Every item compressed, several at a time; results in input order."""
        with ThreadPoolExecutor(self._threads) as pool:
            return list(pool.map(self.encode, items))

    def decode_batch(self, items: Iterable[Any], outs: Iterable[Any] | None = None) -> list:
        """Every item decompressed, several at a time (into ``outs`` when given)."""
        items = list(items)
        targets = [None] * len(items) if outs is None else list(outs)
        if len(targets) != len(items):
            raise ValueError(f"{len(items)} inputs but {len(targets)} outputs")
        with ThreadPoolExecutor(self._threads) as pool:
            return list(pool.map(self.decode, items, targets))


from . import lossy, orc  # noqa: E402
