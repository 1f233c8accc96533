"""NVRTC from PyPI, found inside site-packages and loaded before the first GPU call.

The library looks NVRTC up by its bare names (``libnvrtc.so.13``, ``libnvrtc.so``); the
``nvidia-cuda-nvrtc`` wheel (``pip install warpzip[cuda]``) puts it under
``site-packages/nvidia/cu13/lib`` (older wheels: ``nvidia/cuda_nvrtc/lib``), which is on no
search path. Loading it by full path with ``RTLD_GLOBAL`` first makes the later look-up by bare
name find the copy already loaded.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys

_loaded: str | None = None
_why: str = "not searched"


def _candidates() -> list[str]:
    roots = []
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            roots.append(os.path.join(entry, "nvidia"))
    found = []
    for root in roots:
        for sub in ("cu13/lib", "cuda_nvrtc/lib"):
            found.extend(sorted(glob.glob(os.path.join(root, sub, "libnvrtc.so.1[3-9]"))))
    return found


def preload() -> str | None:
    """Loads NVRTC from site-packages (once); returns the path loaded, or None."""
    global _loaded, _why
    if _loaded is not None:
        return _loaded
    if os.environ.get("WARPZIP_NVRTC_PRELOAD", "1") == "0":
        _why = "preloading is off (WARPZIP_NVRTC_PRELOAD=0)"
        return None
    paths = _candidates()
    if not paths:
        _why = "no nvidia-cuda-nvrtc wheel in site-packages (pip install 'warpzip[cuda]')"
        return None
    for path in paths:
        folder = os.path.dirname(path)
        try:
            # NVRTC loads its builtins library by bare name: load it from the same folder first.
            for builtins in sorted(glob.glob(os.path.join(folder, "libnvrtc-builtins.so.*"))):
                if ".alt." not in builtins:
                    ctypes.CDLL(builtins, mode=ctypes.RTLD_GLOBAL)
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            _why = f"{path} did not load: {e}"
            continue
        _loaded = path
        _why = "loaded from site-packages"
        return path
    return None


def status() -> dict:
    return {"nvrtc_path": _loaded, "nvrtc_note": _why}
