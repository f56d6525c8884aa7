"""Build the viewer's index: one SQLite row per judgments-table row, and the filter columns'
integer codes (:mod:`assay.view._columns`).

A run store keeps each judgment's rows as JSON, which SQLite cannot filter fast (a
million records take seconds per scan). The index pulls the columns the viewer filters
on into their own table, once:

* for a run store, with SQLite's JSON functions straight from the store, into a file in the
  user's cache (``$ASSAY_CACHE_DIR/view``, else ``~/.cache/assay/view``) named after the
  store's path and stamped with its size and modification time, so the next
  ``assay view`` of the same store opens at once and a store that changed is indexed
  again; the store itself is opened read-only and nothing is written beside it
  (:mod:`assay.view._build_store`; the cache: :mod:`assay.view._cache`);
* for a judgments table (CSV, JSONL, Parquet, ...), from the validated table, into a
  temporary file deleted when the viewer closes; each row keeps all its columns as JSON
  (:mod:`assay.view._build_table`).

A store's index also holds a full-text index of each judgment's text
(:mod:`assay.view._build_text`). This module holds what every index has: its layout
(:data:`COLUMNS`, the ``info`` and ``rows`` tables, the stamp of a cached one), the filter
columns and the order flips written after the rows, and how a build reports its phases.

The build reports its phases (:data:`PHASES`, :class:`BuildProgress`) to a ``progress``
function: the rows are indexed :data:`CHUNK` judgments per statement (ranges of rowids, in
order: of the plan's for a planned store's rows, which follow the plan) so that the phase can say
how far it is; the result is the index of one statement. The text index is written by one
statement, which counts its judgments as it goes and reports every :data:`CHUNK` of them (FTS5
writes a segment at the end of each statement: a statement per chunk made the index of a
million judgments 45% slower to write and 24% larger).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from assay.view._columns import write_columns

INDEX_FORMAT = "8"
"""Enters the stamp of a cached index: a new layout never reads an old file (8: the rows'
``split`` and ``reportable``, the flips paired within reportable rows, the criteria's scales)."""

COLUMNS: tuple[str, ...] = ("item", "cluster", "arm", "opponent", "position", "run", "judge",
                            "criterion", "task", "score", "failure_kind", "split", "reportable")
"""The judgments columns the index keeps (in this order, after ``record`` and ``part``)."""

FACETS: tuple[str, ...] = ("arm", "opponent", "judge", "criterion", "task", "split", "failure_kind")
"""Columns whose distinct values (with counts) the page offers as choices."""
MAX_FACET_VALUES = 500

CHUNK = 20_000
"""Judgments (of a store) or rows (of a table) indexed per statement, between progress reports."""

PHASES: dict[str, str] = {
    "reading rows": "judgments",
    "filter columns": "rows",
    "order flips": "rows",
    "text index": "judgments",
}
"""The phases of an index build, in order, with the unit each counts (a table's index has no
text index, and its first phase counts rows)."""


@dataclass(frozen=True)
class BuildProgress:
    """How far an index build is: a phase of :data:`PHASES`, its count so far and its total
    (None: not known until it ends). Each phase reports ``done = 0`` first and
    ``done = total`` last, and between them after every :data:`CHUNK` judgments or rows."""

    phase: str
    done: int
    total: int | None
    unit: str


Progress = Callable[[BuildProgress], None]
"""Told how far an index build is (:class:`BuildProgress`)."""


def _silent(step: BuildProgress) -> None:
    return None


def _ready() -> None:
    """Import what the order flips need (pandas, the judges analysis) before the first
    phase, so that the phases' times and rates are those of their work."""
    from assay.analysis.judges import trial_pair_flips  # noqa: F401  (pandas, scipy: seconds)


_SCHEMA = """
CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE rows (id INTEGER PRIMARY KEY, record INTEGER NOT NULL, part INTEGER NOT NULL,
    item TEXT, cluster TEXT, arm TEXT, opponent TEXT, position INTEGER, run INTEGER, judge TEXT,
    criterion TEXT, task TEXT, score REAL, failure_kind TEXT, split TEXT, reportable INTEGER,
    detail TEXT);
"""


def _stamp(path: Path, *companions: str) -> str:
    """The index format and the size and modification time of ``path`` and of the files
    beside it named ``path``'s name + each of ``companions`` (default: its ``-wal``)."""
    parts = [INDEX_FORMAT]
    for file in (path, *(path.with_name(path.name + c) for c in companions or ("-wal",))):
        stat = file.stat() if file.exists() else None
        parts.append("-" if stat is None else f"{stat.st_size}:{stat.st_mtime_ns}")
    return " ".join(parts)


def _finish(conn: sqlite3.Connection, progress: Progress) -> None:
    conn.execute("CREATE INDEX rows_item ON rows (item)")  # a pairwise row's partners
    n = int(conn.execute("SELECT count(*) FROM rows").fetchone()[0])
    unit = PHASES["filter columns"]
    progress(BuildProgress("filter columns", 0, n, unit))
    write_columns(conn, progress=lambda done: progress(
        BuildProgress("filter columns", done, n, unit)), chunk=CHUNK)
    progress(BuildProgress("order flips", 0, None, PHASES["order flips"]))
    write_flips(conn)
    progress(BuildProgress("order flips", n, n, PHASES["order flips"]))


def write_flips(conn: sqlite3.Connection) -> None:
    """Store, per row in id order, whether its counterbalanced trial pair flips (int8: 1 it
    does, 0 it does not, -1 the row is in no trial pair), as the judges report counts flips
    (:func:`assay.analysis.judges.trial_pair_flips`; the score is the pairwise verdict, a
    missing run is run 1 and a missing cluster the item, as when a table is read).

    The reportable rows are paired among themselves, as the report pairs them (it reads no
    other row), and the rows of the dev or calibration split among themselves: so a report's
    flips are exactly the rows of ``flipped=yes&reportable=yes``, even when a unit's trials
    are of both kinds (write_columns stored the ``reportable`` codes first)."""
    import pandas as pd

    from assay.analysis.judges import trial_pair_flips

    n = int(conn.execute("SELECT count(*) FROM rows").fetchone()[0])
    codes = np.full(n, -1, dtype=np.int8)
    names = ["id", "cluster", "item", "arm", "opponent", "position", "run", "judge", "criterion",
             "score"]
    found = conn.execute("SELECT id, coalesce(cluster, item), item, arm, opponent, position, "
                         "coalesce(run, 1), "
                         "judge, criterion, score FROM rows WHERE opponent IS NOT NULL AND "
                         "position IN (1, 2)").fetchall()
    if found:
        frame = pd.DataFrame.from_records(found, columns=names)
        frame["pair_value"] = frame["score"].astype(np.float64)
        (blob,) = conn.execute("SELECT data FROM codes WHERE name = 'reportable'").fetchone()
        reportable = np.frombuffer(blob, dtype=np.int8)[frame["id"].to_numpy() - 1] == 1
        for part in (frame[reportable], frame[~reportable]):
            if part.empty:
                continue
            marks = trial_pair_flips(part).to_numpy()
            known = ~np.isnan(marks)
            codes[part["id"].to_numpy()[known] - 1] = marks[known].astype(np.int8)
    conn.execute("INSERT INTO codes (name, data) VALUES ('flipped', ?)", (codes.tobytes(),))


def _connect_new(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    conn.executescript(_SCHEMA)
    return conn
