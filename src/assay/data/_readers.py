"""Read raw records from CSV, JSONL, JSON lists and Parquet, with clear errors.

Readers return every value as it is in the file (strings from CSV, JSON types from
JSON) plus the record number each row came from, so validation can name the row.
They never modify the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from assay.data._limits import check_columns
from assay.data._raw import METADATA_KEY, ROW_COLUMN, text_objects
from assay.data._raw import first_line as _first_line
from assay.data._raw import read_sidecar as _read_sidecar
from assay.errors import InputError, Problem, storage_error

SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}

@dataclass(frozen=True)
class RawTable:
    """Records as read, before validation."""

    frame: pd.DataFrame
    """One row per record, original column names, raw values; plus ``__row__``."""
    path: str
    metadata: dict[str, Any]
    """assay metadata stored with the file (Parquet) or in its sidecar, e.g. scales."""
    problems: tuple[Problem, ...] = ()
    """Records that could not be read (bad JSON lines, non-objects); the rest were read."""


def file_format(path: Path) -> str:
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise InputError(
            str(path),
            f"cannot tell the format from the suffix {path.suffix!r}: "
            "use .parquet, .csv, .tsv, .jsonl or .json",
        )
    return fmt


def read_records(path: str | Path) -> RawTable:
    """Read a table file into raw records; raise InputError on anything unreadable."""
    p = Path(path)
    if not p.exists():
        raise InputError(str(p), "no such file")
    if p.is_dir():
        raise InputError(str(p), "is a folder, not a table file")
    fmt = file_format(p)
    if p.stat().st_size == 0:
        raise InputError(str(p), "the file is empty: expected a header and at least one record")
    problems: list[Problem] = []
    if fmt in ("csv", "tsv"):
        from assay.data._csv import read_csv

        frame = read_csv(p, sep="," if fmt == "csv" else "\t")
        metadata = _read_sidecar(p)
    elif fmt in ("jsonl", "json"):
        from assay.data._json import read_json, read_jsonl

        frame = (read_jsonl if fmt == "jsonl" else read_json)(p, problems)
        metadata = _read_sidecar(p)
    else:
        frame, metadata = _read_parquet(p)
    if len(frame) == 0 and not problems:
        raise InputError(str(p), "the file holds no records")
    return RawTable(frame=frame, path=str(p), metadata=metadata, problems=tuple(problems))


def _read_parquet(p: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(p)
        check_columns(str(p), len(schema.names))  # before any column is read
        if p.is_file():  # one file: its reader alone (read_table imports pyarrow.dataset, 60 ms)
            with pq.ParquetFile(p) as parquet:
                table = parquet.read()
        else:
            table = pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:  # permission denied, I/O error
            raise storage_error(exc, p) from None
        raise InputError(str(p), f"is not a readable Parquet file: {_first_line(exc)}") from None
    metadata: dict[str, Any] = {}
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw:
        try:
            metadata = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise InputError(str(p), "its assay metadata is corrupt") from None
        if not isinstance(metadata, dict):
            raise InputError(str(p), "its assay metadata is corrupt: expected a JSON object, "
                             f"got a {type(metadata).__name__}")
    if len(set(table.column_names)) < table.num_columns:
        twice = next(n for n in table.column_names if table.column_names.count(n) > 1)
        raise InputError(str(p), "the file names a column twice", column=twice)
    data: dict[str, pd.Series] = {}
    for name in table.column_names:  # column by column: one column's copy at a time
        column = table.column(name)
        try:
            kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
            if pa.types.is_string(kind) or pa.types.is_large_string(kind):
                data[name] = pd.Series(text_objects(column), dtype=object, copy=False)
                continue
            series = column.to_pandas()
        except (pa.ArrowException, ValueError) as exc:
            raise InputError(str(p), f"cannot be read into a table: {_first_line(exc)}") from None
        # numbers keep their dtype (missing = NaN); everything else becomes objects with None
        if not (pd.api.types.is_numeric_dtype(series.dtype)
                or pd.api.types.is_bool_dtype(series.dtype)):
            series = series.astype(object).where(series.notna(), None)
        data[name] = series
    del table
    pa.default_memory_pool().release_unused()  # the decoded file, kept by the allocator
    frame = pd.DataFrame(data, copy=False)
    frame[ROW_COLUMN] = range(1, len(frame) + 1)
    return frame, metadata
