"""Shared fixtures: the repository's data folders, the CLI binary, and the GPU marker (tests
marked ``gpu`` are skipped unless WARPZIP_REQUIRE_GPU=1, and then must pass)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
WZ_DATA = REPO / "crates" / "warpzip" / "tests" / "data"
ORC_FIXTURES = WZ_DATA / "orc"
ORC_TESTDATA = REPO / "testdata" / "orc"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "gpu: needs a CUDA GPU; skipped unless WARPZIP_REQUIRE_GPU=1, then it must pass"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list) -> None:
    if os.environ.get("WARPZIP_REQUIRE_GPU") == "1":
        return
    skip = pytest.mark.skip(reason="GPU tests run with WARPZIP_REQUIRE_GPU=1")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _cli() -> Path | None:
    explicit = os.environ.get("WARPZIP_CLI")
    if explicit:
        return Path(explicit)
    dirs = [os.environ.get("CARGO_TARGET_DIR"), str(REPO / "target")]
    for d in dirs:
        if d and (Path(d) / "release" / "warpzip").is_file():
            return Path(d) / "release" / "warpzip"
    found = shutil.which("warpzip")
    return Path(found) if found else None


@pytest.fixture
def cli() -> Path:
    """The warpzip CLI built by cargo (WARPZIP_CLI names it; CI sets it, so that a missing
    binary fails there instead of skipping)."""
    path = _cli()
    if path is None or not path.is_file():
        if os.environ.get("WARPZIP_CLI"):
            pytest.fail(f"WARPZIP_CLI={os.environ['WARPZIP_CLI']} does not exist")
        pytest.skip("no warpzip CLI binary (cargo build --release -p warpzip-cli)")
    return path
