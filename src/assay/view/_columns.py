"""The viewer's filter columns in memory: one integer code per row and column, so a filter is
a few vectorised comparisons over a million rows (milliseconds) instead of an SQLite search
whose cost depends on the planner's choice of index.

Built once with the index (:func:`write_columns`, kept in the index file as blobs) and read
back whole when the index opens (:meth:`FilterColumns.read`, tens of megabytes for a million
rows). Row ``id`` ``k`` of the index is position ``k - 1`` of every array.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.data.schema import NON_REPORTABLE_SPLITS, Scale
from assay.view._query import (
    FILTER_COLUMNS,
    FLIPPED,
    REPORTABLE,
    Query,
    flip_rule,
    reportable_rule,
    verdict_rule,
)

_TABLES = """
CREATE TABLE IF NOT EXISTS codes (name TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS vocabulary (name TEXT NOT NULL, code INTEGER NOT NULL, value);
CREATE INDEX IF NOT EXISTS vocabulary_value ON vocabulary (name, value);
"""


def write_columns(conn: sqlite3.Connection, *, progress: Callable[[int], None] | None = None,
                  chunk: int = 20_000) -> None:
    """Store each filter column of ``rows`` as int32 codes (-1: no value), the score as
    float64 (NaN: no score) and whether the row is reportable as int8 (1 or 0: its
    ``reportable``, else whether its ``split`` is not dev or calibration, as a table is
    read), in row-id order; ``progress`` is told the rows coded so far, after every
    ``chunk`` rows.

    Each column's vocabulary (its distinct values, coded in SQLite's order) is written first;
    then one read of the rows in id order codes every column (one read instead of a join
    per column took 200,000 rows from 2.0-2.7 s to 1.5 s).
    """
    for statement in _TABLES.split(";"):  # not executescript: it would commit the build's transaction
        if statement.strip():
            conn.execute(statement)
    n = int(conn.execute("SELECT count(*) FROM rows").fetchone()[0])
    lookups: list[Callable[[Any], int]] = []
    for name in FILTER_COLUMNS:
        conn.execute(f"INSERT INTO vocabulary (name, code, value) SELECT ?, row_number() OVER "
                     f"(ORDER BY {name}) - 1, {name} FROM (SELECT DISTINCT {name} FROM rows "
                     f"WHERE {name} IS NOT NULL)", (name,))
        codes_of: dict[Any, int] = {value: int(code) for value, code in conn.execute(
            "SELECT value, code FROM vocabulary WHERE name = ?", (name,))}
        codes_of[None] = -1
        lookups.append(codes_of.__getitem__)  # every value is in it: a KeyError is a bug
    codes = {name: np.empty(n, dtype=np.int32) for name in FILTER_COLUMNS}
    scores = np.empty(n, dtype=np.float64)
    reportable = np.empty(n, dtype=np.int8)
    cursor = conn.execute(f"SELECT {', '.join(FILTER_COLUMNS)}, reportable, score FROM rows ORDER BY id")
    split = FILTER_COLUMNS.index("split")
    done = 0
    while found := cursor.fetchmany(chunk):
        end = done + len(found)
        for k, name in enumerate(FILTER_COLUMNS):
            codes[name][done:end] = [lookups[k](row[k]) for row in found]
        reportable[done:end] = [row[split] not in NON_REPORTABLE_SPLITS if row[-2] is None
                                else bool(row[-2]) for row in found]
        scores[done:end] = [math.nan if row[-1] is None else row[-1] for row in found]
        done = end
        if progress is not None:
            progress(done)
    if done != n:
        raise RuntimeError(f"the index's rows changed while coded ({done} of {n})")
    for name in FILTER_COLUMNS:
        conn.execute("INSERT INTO codes (name, data) VALUES (?, ?)", (name, codes[name].tobytes()))
    conn.execute("INSERT INTO codes (name, data) VALUES ('score', ?)", (scores.tobytes(),))
    conn.execute("INSERT INTO codes (name, data) VALUES ('reportable', ?)", (reportable.tobytes(),))


@dataclass(frozen=True)
class FilterColumns:
    """The codes of every filter column, their vocabularies, and the scores."""

    codes: dict[str, npt.NDArray[np.int32]]
    vocabulary: dict[str, dict[Any, int]]
    scores: npt.NDArray[np.float64]
    flipped: npt.NDArray[np.int8]
    """Per row: 1 in a counterbalanced trial pair that flips, 0 in one that does not, -1 in
    none (:func:`assay.view._build.write_flips`)."""
    reportable: npt.NDArray[np.int8]
    """Per row: 1 when a report reads it, 0 when not (the dev and calibration splits)."""
    scales: dict[str, Scale] = field(default_factory=dict)
    """The criteria's declared scales (an undeclared criterion is on an interval scale)."""

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> FilterColumns:
        arrays = {str(name): bytes(data) for name, data in conn.execute("SELECT name, data FROM codes")}
        vocabulary: dict[str, dict[Any, int]] = {name: {} for name in FILTER_COLUMNS}
        for name, code, value in conn.execute("SELECT name, code, value FROM vocabulary"):
            vocabulary[str(name)][str(value)] = int(code)
        codes = {name: np.frombuffer(arrays[name], dtype=np.int32) for name in FILTER_COLUMNS}
        found = conn.execute("SELECT value FROM info WHERE name = 'scales'").fetchone()
        scales = {str(c): Scale.parse(str(v)) for c, v in json.loads(found[0] if found else "{}").items()}
        return cls(codes, vocabulary, np.frombuffer(arrays["score"], dtype=np.float64),
                   np.frombuffer(arrays["flipped"], dtype=np.int8),
                   np.frombuffer(arrays["reportable"], dtype=np.int8), scales)

    def facets(self, names: tuple[str, ...], *, most: int) -> dict[str, list[list[Any]]]:
        """Column -> its ``most`` most frequent values with their row counts (``verdict``: the
        scores)."""
        out: dict[str, list[list[Any]]] = {}
        for name in names:
            values = sorted(self.vocabulary[name], key=self.vocabulary[name].__getitem__)
            counts = np.bincount(self.codes[name][self.codes[name] >= 0], minlength=len(values))
            order = np.argsort(-counts, kind="stable")[:most]
            out[name] = [[values[i], int(counts[i])] for i in order if counts[i] > 0]
        scored = self.scores[~np.isnan(self.scores)]
        levels, counts = np.unique(scored, return_counts=True)
        order = np.argsort(-counts, kind="stable")[:50]
        out["verdict"] = [[float(levels[i]), int(counts[i])] for i in order]
        out["flipped"] = [[word, n] for word, code in FLIPPED.items()
                          if (n := int(np.count_nonzero(self.flipped == code)))]
        out["reportable"] = [[word, n] for word, code in REPORTABLE.items()
                             if (n := int(np.count_nonzero(self.reportable == code)))]
        return out

    def mask(self, query: Query) -> npt.NDArray[np.bool_] | None:
        """Which rows match every filter of ``query`` but the text; None when none is set."""
        keep: npt.NDArray[np.bool_] | None = None

        def narrow(condition: npt.NDArray[np.bool_]) -> None:
            nonlocal keep
            keep = condition if keep is None else keep & condition

        for name in FILTER_COLUMNS:
            values = query.filters.get(name)
            if not values:
                continue
            known = self.vocabulary[name]
            wanted = [known[v] for v in values if v in known]
            if name == "failure_kind" and "none" in values:
                wanted.append(-1)
            narrow(np.isin(self.codes[name], np.asarray(wanted, dtype=np.int32)))
        verdicts = query.filters.get("verdict")
        if verdicts:
            any_of = np.zeros(self.scores.shape, dtype=bool)
            for verdict in verdicts:
                any_of |= self._verdict(verdict)
            narrow(any_of)
        flips = query.filters.get("flipped")
        if flips:
            narrow(np.isin(self.flipped, [FLIPPED[flip_rule(v)] for v in flips]))
        reportable = query.filters.get("reportable")
        if reportable:
            narrow(np.isin(self.reportable, [REPORTABLE[reportable_rule(v)] for v in reportable]))
        return keep

    def _verdict(self, text: str) -> npt.NDArray[np.bool_]:
        kind, value = verdict_rule(text)
        if kind == "failed":
            return np.isnan(self.scores)
        if kind == "scored":
            return ~np.isnan(self.scores)
        if kind == "pairwise":
            return (self.scores == value) & (self.codes["opponent"] >= 0)
        return self.scores == value

    def sort_key(self, name: str) -> npt.NDArray[np.float64]:
        """Per row, a number that orders the rows by column ``name`` (its code, which follows
        the values' order; the score; the id), NaN where the row has no value. ``position``
        is not coded: the index reads it (:meth:`assay.view.JudgmentIndex.page`)."""
        if name == "score":
            return self.scores
        if name == "id":
            return np.arange(1, self.scores.size + 1, dtype=np.float64)
        codes = self.codes[name].astype(np.float64)
        codes[codes < 0] = math.nan
        return codes

    def systems(self, *, most: int = 50, criteria: int = 12,
                within: npt.NDArray[np.bool_] | None = None) -> dict[str, Any]:
        """The page's header: per system (``arm``), its rows, its rows without a score and its
        mean score on each criterion, with how many scores each mean is of, by the reports'
        rule: the mean of the units' means (a unit: the system's item under one judge,
        against one opponent when pairwise; its runs averaged first), over the reportable
        rows only (the dev and calibration splits are left out, and
        ``left_out`` counts them), each score on [0, 1] by its criterion's scale (binary,
        range, ordinal: an ordinal level ``k`` of ``L`` levels is ``k / (L - 1)``), an
        interval criterion on its raw scale and a nominal one not at all (it has no mean). A
        pairwise criterion's mean is the system's share of its comparisons won, ties half, read
        from both sides (a row of ``arm`` against ``opponent`` scoring ``s`` counts ``1 - s``
        for the opponent), so a system judged only as an opponent has its share too.

        At most ``most`` systems (the most judged) and ``criteria`` criteria; ``within``: of
        those rows only (an export's).
        """
        arms = sorted(self.vocabulary["arm"], key=self.vocabulary["arm"].__getitem__)
        opponents = sorted(self.vocabulary["opponent"], key=self.vocabulary["opponent"].__getitem__)
        names = sorted(set(arms) | set(opponents))
        place = {name: k for k, name in enumerate(names)}
        of_arm = np.array([place[a] for a in arms] + [-1], dtype=np.int64)  # code -1: last
        of_opponent = np.array([place[o] for o in opponents] + [-1], dtype=np.int64)
        counted = self.reportable == 1
        if within is not None:
            left_out = int(np.count_nonzero(within & ~counted))
            counted = counted & within
        else:
            left_out = int(np.count_nonzero(~counted))
        arm = np.where(counted, of_arm[self.codes["arm"]], -1)
        opponent = np.where(counted, of_opponent[self.codes["opponent"]], -1)
        criterion = self.codes["criterion"]
        labels = sorted(self.vocabulary["criterion"], key=self.vocabulary["criterion"].__getitem__)
        scales = [self.scales.get(label, Scale("interval")) for label in labels]
        n, n_criteria = len(names), max(len(labels), 1)
        shown = self._on_report_scale(criterion, scales)
        rows = np.bincount(arm[arm >= 0], minlength=n)
        failed = np.bincount(arm[(arm >= 0) & np.isnan(self.scores)], minlength=n)
        scored = (criterion >= 0) & ~np.isnan(shown)
        mine = scored & (arm >= 0)
        theirs = scored & (opponent >= 0)
        cells = np.concatenate([arm[mine] * n_criteria + criterion[mine],
                                opponent[theirs] * n_criteria + criterion[theirs]])
        values = np.concatenate([shown[mine], 1.0 - shown[theirs]])
        # as the reports do, a unit's runs are averaged first: a unit is a system's item under
        # one judge (and, pairwise, against one other system); the cell's mean is of its units
        judge, item = self.codes["judge"], self.codes["item"]
        units = _units(cells, np.concatenate([judge[mine], judge[theirs]]),
                       np.concatenate([item[mine], item[theirs]]),
                       np.concatenate([self.codes["opponent"][mine], self.codes["arm"][theirs]]))
        unit_cells = np.zeros(units.max() + 1 if units.size else 0, dtype=np.int64)
        unit_cells[units] = cells
        unit_means = (np.bincount(units, weights=values, minlength=unit_cells.size)
                      / np.maximum(np.bincount(units, minlength=unit_cells.size), 1))
        counts = np.bincount(cells, minlength=n * n_criteria).reshape(n, n_criteria)
        n_units = np.bincount(unit_cells, minlength=n * n_criteria).reshape(n, n_criteria)
        sums = np.bincount(unit_cells, weights=unit_means,
                           minlength=n * n_criteria).reshape(n, n_criteria)
        pairwise = np.bincount(criterion[(criterion >= 0) & (self.codes["opponent"] >= 0)],
                               minlength=n_criteria) > 0
        chosen = [c for c in np.argsort(-counts.sum(axis=0), kind="stable")[:criteria]
                  if counts[:, c].sum() > 0]
        out = []
        for a in np.argsort(-rows, kind="stable")[:most]:
            if rows[a] == 0 and counts[a].sum() == 0:
                continue
            out.append({"arm": names[a], "rows": int(rows[a]), "failed": int(failed[a]),
                        "scores": [[float(sums[a, c] / n_units[a, c]) if counts[a, c] else None,
                                    int(counts[a, c])] for c in chosen]})
        return {"criteria": [{"name": labels[c], "pairwise": bool(pairwise[c]),
                              "scale": "raw" if scales[c].kind == "interval" else "[0, 1]"}
                             for c in chosen],
                "systems": out, "more": max(len(names) - most, 0), "left_out": left_out}

    def _on_report_scale(self, criterion: npt.NDArray[np.int32],
                         scales: list[Scale]) -> npt.NDArray[np.float64]:
        """Each row's score as the reports show it: on [0, 1] by its criterion's scale, raw on
        an interval scale, NaN on a nominal one (and without a criterion, as it is)."""
        out = self.scores.copy()
        for code, scale in enumerate(scales):
            if scale.kind != "interval":
                at = criterion == code
                out[at] = scale.normalise(self.scores[at])
        return out


def _units(*keys: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.int64]:
    """Per position, the number of its group of equal ``keys`` (0, 1, ...: in sorted order)."""
    if not keys[0].size:
        return np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys[::-1])
    new = np.zeros(order.size, dtype=bool)
    new[0] = True
    for key in keys:
        ordered = key[order]
        new[1:] |= ordered[1:] != ordered[:-1]
    out = np.empty(order.size, dtype=np.int64)
    out[order] = np.cumsum(new) - 1
    return out
