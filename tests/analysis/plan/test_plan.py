"""The planner's ingredients from a pilot table (hand-worked) and its plans."""

from __future__ import annotations

import dataclasses
import json
import math

import pandas as pd
import pytest
from numpy.testing import assert_allclose

import assay
from assay.analysis.plan import EvaluationPlan, pilot_components, plan_evaluation
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import DesignError

# Two clusters of three questions, three runs; arm a's scores, arm b always 0:
#   c1: q1 [1, 1, 1], q2 [1, 0, 1], q3 [1, 1, 1];  c2: q4 [0, 0, 0], q5 [1, 1, 1], q6 [0, 0, 0]
SCORES = {"q1": [1, 1, 1], "q2": [1, 0, 1], "q3": [1, 1, 1],
          "q4": [0, 0, 0], "q5": [1, 1, 1], "q6": [0, 0, 0]}
CLUSTER = {"q1": "c1", "q2": "c1", "q3": "c1", "q4": "c2", "q5": "c2", "q6": "c2"}


def pilot_table() -> Judgments:
    rows = [{"item": q, "cluster": CLUSTER[q], "arm": arm, "run": r + 1, "judge": "em",
             "criterion": "correct", "score": float(v if arm == "a" else 0), "reportable": True}
            for q, values in SCORES.items() for r, v in enumerate(values) for arm in ("a", "b")]
    return Judgments(pd.DataFrame(rows), {"correct": Scale("binary")})


def test_pilot_components_hand_worked():
    # item means 1, 2/3, 1, 0, 1, 0; grand mean 11/18; run means 12/18, 9/18, 12/18.
    # items x runs residuals: -1/18, 2/18, -1/18 for the five constant items, and
    # 5/18, -10/18, 5/18 for q2: sum of squares (5 x 6 + 150) / 324 = 5/9 on (6-1)(3-1) = 10 df,
    # within = 1/18.
    # s^2 of the item means (ddof 0) = (49 + 1 + 49 + 121 + 49 + 121) / 324 / 6 = 390/1944.
    # working ICC: E_c = +-15/18 (E_c^2 = 225/324), within-cluster sums of squares 99/324 and
    # 291/324, cross = (225 - 99 + 225 - 291) / 324 = 60/324, sigma^2 = 65/324, 12 pairs:
    # rho = 60 / (65 x 12) = 1/13; tau^2 = 390/1944 / 13 = 30/1944;
    # question = 390/1944 - 30/1944 - (1/18)/3 = 324/1944 = 1/6.
    for estimand, arms in (("mean", ["a"]), ("difference", ["a", "b"])):
        est = pilot_components(pilot_table(), arms=arms, estimand=estimand)
        c = est.components
        assert_allclose([c.cluster, c.question, c.within, c.run], [30 / 1944, 1 / 6, 1 / 18, 0.0],
                        atol=1e-12)
        assert_allclose(est.icc, 1 / 13)
        assert_allclose(est.mean, 11 / 18)
        assert (est.n_items, est.n_clusters, est.n_runs, est.cluster_size, est.size_cv) == \
            (6, 2, 3, 3.0, 0.0)
        assert est.binary
    # run totals 4, 3, 4 over 6 items: the ANOVA run component is not positive, no shift planned
    assert not any("shift every question" in note for note in est.notes)


def test_plan_from_the_pilot_hand_worked():
    # V_1 = tau^2 m + sigma_q^2 + sigma_w^2 / (R K) with m = 3:
    # R = K = 1: 15/324 + 54/324 + 18/324 = 87/324; n = 7.848879 x 87/324 / 0.2^2 = 52.69,
    # C = ceil(52.69 / 3) = 18 clusters, 54 questions; 54 x 1 arm x 1 run judge calls.
    # R = 2: 15/324 + 54/324 + 9/324 = 78/324; n = 47.24, C = 16, 48 questions, 96 calls.
    plan = plan_evaluation(pilot_table(), difference=0.2, estimand="mean", arms=["a"],
                           method="normal", usd_per_call=0.01)
    chosen = plan.chosen
    assert (chosen.clusters, chosen.questions, chosen.judge_calls) == (18, 54, 54.0)
    assert_allclose(chosen.usd, 0.54)
    two_runs = next(r for r in plan.rows if (r.runs, r.trials) == (2, 1))
    assert (two_runs.clusters, two_runs.questions, two_runs.judge_calls) == (16, 48, 96.0)
    # trials average the within part as runs do here (no run shift): the same counts
    two_trials = next(r for r in plan.rows if (r.runs, r.trials) == (1, 2))
    assert (two_trials.clusters, two_trials.questions) == (16, 48)
    assert plan.cheapest is chosen and plan.source == "pilot"


def test_assumptions_hand_worked():
    # p = 0.7, B at 0.75, r = 0.5: Var = 0.21 + 0.1875 - 2 x 0.5 x sqrt(0.039375) = 0.199071;
    # DE = 1 + 4 x 0.1 = 1.4: n = 7.848879 x 0.278699 / 0.0025 = 874.98 -> 175 clusters of 5
    plan = plan_evaluation(difference=0.05, p=0.7, correlation=0.5, icc=0.1, cluster_size=5,
                           method="normal")
    assert (plan.chosen.clusters, plan.chosen.questions) == (175, 875)
    assert plan.chosen.judge_calls == 875 * 2  # two arms judged on every question
    assert plan.chosen.usd is None and any("no price" in n for n in plan.notes)
    t_plan = plan_evaluation(difference=0.05, p=0.7, correlation=0.5, icc=0.1, cluster_size=5)
    assert t_plan.chosen.clusters >= 175 and t_plan.chosen.power >= 0.8


def test_width_target_and_json():
    # sd 0.5 of one system, a mean: (2 x 1.959964)^2 x 0.25 / 0.1^2 = 384.1 -> 385
    plan = plan_evaluation(width=0.1, sd=0.5, estimand="mean", method="normal")
    assert plan.chosen.questions == 385 and plan.chosen.width <= 0.1
    record = json.loads(plan.to_json())
    assert record["target"] == "width" and record["rows"][0]["questions"] == 385
    assert math.isnan(plan.chosen.power) and record["rows"][0]["power"] is None
    assert "Trade-offs" in str(plan)


def test_run_shift_makes_one_run_unreachable():
    plan = plan_evaluation(difference=0.05, sd=0.5, correlation=0.5, run_sd=0.05)
    assert not plan.chosen.reachable
    assert any(r.reachable for r in plan.rows if r.runs >= 5)
    assert any("only more runs" in n for n in plan.notes)
    assert "not reachable" in str(plan)


@pytest.mark.parametrize("kwargs, words", [
    (dict(), "exactly one target"),
    (dict(difference=0.1, width=0.1, sd=0.3), "exactly one target"),
    (dict(difference=0.1), "exactly one of sd"),
    (dict(difference=0.1, sd=0.3, p=0.5), "exactly one of sd"),
    (dict(difference=0.1, p=1.2), "p must be"),
    (dict(difference=0.1, sd=0.3, icc=0.7, within_share=0.5), "no between-question"),
    (dict(difference=0.1, sd=0.3, runs=0), "at least 1"),
])
def test_bad_assumptions(kwargs, words):
    with pytest.raises(ValueError, match=words):
        plan_evaluation(**kwargs)


def test_pilot_errors_name_the_choice():
    table = pilot_table()
    with pytest.raises(DesignError, match="expected 2 of the arms"):
        pilot_components(table, arms=["a", "zzz"])
    with pytest.raises(ValueError, match="come from the pilot"):
        plan_evaluation(table, difference=0.1, sd=0.3)


def test_public_api():
    assert assay.plan_evaluation is plan_evaluation and assay.EvaluationPlan is EvaluationPlan
    plan = assay.plan_evaluation(difference=0.1, sd=0.3, correlation=0.5)
    assert isinstance(plan, assay.EvaluationPlan)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.power = 0.9  # type: ignore[misc]


def test_a_material_run_shift_is_planned_for():
    # 20 clusters of 2 questions, 4 runs; run 2 and 4 lift every question by 0.3 (a shift
    # shared by all items: what more questions cannot average away)
    rows = []
    for c in range(20):
        for q in range(2):
            for r, shift in enumerate((0.0, 0.3, 0.0, 0.3)):
                value = 0.2 + 0.02 * ((3 * c + q) % 7) + shift + 0.01 * ((c + r) % 3)
                rows.append({"item": f"q{c}-{q}", "cluster": f"c{c}", "arm": "a", "run": r + 1,
                             "judge": "j", "criterion": "s", "score": value, "reportable": True})
    table = Judgments(pd.DataFrame(rows), {"s": Scale("range", minimum=0.0, maximum=1.0)})
    est = pilot_components(table, estimand="mean")
    # the run means are 0.2x and 0.5x: sigma_run^2 near 0.15^2 = 0.0225 (R V_run)
    assert 0.01 < est.components.run < 0.04
    assert any("shift every question" in note for note in est.notes)
    plan = plan_evaluation(table, estimand="mean", width=0.2)
    assert not plan.chosen.reachable
