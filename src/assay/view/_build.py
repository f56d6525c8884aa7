"""Build the viewer's index: one SQLite row per judgments-table row, and the filter columns'
integer codes (:mod:`assay.view._columns`).

A run store keeps each judgment's rows as JSON, which SQLite cannot filter fast (a
million records take seconds per scan). The index pulls the columns the viewer filters
on into their own table, once:

* for a run store, with SQLite's JSON functions straight from the store, into a file in the
  user's cache (``$ASSAY_CACHE_DIR/view``, else ``~/.cache/assay/view``) named after the
  store's path and stamped with its size and modification time, so the next
  ``assay view`` of the same store opens at once and a store that changed is indexed
  again; the store itself is opened read-only and nothing is written beside it;
* for a judgments table (CSV, JSONL, Parquet, ...), from the validated table, into a
  temporary file deleted when the viewer closes; each row keeps all its columns as JSON.

A store's index also holds a full-text index of each judgment's text (the rows as stored,
the raw reply and the error: what the free-text filter searches): an FTS5 table with
SQLite's ``trigram`` tokenizer (SQLite 3.34+), which indexes every three-character window of
the text, case folded, so any text of three characters or more is looked up, wherever it
starts (:mod:`assay.view._index` says how a query uses it, and how text of one or two
characters is found through the index's list of trigrams). Each column is indexed with two
``\x01`` characters after it, so that a character near the end of a text still starts a
trigram, and with each NUL character as ``\x01`` (the tokenizer stops at a NUL; a query's
NUL is looked up as ``\x01`` too, and the exact test then tells them apart). The index is
written in one transaction with large in-memory segments and no merging (``hashsize``,
``automerge``), which took 100,000 judgments from 6.5 s to 2.3 s on this machine (the word
index it replaces: 1.5 s, but it found text inside a word only by reading every judgment). A
million judgments index in 70 s into 1.1 GB on an idle machine with 2 cores
(``bench/bench_view.py``; the whole index was 31.9 s with the word index). When the user's
SQLite has no trigram tokenizer, the index falls back to the ``unicode61`` word index, and
when it has no FTS5 at all, to none; :data:`TEXT_SEARCH` names each, and the page says which
one it uses. A table's index (kept in the cache like a store's, rebuilt at every open of a table
read with ``--map`` and the like) has no text index: its free-text filter
reads the rows (on 200,000 rows, 0.3-0.5 s a filter under a load of 4, where a text index
would add some 6 s to every open).

The build reports its phases (:data:`PHASES`, :class:`BuildProgress`) to a ``progress``
function: the rows are indexed :data:`CHUNK` judgments per statement (ranges of rowids, in
order: of the plan's for a planned store's rows, which follow the plan) so that the phase can say
how far it is; the result is the index of one statement. The text index is written by one
statement, which counts its judgments as it goes and reports every :data:`CHUNK` of them (FTS5
writes a segment at the end of each statement: a statement per chunk made the index of a
million judgments 45% slower to write and 24% larger).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import sqlite3
import tempfile
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assay.data.run_store import STORE_FILENAME
from assay.data.schema import Scale
from assay.errors import InputError
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


def cache_folder() -> Path:
    """Where store indexes are kept: ``$ASSAY_CACHE_DIR/view``, else ``~/.cache/assay/view``."""
    root = os.environ.get("ASSAY_CACHE_DIR")
    return (Path(root) if root else Path.home() / ".cache" / "assay") / "view"


def store_uri(path: Path) -> str:
    """A read-only SQLite URI for the store: ``immutable`` when no ``-wal`` file is beside it
    (no lock taken, nothing created), plain ``mode=ro`` while a run may be writing."""
    wal = path.with_name(path.name + "-wal")
    live = wal.exists() and wal.stat().st_size > 0
    return ("file:" + urllib.parse.quote(str(path.resolve())) + "?"
            + ("mode=ro" if live else "mode=ro&immutable=1"))


def _stamp(path: Path, *companions: str) -> str:
    """The index format and the size and modification time of ``path`` and of the files
    beside it named ``path``'s name + each of ``companions`` (default: its ``-wal``)."""
    parts = [INDEX_FORMAT]
    for file in (path, *(path.with_name(path.name + c) for c in companions or ("-wal",))):
        stat = file.stat() if file.exists() else None
        parts.append("-" if stat is None else f"{stat.st_size}:{stat.st_mtime_ns}")
    return " ".join(parts)


def _extract(source: str, prefix: str) -> str:
    return ", ".join(f"json_extract({source}, '{prefix}.{c}') AS {c}" for c in COLUMNS)


def _store_rows_sql(planned: bool) -> str:
    """Every row of every (planned) judgment in the range ``:low..:high``; one-row judgments
    (most) take the fast path.

    A planned store's range is of plan rowids and its rows come in plan order (the order the
    config asks for the judgments, as :func:`~assay.data.run_store.selected_rows` reads them);
    a store with no plan is read by judgment rowids, in storing order. Never in the order a
    concurrent run happened to answer the planned judgments in. Following the plan costs
    nothing when the judgments were stored near their plan positions, as a run stores them
    (200,000 judgments, each within 64 of its place: 11.5-12.4 s, storing order 12.7-13.8 s,
    load 1-1.5 on 2 cores); a plan whose order has nothing to do with the storing order (a
    config that reordered its judges, resumed) reads the store at random: 15-16 s, 10-12 s."""
    join = "JOIN s.plan p ON p.key = j.key " if planned else ""
    order = "p.rowid" if planned else "j.rowid"
    within = f"{order} BETWEEN :low AND :high"
    return (
        f"SELECT record, part, {', '.join(COLUMNS)} FROM ("
        f"SELECT {order} AS ord, j.rowid AS record, 0 AS part, {_extract('j.rows', '$[0]')} "
        f"FROM s.judgments j {join}WHERE {within} AND json_array_length(j.rows) = 1 "
        f"UNION ALL SELECT {order}, j.rowid, CAST(e.key AS INTEGER), {_extract('e.value', '$')} "
        f"FROM s.judgments j {join}JOIN json_each(j.rows) e WHERE {within} "
        "AND json_array_length(j.rows) <> 1) ORDER BY ord, part")


def _ranges(conn: sqlite3.Connection, table: str) -> Iterator[tuple[int, int]]:
    """``table``'s rowids (the plan's or the judgments') as ranges of :data:`CHUNK` ids, in
    order (rowids may have gaps, so a range may hold fewer)."""
    low, high = conn.execute(f"SELECT min(rowid), max(rowid) FROM {table}").fetchone()
    if low is None:
        return
    for start in range(int(low), int(high) + 1, CHUNK):
        yield start, min(start + CHUNK - 1, int(high))


def _store_rows(conn: sqlite3.Connection, planned: bool, total: int, progress: Progress) -> None:
    """Index every row of the store's (planned) judgments, a range at a time (ranges in plan
    order, or rowid order without a plan, so the rows' ids follow it as in one statement);
    ``total`` is the store's judgments (a planned store counts its planned ones)."""
    sql = f"INSERT INTO rows (record, part, {', '.join(COLUMNS)}) " + _store_rows_sql(planned)
    counted = ("SELECT count(*) FROM s.plan p JOIN s.judgments j ON j.key = p.key WHERE p.rowid "
               if planned else "SELECT count(*) FROM s.judgments WHERE rowid ")
    if planned:
        total = int(conn.execute(counted + "IS NOT NULL").fetchone()[0])
    done = 0
    progress(BuildProgress("reading rows", 0, total, PHASES["reading rows"]))
    for low, high in _ranges(conn, "s.plan" if planned else "s.judgments"):
        conn.execute(sql, {"low": low, "high": high})
        done += int(conn.execute(counted + "BETWEEN ? AND ?", (low, high)).fetchone()[0])
        progress(BuildProgress("reading rows", done, total, PHASES["reading rows"]))


TEXT_TABLE = "text"
"""The full-text index of a store's judgments (rowid = the judgment's rowid in the store)."""
TERMS_TABLE = "text_terms"
"""The list of the full-text index's terms (an ``fts5vocab`` table)."""
TEXT_COLUMNS: tuple[str, ...] = ("rows", "raw_response", "error")
"""The store's columns the free-text filter searches."""
TEXT_PAD = "\x01\x01"
"""Indexed after each column's text (see the module docstring)."""
TRIGRAM = "trigram"
"""The tokenizer of the full-text index when SQLite has it (a test names a missing one)."""
TEXT_SEARCH: dict[str, str] = {
    "trigram": "any text of 3 characters or more is looked up in the trigram index; "
               "1 or 2 characters through its list of trigrams",
    "words": "words are looked up in a word index (this SQLite has no trigram tokenizer, "
             "SQLite 3.34 or later has): text inside a word reads every judgment",
    "none": "every free-text filter reads every judgment (this SQLite has no FTS5)",
    "scan": "a judgments table has no text index: every free-text filter reads the text of "
            "every row (its index is rebuilt whenever the table changes, where indexing the "
            "text would take longer than the reads it saves)",
}
"""How the free-text filter of an index finds text, by the kind recorded in its ``info``."""
_HASH_BYTES = 64 * 1024 * 1024


def _text_kind(conn: sqlite3.Connection) -> str:
    """``trigram`` when this SQLite's FTS5 has the trigram tokenizer, else ``words`` (FTS5
    without it) or ``none`` (no FTS5)."""
    for kind, tokenizer in (("trigram", TRIGRAM), ("words", "unicode61")):
        try:
            conn.execute(f"CREATE VIRTUAL TABLE temp.probe USING fts5(x, tokenize='{tokenizer}')")
        except sqlite3.OperationalError:
            continue
        conn.execute("DROP TABLE temp.probe")
        return kind
    return "none"


def _nul_free(text: str | None) -> str | None:
    return text.replace("\x00", "\x01") if text is not None and "\x00" in text else text


def _index_text(conn: sqlite3.Connection, total: int, progress: Progress) -> str:
    """The full-text index of every judgment of the attached store ``s`` (contentless: it
    points at the store's rows, whose text stays in the store); returns its kind."""
    kind = _text_kind(conn)
    conn.execute("CREATE INDEX rows_record ON rows (record)")  # a text match's rows
    if kind == "none":
        return kind
    progress(BuildProgress("text index", 0, total, PHASES["text index"]))
    columns = ", ".join(TEXT_COLUMNS)
    tokenizer = TRIGRAM if kind == "trigram" else "unicode61"
    conn.execute(f"CREATE VIRTUAL TABLE {TEXT_TABLE} USING fts5({columns}, content='', "
                 f"tokenize='{tokenizer}')")
    # one bulk load: large in-memory segments, merged never (a query reads a few dozen)
    conn.execute(f"INSERT INTO {TEXT_TABLE} ({TEXT_TABLE}, rank) VALUES ('automerge', 0)")
    conn.execute(f"INSERT INTO {TEXT_TABLE} ({TEXT_TABLE}, rank) VALUES ('hashsize', ?)",
                 (_HASH_BYTES,))
    # the trigram tokenizer stops at a NUL: index it as \x01 (a query's NUL looks up \x01);
    # SQLite's replace() cannot name a NUL (char(0) has length 0), so Python replaces it
    conn.create_function("nul_free", 1, _nul_free, deterministic=True)
    # One statement, counted from inside it: FTS5 flushes its in-memory segment at the end of
    # every statement (a statement savepoint), so a statement per CHUNK judgments wrote one small
    # segment each (1 M judgments: 63.7 s and 1,333 MiB, against 43.8 s and 1,072 MiB at once)
    done = 0

    def counted(rowid: int) -> int:
        nonlocal done
        done += 1
        if done % CHUNK == 0 and done < total:  # the last count is told once, below
            progress(BuildProgress("text index", done, total, PHASES["text index"]))
        return rowid

    conn.create_function("counted", 1, counted)
    padded = ", ".join(f"nul_free({c}) || :pad" for c in TEXT_COLUMNS)
    done = conn.execute(f"INSERT INTO {TEXT_TABLE} (rowid, {columns}) SELECT counted(rowid), {padded} "
                        "FROM s.judgments", {"pad": TEXT_PAD}).rowcount
    progress(BuildProgress("text index", done, total, PHASES["text index"]))
    conn.execute(f"CREATE VIRTUAL TABLE {TERMS_TABLE} USING fts5vocab({TEXT_TABLE}, 'row')")
    return kind


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


def build_store_index(store: Path, target: Path, *, progress: Progress | None = None) -> None:
    """Write the index of the run store ``store`` (its ``judgments.sqlite``) to ``target``;
    ``progress`` is told how far each phase is (:class:`BuildProgress`).

    Raises
    ------
    InputError
        When the store cannot be read, or is not a run store.
    """
    partial = target.with_name(target.name + f".{os.getpid()}.part")
    partial.unlink(missing_ok=True)
    conn = _connect_new(partial)
    try:
        try:
            conn.execute("ATTACH DATABASE ? AS s", (store_uri(store),))
            tables = {r[0] for r in conn.execute("SELECT name FROM s.sqlite_master WHERE type='table'")}
            if not {"judgments", "plan"} <= tables:
                raise InputError(str(store), "is not a run store of assay judge (no judgments table)")
            planned = conn.execute("SELECT 1 FROM s.plan LIMIT 1").fetchone() is not None
            total = int(conn.execute("SELECT count(*) FROM s.judgments").fetchone()[0])
            tell = progress or _silent
            _ready()
            conn.execute("BEGIN")
            _store_rows(conn, planned, total, tell)
            _finish(conn, tell)
            text = _index_text(conn, total, tell)
            conn.execute("INSERT INTO info VALUES ('stamp', ?), ('kind', 'store'), ('planned', ?), "
                         "('text', ?), ('scales', ?)", (_stamp(store), int(planned), text,
                                                        _store_scales(conn)))
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise InputError(str(store), f"is not a readable run store ({exc}): it is corrupt, "
                             "truncated or not one assay wrote") from None
    finally:
        conn.close()
    os.replace(partial, target)


def _store_scales(conn: sqlite3.Connection) -> str:
    """The scales the attached store ``s`` declares, as the index keeps them (JSON: criterion
    -> the scale's spelling); none when the store has no ``scales`` table."""
    if conn.execute("SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'scales'"
                    ).fetchone() is None:
        return "{}"
    return json.dumps({str(c): str(v) for c, v in conn.execute("SELECT criterion, scale FROM s.scales")})


def _cache() -> Path:
    """The cache folder of indexes, or a temporary folder when it cannot be written."""
    try:
        cache = cache_folder()
        cache.mkdir(parents=True, exist_ok=True)
        probe = cache / f".{os.getpid()}.probe"
        probe.touch()
        probe.unlink()
    except OSError:
        cache = Path(tempfile.mkdtemp(prefix="assay-view-"))
    return cache


def table_index(table: Path, load: Callable[[], Any], *, progress: Progress | None = None) -> Path:
    """The index of the judgments table file ``table``, from the cache when it is current
    (the file and its ``.assay.json`` sidecar unchanged), else built from ``load()`` (the
    validated :class:`~assay.data.table.Judgments`) and kept there, as a store's index is.

    The first open of a table reads and checks it (on the demo's 13,194 rows, about 2 s with
    the imports it needs); the next opens read the index only.
    """
    key = "table-" + hashlib.sha256(str(table.resolve()).encode("utf-8")).hexdigest()[:24]
    target = _cache() / f"{key}.sqlite"
    stamp = _stamp(table, ".assay.json")
    if target.exists() and _cached_stamp(target) == stamp:
        return target
    partial = target.with_name(target.name + f".{os.getpid()}.part")
    partial.unlink(missing_ok=True)
    table_read = load()
    build_table_index(table_read.frame, partial, progress=progress, stamp=stamp,
                      scales=table_read.scales)
    os.replace(partial, target)
    return target


def store_index(folder: Path, *, on_build: Callable[[str], None] | None = None,
                progress: Progress | None = None) -> Path:
    """The index of the run folder's store, from the cache when it is current, else built
    (``on_build`` is told first, with a sentence to show: indexing a large store takes a while;
    ``progress`` then how far each phase of the build is).

    A cache folder that cannot be written is replaced by a temporary one.
    """
    store = folder / STORE_FILENAME
    key = hashlib.sha256(str(store.resolve()).encode("utf-8")).hexdigest()[:24]
    cache = _cache()
    target = cache / f"{key}.sqlite"
    if target.exists() and _cached_stamp(target) == _stamp(store):
        return target
    if on_build is not None:
        on_build(f"indexing {store} once (the index is kept in {cache} for the next open)")
    build_store_index(store, target, progress=progress)
    return target


def _cached_stamp(target: Path) -> str | None:
    try:
        conn = sqlite3.connect(f"file:{urllib.parse.quote(str(target))}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM info WHERE name = 'stamp'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])


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
