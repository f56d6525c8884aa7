"""Read JSONL and JSON-list table files record by record, in bounded memory.

Records are not kept as dicts: each one's values go into per-key columns as it is read
(a key's column holds only the records that have it), and the table is built once at the
end, after :func:`assay.data._limits.check_cells` has checked its size. JSONL lines are
split on ``\\n`` only: U+2028, U+2029 and U+0085 are characters inside JSON strings, not
line breaks. A JSON list is walked element by element (``json.JSONDecoder.raw_decode``),
so the list is never held as Python objects all at once.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.data._limits import check_cells, check_columns, too_many_containers
from assay.data._raw import ROW_COLUMN
from assay.data.lines import MAX_JSON_DEPTH, json_lines, unusable_json
from assay.errors import InputError, Problem, ValidationError

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class _Columns:
    """Records gathered column by column: per key, the record positions that have it and
    their values."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.rows = array("q")
        self.positions: dict[str, array[int]] = {}
        self.values: dict[str, list[Any]] = {}

    def add(self, record: dict[str, Any], row: int) -> None:
        position = len(self.rows)
        self.rows.append(row)
        for key, value in record.items():
            column = self.values.get(key)
            if column is None:
                check_columns(str(self.path), len(self.values) + 1)
                column = self.values[key] = []
                self.positions[key] = array("q")
            # a JSON NaN (Python's json accepts it) becomes the text "NaN", so validation
            # reports it as a non-finite number instead of mistaking it for a missing value
            column.append("NaN" if isinstance(value, float) and math.isnan(value) else value)
            self.positions[key].append(position)

    def frame(self, problems: list[Problem]) -> pd.DataFrame:
        n = len(self.rows)
        if not n:
            if problems:
                raise ValidationError(problems)
            raise InputError(str(self.path), "the file holds no records")
        check_cells(str(self.path), n, len(self.values), self.path.stat().st_size)
        data: dict[str, Any] = {}
        for key, values in self.values.items():
            column = np.full(n, None, dtype=object)
            column[np.frombuffer(self.positions[key], dtype=np.int64)] = _objects(values)
            data[key] = column
        frame = pd.DataFrame(data, index=pd.RangeIndex(n))
        frame[ROW_COLUMN] = np.frombuffer(self.rows, dtype=np.int64)
        return frame


def _objects(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values  # element by element: a list value stays one cell
    return out


def read_jsonl(p: Path, problems: list[Problem]) -> pd.DataFrame:
    """The records of a JSONL file as raw columns (one row per object line)."""
    columns = _Columns(p)
    for number, obj, why in json_lines(p):
        if why is not None:
            problems.append(Problem(str(p), number, None, why))
        elif not isinstance(obj, dict):
            problems.append(Problem(str(p), number, None,
                                    f"expected a JSON object, got {type(obj).__name__}"))
        else:
            columns.add(obj, number)
    return columns.frame(problems)


def read_json(p: Path, problems: list[Problem]) -> pd.DataFrame:
    """The records of a JSON list (or of ``{"records": [...]}``) as raw columns."""
    data = p.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            str(p), f"is not UTF-8 text: byte 0x{data[exc.start]:02x} at line {line} "
            "cannot be decoded (save the file as UTF-8)") from None
    del data
    if not text.strip():
        raise InputError(str(p), "the file is empty: expected a JSON list of records")
    crowded = too_many_containers(text)  # before any is built
    if crowded is not None:
        raise InputError(str(p), f"the file {crowded}")
    columns = _Columns(p)
    walker = _Walker(text)
    try:
        walker.skip_space()
        if text.startswith("{", walker.pos):
            elements = walker.records_member()
        elif text.startswith("[", walker.pos):
            elements = walker.elements()
        else:
            obj, _ = _DECODER.raw_decode(text, walker.pos)
            raise InputError(str(p), f"expected a JSON list of records, got a {type(obj).__name__}")
        for number, item in enumerate(elements, start=1):
            if item is _NOT_FOUND:
                raise InputError(str(p), "expected a JSON list of records, got a dict")
            why = unusable_json(item, text, *walker.last)
            if why is not None:
                problems.append(Problem(str(p), number, None, why))
            elif isinstance(item, dict):
                columns.add(item, number)
            else:
                problems.append(Problem(str(p), number, None,
                                        f"expected a JSON object, got {type(item).__name__}"))
        walker.skip_space()
        if walker.pos != len(text):
            raise json.JSONDecodeError("Extra data", text, walker.pos)
    except json.JSONDecodeError as exc:
        where = "truncated" if exc.pos >= len(text.rstrip()) else "not valid JSON"
        raise InputError(str(p), f"{where}: {exc.msg} at line {exc.lineno}, "
                         f"column {exc.colno}") from None
    except RecursionError:
        raise InputError(str(p), f"JSON nested too deeply (at most {MAX_JSON_DEPTH} levels)") \
            from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise InputError(str(p), f"not a usable JSON value ({str(exc).split(';')[0]})") from None
    return columns.frame(problems)


_NOT_FOUND = object()


class _Walker:
    """Walks a JSON text from ``pos``, decoding one list element at a time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.last = (0, 0)
        """Where the last value decoded starts and ends."""

    def skip_space(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def expect(self, char: str, what: str) -> None:
        self.skip_space()
        if not self.text.startswith(char, self.pos):
            raise json.JSONDecodeError(f"Expecting {what}", self.text, self.pos)
        self.pos += 1
        self.skip_space()

    def value(self) -> Any:
        start = self.pos
        value, self.pos = _DECODER.raw_decode(self.text, self.pos)
        self.last = (start, self.pos)
        return value

    def elements(self) -> Iterator[Any]:
        """The values of the list at ``pos`` (``text[pos] == '['``); ``pos`` ends after it."""
        self.expect("[", "'['")
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return
        while True:
            yield self.value()
            self.skip_space()
            if self.text.startswith("]", self.pos):
                self.pos += 1
                return
            self.expect(",", "',' delimiter")

    def records_member(self) -> Iterator[Any]:
        """The elements of the ``records`` list of the object at ``pos``; any other member is
        skipped (element by element when it is a list). Yields ``_NOT_FOUND`` when the object
        has no ``records`` list."""
        self.expect("{", "'{'")
        found = False
        while not self.text.startswith("}", self.pos):
            key = self.value()
            self.expect(":", "':' delimiter")
            if self.text.startswith("[", self.pos):
                if key == "records" and not found:
                    found = True
                    yield from self.elements()
                else:
                    for _ in self.elements():
                        pass
            else:
                self.value()
            self.skip_space()
            if not self.text.startswith("}", self.pos):
                self.expect(",", "',' delimiter")
        self.pos += 1
        if not found:
            yield _NOT_FOUND
