"""Standings: ranks and rank ranges worked by hand, and AlpacaEval's published leaderboards
reproduced through ``assay export --format alpaca-eval-csv``."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from assay.analysis.standings import rank_ranges, standings
from assay.data.importers import import_alpaca_eval
from assay.data.schema import Scale
from assay.data.validate import judgments_from_records
from tests.cli._judge_helpers import run


def test_rank_ranges_worked_by_hand():
    # A [0.7, 0.9] is above B's and C's upper bounds (0.6, 0.5): rank 1 alone.
    # B [0.4, 0.6] and C [0.4, 0.5] overlap: each could be 2nd or 3rd.
    # D has no interval: any rank from 1 to 4, and it may sit above any other system, so
    # A's worst rank is 2 and B's and C's is 4.
    rank, best, worst = rank_ranges(np.array([0.8, 0.5, 0.45, 0.3]),
                                    np.array([0.7, 0.4, 0.4, np.nan]),
                                    np.array([0.9, 0.6, 0.5, np.nan]))
    assert rank.tolist() == [1, 2, 3, 4]
    assert best.tolist() == [1, 2, 2, 1]
    assert worst.tolist() == [2, 4, 4, 4]


def test_equal_estimates_share_the_best_rank():
    rank, _, _ = rank_ranges(np.array([0.5, 0.7, 0.5]), np.array([0.4, 0.6, 0.4]),
                             np.array([0.6, 0.8, 0.6]))
    assert rank.tolist() == [2, 1, 2]


def test_standings_rank_the_systems_of_each_board():
    rows = []
    for arm, base in (("a", 0.9), ("b", 0.5), ("c", 0.1)):
        for cluster in range(8):
            for item in range(3):
                rows.append({"arm": arm, "judge": "j", "criterion": "ok", "cluster": f"c{cluster}",
                             "item": f"c{cluster}-i{item}", "run": 1,
                             "score": float((cluster * 3 + item) % 10 < base * 10)})
    j = judgments_from_records(rows, range(1, len(rows) + 1), path="t", sources=["t"],
                               scales={"ok": Scale("binary")})
    result = standings(j)
    by_system = {r.system: r for r in result.rows}
    assert [by_system[s].rank for s in "abc"] == [1, 2, 3]
    # item k = 0..23 scores 1 when k mod 10 < 9 (a), < 5 (b), < 1 (c): 22, 14 and 3 of 24
    assert [by_system[s].estimate for s in "abc"] == pytest.approx([22 / 24, 14 / 24, 3 / 24])
    assert by_system["a"].rank_best == 1 and by_system["c"].rank_worst == 3
    assert result.to_dict()["schema"] == "assay.standings/1"


def _leaderboard(folder, annotator):
    path = folder / f"{annotator}_leaderboard.csv"
    if not path.exists():
        return {}
    with path.open() as handle:
        return {row[""]: row for row in csv.DictReader(handle)}


def test_alpaca_eval_csv_reproduces_the_published_leaderboards(alpaca_results, alpaca_leaderboards,
                                                                tmp_path):
    table = tmp_path / "alpaca.parquet"
    import_alpaca_eval(alpaca_results).save(table)
    checked = 0
    for judge in sorted({r.judge for r in standings(import_alpaca_eval(alpaca_results)).rows}):
        published = _leaderboard(alpaca_leaderboards, judge)
        out = tmp_path / f"{judge}.csv"
        assert run(["export", str(table), "--format", "alpaca-eval-csv", "--judge", judge,
                    "-o", str(out)]) == 0
        with out.open() as handle:
            for row in csv.DictReader(handle):
                if row[""] not in published:
                    continue
                theirs = published[row[""]]
                for column in ("win_rate", "standard_error", "discrete_win_rate"):
                    assert math.isclose(float(row[column]), float(theirs[column]), rel_tol=1e-9), column
                for column in ("n_wins", "n_wins_base", "n_draws", "n_total"):
                    assert int(row[column]) == int(float(theirs[column])), column
                checked += 1
    assert checked >= 5
