"""warpzip as an HDF5 filter, registered with h5py on import (as hdf5plugin does)::

    import h5py
    import warpzip.hdf5

    with h5py.File("f.h5", "w") as f:
        f.create_dataset("x", data=array, chunks=(1024,),
                         **warpzip.hdf5.filter_options("dfor"))

The filter lives in the extension module, which exports HDF5's plugin entry points
(``H5PLget_plugin_type``, ``H5PLget_plugin_info``); programs outside Python (h5dump) find it
with ``HDF5_PLUGIN_PATH`` set to :data:`PLUGIN_PATH`. The filter id, :data:`FILTER_ID` (307),
is from the range 256-511 that the HDF Group keeps for testing: it is not a registered id, and
files written with it are meant for readers that have warpzip installed.
"""

from __future__ import annotations

import ctypes
import os

from . import _warpzip

FILTER_ID: int = _warpzip.HDF5_FILTER_ID
#: The folder holding the plugin (the extension module), for ``HDF5_PLUGIN_PATH``.
PLUGIN_PATH: str = os.path.dirname(_warpzip.__file__)

_CODEC_IDS = dict(_warpzip.codec_ids())
_DTYPE_IDS = dict(_warpzip.dtype_ids())


def filter_options(codec: str = "deflate", level: int | None = None,
                   dtype: str | None = None) -> dict:
    """``create_dataset`` keywords for the filter: ``compression`` and ``compression_opts``
    (client data: codec id, level + 1 with 0 for the codec's default, element type id; the
    typed codecs need ``dtype``, such as ``"i32"``)."""
    if codec not in _CODEC_IDS:
        raise ValueError(f"unknown codec '{codec}'")
    if codec == "sz":
        raise ValueError("the HDF5 filter takes lossless codecs (sz needs a bound and shape)")
    opts = (_CODEC_IDS[codec], 0 if level is None else level + 1,
            _DTYPE_IDS["bytes" if dtype is None else dtype])
    return {"compression": FILTER_ID, "compression_opts": opts}


def register() -> bool:
    """Registers the filter with h5py's HDF5 (once); False where h5py is not installed."""
    try:
        import h5py
    except ImportError:
        return False
    if h5py.h5z.filter_avail(FILTER_ID):
        return True
    lib = ctypes.CDLL(_warpzip.__file__)
    lib.H5PLget_plugin_info.restype = ctypes.c_void_p
    h5py.h5z.register_filter(lib.H5PLget_plugin_info())
    return True


register()
