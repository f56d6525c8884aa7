"""Read raw records from CSV, JSONL, JSON lists and Parquet, with clear errors.

Readers return every value as it is in the file (strings from CSV, JSON types from
JSON) plus the record number each row came from, so validation can name the row.
They never modify the file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from assay.errors import InputError, Problem, ValidationError

ROW_COLUMN = "__row__"
"""Column holding each record's number in its file (1-based; JSONL: the line number)."""

SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}

METADATA_KEY = b"assay"


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


def sidecar_path(path: Path) -> Path:
    """Where the metadata of a CSV or JSONL table lives: ``NAME.assay.json`` beside it."""
    return path.with_name(path.name + ".assay.json")


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
        frame = _read_csv(p, sep="," if fmt == "csv" else "\t")
        metadata = _read_sidecar(p)
    elif fmt == "jsonl":
        frame = _read_jsonl(p, problems)
        metadata = _read_sidecar(p)
    elif fmt == "json":
        frame = _read_json(p, problems)
        metadata = _read_sidecar(p)
    else:
        frame, metadata = _read_parquet(p)
    if len(frame) == 0 and not problems:
        raise InputError(str(p), "the file holds no records")
    return RawTable(frame=frame, path=str(p), metadata=metadata, problems=tuple(problems))


def _decode(p: Path) -> str:
    data = p.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            str(p), f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} "
            "cannot be decoded (save the file as UTF-8)",
        ) from None


def _read_csv(p: Path, *, sep: str) -> pd.DataFrame:
    import io

    text = _decode(p)
    if not text.strip():
        raise InputError(str(p), "the file is empty: expected a header and at least one record")
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_values=[""],
            skipinitialspace=False,
        )
    except pd.errors.EmptyDataError:
        raise InputError(str(p), "the file is empty: expected a header line") from None
    except (pd.errors.ParserError, ValueError) as exc:
        raise InputError(str(p), f"is not a well-formed {'CSV' if sep == ',' else 'TSV'} "
                         f"table: {_first_line(exc)}") from None
    unnamed = [c for c in frame.columns if str(c).startswith("Unnamed:")]
    if unnamed:
        raise InputError(str(p), "the header has an empty column name", column=str(unnamed[0]))
    dupes = [c for c in frame.columns if "." in str(c) and str(c).rsplit(".", 1)[0] in frame.columns
             and str(c).rsplit(".", 1)[1].isdigit()]
    if dupes:
        raise InputError(str(p), "the header names a column twice",
                         column=str(dupes[0]).rsplit(".", 1)[0])
    frame = frame.astype(object).where(frame.notna(), None)
    frame[ROW_COLUMN] = range(1, len(frame) + 1)
    return frame


def _check_record(obj: object, p: Path, row: int, problems: list[Problem]) -> dict[str, Any] | None:
    if not isinstance(obj, dict):
        problems.append(Problem(str(p), row, None,
                                f"expected a JSON object, got {type(obj).__name__}"))
        return None
    return obj


def _read_jsonl(p: Path, problems: list[Problem]) -> pd.DataFrame:
    text = _decode(p)
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(Problem(str(p), number, None,
                                    f"not valid JSON ({exc.msg} at character {exc.colno})"))
            continue
        except RecursionError:
            problems.append(Problem(str(p), number, None, "JSON nested too deeply"))
            continue
        record = _check_record(obj, p, number, problems)
        if record is not None:
            records.append(record)
            rows.append(number)
    return _frame_from_records(records, rows, p, problems)


def _read_json(p: Path, problems: list[Problem]) -> pd.DataFrame:
    text = _decode(p)
    if not text.strip():
        raise InputError(str(p), "the file is empty: expected a JSON list of records")
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        where = "truncated" if exc.pos >= len(text.rstrip()) else "not valid JSON"
        raise InputError(str(p), f"{where}: {exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno}") from None
    except RecursionError:
        raise InputError(str(p), "JSON nested too deeply") from None
    if isinstance(obj, dict) and isinstance(obj.get("records"), list):
        obj = obj["records"]
    if not isinstance(obj, list):
        raise InputError(str(p), f"expected a JSON list of records, got a {type(obj).__name__}")
    records: list[dict[str, Any]] = []
    rows: list[int] = []
    for number, item in enumerate(obj, start=1):
        record = _check_record(item, p, number, problems)
        if record is not None:
            records.append(record)
            rows.append(number)
    return _frame_from_records(records, rows, p, problems)


def _frame_from_records(records: list[dict[str, Any]], rows: list[int], p: Path,
                        problems: list[Problem]) -> pd.DataFrame:
    if not records:
        if problems:
            raise ValidationError(problems)
        raise InputError(str(p), "the file holds no records")
    # A JSON NaN (Python's json accepts it) becomes the text "NaN", so validation reports
    # it as a non-finite number instead of mistaking it for a missing value.
    cleaned = [{k: ("NaN" if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
               for r in records]
    frame = pd.DataFrame.from_records(cleaned)
    frame = frame.astype(object).where(frame.notna(), None)
    frame[ROW_COLUMN] = rows
    return frame


def _read_parquet(p: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(p)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(str(p), f"is not a readable Parquet file: {_first_line(exc)}") from None
    metadata: dict[str, Any] = {}
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    if raw:
        try:
            metadata = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise InputError(str(p), "its assay metadata is corrupt") from None
    try:
        frame = table.to_pandas()
    except (pa.ArrowException, ValueError) as exc:
        raise InputError(str(p), f"cannot be read into a table: {_first_line(exc)}") from None
    # numbers keep their dtype (missing = NaN); everything else becomes objects with None
    for column in frame.columns:
        series = frame[column]
        if not (pd.api.types.is_numeric_dtype(series.dtype)
                or pd.api.types.is_bool_dtype(series.dtype)):
            frame[column] = series.astype(object).where(series.notna(), None)
    frame[ROW_COLUMN] = range(1, len(frame) + 1)
    return frame, metadata


def _read_sidecar(p: Path) -> dict[str, Any]:
    side = sidecar_path(p)
    if not side.exists():
        return {}
    try:
        data = json.loads(side.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(str(side), f"is not valid JSON: {_first_line(exc)}") from None
    if not isinstance(data, dict):
        raise InputError(str(side), "expected a JSON object")
    return data


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
