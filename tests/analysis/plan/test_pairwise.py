"""The planner on a pilot of pairwise judgments: the win rate against 1/2 (hand-worked), the
same estimate as the win-rate report, and the refusals where a pilot cannot support a plan."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.power import NormalIndPower, TTestPower

from assay.analysis.plan import pilot_components, plan_evaluation
from assay.analysis.winrates import win_rates
from assay.data.table import Judgments
from assay.errors import DesignError

# Arm "new" against "base", two clusters of three questions, two counterbalanced judgments of
# each: (score shown first, score shown second). q2, q3 and q5 hold a position flip (1, 0),
# q3 and q6 a tie in both orders.
PAIRS = {"q1": [(1, 1), (1, 1)], "q2": [(1, 1), (1, 0)], "q3": [(0.5, 0.5), (1, 0)],
         "q4": [(0, 0), (0, 0)], "q5": [(1, 0), (1, 1)], "q6": [(0, 0), (0.5, 0.5)]}
CLUSTER = {"q1": "c1", "q2": "c1", "q3": "c1", "q4": "c2", "q5": "c2", "q6": "c2"}


def pairwise_table(layout: str = "judge", flip: tuple[str, ...] = ()) -> Judgments:
    """``judge``: assay's pairwise judge (run = trial, odd trials show the arm first);
    ``qed``: BenchmarkQED's import (run = trial // 2 + 1, both orders in each run).
    Questions in `flip` are stored from the opponent's side (score 1 - s, position 3 - p)."""
    rows = []
    for q, pairs in PAIRS.items():
        for k, scores in enumerate(pairs):
            for position, score in zip((1, 2), scores, strict=True):
                run = 2 * k + position if layout == "judge" else k + 1
                row = {"item": q, "cluster": CLUSTER[q], "arm": "new", "opponent": "base",
                       "run": run, "position": position, "judge": "j", "criterion": "better",
                       "score": float(score), "reportable": True}
                if q in flip:
                    row.update(arm="base", opponent="new", position=3 - position,
                               score=1.0 - score)
                rows.append(row)
    return Judgments(pd.DataFrame(rows), {})


# The counterbalanced judgments (means of the two orders), items x k:
#   c1: q1 [1, 1], q2 [1, 1/2], q3 [1/2, 1/2];  c2: q4 [0, 0], q5 [1/2, 1], q6 [0, 1/2].
# Item means (in 24ths) 24, 18, 12, 0, 18, 6; grand mean 13/24 (the pilot's win rate).
# Column means 1/2 and 7/12. Residuals of the items x k ANOVA: r_i1 = d_i / 2 + 1/24 with
# d_i = y_i1 - y_i2 = 0, 1/2, 0, 0, -1/2, -1/2, i.e. 1, 7, 1, 1, -5, -5 (in 24ths), r_i2 = -r_i1:
# sum of squares 2 x 102 / 576 = 17/48 on (6 - 1)(2 - 1) = 5 df, within = 17/240.
# Item-mean deviations (24ths) 11, 5, -1 | -13, 5, -7: s^2 = 390 / 576 / 6 = 65/576.
# Working ICC: E_c = +-15/24, within-cluster squares 147/576 and 243/576, cross
# (225 - 147 + 225 - 243) / 576 = 60/576, 12 pairs: rho = 60 / (65 x 12) = 1/13.
# tau^2 = 65/576 / 13 = 5/576; question = 65/576 - 5/576 - (17/240) / 2 = 11/160.
HAND = (5 / 576, 11 / 160, 17 / 240, 0.0)


def test_pairwise_pilot_hand_worked():
    est = pilot_components(pairwise_table())
    c = est.components
    assert_allclose([c.cluster, c.question, c.within, c.run], HAND, atol=1e-12)
    assert_allclose(est.icc, 1 / 13)
    assert_allclose(est.mean, 13 / 24)
    assert (est.estimand, est.arms, est.replicates, est.n_items, est.n_clusters, est.n_runs) == \
        ("win_rate", ("new", "base"), "trials", 6, 2, 2)
    assert not est.binary
    assert any("re-judge the same answers" in n for n in est.notes)


def test_the_pilots_win_rate_is_the_reports():
    table = pairwise_table()
    record = next(r for r in win_rates(table).records if r.task is None)
    assert (record.arm, record.opponent, record.n, record.n_clusters) == ("new", "base", 6, 2)
    assert_allclose(pilot_components(table).mean, record.win_rate)


def test_layouts_and_sides_give_the_same_components():
    # both orders in each run (BenchmarkQED's import): the same cells, now runs; their shift
    # (run means 1/2 and 7/12 on 2 runs) is not material by the reports' F test
    qed = pilot_components(pairwise_table("qed"))
    assert qed.replicates == "runs" and qed.components.run == 0.0
    assert_allclose([qed.components.cluster, qed.components.question, qed.components.within],
                    HAND[:3], atol=1e-12)
    # some questions stored from the opponent's side, and the pair named the other way round
    flipped = pilot_components(pairwise_table(flip=("q2", "q5")))
    assert_allclose(flipped.components.total, sum(HAND[:3]), atol=1e-12)
    other = pilot_components(pairwise_table(), arms=["base", "new"], estimand="win_rate")
    assert other.arms == ("base", "new")
    assert_allclose(other.mean, 11 / 24)
    assert_allclose(other.components.total, sum(HAND[:3]), atol=1e-12)


def test_plan_from_the_pairwise_pilot_hand_worked():
    # V_1 = tau^2 m + sigma_q^2 + sigma_w^2 / (R K), m = 3, in 2880ths: 75 + 198 + 204 = 477;
    # n = 7.848879 x 0.165625 / 0.2^2 = 32.50 -> C = ceil(10.83) = 11, 33 questions,
    # 33 x 2 orders = 66 calls at $0.01. K = 2: 75 + 198 + 102 = 375, n = 25.55 -> C = 9,
    # 27 questions, 27 x 2 x 2 = 108 calls.
    plan = plan_evaluation(pairwise_table(), difference=0.2, method="normal", usd_per_call=0.01)
    assert plan.estimand == "win_rate" and plan.scores_per_trial == 2
    chosen = plan.chosen
    assert (chosen.clusters, chosen.questions, chosen.judge_calls) == (11, 33, 66.0)
    assert_allclose(chosen.usd, 0.66)
    two = next(r for r in plan.rows if (r.runs, r.trials) == (1, 2))
    assert (two.clusters, two.questions, two.judge_calls) == (9, 27, 108.0)
    # the counterbalanced judgments were trials of the same answers: no optimism note
    assert not any("optimistic" in n for n in plan.notes)
    assert any("2 x the trials planned" in n for n in plan.notes)
    text = str(plan)
    assert "detect a win rate 0.2 from 1/2 (new vs base (j/better))" in text
    assert "2 counterbalanced judgment(s) a question; observed win rate 0.5417" in text
    record = plan.to_dict()
    assert record["estimand"] == "win_rate" and record["pilot"]["replicates"] == "trials"


def test_assumptions_hand_worked_and_statsmodels():
    # win rate 0.55 (1/2 + 0.05), 30% ties: Var = 0.2475 - 0.075 = 0.1725; DE = 1 + 9 x 0.1:
    # V_1 = 0.32775, n = 7.848879 x 0.32775 / 0.05^2 = 1029.0 -> 103 clusters of 10, 2060 calls
    plan = plan_evaluation(difference=0.05, tie_rate=0.3, icc=0.1, cluster_size=10,
                           method="normal")
    assert plan.estimand == "win_rate"
    assert_allclose(plan.components.total, 0.1725)
    assert (plan.chosen.clusters, plan.chosen.questions, plan.chosen.judge_calls) == \
        (103, 1030, 2060.0)
    assert any("taken at 0.55" in n for n in plan.notes)
    # unclustered, the one-sample test of 1/2: statsmodels' sample sizes (effect D / sd)
    effect = 0.1 / math.sqrt(0.19)
    for method, n in (("normal", NormalIndPower().solve_power(effect, alpha=0.05, power=0.8,
                                                             ratio=0)),
                      ("t", TTestPower().solve_power(effect, alpha=0.05, power=0.8))):
        got = plan_evaluation(difference=0.1, win_rate=0.6, tie_rate=0.2, method=method)
        assert got.chosen.questions == math.ceil(n), (method, n)
    # a width target takes the variance at 1/2 (the largest): (2 x 1.959964)^2 x 0.25 / 0.01
    width = plan_evaluation(width=0.1, estimand="win_rate", method="normal")
    assert width.chosen.questions == 385 and any("taken at 0.5" in n for n in width.notes)


@pytest.mark.parametrize("kwargs, words", [
    (dict(difference=0.1, win_rate=0.6, p=0.5), "describe pointwise scores"),
    (dict(difference=0.1, win_rate=0.6, sd=0.3), "not both"),
    (dict(difference=0.1, tie_rate=0.9), "tie_rate must be at most"),
    (dict(difference=0.6, estimand="win_rate"), "below 1/2"),
    (dict(difference=0.1, sd=0.3, tie_rate=0.1, estimand="difference"), "describe pairwise"),
    (dict(difference=0.1, estimand="ratio"), "estimand must be"),
])
def test_bad_win_rate_assumptions(kwargs, words):
    with pytest.raises(ValueError, match=words):
        plan_evaluation(**kwargs)


def _rows(**change):
    return [{**row, **change} for row in pairwise_table().frame.to_dict("records")]


@pytest.mark.parametrize("table, kwargs, words", [
    (Judgments(pd.DataFrame(_rows(cluster="c1")), {}), {}, "one cluster"),
    (Judgments(pd.DataFrame(_rows(opponent="new")), {}), {}, "only arms against themselves"),
    (Judgments(pd.DataFrame(_rows(position=1)), {}), {}, "needs both orders"),
    (pairwise_table(), dict(arms=["new", "other"]), "expected two arms judged against each"),
    (pairwise_table(), dict(estimand="difference"), "--estimand win_rate"),
])
def test_a_pilot_that_cannot_support_a_plan_is_refused(table, kwargs, words):
    with pytest.raises(DesignError, match=words):
        pilot_components(table, **kwargs)


def test_win_rate_of_a_pointwise_table_is_refused():
    from tests.analysis.plan.test_plan import pilot_table

    with pytest.raises(DesignError, match="no pairwise rows"):
        plan_evaluation(pilot_table(), difference=0.1, estimand="win_rate")
    with pytest.raises(ValueError, match="come from the pilot"):
        plan_evaluation(pairwise_table(), difference=0.1, win_rate=0.6)


def test_positions_unknown_and_a_stated_run_shift_are_named():
    frame = pairwise_table().frame.drop(columns=["position"])
    est = pilot_components(Judgments(frame, {}))
    # each of the four runs (trials) is one replicate: its order unknown, a note says so
    assert (est.replicates, est.n_runs) == ("runs", 4)
    assert any("positions unknown or mixed" in n for n in est.notes)
    plan = plan_evaluation(pairwise_table(), difference=0.2, run_sd=0.05, runs=5)
    assert plan.components.run == pytest.approx(0.0025)
    assert any("counts no run shift" in n for n in plan.notes)
