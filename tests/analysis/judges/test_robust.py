"""Robust summary (trimmed mean, median, leave-one-judge-out, stability, rank intervals) and the
judges' consistency (ICC per task)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats as sps

from assay.analysis.judges import judge_consistency, robust_summary, trimmed_mean
from assay.data.table import Judgments
from assay.errors import ConfigError

from .conftest import make_table

# Three judges score arms A, B, C on two items in two clusters (the same on both items):
SCORES = {"j1": {"A": 1.0, "B": 0.0, "C": 0.2},
          "j2": {"A": 0.5, "B": 0.7, "C": 0.1},
          "j3": {"A": 0.5, "B": 0.6, "C": 0.3}}


@pytest.fixture
def three_judges() -> Judgments:
    rows = [{"item": item, "cluster": cluster, "arm": arm, "judge": judge, "criterion": "quality",
             "score": score}
            for item, cluster in (("q1", "d1"), ("q2", "d2"))
            for judge, by_arm in SCORES.items() for arm, score in by_arm.items()]
    return make_table(rows, {"quality": "range:0,1"})


def _q(judges: list[str]) -> np.ndarray:
    return np.array([np.mean([SCORES[j][a] for j in judges]) for a in "ABC"])


def test_leave_one_judge_out_hand_worked(three_judges: Judgments) -> None:
    report = robust_summary(three_judges, B=200)
    # full Q: A 4/6, B 2.6/6, C 1.2/6 -> A > B > C
    assert [r.arm for r in report.arms] == ["A", "B", "C"]
    assert_allclose([r.estimate for r in report.arms], [4 / 6, 2.6 / 6, 1.2 / 6], rtol=1e-12)
    loo = {r.judge: r for r in report.leave_one_judge_out}
    # without j1: A 0.5, B 0.65, C 0.2 -> B > A > C; one discordant pair of three: tau = 1/3
    assert loo["j1"].ranking == ["B", "A", "C"] and loo["j1"].changed
    assert_allclose(loo["j1"].kendall_tau, 1 / 3, rtol=1e-12)
    assert loo["j1"].scores == pytest.approx({"A": 0.5, "B": 0.65, "C": 0.2})
    for judge in ("j2", "j3"):  # A 0.75 ahead either way
        assert loo[judge].ranking == ["A", "B", "C"] and not loo[judge].changed
        assert loo[judge].kendall_tau == 1.0
    # oracle: scipy's kendalltau on the hand-computed Q vectors
    full = _q(["j1", "j2", "j3"])
    assert_allclose(loo["j1"].kendall_tau, sps.kendalltau(full, _q(["j2", "j3"])).statistic)


def test_stability_over_all_judge_subsets(three_judges: Judgments) -> None:
    report = robust_summary(three_judges, B=200)
    assert len(report.subsets) == 2**3 - 2
    # size 1: each single judge reverses one pair -> 1/3 each; size 2: {j2, j3} 1/3, others 1
    by_size = {s.size: s for s in report.stability_by_size}
    assert_allclose([by_size[1].mean_tau, by_size[1].min_tau], [1 / 3, 1 / 3], rtol=1e-12)
    assert_allclose([by_size[2].mean_tau, by_size[2].min_tau], [7 / 9, 1 / 3], rtol=1e-12)
    assert_allclose(report.stability, 5 / 9, rtol=1e-12)
    full = _q(["j1", "j2", "j3"])
    for sub in report.subsets:
        assert_allclose(sub.kendall_tau, sps.kendalltau(full, _q(sub.judges)).statistic)


def test_identical_clusters_give_point_rank_intervals(three_judges: Judgments) -> None:
    # both clusters have the same scores, so every resample ranks A > B > C
    report = robust_summary(three_judges, B=300, seed=4)
    assert [(r.rank, r.rank_lower, r.rank_upper) for r in report.arms] == [(1, 1, 1), (2, 2, 2),
                                                                           (3, 3, 3)]


def test_one_judge_has_no_stability_and_says_so() -> None:
    table = make_table([{"item": f"q{i}", "cluster": f"d{i % 3}", "arm": arm, "score": s}
                        for i in range(6) for arm, s in (("A", 0.2 + 0.1 * i), ("B", 0.5))],
                       {"score": "range:0,1"})
    report = robust_summary(table, B=100)
    assert report.leave_one_judge_out == [] and report.subsets == []
    assert math.isnan(report.stability)
    assert any("Only one judge" in n for n in report.notes)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40),
       st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.25, 0.4]))
def test_trimmed_mean_matches_scipy(values: list[float], trim: float) -> None:
    assert_allclose(trimmed_mean(values, trim), sps.trim_mean(values, trim), rtol=1e-12, atol=1e-15)


def test_trimmed_mean_hand_worked() -> None:
    # 10 values, trim 0.1: drop one from each end -> mean of 2..9 = 5.5
    assert trimmed_mean([100.0, *range(2, 10), -50.0], 0.1) == 5.5


def test_demo_trimmed_mean_and_median_of_item_scores(demo: Judgments) -> None:
    report = robust_summary(demo, B=200)
    f = demo.frame
    rows = f[f["reportable"] & f["opponent"].isna() & f["score"].notna()].copy()
    rows["v"] = rows["score"] / rows["criterion"].map({"correct": 1.0, "quality": 100.0,
                                                       "helpfulness": 2.0})
    items = rows.groupby(["arm", "item"])["v"].mean()
    for row in report.arms:
        values = items.loc[row.arm].to_numpy()
        assert_allclose(row.trimmed_mean, sps.trim_mean(values, 0.1), rtol=1e-12)
        assert_allclose(row.median, np.median(values), rtol=1e-12)
        assert row.n_items == values.size
        assert row.rank_lower <= row.rank <= row.rank_upper
    assert report.trim == 0.1
    assert [r.arm for r in report.arms] == ["cirrus-70b", "beacon-13b", "atlas-7b"]
    assert len(report.subsets) == 2**4 - 2
    assert robust_summary(demo, B=200).to_dict() == report.to_dict()  # seeded
    assert report.to_json()


def test_bad_options_raise(three_judges: Judgments) -> None:
    with pytest.raises(ConfigError, match="trim"):
        robust_summary(three_judges, trim=0.5)
    with pytest.raises(ConfigError, match="B must"):
        robust_summary(three_judges, B=1)


def _pingouin_icc_a1(matrix: pd.DataFrame) -> float:
    long = matrix.reset_index(drop=True).rename_axis("unit").reset_index().melt(
        id_vars="unit", var_name="judge", value_name="score")
    with warnings.catch_warnings():
        # pingouin 0.7 calls DataFrame.dropna(inplace=True), deprecated in pandas 3
        warnings.simplefilter("ignore")
        table = pg.intraclass_corr(long, targets="unit", raters="judge", ratings="score")
    return float(table.set_index("Type").loc["ICC(A,1)", "ICC"])


def test_demo_judge_consistency_against_pingouin(demo: Judgments) -> None:
    icc = judge_consistency(demo)
    assert set(icc) == {"factoid_qa", "summarisation"}
    f = demo.frame
    for task in icc:
        rows = f[f["reportable"] & (f["criterion"] == "quality") & (f["task"] == task)]
        # raw 0-100 scores: the ICC does not change under one linear map of all ratings
        matrix = rows.pivot_table(index=["item", "arm", "run"], columns="judge",
                                  values="score").dropna()
        assert_allclose(icc[task], _pingouin_icc_a1(matrix), rtol=1e-9)
        row = next(r for r in icc.rows if r.task == task and r.chosen)
        assert row.criterion == "quality" and row.n_units == len(matrix)
        assert row.num_raters == 2 and row.icc_lower < row.icc < row.icc_upper


def test_consistency_picks_the_criterion_with_most_judges() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(8):
        truth = rng.random()
        for judge in ("a", "b", "c"):
            rows.append({"item": f"q{i}", "arm": "X", "judge": judge, "criterion": "clarity",
                         "score": float(np.clip(truth + rng.normal(0, 0.1), 0, 1)), "task": "t"})
        for judge in ("a", "b"):
            rows.append({"item": f"q{i}", "arm": "X", "judge": judge, "criterion": "tone",
                         "score": float(rng.random()), "task": "t"})
    table = make_table(rows, {"clarity": "range:0,1", "tone": "range:0,1"})
    icc = judge_consistency(table)
    chosen = next(r for r in icc.rows if r.chosen)
    assert chosen.criterion == "clarity" and chosen.num_raters == 3
    assert any("most judges" in n for n in icc.notes)
    tone = judge_consistency(table, criterion="tone")
    assert next(r for r in tone.rows if r.chosen).criterion == "tone"
    with pytest.raises(ConfigError, match="criterion"):
        judge_consistency(table, criterion="nope")
