"""Composite score Q, rubric-weighted Q and the differentiation score."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import special
from scipy import stats as sps

from assay.analysis.composite import composite_score_by_student, linearised_composite
from assay.analysis.judges import differentiation_score
from assay.data.table import Judgments
from assay.errors import ConfigError
from assay.stats.intervals import cluster_t_interval

from .conftest import make_table

SCALES = {"quality": "range:0,10", "helpfulness": "ordinal:Low,Medium,High",
          "preference": "range:0,1", "latency": "interval"}


def _row(item: str, cluster: str, arm: str, judge: str, criterion: str, score: float | None,
         **extra: object) -> dict[str, object]:
    return {"item": item, "cluster": cluster, "arm": arm, "judge": judge, "criterion": criterion,
            "score": score, **extra}


@pytest.fixture
def small() -> Judgments:
    rows = [
        # arm A: quality /10 and helpfulness Low/Medium/High (index 0..2)
        _row("q1", "d1", "A", "j1", "quality", 8), _row("q1", "d1", "A", "j2", "helpfulness", 2),
        _row("q2", "d1", "A", "j1", "quality", 6),
        _row("q2", "d1", "A", "j2", "helpfulness", None, failure_kind="timeout"),
        _row("q3", "d2", "A", "j1", "quality", 4), _row("q3", "d2", "A", "j2", "helpfulness", 1),
        _row("q4", "d3", "A", "j1", "quality", 2), _row("q4", "d3", "A", "j2", "helpfulness", 1),
        # arm B
        _row("q1", "d1", "B", "j1", "quality", 10), _row("q1", "d1", "B", "j2", "helpfulness", 2),
        _row("q3", "d2", "B", "j1", "quality", 6), _row("q3", "d2", "B", "j2", "helpfulness", 2),
        _row("q4", "d3", "B", "j1", "quality", 2),
        # rows that are not units: pairwise, an interval criterion, a dev row
        _row("q1", "d1", "A", "jp", "preference", 1.0, opponent="B", position=1),
        _row("q1", "d1", "A", "j3", "latency", 3.2),
        _row("q5", "d3", "A", "j1", "quality", 0, reportable=False),
    ]
    table = make_table(rows, SCALES)
    table.frame["reportable"] = table.frame["reportable"].fillna(True).astype(bool)
    return table


def test_plain_q_hand_worked(small: Judgments) -> None:
    scores = composite_score_by_student(small)
    # A's units: 0.8, 1.0, 0.6, 0.4, 0.5, 0.2, 0.5 -> Q = 4.0 / 7
    # B's units: 1.0, 1.0, 0.6, 1.0, 0.2 -> Q = 3.8 / 5
    assert_allclose(scores["A"], 4.0 / 7, rtol=1e-12)
    assert_allclose(scores["B"], 3.8 / 5, rtol=1e-12)
    assert dict(scores) == {"A": scores["A"], "B": scores["B"]}
    row = next(r for r in scores.rows if r.arm == "A" and r.task is None)
    assert (row.n, row.n_failed, row.n_items, row.n_clusters) == (7, 1, 4, 3)
    # cluster sums of A: d1 2.4 (3 units), d2 0.9 (2), d3 0.7 (2); r = 4/7, N = 7
    # CR2 (issue 26: the scores report's variance, no longer CR1's 3/2 factor):
    # V2 = sum (S_c - r n_c)^2 / (1 - n_c / N) / N^2
    r = 4.0 / 7
    v = ((2.4 - 3 * r) ** 2 / (1 - 3 / 7) + (0.9 - 2 * r) ** 2 / (1 - 2 / 7)
         + (0.7 - 2 * r) ** 2 / (1 - 2 / 7)) / 49
    assert_allclose(row.standard_error, math.sqrt(v), rtol=1e-12)
    # and exactly the project's logit CR2 t on (S_c, n_c, sum of squares), as --kind scores
    sumsq = [0.8**2 + 1.0**2 + 0.6**2, 0.4**2 + 0.5**2, 0.2**2 + 0.5**2]
    ct = cluster_t_interval([2.4, 0.9, 0.7], [3, 2, 2], variance="CR2", sumsq=sumsq)
    half = sps.t.ppf(0.975, ct.df) * math.sqrt(v) / (r * (1 - r))
    assert_allclose([row.lower, row.upper], special.expit(special.logit(r) + np.array([-half, half])),
                    rtol=1e-12)
    assert_allclose([row.estimate, row.lower, row.upper], [ct.estimate, ct.lower, ct.upper], rtol=1e-12)
    assert row.method == "logit_cluster_robust_t"


def test_notes_name_what_was_left_out(small: Judgments) -> None:
    notes = " ".join(composite_score_by_student(small).notes)
    assert "1 rows of the dev or calibration split" in notes
    assert "pairwise rows (jp)" in notes
    assert "'latency' has an interval scale" in notes


def test_weighted_q_hand_worked_and_statsmodels_se(small: Judgments) -> None:
    scores = composite_score_by_student(small, weights={"quality": 3, "helpfulness": 1})
    assert scores.weights == {"quality": 0.75, "helpfulness": 0.25}
    # A: mean quality (0.8 + 0.6 + 0.4 + 0.2) / 4 = 0.5, helpfulness (1 + 0.5 + 0.5) / 3 = 2/3
    assert_allclose(scores["A"], 0.75 * 0.5 + 0.25 * 2 / 3, rtol=1e-12)
    assert any("sum to 4" in n for n in scores.notes)
    # oracle: OLS of the unit scores on criterion indicators; CR2 from the dense hat matrix,
    # A_c = (I - H_cc)^{-1/2} by scipy.linalg.sqrtm (Bell and McCaffrey 2002); Var(w'b).
    # (Before issue 26 this was CR1, statsmodels' cluster covariance times C/(C - 1).)
    from scipy import linalg

    y = np.array([0.8, 1.0, 0.6, 0.4, 0.5, 0.2, 0.5])
    quality = np.array([1, 0, 1, 1, 0, 1, 0], dtype=float)
    groups = np.array([1, 1, 1, 2, 2, 3, 3])
    X = np.column_stack([quality, 1 - quality])
    fit = sm.OLS(y, X).fit()
    bread = np.linalg.inv(X.T @ X)
    H = X @ bread @ X.T
    meat = np.zeros((2, 2))
    for g in np.unique(groups):
        idx = groups == g
        A = np.real(linalg.inv(linalg.sqrtm(np.eye(idx.sum()) - H[np.ix_(idx, idx)])))
        u = X[idx].T @ A @ fit.resid[idx]
        meat += np.outer(u, u)
    w = np.array([0.75, 0.25])
    se = math.sqrt(w @ bread @ meat @ bread @ w)
    row = next(r for r in scores.rows if r.arm == "A" and r.task is None)
    assert_allclose(row.standard_error, se, rtol=1e-10)
    assert_allclose(w @ fit.params, row.estimate, rtol=1e-12)
    assert row.method == "logit_cluster_robust_t"


def test_weighted_q_of_an_arm_missing_a_factor_is_nan(small: Judgments) -> None:
    frame = small.frame
    only_quality = frame[(frame["arm"] == "B") & (frame["criterion"] == "quality")].assign(arm="C")
    table = Judgments(pd.concat([frame, only_quality], ignore_index=True), small.scales)
    scores = composite_score_by_student(table, weights={"quality": 0.5, "helpfulness": 0.5})
    assert math.isnan(scores["C"])
    assert any("C has no units on helpfulness" in n for n in scores.notes)


@pytest.mark.parametrize(("weights", "message"), [
    ({"nope": 1.0}, "no valid units"), ({"quality": -1.0}, "non-negative"),
    ({"quality": 0.0}, "positive sum")])
def test_bad_weights_raise(small: Judgments, weights: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        composite_score_by_student(small, weights=weights)


def test_linearised_single_factor_equals_ratio_variance() -> None:
    rng = np.random.default_rng(3)
    values = rng.random(30)
    clusters = np.repeat(np.arange(6), 5)
    est, se, c = linearised_composite(values, clusters, np.zeros(30).astype(str), {"0.0": 1.0})
    sums = values.reshape(6, 5).sum(axis=1)
    ct = cluster_t_interval(sums, np.full(6, 5.0))
    assert c == 6
    assert_allclose([est, se], [ct.estimate, ct.standard_error], rtol=1e-12)


def test_differentiation_hand_worked(small: Judgments) -> None:
    report = differentiation_score(small, B=200, seed=3)
    by = {(r.judge, r.criterion): r for r in report.rows}
    # j1 quality: A (0.8 + 0.6 + 0.4 + 0.2) / 4 = 0.5, B (1.0 + 0.6 + 0.2) / 3 = 0.6
    assert_allclose(by["j1", "quality"].estimate, statistics.pvariance([0.5, 0.6]), rtol=1e-12)
    # j2 helpfulness: A (1 + 0.5 + 0.5) / 3 = 2/3, B 1.0 -> (1/6)^2
    assert_allclose(by["j2", "helpfulness"].estimate, (1 / 6) ** 2, rtol=1e-12)
    assert by["j2", "helpfulness"].arm_means == pytest.approx({"A": 2 / 3, "B": 1.0})
    row = by["j1", "quality"]
    assert row.method == "percentile_cluster_bootstrap"
    assert 0.0 <= row.lower <= row.upper
    assert differentiation_score(small, B=200, seed=3).to_dict() == report.to_dict()


def test_differentiation_one_arm_is_nan() -> None:
    table = make_table([_row("q1", "d1", "A", "j1", "quality", 5),
                        _row("q2", "d2", "A", "j1", "quality", 7)], SCALES)
    row = differentiation_score(table, B=50).rows[0]
    assert math.isnan(row.estimate) and row.method == "fewer_than_two_arms"


def test_demo_q_matches_a_direct_computation(demo: Judgments) -> None:
    f = demo.frame
    keep = f["reportable"] & f["opponent"].isna() & f["score"].notna()
    rows = f[keep].copy()
    divisor = rows["criterion"].map({"correct": 1.0, "quality": 100.0, "helpfulness": 2.0})
    rows["v"] = rows["score"] / divisor
    direct = rows.groupby("arm")["v"].mean()
    scores = composite_score_by_student(demo)
    assert set(scores) == set(direct.index)
    for arm, q in scores.items():
        assert_allclose(q, direct[arm], rtol=1e-12)
    # per task, and the interval: cluster_t_interval on (cluster sum, unit count)
    for arm in scores:
        part = rows[(rows["arm"] == arm) & (rows["task"] == "summarisation")]
        by_cluster = part.groupby("cluster")["v"]
        ct = cluster_t_interval(by_cluster.sum().to_numpy(), by_cluster.size().to_numpy(),
                                variance="CR2",
                                sumsq=(part["v"] ** 2).groupby(part["cluster"]).sum().to_numpy())
        row = next(r for r in scores.rows if r.arm == arm and r.task == "summarisation")
        assert_allclose([row.estimate, row.lower, row.upper], [ct.estimate, ct.lower, ct.upper],
                        rtol=1e-10)
    assert scores.to_json()  # serialisable, NaN as null


def test_demo_differentiation_covers_every_pointwise_judge(demo: Judgments) -> None:
    report = differentiation_score(demo, B=100)
    assert {r.judge for r in report.rows} == {"exact-match", "judge-lenient", "judge-strict",
                                              "judge-ordinal"}
    f = demo.frame
    rows = f[f["reportable"] & (f["judge"] == "judge-strict") & f["score"].notna()]
    means = (rows.groupby("arm")["score"].mean() / 100).to_numpy()
    strict = next(r for r in report.rows if r.judge == "judge-strict")
    assert_allclose(strict.estimate, np.var(means), rtol=1e-10)
    assert strict.lower < strict.estimate < strict.upper


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from("AB"), st.floats(0, 1)),
                min_size=6, max_size=30), st.randoms())
def test_q_ignores_row_order_and_cluster_labels_and_duplicated_units(
        units: list[tuple[int, str, float]], rnd: random.Random) -> None:
    rows = [{"item": f"q{k}", "cluster": f"d{c}", "arm": arm, "run": k + 1, "score": s}
            for k, (c, arm, s) in enumerate(units)]
    base = composite_score_by_student(make_table(rows, {"score": "range:0,1"}))
    # reorder rows and relabel clusters
    names = [f"cluster-{c}" for c in range(5)]
    rnd.shuffle(names)
    labels = {f"d{c}": names[c] for c in range(5)}
    shuffled = [dict(r, cluster=labels[str(r["cluster"])]) for r in rows]
    rnd.shuffle(shuffled)
    moved = composite_score_by_student(make_table(shuffled, {"score": "range:0,1"}))
    # every unit twice in its own cluster: S_c and n_c double, N doubles, the leverages
    # n_c / N and so V2 unchanged (the working ICC of the df rises: copies correlate)
    doubled = rows + [dict(r, item=f"{r['item']}-copy") for r in rows]
    twice = composite_score_by_student(make_table(doubled, {"score": "range:0,1"}))
    for other, fields in ((moved, ("estimate", "standard_error", "lower", "upper")),
                          (twice, ("estimate", "standard_error"))):
        for a, b in zip(sorted(base.rows, key=lambda r: r.arm),
                        sorted(other.rows, key=lambda r: r.arm), strict=True):
            assert a.arm == b.arm
            assert other is twice or a.method == b.method
            assert_allclose([getattr(a, f) for f in fields], [getattr(b, f) for f in fields],
                            rtol=1e-9, equal_nan=True)


def test_q_in_few_unequal_clusters_is_flagged_as_the_benchmark_flags_it() -> None:
    # Issue 26 (3): three clusters of 30 units and nine singletons, each cluster its own level:
    # G* about 3 (< 8 and < 0.8 C), the design the benchmark and --kind scores flag.
    rng = np.random.default_rng(11)
    rows, k = [], 0
    for c, size in enumerate([30, 30, 30] + [1] * 9):
        level = rng.uniform(0.2, 0.9)
        for _ in range(size):
            rows.append({"item": f"q{k}", "cluster": f"d{c}", "arm": "A", "run": 1,
                         "score": float(np.clip(level + rng.normal(0, 0.1), 0, 1))})
            k += 1
    table = make_table(rows, {"score": "range:0,1"})
    for weights in (None, {"score": 1.0}):
        scores = composite_score_by_student(table, weights=weights)
        [row] = [r for r in scores.rows if r.task is None]
        assert row.design_flagged and row.effective_clusters < 8
        assert any("count as" in n and "effective clusters" in n for n in scores.notes)
