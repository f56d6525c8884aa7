"""The files of one table as an engine reads them: a file, a folder, a glob, a hive dataset."""

from __future__ import annotations

import glob as globbing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from assay.errors import InputError

if TYPE_CHECKING:
    from assay.data.engine._dialect import Dialect

ENGINE_FORMATS: dict[str, str] = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv",
                                  ".jsonl": "jsonl", ".ndjson": "jsonl"}
"""File suffix -> the format an engine reads it as."""

_RUN_FOLDER_FILES = ("judgments.sqlite", "datapoints.jsonl", "evaluations.jsonl")
_GLOB_CHARS = "*?["
UNREAD_KEYS = ("the hive partition key(s) {keys} name no column of the judgments table and "
               "are not read (name a folder after a column, such as judge=NAME, to read it)")
"""The note for partition keys that are left out (every engine, and pandas, says it)."""
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
"""How Hive writes a null partition value."""


@dataclass(frozen=True)
class TableSource:
    """The files of one judgments table, all of one format."""

    given: str
    """The path or pattern as the user gave it (named in messages)."""
    files: tuple[str, ...]
    """The files, sorted, so row order and first appearance are the same on every run."""
    format: str
    """parquet, csv or jsonl; ``table`` for a database table (the ibis engine: ``files``
    holds its one name)."""
    hive: bool
    """Whether the folders carry hive partitions (``key=value``)."""
    root: str | None = None
    """The folder the partition keys are read below (None: a file, or a glob)."""

    def label(self, file: str) -> str:
        """How a message names ``file``: the file itself for a one-file source."""
        return file if len(self.files) > 1 else self.given

    def partition_keys(self, file: str) -> dict[str, str | None]:
        """The hive keys of ``file``'s folders (``judge=gpt/run=2`` -> judge, run), decoded;
        Hive's ``__HIVE_DEFAULT_PARTITION__`` is null."""
        if not self.hive:
            return {}
        folder = Path(file).parent
        parts = folder.relative_to(self.root).parts if self.root is not None else folder.parts
        keys: dict[str, str | None] = {}
        for part in parts:
            key, sep, value = part.partition("=")
            if sep and key:
                keys[unquote(key)] = (None if value == HIVE_NULL else unquote(value))
        return keys

    @property
    def size_bytes(self) -> int:
        return sum(Path(f).stat().st_size for f in self.files)


def resolve_source(path: str | Path) -> TableSource | None:
    """The engine source of ``path``, or None when an engine does not read it.

    A run folder (``judgments.sqlite``, ``datapoints.jsonl``...), a JSON list, TSV or a
    spreadsheet is read by the pandas path; None says so.

    Raises
    ------
    InputError
        A folder or glob with no table files, or with files of several formats.
    """
    text = str(path)
    if any(c in text for c in _GLOB_CHARS):
        files = sorted(f for f in globbing.glob(text, recursive=True) if Path(f).is_file())
        root = None
    elif Path(text).is_dir():
        root = Path(text)
        if any((root / name).exists() for name in _RUN_FOLDER_FILES):
            return None
        files = sorted(str(f) for f in root.rglob("*") if f.is_file()
                       and f.suffix.lower() in ENGINE_FORMATS and not f.name.startswith((".", "_")))
    else:
        suffix = Path(text).suffix.lower()
        if suffix not in ENGINE_FORMATS or not Path(text).is_file():
            return None
        return TableSource(text, (text,), ENGINE_FORMATS[suffix], hive=False)
    tables = [f for f in files if Path(f).suffix.lower() in ENGINE_FORMATS]
    if not tables:
        raise InputError(text, "no Parquet, CSV or JSONL files here")
    formats = sorted({ENGINE_FORMATS[Path(f).suffix.lower()] for f in tables})
    if len(formats) > 1:
        raise InputError(text, f"holds files of several formats ({', '.join(formats)}): "
                         "point at one format (a glob such as DIR/*.parquet)")
    hive = any("=" in part for f in tables
               for part in Path(f).parent.relative_to(root if root is not None else
                                                      Path(f).parent).parts) \
        if root is not None else any("=" in part for f in tables for part in Path(f).parent.parts)
    return TableSource(text, tuple(tables), formats[0], hive=hive,
                       root=str(root) if root is not None else None)


def stored_metadata(source: TableSource, connection: Any = None) -> dict[str, object]:
    """The assay metadata stored with the files (Parquet key, or ``NAME.assay.json``).

    Files of one dataset (the exports of several run folders) must declare the same
    scales; the first file that declares others is named.

    Raises
    ------
    InputError
        Corrupt metadata, or two files whose stored scales differ.
    """
    found: dict[str, object] = {}
    if source.format == "table":  # a database table carries no assay metadata
        return found
    first = ""
    stored = _parquet_metadata(source.files, connection) if source.format == "parquet" else None
    for file in source.files:
        metadata = _metadata_of(Path(file), stored)
        if not metadata:
            continue
        if not found:
            found, first = metadata, file
        elif (metadata.get("scales") or {}) != (found.get("scales") or {}):
            raise InputError(file, f"its stored scales {metadata.get('scales')} differ from "
                             f"those of {first} ({found.get('scales')}): one dataset has one "
                             "scale per criterion")
    return found


def _parquet_metadata(files: tuple[str, ...], given: Any = None) -> dict[str, bytes]:
    """File -> the raw assay metadata of each Parquet file that has it, read by DuckDB
    (pyarrow's import alone would cost a small report a third of its time), on the
    connection ``given`` or a new one."""
    import duckdb

    from assay.data._raw import METADATA_KEY

    connection = duckdb.connect(":memory:") if given is None else given
    try:
        found: dict[str, bytes] = {}
        for file in files:
            rows = connection.execute("SELECT value FROM parquet_kv_metadata(?) WHERE key = ?",
                                      [file, METADATA_KEY]).fetchall()
            if rows:
                found[file] = bytes(rows[0][0])
        return found
    except duckdb.Error as exc:
        raise InputError(str(files[0]) if len(files) == 1 else "the Parquet files",
                         f"cannot read their metadata: {str(exc).splitlines()[0]}") from None
    finally:
        if given is None:
            connection.close()


def _metadata_of(file: Path, parquet: dict[str, bytes] | None) -> dict[str, object]:
    """The assay metadata of one file: from ``parquet`` (file -> raw) for Parquet files,
    else from the file's sidecar."""
    import json

    from assay.data._raw import read_sidecar

    if parquet is None:
        return dict(read_sidecar(file))
    raw = parquet.get(str(file))
    if not raw:
        return {}
    try:
        loaded = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InputError(str(file), "its assay metadata is corrupt") from None
    return loaded if isinstance(loaded, dict) else {}


def partition_columns(source: TableSource) -> tuple[dict[str, dict[str, str | None]],
                                                    list[str]]:
    """The hive keys of ``source`` that name a column of the judgments table, and the others.

    Returns ``(known, unknown)``: ``known`` maps each key naming a judgments column to
    {file: value} (files whose folders do not carry it are absent); ``unknown`` lists the
    other keys, which are not read (the report says so). A key whose column the files
    also have is compared to it by the checks; one the files lack becomes the column.
    """
    from assay.data.schema import COLUMN_BY_NAME

    known: dict[str, dict[str, str | None]] = {}
    unknown: list[str] = []
    for file in source.files:
        for key, value in source.partition_keys(file).items():
            if key in COLUMN_BY_NAME:
                known.setdefault(key, {})[file] = value
            elif key not in unknown:
                unknown.append(key)
    return known, unknown


def partition_value_sql(dialect: Dialect, files: Mapping[str, str | None]) -> str:
    """SQL of a key's value for the row's file (``__file``): null outside ``files``."""
    cases = " ".join(f"WHEN {dialect.text(f)} THEN "
                     f"{dialect.text(v) if v is not None else 'NULL'}"
                     for f, v in files.items())
    return f"CAST(CASE __file {cases} END AS {dialect.string})"


def partition_sql(dialect: Dialect, scan: str, source: TableSource,
                  raw: Mapping[str, str]) -> str:
    """``scan`` with a column for each hive key naming a judgments column the files lack.

    The key's value is text, as a CSV cell is: the canonical view types it as it types
    the column of a file. A key whose column the files have is left to the checks, which
    compare the two (:func:`assay.analysis.pushdown._checks.partition_checks`).
    """
    known, _ = partition_columns(source)
    added = [f"{partition_value_sql(dialect, files)} AS {key}" for key, files in known.items()
             if key not in raw]
    if not added:
        return scan
    return f"(SELECT *, {', '.join(added)} FROM {scan})"


def partition_keys_of(folder: str | Path, file: str | Path) -> dict[str, str | None]:
    """The hive keys (``key=value`` folders) between ``folder`` and ``file``, decoded."""
    source = TableSource(str(folder), (str(file),), "parquet", hive=True, root=str(folder))
    return source.partition_keys(str(file))


def partition_conflict(key: str, folder_value: str | None, row_value: object) -> str:
    """The message for a row whose column disagrees with its folder's hive key."""
    from assay.errors import quote

    return (f"its folder says {key}={folder_value} and the row says "
            f"{quote(row_value, limit=60)}: a hive partition key must agree with the column "
            "of that name")


def partition_agrees(folder_value: str | None, row_value: object) -> bool:
    """Whether a row's value is its folder's key: both missing, the same number, or the
    same text (``run=2`` and a run of 2 or 2.0 agree)."""
    missing = row_value is None or (isinstance(row_value, float) and row_value != row_value)
    if folder_value is None or missing:
        return folder_value is None and missing
    try:
        return float(str(row_value)) == float(folder_value)
    except ValueError:
        return str(row_value).strip() == folder_value
