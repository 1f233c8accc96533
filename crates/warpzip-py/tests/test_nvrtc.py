"""NVRTC from the nvidia-cuda-nvrtc wheel is found in site-packages and loaded by full path,
so that the library's look-up by bare name (``libnvrtc.so.13``) finds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import warpzip


def test_status_is_reported() -> None:
    info = warpzip.gpu_info()
    assert "nvrtc_path" in info and info["nvrtc_note"]


def test_an_unloadable_library_is_reported(tmp_path: Path) -> None:
    lib = tmp_path / "nvidia" / "cu13" / "lib"
    lib.mkdir(parents=True)
    (lib / "libnvrtc.so.13").write_bytes(b"not a library")
    code = ("import sys, warpzip; i = warpzip.gpu_info();"
            "print(i['nvrtc_path']); print(i['nvrtc_note'])")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0] == "None"
    assert "did not load" in out[1] or "no nvidia-cuda-nvrtc" in out[1]


def test_the_wheel_is_found_and_loaded_by_full_path() -> None:
    """WARPZIP_TEST_NVRTC_SITE names a folder where the nvidia-cuda-nvrtc wheel is installed
    (``pip install --target``); CI sets it."""
    site = os.environ.get("WARPZIP_TEST_NVRTC_SITE")
    if not site:
        pytest.skip("WARPZIP_TEST_NVRTC_SITE is not set")
    code = (
        "import ctypes, warpzip; i = warpzip.gpu_info(); print(i['nvrtc_path']);"
        # The bare name now resolves to the copy already loaded.
        "ctypes.CDLL('libnvrtc.so.13'); print('bare name ok')"
    )
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env["PYTHONPATH"] = f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out[0].startswith(site) and out[0].endswith("libnvrtc.so.13")
    assert out[1] == "bare name ok"
