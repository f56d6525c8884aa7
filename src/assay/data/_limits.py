"""The bounds a table file is read within, checked before the work they bound grows.

A judgments table has 26 columns and records of at most a few hundred kilobytes (a long
raw reply); a file far outside that is refused with a message saying which bound it
passed, instead of being read into many gigabytes or minutes of work.
"""

from __future__ import annotations

from assay.errors import InputError

MAX_PROBLEMS_PER_CHECK = 200
"""Problems one check of a table lists row by row; the rest are counted in one more line."""
MAX_COLUMNS = 1000
"""Distinct columns (CSV header names, JSON keys, Parquet fields) a table file may have."""
MAX_RECORD_BYTES = 16 * 1024 * 1024
"""Bytes one record (a CSV row, a JSONL line) may take."""
MAX_HEADER_BYTES = 1024 * 1024
"""Bytes a CSV header line may take."""
MAX_CELLS_PER_BYTE = 1.0
"""Cells (records x columns) a table may have per byte of its file, beyond
:data:`FREE_CELLS`: a dense table has far fewer (each cell takes a few bytes); a file of
many records that each hold few of many keys would need gigabytes as a table."""
FREE_CELLS = 16_000_000
FREE_CONTAINERS = 1000
"""JSON objects and lists any record or file may hold, beyond one per
:data:`BYTES_PER_CONTAINER` bytes."""
BYTES_PER_CONTAINER = 10
"""A parsed JSON list or object takes 60-100 bytes of memory: more than one per 10 bytes of
text would need more than ten times the text's size (``[[],[],...]`` has one per 3 bytes)."""


def too_many_containers(data: bytes | str) -> str | None:
    """Why ``data`` (a JSON text) holds too many lists and objects to parse, or None.

    Counts every ``[`` and ``{``, also inside strings (so it may over-count, never under).

    >>> too_many_containers(b'{"item": "q1", "arm": "a", "score": [1, 2]}') is None
    True
    >>> too_many_containers("[" + ",".join(["[]"] * 5000) + "]")
    'holds 5001 JSON lists or objects in 15001 bytes (at most 2500 here): not a table of records'
    """
    containers = data.count("[" if isinstance(data, str) else b"[") + \
        data.count("{" if isinstance(data, str) else b"{")
    allowed = FREE_CONTAINERS + len(data) // BYTES_PER_CONTAINER
    if containers <= allowed:
        return None
    return (f"holds {containers} JSON lists or objects in {len(data)} bytes (at most {allowed} "
            "here): not a table of records")


def check_columns(path: str, count: int) -> None:
    """Refuse a file with more than :data:`MAX_COLUMNS` columns."""
    if count > MAX_COLUMNS:
        raise InputError(path, f"has {count} columns (or more): a judgments table uses at most "
                         f"{MAX_COLUMNS}; keep its columns and drop the others before reading it")


def check_cells(path: str, records: int, columns: int, size: int) -> None:
    """Refuse a table whose records x columns would need far more memory than its file."""
    if records * columns > FREE_CELLS + MAX_CELLS_PER_BYTE * size:
        raise InputError(path, f"its {records} records use {columns} different keys but each "
                         "holds few of them: as a table this would take "
                         f"{records * columns * 8 / 1e9:.1f} GB; keep the keys of the judgments "
                         "table and drop the others")


def mebibytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB"
