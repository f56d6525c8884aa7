"""Row weights in score means (--kind scores) and their refusal where rows are not weighted."""

import pytest

from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.analysis.winrates import win_rates
from assay.data.schema import Scale
from assay.data.validate import judgments_from_records
from assay.errors import DesignError


def table(weights=None):
    rows = [{"item": f"q{i}", "cluster": f"c{i // 2}", "arm": "a", "score": s}
            for i, s in enumerate([1, 0, 1, 1, 0, 0, 1, 0])]
    if weights is not None:
        for row, w in zip(rows, weights, strict=True):
            row["weight"] = w
    return judgments_from_records(rows, list(range(1, 9)), path="t", sources=["t"],
                                  scales={"score": Scale.parse("binary")})


def test_unit_weights_change_nothing():
    plain, ones = score_summary(table()).rows[0], score_summary(table([1] * 8)).rows[0]
    assert (plain.estimate, plain.lower, plain.upper) == (ones.estimate, ones.lower, ones.upper)


def test_weighted_mean_is_sum_w_s_over_sum_w():
    # by hand: scores 1 0 1 1 0 0 1 0 with weights 3 1 1 1 1 3 1 1: (3 + 1 + 1 + 1) / 12
    row = score_summary(table([3, 1, 1, 1, 1, 3, 1, 1])).rows[0]
    assert row.estimate == pytest.approx(6 / 12)
    unweighted = score_summary(table()).rows[0]
    assert unweighted.estimate == pytest.approx(4 / 8)
    heavier_wins = score_summary(table([3, 1, 3, 3, 1, 1, 3, 1])).rows[0]
    assert heavier_wins.estimate == pytest.approx(12 / 16)
    assert heavier_wins.lower < heavier_wins.estimate < heavier_wins.upper


def test_analyses_that_do_not_weight_rows_refuse_weighted_tables():
    weighted = table([3, 1, 1, 1, 1, 1, 1, 1])
    with pytest.raises(DesignError, match="weight"):
        benchmark_report(weighted.frame)
    pairwise = weighted.frame.assign(opponent="b")
    with pytest.raises(DesignError, match="weight"):
        win_rates(pairwise)
    assert win_rates(pairwise.assign(weight=1.0)).records  # unit weights are no weights


def _battles(weighted: bool):
    """Pairwise battles of three arms over six questions; a weight-3 row or, unweighted, the
    same row repeated in three runs."""
    verdicts = {"q1": [("a", "b", 1.0, 3), ("b", "c", 0.5, 1), ("a", "c", 1.0, 1)],
                "q2": [("a", "b", 0.0, 1), ("b", "c", 1.0, 3), ("a", "c", 0.5, 1)],
                "q3": [("a", "b", 1.0, 1), ("b", "c", 0.0, 1), ("a", "c", 0.0, 3)],
                "q4": [("a", "b", 0.5, 3), ("b", "c", 1.0, 1), ("a", "c", 1.0, 1)],
                "q5": [("a", "b", 1.0, 1), ("b", "c", 0.0, 3), ("a", "c", 0.0, 1)],
                "q6": [("a", "b", 0.0, 3), ("b", "c", 1.0, 1), ("a", "c", 1.0, 1)]}
    rows = []
    for item, games in verdicts.items():
        for arm, opp, score, w in games:
            base = {"item": item, "arm": arm, "opponent": opp, "score": score}
            if weighted:
                rows.append({**base, "weight": float(w)})
            else:
                rows += [{**base, "run": r} for r in range(1, w + 1)]
    return judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t", sources=["t"],
                                  scales={"score": Scale.parse("range:0,1")})


def test_the_leaderboard_counts_a_weighted_battle_as_that_many_battles():
    from assay.analysis.leaderboard import leaderboard

    weighted = leaderboard(_battles(True), B=20, seed=3)
    repeated = leaderboard(_battles(False), B=20, seed=3)
    got = {(r.arm, round(r.rating, 9), round(r.lower, 9), round(r.upper, 9), r.rank)
           for r in weighted.ratings}
    assert got == {(r.arm, round(r.rating, 9), round(r.lower, 9), round(r.upper, 9), r.rank)
                   for r in repeated.ratings}
    unit = leaderboard(_battles(True).frame.assign(weight=1.0), B=20, seed=3)
    assert {r.arm: r.rating for r in unit.ratings} != {r.arm: r.rating for r in weighted.ratings}
