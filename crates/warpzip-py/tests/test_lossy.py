"""The lossy sz codec over NumPy arrays: bounds kept, streams that describe themselves."""

from __future__ import annotations

import numpy as np
import pytest

import warpzip

RNG = np.random.default_rng(3)


def _field(shape, dtype=np.float32) -> np.ndarray:
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    return (np.sin(sum(grids)) + 0.01 * RNG.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("shape", [(5000,), (80, 90), (20, 30, 40), (3, 4, 10, 12)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["ratio", "fast"])
def test_abs_bound_and_self_description(shape, dtype, mode) -> None:
    field = _field(shape, dtype)
    blob = warpzip.lossy.compress(field, abs=1e-3, mode=mode)
    back = warpzip.lossy.decompress(blob)
    assert back.dtype == field.dtype and back.shape == field.shape
    assert np.abs(back.astype(np.float64) - field).max() <= 1e-3
    info = warpzip.lossy.info(blob)
    assert info["dtype"] == np.dtype(dtype).name and info["shape"] == shape
    assert "abs:1e-3" in info["params"] and f"mode {mode}" in info["params"]


def test_rel_and_pw_rel_bounds() -> None:
    field = _field((100, 100), np.float64) + 2.0
    rng = field.max() - field.min()
    back = warpzip.lossy.decompress(warpzip.lossy.compress(field, rel=1e-4))
    assert np.abs(back - field).max() <= 1e-4 * rng * (1 + 1e-9)
    back = warpzip.lossy.decompress(warpzip.lossy.compress(field, pw_rel=1e-3))
    assert np.all(np.abs(back - field) <= 1e-3 * np.abs(field) * (1 + 1e-9))


def test_fill_values_and_nan_kept_exactly() -> None:
    field = _field((64, 64))
    field[::7, ::5] = -9999.0
    field[3, 3] = np.nan
    back = warpzip.lossy.decompress(warpzip.lossy.compress(field, rel=1e-3, fill=[-9999.0]))
    assert np.array_equal(back[::7, ::5], field[::7, ::5], equal_nan=True)
    assert np.isnan(back[3, 3])


def test_argument_errors() -> None:
    field = _field((10, 10))
    with pytest.raises(ValueError):
        warpzip.lossy.compress(field)
    with pytest.raises(ValueError):
        warpzip.lossy.compress(field, abs=1e-3, rel=1e-3)
    with pytest.raises(TypeError):
        warpzip.lossy.compress(np.arange(10), abs=1e-3)
    with pytest.raises(ValueError):
        warpzip.lossy.compress(field, abs=-1.0)
    with pytest.raises(ValueError):
        warpzip.lossy.info(warpzip.compress(b"abc"))
