"""The index of a judgments table (a validated frame): each row with the columns the viewer
filters on and all its columns as JSON (:func:`build_table_index`; the layout and the phases:
:mod:`assay.view._build`).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from assay.data.schema import Scale
from assay.view._build import (
    CHUNK,
    COLUMNS,
    BuildProgress,
    Progress,
    _connect_new,
    _finish,
    _ready,
    _silent,
)


def _plain(value: Any) -> Any:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


_PLAIN_TYPES = (str, int, bool, type(None))


def _plain_column(column: Any) -> list[Any]:
    """A table's column as JSON values: pandas' and numpy's missing values None, numpy
    scalars Python ones, a non-finite number None (the values :func:`_plain` gives, a column
    at a time: 13,194 rows of 28 columns in a fraction of the time)."""
    values: list[Any] = column.to_numpy(dtype=object, na_value=None).tolist()
    if column.dtype.kind == "f":
        numbers = column.to_numpy(dtype=np.float64)
        if np.isinf(numbers).any():
            return [_plain(v) for v in values]
        return values
    if all(type(v) in _PLAIN_TYPES for v in values):
        return values
    return [_plain(v) for v in values]


def build_table_index(frame: Any, target: Path, *, progress: Progress | None = None,
                      stamp: str | None = None, scales: Mapping[str, Scale] | None = None) -> None:
    """Write the index of a judgments table (a validated frame) to ``target``; ``progress``
    is told how far each phase is (:class:`BuildProgress`; the first counts rows); ``stamp``
    (of a cached index) names the file it indexes; ``scales`` are the table's declared
    scales (the header's means use them: :meth:`assay.view._columns.FilterColumns.systems`)."""
    tell = progress or _silent
    _ready()
    conn = _connect_new(target)
    try:
        names = [str(c) for c in frame.columns]
        conn.execute("BEGIN")

        def records() -> Any:
            columns = [_plain_column(frame[name]) for name in frame.columns]
            for number, values in enumerate(zip(*columns, strict=True), start=1):
                row = dict(zip(names, values, strict=True))
                yield (number, 0, *(row.get(c) for c in COLUMNS),
                       json.dumps(row, ensure_ascii=False))

        sql = (f"INSERT INTO rows (record, part, {', '.join(COLUMNS)}, detail) "
               f"VALUES ({', '.join('?' * (len(COLUMNS) + 3))})")
        total, rows = len(frame), records()
        tell(BuildProgress("reading rows", 0, total, "rows"))
        for done in range(0, total, CHUNK):
            conn.executemany(sql, itertools.islice(rows, CHUNK))
            tell(BuildProgress("reading rows", min(done + CHUNK, total), total, "rows"))
        _finish(conn, tell)
        conn.execute("INSERT INTO info VALUES ('kind', 'table'), ('text', 'scan'), ('scales', ?)",
                     (json.dumps({str(c): v.spelling() for c, v in (scales or {}).items()}),))
        if stamp is not None:
            conn.execute("INSERT INTO info VALUES ('stamp', ?)", (stamp,))
        conn.execute("COMMIT")
    finally:
        conn.close()
