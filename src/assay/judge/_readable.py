"""The plan's refusals before its first call: every judgment it would store must be readable
by a report of the run (names not blank, no two judgments a report takes for one, values and
scales the report's own reader accepts), so nothing is paid for that could not be reported."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.schema import (
    COLUMN_BY_NAME,
    DEFAULT_CRITERION,
    DEFAULT_JUDGE,
    KEY_COLUMNS,
    SPLITS,
    USD_PROVENANCES,
    Scale,
)
from assay.errors import ConfigError
from assay.llm import Reply

if TYPE_CHECKING:
    from assay.errors import Problem
    from assay.judge.plan import Plan


NAME_COLUMNS = ("item", "arm", "opponent", "judge", "criterion")
"""The names of a judgment a report shows; a blank one is read as missing (or as the default
judge or criterion)."""


def check_readable(plan: Plan, *, memo: Path | None = None) -> str | None:
    """Refuse, before its first call, a plan whose judgments a report could not read.

    Every request's rows are built as they would be stored for a failed call (their names,
    run numbers and cost fields are known before the call) and checked by the report's own
    reader (:func:`assay.data.validate.build_table`): a required name missing, a value of the
    wrong type, two judgments a report would take as one. A blank or spaces-only name is
    refused as well (a report reads it as missing, or as the default judge or criterion), and
    so is a criterion's scale that does not read back as declared. Otherwise a run would pay
    for judgments that ``assay report`` then refuses.

    Rows whose values are all plain (:func:`plainly_readable`, the rows of today's judges) are
    accepted without the reader and without importing pandas; any other rows go to the reader,
    which words the refusal. With ``memo`` (the run's response cache file, :func:`memo_path`), a
    plan whose row shapes
    this reader accepted before (:func:`remember_readable` wrote their digest into that file
    after a run) is not read again. Returns the digest of the shapes read and accepted here
    (None when nothing was read), for :func:`remember_readable` once the run has begun.

    Raises
    ------
    ConfigError
        The first problem, naming the judge, the item and the arm.
    """
    scales = plan.scales()
    for criterion, scale in scales.items():
        try:
            readable = Scale.parse(scale.spelling()) == scale
        except ValueError:
            readable = False
        if not readable:
            raise ConfigError(f"judges: criterion {criterion!r}: its scale {scale.spelling()!r} "
                              "does not read back as declared (a level holding a comma, or "
                              "spaces at either end?)")
    # The report's checks of a row's values do not depend on its item: they run once per
    # distinct row less its item (a few per judge and arm, unless answers carry their own
    # costs), so a plan of 100,000 judgments is checked in a moment. Duplicates are found
    # here over every row, as the report finds them.
    shapes: dict[tuple[Any, ...], tuple[str, dict[str, Any]]] = {}
    seen: dict[tuple[Any, ...], str] = {}
    for part in plan.judges:
        for request in (*part.requests, *part.followups):
            unsent = Reply(key=request.key, verdict=None, text=None, failure_kind="api_error",
                           error="not sent")
            for row in part.judge.rows(request, unsent):
                item = row.get("item")
                if not isinstance(item, str) or not item.strip():
                    raise ConfigError(_unreadable(part.judge.name, row, "item",
                                                  f"a blank name ({item!r})"))
                key = _hashable(tuple(row.get(c) for c in KEY_COLUMNS))
                if key in seen:
                    raise ConfigError(_unreadable(
                        part.judge.name, row, None, "two judgments of the same "
                        f"{', '.join(KEY_COLUMNS)} (the other of judge {seen[key]}): a report "
                        "refuses them as duplicates"))
                seen[key] = part.judge.name
                rest = dict(row)
                del rest["item"]
                rest.pop("cluster", None)
                shapes.setdefault(_hashable(tuple(rest.items())), (part.judge.name, row))
    for owner, row in shapes.values():
        for column in NAME_COLUMNS:
            value = row.get(column)
            if (column == "arm" and value is None) or (isinstance(value, str) and not value.strip()):
                raise ConfigError(_unreadable(owner, row, column, f"a blank name ({value!r})"))
    if not shapes:
        return None
    kept = list(shapes.values())
    rows = [row for _, row in kept]
    if plainly_readable(rows, scales):
        return None  # the reader would accept them (a sufficient test): nothing to remember
    digest = _digest(kept, scales)
    if memo is not None and _checked_before(memo, digest):
        return None
    problems = reader_problems(rows, scales)
    if problems:
        first = next((p for p in problems if p.row is not None), problems[0])  # a row names more
        owner, row = ("", {}) if first.row is None else kept[first.row - 1]
        raise ConfigError(_unreadable(owner, row, first.column, first.message))
    return digest


def reader_problems(rows: list[dict[str, Any]], scales: Mapping[str, Scale]) -> list[Problem]:
    """What the report's reader (:func:`assay.data.validate.build_table`, on pandas) finds wrong
    in ``rows``, each item replaced by a name of its own (``#1``, ``#2``...: the rows are shapes,
    their items are checked apart) and its cluster by none; a problem's row is its place in
    ``rows``, from 1."""
    import pandas as pd

    from assay.data._raw import ROW_COLUMN
    from assay.data.validate import build_table

    raw = pd.DataFrame.from_records([{**row, "item": f"#{n}", "cluster": None}
                                     for n, row in enumerate(rows)])
    raw = raw.astype(object).where(raw.notna(), None)
    raw[ROW_COLUMN] = range(1, len(raw) + 1)
    return build_table(raw, path="the plan", scales=dict(scales)).problems


_NON_NEGATIVE = frozenset({"usd", "tokens_in", "tokens_out", "latency_s", "answer_length",
                           "opponent_length"})


def plainly_readable(rows: list[dict[str, Any]], scales: Mapping[str, Scale]) -> bool:
    """Whether the report's reader surely accepts ``rows`` (the plan's distinct row shapes,
    each item replaced by a name of its own and its cluster by none, as :func:`check_readable`
    gives them to the reader), decided without the reader: a sufficient test, not an equal one.

    True only when every value is of the plain Python type its column holds and within what
    :func:`assay.data.validate.build_table` checks: known columns only, ``arm`` and ``score``
    present; text a ``str`` (``attributes`` the text of a JSON object, ``split`` and
    ``usd_provenance`` one of their words); ``run`` an ``int`` in 1..2**31 in every row (or in
    none) with each judge, criterion and arm's runs 1..R; ``position`` 1 or 2 with an opponent;
    numbers an ``int`` or ``float`` (not a bool), finite, costs and lengths >= 0, a weight > 0;
    ``reportable`` a bool; every score missing with a failure kind saying why, its criterion
    one of ``scales``. Anything else returns False and the reader itself decides (and words the
    refusal): so this never accepts what the reader refuses (``tests/judge/test_plan_readable.py``
    compares the two on generated rows), and spares the plan of today's judges pandas' import
    (about 0.4 s of CPU, a quarter of a ms per call of a 1,440-call run).
    """
    if not rows or not any("score" in row for row in rows):
        return False
    with_run = sum("run" in row for row in rows)
    if with_run not in (0, len(rows)):
        return False
    runs: dict[tuple[str, str, str], set[int]] = {}
    for row in rows:
        for name, value in row.items():
            column = COLUMN_BY_NAME.get(name)
            if column is None:
                return False
            if value is None or name in ("item", "cluster"):  # the reader is given its own
                continue
            kind = type(value)
            if column.kind == "str":
                if kind is not str:
                    return False
            elif column.kind == "int":
                if kind is not int or not 1 <= value <= 2**31:
                    return False
            elif column.kind == "float":
                if kind not in (int, float):
                    return False
                try:
                    if not math.isfinite(value) or (name in _NON_NEGATIVE and value < 0):
                        return False
                except OverflowError:
                    return False
                if name == "weight" and not value > 0:
                    return False
            elif kind is not bool:
                return False
        arm, judge, criterion = row.get("arm"), row.get("judge"), row.get("criterion")
        failure = row.get("failure_kind")
        if type(arm) is not str or not arm.strip() or row.get("score") is not None:
            return False
        if failure is None or not failure.strip():
            return False  # a missing score needs a failure kind saying why
        if (judge is not None and not judge.strip()) or (criterion is not None and not criterion.strip()):
            return False
        if row.get("split") not in (None, *SPLITS):
            return False
        if row.get("usd_provenance") not in (None, *USD_PROVENANCES):
            return False
        if row.get("position") is not None:
            opponent = row.get("opponent")
            if row["position"] not in (1, 2) or opponent is None or not opponent.strip():
                return False
        if row.get("attributes") is not None:
            try:
                if not isinstance(json.loads(row["attributes"]), dict):
                    return False
            except ValueError:
                return False
        criterion = DEFAULT_CRITERION if criterion is None else criterion
        if criterion not in scales:
            return False
        if with_run:
            if row["run"] is None:
                return False
            runs.setdefault((DEFAULT_JUDGE if judge is None else judge, criterion, arm),
                            set()).add(row["run"])
    return all(len(present) == max(present) for present in runs.values())  # ints >= 1: 1..R


MEMO_TABLE = "readable_plans"
"""The response cache's table of digests of the row shapes the report's reader accepted."""
_READER_SOURCES = ("data/validate/__init__.py", "data/validate/_checks.py", "data/validate/_values.py",
                   "data/validate/_repeats.py", "data/schema.py", "data/_raw.py", "judge/_readable.py")
"""The code whose verdict is remembered: a change to any of it checks every plan again."""


def _digest(kept: list[tuple[str, dict[str, Any]]], scales: Mapping[str, Scale]) -> str:
    """A digest of what the reader's verdict depends on: the distinct row shapes (less the
    item and cluster, which the check replaces), the scales, and the reader's own source.

    Importing pandas for the reader costs about 0.5 s of CPU, a third of a ms for each call of
    a 1,440-call run: a plan whose shapes this reader accepted before is not read again.
    """
    import hashlib

    from assay._version import __version__

    h = hashlib.sha256(__version__.encode())
    root = Path(__file__).resolve().parents[1]
    for name in _READER_SOURCES:
        try:
            h.update((root / name).read_bytes())
        except OSError:
            h.update(b"?")  # a file missing: the digest is another one, the check runs
    shapes = [(owner, {k: v for k, v in row.items() if k not in ("item", "cluster")}) for owner, row in kept]
    h.update(json.dumps([shapes, sorted((c, s.spelling()) for c, s in scales.items())],
                        sort_keys=True, default=repr).encode())
    return h.hexdigest()


def memo_path(setting: str, cache: Path | None) -> Path | None:
    """Where the memo is for a run whose response cache ``setting`` (``run``, ``shared``,
    ``off`` or a file) resolves to ``cache``: in that cache's own file (a table of its own), so
    the memo writes no file the user did not name; None for ``off``."""
    return None if cache is None or setting == "off" else cache


def _checked_before(path: Path, digest: str) -> bool:
    """Whether ``digest`` is in the memo of the cache file ``path`` (read only: a cache not
    yet made, or one without the table, holds none)."""
    import sqlite3

    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            found = conn.execute(f"SELECT 1 FROM {MEMO_TABLE} WHERE digest = ?", (digest,)).fetchone()
        return found is not None
    except sqlite3.Error:
        return False


def remember_readable(path: Path, digest: str) -> None:
    """Add ``digest`` to the memo in the cache file ``path`` (made by the run); a memo that
    cannot be written is no error (the next run reads its plan again)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as conn, conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {MEMO_TABLE} (digest TEXT PRIMARY KEY)")
            conn.execute(f"INSERT OR IGNORE INTO {MEMO_TABLE} (digest) VALUES (?)", (digest,))
    except sqlite3.Error:
        pass


def _hashable(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """``values`` as a dictionary key: as they are, or with a JSON object or list (a row's
    ``attributes``, a pair ``(column, value)`` holding one) as its text."""
    try:
        hash(values)
    except TypeError:
        return tuple(_hashable(v) if isinstance(v, tuple) else
                     json.dumps(v, sort_keys=True, default=str) if isinstance(v, dict | list) else v
                     for v in values)
    return values


def _unreadable(judge: str, row: Mapping[str, Any], column: str | None, message: str) -> str:
    where = ", ".join(f"{name} {row[name]!r}" for name in ("item", "arm", "opponent", "criterion")
                      if row.get(name) is not None)
    return (f"judges: judge {judge or '?'}{', ' + where if where else ''}"
            f"{f', column {column!r}' if column else ''}: {message}; a report of the run could "
            "not read it, so nothing was sent")
