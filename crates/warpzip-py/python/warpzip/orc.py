"""ORC files read into Arrow tables on the GPU or the CPU.

The tables and batch readers implement the Arrow PyCapsule interface
(``__arrow_c_stream__``), so ``pyarrow.table(t)``, ``polars.DataFrame(t)`` and duckdb read them
directly; warpzip itself needs none of those packages.
"""

from __future__ import annotations

import os
from typing import Sequence

from . import _warpzip
from ._warpzip import ArrowTable, BatchReader

__all__ = ["ArrowTable", "BatchReader", "read_batches", "read_table", "schema"]


def read_table(path: str | os.PathLike, columns: Sequence[str] | None = None, *,
               device: str = "auto") -> ArrowTable:
    """Reads the named columns (all for None) of an ORC file into one table. Integer-family
    columns are decoded on the GPU when ``device`` is one (ZLIB streams inflated there too),
    the others on the CPU."""
    return _warpzip.orc_read_table(os.fspath(path), None if columns is None else list(columns),
                                   device)


def read_batches(path: str | os.PathLike, columns: Sequence[str] | None = None, *,
                 batch_rows: int = 65536, device: str = "auto") -> BatchReader:
    """Iterates over an ORC file's record batches of whole stripes (at most ``batch_rows``
    rows each, a larger stripe alone), decoded as they are asked for; each item is an
    :class:`ArrowTable` of one batch. The reader is also an Arrow stream of the batches not
    yet read."""
    return _warpzip.orc_read_batches(os.fspath(path),
                                     None if columns is None else list(columns),
                                     batch_rows, device)


def schema(path: str | os.PathLike) -> list[tuple[str, str]]:
    """The file's top-level columns as (name, ORC type) pairs, from its footer."""
    return list(_warpzip.orc_schema(os.fspath(path)))
