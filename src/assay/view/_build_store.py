"""The index of a run store: its judgments' rows read with SQLite's JSON functions straight
from the store (opened read-only), :data:`~assay.view._build.CHUNK` judgments per statement,
in plan order (:func:`build_store_index`; the layout and the phases: :mod:`assay.view._build`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from assay.errors import InputError
from assay.view._build import (
    CHUNK,
    COLUMNS,
    PHASES,
    BuildProgress,
    Progress,
    _connect_new,
    _finish,
    _ready,
    _silent,
    _stamp,
)
from assay.view._build_text import _index_text


def store_uri(path: Path) -> str:
    """A read-only SQLite URI for the store: ``immutable`` when no ``-wal`` file is beside it
    (no lock taken, nothing created), plain ``mode=ro`` while a run may be writing."""
    wal = path.with_name(path.name + "-wal")
    live = wal.exists() and wal.stat().st_size > 0
    return ("file:" + urllib.parse.quote(str(path.resolve())) + "?"
            + ("mode=ro" if live else "mode=ro&immutable=1"))


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
