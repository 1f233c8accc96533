"""The package writes what the warpzip CLI writes, byte for byte, and reads what it reads."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

import warpzip
from conftest import WZ_DATA

RNG = np.random.default_rng(11)


def _cli_compress(cli: Path, tmp: Path, data: bytes, *args: str) -> bytes:
    src = tmp / "input.bin"
    src.write_bytes(data)
    out = tmp / "out.wz"
    subprocess.run([str(cli), "compress", "-q", "-k", "-f", "-o", str(out), *args, str(src)],
                   check=True)
    return out.read_bytes()


def _cli_decompress(cli: Path, tmp: Path, blob: bytes) -> bytes:
    src = tmp / "in.wz"
    src.write_bytes(blob)
    out = tmp / "out.bin"
    subprocess.run([str(cli), "decompress", "-q", "-k", "-f", "-o", str(out), str(src)],
                   check=True)
    return out.read_bytes()


CASES = [
    ("deflate", None, [], {}),
    ("deflate", "i32", ["--level", "9", "--chunk-size", "65536"], {"level": 9, "chunk_size": 65536}),
    ("rle", None, [], {}),
    ("snappy", None, [], {}),
    ("lz4", None, [], {}),
    ("orc-rle-v1", "i64", [], {}),
    ("orc-rle-v2", "i32", [], {}),
    ("for", "u32", [], {}),
    ("dfor", "i64", [], {}),
    ("rfor", "i32", [], {}),
    ("tile", "u64", [], {}),
]


@pytest.mark.parametrize("codec,dtype,args,kwargs", CASES)
def test_same_bytes_as_cli(cli: Path, tmp_path: Path, codec, dtype, args, kwargs) -> None:
    np_dtype = {"i32": np.int32, "i64": np.int64, "u32": np.uint32, "u64": np.uint64,
                None: np.uint8}[dtype]
    data = np.cumsum(RNG.integers(0, 3, 300_000)).astype(np_dtype)
    if np_dtype == np.uint8:
        data = RNG.integers(0, 6, 3_000_000).astype(np.uint8)
    cli_args = ["--codec", codec, *args] + (["--dtype", dtype] if dtype else [])
    expected = _cli_compress(cli, tmp_path, data.tobytes(), *cli_args)
    ours = warpzip.compress(data if dtype else data.tobytes(), codec, device="cpu",
                            dtype=dtype, **kwargs)
    assert ours == expected
    assert warpzip.decompress(expected) == data.tobytes()


def test_same_gzip_as_cli(cli: Path, tmp_path: Path) -> None:
    data = RNG.integers(0, 6, 400_000).astype(np.uint8).tobytes()
    for fmt in ("gz", "bgzf"):
        src = tmp_path / "input.bin"
        src.write_bytes(data)
        out = tmp_path / "out.gz"
        subprocess.run([str(cli), "compress", "-q", "-k", "-f", "--format", fmt, "-o", str(out),
                        str(src)], check=True)
        assert warpzip.compress(data, format="gzip" if fmt == "gz" else fmt,
                                device="cpu") == out.read_bytes()


def test_same_sz_as_cli(cli: Path, tmp_path: Path) -> None:
    field = RNG.standard_normal((40, 50)).astype(np.float32)
    expected = _cli_compress(cli, tmp_path, field.tobytes(), "--codec", "sz", "--dtype", "f32",
                             "--eb", "abs:1e-3", "--dims", "40x50")
    assert warpzip.compress(field, "sz", eb="abs:1e-3", dims=[40, 50],
                            device="cpu") == expected


@pytest.mark.parametrize("golden", sorted(p.name for p in WZ_DATA.glob("*.wz")))
def test_golden_files_decode_as_the_cli_decodes(cli: Path, tmp_path: Path, golden: str) -> None:
    """Every .wz file of the repository's test data: the same bytes as the CLI, or refused
    where the CLI refuses it (files of a retired layout, containers with made-up chunks)."""
    blob = (WZ_DATA / golden).read_bytes()
    try:
        ours = warpzip.decompress(blob, device="cpu")
    except (warpzip.UnsupportedError, warpzip.CorruptDataError):
        with pytest.raises(subprocess.CalledProcessError):
            _cli_decompress(cli, tmp_path, blob)
        return
    assert ours == _cli_decompress(cli, tmp_path, blob)
    out = bytearray(len(ours))
    warpzip.decompress(blob, out=out, device="cpu")
    assert bytes(out) == ours


@pytest.mark.parametrize("golden", sorted(p.name for p in WZ_DATA.glob("*_golden*.wz")))
def test_codec_golden_files_decode(golden: str) -> None:
    blob = (WZ_DATA / golden).read_bytes()
    head = warpzip.info(blob)
    assert head["verified"]
    assert len(warpzip.decompress(blob)) == head["total_len"]
