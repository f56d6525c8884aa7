"""What the importers of JSONL result files share: finding the files, reading their records
with line numbers, and building the validated table from the rows they make."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from assay.data.lines import json_lines
from assay.data.options import DROP
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import FILE_COLUMN, judgments_from_records
from assay.errors import InputError, Problem, ValidationError


def source_files(sources: str | Path | Sequence[str | Path], pattern: str,
                 layout: str) -> list[Path]:
    """The files given and every file matching `pattern` below the folders given, sorted.

    One path may be given as it is (a string is never read as one-letter paths); `layout`
    says in the error what a folder should hold.
    """
    if isinstance(sources, str | Path):
        sources = [sources]
    files: list[Path] = []
    for source in sources:
        p = Path(source)
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            found = sorted(f for f in p.rglob(pattern) if f.is_file())
            if not found:
                raise InputError(str(p), f"no {pattern} file below this folder (expected "
                                 f"{layout})")
            files.extend(found)
        else:
            raise InputError(str(p), "no such file or folder")
    return files


def jsonl_objects(path: Path, problems: list[Problem]) -> list[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for each JSON object line; other lines become problems."""
    out: list[tuple[int, dict[str, Any]]] = []
    for number, value, why in json_lines(path):
        if why is not None:
            problems.append(Problem(str(path), number, None, why))
        elif not isinstance(value, dict):
            problems.append(Problem(str(path), number, None, "expected a JSON object"))
        else:
            out.append((number, value))
    return out


@dataclass(frozen=True)
class RecordFields:
    """``--map`` and ``--set`` for an importer: its records' fields renamed (``-`` drops one)
    and fields a record lacks set, before the importer reads the record."""

    mapping: Mapping[str, str] = field(default_factory=dict)
    constants: Mapping[str, object] = field(default_factory=dict)

    def apply(self, rec: dict[str, Any], seen: set[str]) -> dict[str, Any]:
        """The record with the fields renamed and set; `seen` collects the fields renamed."""
        if not self.mapping and not self.constants:
            return rec
        out = dict(rec)
        for source, target in self.mapping.items():
            if source in out:
                seen.add(source)
                value = out.pop(source)
                if target != DROP:
                    out[target] = value
        for name, value in self.constants.items():
            out.setdefault(name, value)
        return out

    def header(self, names: Sequence[str]) -> list[str]:
        """A table's column names as :meth:`apply` leaves a record with these fields."""
        return list(self.apply(dict.fromkeys(names), set()))

    def unused(self, seen: set[str], where: str) -> list[Problem]:
        """A problem for each ``--map`` source no record had."""
        return [Problem(where, None, source, "named in --map but no record has this field")
                for source in self.mapping if source not in seen]


RowMaker = Callable[[dict[str, Any], Path, int, list[Problem]], list[dict[str, Any]]]
"""Makes the table rows of one record: (record, file, line number, problems) -> rows."""


def jsonl_rows(files: Sequence[Path], make: RowMaker, problems: list[Problem],
               fields: RecordFields | None = None) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows `make` builds from every JSON object line of `files`, with their line numbers;
    `fields` (``--map``, ``--set``) apply to each record first."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    fields = fields or RecordFields()
    seen: set[str] = set()
    for file in files:
        for number, rec in jsonl_objects(file, problems):
            made = make(fields.apply(rec, seen), file, number, problems)
            rows.extend({**row, FILE_COLUMN: str(file)} for row in made)
            numbers.extend([number] * len(made))
    problems += fields.unused(seen, ", ".join(map(str, files)))
    return rows, numbers


def first_object(path: Path) -> dict[str, Any] | None:
    """The first JSON object line of a JSONL file, or None when it has none (or is not JSONL)."""
    try:
        for _, value, why in json_lines(path):
            return value if why is None and isinstance(value, dict) else None
    except InputError:
        return None
    return None


def first_line_problem(path: Path) -> Problem | None:
    """What is wrong with the first line of a JSONL file (not UTF-8, not JSON, a lone
    surrogate...), or None when it is a JSON value."""
    try:
        for number, _, why in json_lines(path):
            return None if why is None else Problem(str(path), number, None, why)
    except InputError as exc:
        return exc.problem
    return None


def require(rec: Mapping[str, Any], fields: Mapping[str, Callable[[Any], bool]], path: Path,
            number: int, problems: list[Problem]) -> bool:
    """Whether every field of `fields` passes its check; a problem for each that does not."""
    ok = True
    for name, check in fields.items():
        if name not in rec or not check(rec[name]):
            what = "required field is missing" if name not in rec else \
                f"unexpected value {rec[name]!r}"
            problems.append(Problem(str(path), number, name, what))
            ok = False
    return ok


def is_text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def is_id(value: object) -> bool:
    return (isinstance(value, str) and bool(value.strip())) or (
        isinstance(value, int) and not isinstance(value, bool))


def is_number(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def timestamp(value: object) -> str | None:
    """An ISO 8601 UTC time from a Unix timestamp (FastChat's ``tstamp``), else None."""
    if not is_number(value):
        return None
    try:
        return datetime.fromtimestamp(float(value), tz=timezone.utc).isoformat()  # type: ignore[arg-type]
    except (OverflowError, OSError, ValueError):  # a time no calendar holds (year > 9999)
        return None


def build(rows: list[dict[str, Any]], numbers: list[int], problems: list[Problem],
          files: Sequence[Path], scales: Mapping[str, Scale], *, duplicates: str = "error",
          reading: str = "") -> Judgments:
    """The validated table of the rows, or a ValidationError listing every problem.

    ``duplicates`` says how rows repeating another's judgment key are read, ``reading``
    whose reading that is (:func:`assay.data.validate.build_table`)."""
    if problems:
        raise ValidationError(problems)
    where = ", ".join(map(str, files))
    if not rows:
        raise InputError(where, "no judgments found")
    return judgments_from_records(rows, numbers, path=where, sources=[str(f) for f in files],
                                  scales=dict(scales), duplicates=duplicates, reading=reading)
