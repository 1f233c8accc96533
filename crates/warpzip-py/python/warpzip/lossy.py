"""Error-bounded lossy compression of float32/float64 arrays (the ``sz`` codec).

The stream is one ``.wz`` container that describes itself: its header records the dtype and
shape (up to four dimensions), its parameters the bound; :func:`decompress` needs nothing else.
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _warpzip
from ._buffers import as_input


def _bound(abs: float | None, rel: float | None, pw_rel: float | None) -> str:
    given = [(n, v) for n, v in (("abs", abs), ("rel", rel), ("pw-rel", pw_rel)) if v is not None]
    if len(given) != 1:
        raise ValueError("give exactly one bound: abs=, rel= or pw_rel=")
    name, value = given[0]
    return f"{name}:{float(value)!r}"


def compress(array: Any, *, abs: float | None = None, rel: float | None = None,
             pw_rel: float | None = None, fill: Sequence[float] = (), mode: str = "ratio",
             device: str = "auto") -> bytes:
    """Compresses a float32 or float64 array so that every value comes back within the bound:
    ``abs`` (``|x - x'| <= abs``), ``rel`` (``<= rel * (max - min)``) or ``pw_rel``
    (``<= pw_rel * |x|``). ``fill`` values are kept exactly and left out of the value range;
    NaN and infinities are kept exactly. ``mode`` is ``"ratio"`` (Huffman-coded) or
    ``"fast"`` (bit-packed)."""
    import numpy as np

    arr = np.ascontiguousarray(array)
    if arr.dtype not in (np.float32, np.float64):
        raise TypeError(f"lossy compression takes float32 or float64 arrays, not {arr.dtype}")
    arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
    dtype = "f32" if arr.dtype.itemsize == 4 else "f64"
    shape = [int(d) for d in arr.shape] or [1]
    return _warpzip.lossy_compress(as_input(arr).view, dtype, shape, _bound(abs, rel, pw_rel),
                                   [float(f) for f in fill], mode, device)


def decompress(blob: Any, *, device: str = "auto") -> Any:
    """The array a :func:`compress` stream holds, with its dtype and shape."""
    from . import decompress_array

    return decompress_array(blob, device=device)


def info(blob: Any) -> dict:
    """The stream's dtype, shape and bound (the codec's parameters in words)."""
    head = _warpzip.info(as_input(blob).view)
    if head["codec"] != "sz":
        raise ValueError(f"not a lossy stream: its codec is {head['codec']}")
    return {"dtype": {"f32": "float32", "f64": "float64"}[head["dtype"]],
            "shape": tuple(head["shape"]) or (head["total_len"] // (int(head["dtype"][1:]) // 8),),
            "params": head["params"]}
