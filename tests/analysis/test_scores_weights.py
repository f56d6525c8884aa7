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
