"""The cost summary: the judges' spend shared over the rows a call produced, the per-arm split
of a pairwise call, and the systems' cost counted once per answer; hand-worked values."""

from __future__ import annotations

import pandas as pd
import pytest

from assay.analysis.cost import cost_summary
from assay.data.io import load
from assay.errors import DesignError


def _table(tmp_path, **extra):
    frame = pd.DataFrame({"item": ["q1", "q1", "q2", "q2"], "arm": ["a", "a", "b", "b"],
                          "criterion": ["x", "y", "x", "y"], "score": [1.0, 2.0, 3.0, 4.0], **extra})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return load(path)


def test_spend_is_shared_over_rows_and_split_between_arm_and_opponent(tmp_path):
    judgments = _table(tmp_path)
    # one joint pairwise call ($0.10, 100 in, 20 out) made two rows (criteria x, y) for a vs b;
    # one pointwise call ($0.02, 30 in, 10 out) scored b on x; one call with no price (50 in)
    pairwise = {"judge": "j1", "arm": "a", "opponent": "b", "model": "m", "tokens_in": 100,
                "tokens_out": 20, "usd": 0.10, "cached": False, "failed": False, "share": 0.5}
    calls = [{**pairwise, "criterion": "x"}, {**pairwise, "criterion": "y"},
             {"judge": "j2", "arm": "b", "opponent": None, "criterion": "x", "model": "m",
              "tokens_in": 30, "tokens_out": 10, "usd": 0.02, "cached": True, "failed": False,
              "share": 1.0},
             {"judge": "j2", "arm": "a", "opponent": None, "criterion": "y", "model": "n",
              "tokens_in": 50, "tokens_out": 0, "usd": None, "cached": False, "failed": True,
              "share": 1.0}]
    summary = cost_summary(judgments, calls)
    total = summary.total
    assert total is not None
    assert (total.calls, total.tokens_in, total.tokens_out) == (3.0, 180.0, 30.0)
    assert total.usd == pytest.approx(0.12)
    assert (total.unpriced_calls, total.cached_calls, total.failed_calls) == (1.0, 1.0, 1.0)
    by_judge = {r.name: r for r in summary.by_judge}
    assert by_judge["j1"].usd == pytest.approx(0.10) and by_judge["j1"].calls == 1.0
    assert by_judge["j2"].usd == pytest.approx(0.02) and by_judge["j2"].tokens_in == 80.0
    by_arm = {r.name: r for r in summary.by_arm}
    # a: half the pairwise call + the unpriced call; b: half the pairwise call + its own
    assert by_arm["a"].usd == pytest.approx(0.05) and by_arm["a"].tokens_in == 100.0
    assert by_arm["b"].usd == pytest.approx(0.07) and by_arm["b"].tokens_in == 80.0
    assert sum(r.usd for r in summary.by_arm) == pytest.approx(total.usd)
    by_criterion = {r.name: r for r in summary.by_criterion}
    assert by_criterion["x"].usd == pytest.approx(0.07) and by_criterion["y"].usd == pytest.approx(0.05)
    assert any("no price" in note for note in summary.notes)
    assert summary.systems == []


def test_systems_cost_counts_each_answer_once(tmp_path):
    judgments = _table(tmp_path, usd=[0.5, 0.5, 0.25, 0.25], tokens_out=[10, 10, 40, 40])
    summary = cost_summary(judgments)
    assert summary.total is None
    systems = {s.arm: s for s in summary.systems}
    assert (systems["a"].answers, systems["a"].usd, systems["a"].tokens_out) == (1, 0.5, 10.0)
    assert (systems["b"].usd_per_answer, systems["b"].tokens_in) == (0.25, None)
    assert "Systems' own cost" in str(summary)


def test_no_cost_anywhere_is_a_reason_to_skip(tmp_path):
    with pytest.raises(DesignError, match="no cost to report"):
        cost_summary(_table(tmp_path), [{"judge": "metric", "tokens_in": 0, "tokens_out": 0,
                                         "usd": None, "share": 1.0}])
