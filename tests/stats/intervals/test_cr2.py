"""CR2 variance, Bell-McCaffrey df, working ICC and effective clusters: dense oracles, hand
values, the balanced identity with the C/(C-1) estimator, and properties."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import linalg

from assay.stats import (
    bell_mccaffrey_df,
    cr2_ratio_estimate,
    effective_clusters,
    ratio_estimate,
    run_effect_p_value,
    two_way_cluster_variance,
    working_icc,
)


def _dense(values: np.ndarray, cluster: np.ndarray, rho: float):
    """CR2 variance and Satterthwaite df written out item by item (the textbook matrices).

    V2 = (X'X)^-1 sum_c X_c' A_c e_c e_c' A_c X_c (X'X)^-1 with X = 1, A_c = (I - H_cc)^-1/2
    by scipy.linalg.sqrtm; V2 = y' M y, and nu = tr(M Omega)^2 / tr((M Omega)^2) with
    Omega = (1 - rho) I + rho (same-cluster indicator).
    """
    n = values.size
    hat = np.full((n, n), 1.0 / n)
    resid_maker = np.eye(n) - hat
    e = resid_maker @ values
    m = np.zeros((n, n))
    v2 = 0.0
    for c in np.unique(cluster):
        idx = np.flatnonzero(cluster == c)
        a_c = np.real(linalg.inv(linalg.sqrtm(np.eye(idx.size) - hat[np.ix_(idx, idx)])))
        row = np.zeros(n)
        row[idx] = a_c.sum(axis=0)  # 1_c' A_c, as a vector over all items
        v2 += float(row @ e) ** 2
        g = resid_maker @ row  # y -> 1_c' A_c e_c is the linear form g'y
        m += np.outer(g, g)
    v2 /= n**2
    m /= n**2
    same = cluster[:, None] == cluster[None, :]
    omega = (1.0 - rho) * np.eye(n) + rho * same
    mo = m @ omega
    return v2, np.trace(mo) ** 2 / np.trace(mo @ mo)


@st.composite
def clustered(draw: st.DrawFn):
    sizes = draw(st.lists(st.integers(1, 7), min_size=2, max_size=8))
    values = draw(st.lists(st.integers(0, 5), min_size=sum(sizes), max_size=sum(sizes)))
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    return np.array(values) / 5.0, cluster, np.array(sizes, dtype=float)


def _sums(values, cluster):
    return np.bincount(cluster, weights=values), np.bincount(cluster, weights=values**2)


def test_cr2_hand_worked() -> None:
    # S = (2, 2, 1), n = (3, 2, 4), N = 9, r = 5/9: residuals 1/3, 8/9, -11/9, leverages
    # n_c / N = 1/3, 2/9, 4/9; V2 = sum e_c^2 / (1 - n_c/N) / N^2 = (2439/630) / 81.
    r = Fraction(5, 9)
    v2 = sum((s - r * n) ** 2 / (1 - Fraction(n, 9)) for s, n in [(2, 3), (2, 2), (1, 4)]) / 81
    assert v2 == Fraction(2439, 630 * 81)
    res = cr2_ratio_estimate([2, 2, 1], [3, 2, 4])
    assert_allclose(res.variance, float(v2), rtol=1e-14)
    assert_allclose(res.estimate, 5 / 9, rtol=1e-15)


def test_df_hand_worked_two_clusters() -> None:
    # Two clusters: M has rank 1 (a_1 = -a_2), so V is one scaled chi-square with nu = 1
    # whatever the sizes and rho.
    for sizes in ([1, 3], [2, 7], [5, 5]):
        for rho in (0.0, 0.4, 1.0):
            assert_allclose(bell_mccaffrey_df(sizes, icc=rho), 1.0, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(clustered(), st.sampled_from([0.0, 0.3, 1.0]))
def test_cr2_and_df_match_the_dense_matrices(data, rho) -> None:
    values, cluster, sizes = data
    v2, nu = _dense(values, cluster, rho)
    sums, _ = _sums(values, cluster)
    res = cr2_ratio_estimate(sums, sizes)
    assert_allclose(res.variance, v2, rtol=1e-9, atol=1e-15)
    assert_allclose(bell_mccaffrey_df(sizes, icc=rho), nu, rtol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 6), st.integers(0, 10**6))
def test_balanced_cr2_is_the_cr1_estimator_with_c_minus_1_df(clusters, size, seed) -> None:
    # The specification's estimator: V = C/(C-1) sum (S_c - r n_c)^2 / N^2 with C - 1 df.
    rng = np.random.default_rng(seed)
    sizes = np.full(clusters, float(size))
    sums = rng.integers(0, 5 * size + 1, size=clusters) / 5.0
    sumsq = sums * sums / size + rng.random(clusters)  # any valid sum of squares
    cr1 = ratio_estimate(sums, sizes)
    for given_sumsq in (None, sumsq):
        cr2 = cr2_ratio_estimate(sums, sizes, sumsq=given_sumsq)
        assert_allclose(cr2.variance, cr1.variance, rtol=1e-12, atol=1e-300)
        assert cr2.df == clusters - 1
        assert cr2.effective_clusters == pytest.approx(clusters, rel=1e-12)


def test_cr1_oracle_statsmodels_and_cr2_df_below_c_minus_1() -> None:
    rng = np.random.default_rng(7)
    sizes = np.array([20, 3, 1, 1, 2, 1, 5])
    cluster = np.repeat(np.arange(sizes.size), sizes)
    values = rng.integers(0, 6, size=cluster.size) / 5.0
    fit = sm.OLS(values, np.ones(values.size)).fit(
        cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    sums, _ = _sums(values, cluster)
    cr1 = ratio_estimate(sums, sizes)
    assert_allclose(cr1.standard_error, fit.bse[0], rtol=1e-10)
    cr2 = cr2_ratio_estimate(sums, sizes)
    leverage = sizes / sizes.sum()
    resid = sums - cr1.estimate * sizes
    weights = 1.0 / (1.0 - leverage)  # CR2 weights the big cluster (20 of 33 items) by 2.54
    assert_allclose(cr2.variance, np.sum(weights * resid**2) / sizes.sum() ** 2, rtol=1e-12)
    assert 2.0 < cr2.df < 2.1 < sizes.size - 1  # far below the C - 1 = 6 of CR1


def test_working_icc_against_the_pairwise_definition() -> None:
    rng = np.random.default_rng(3)
    sizes = np.array([4, 2, 6, 1, 3])
    cluster = np.repeat(np.arange(sizes.size), sizes)
    values = rng.integers(0, 6, size=cluster.size) / 5.0 + 0.3 * cluster
    e = values - values.mean()
    same = (cluster[:, None] == cluster[None, :]) & ~np.eye(values.size, dtype=bool)
    rho = (e[:, None] * e[None, :])[same].sum() / (np.mean(e**2) * same.sum())
    sums, sumsq = _sums(values, cluster)
    assert 0.0 < rho < 1.0
    assert_allclose(working_icc(sums, sumsq, sizes), rho, rtol=1e-12)


def test_working_icc_is_cut_to_zero_and_refuses_bad_squares() -> None:
    # Alternating values inside each cluster: negative cross products, cut to 0.
    assert working_icc([1, 1], [1, 1], [2, 2]) == 0.0
    with pytest.raises(ValueError, match="sumsq"):
        working_icc([2, 2], [1, 1], [2, 2])


def test_effective_clusters() -> None:
    assert effective_clusters([5, 5, 5]) == pytest.approx(3.0)
    # rho = 0: gamma_c = n_c; (1 + 2 + 3)^2 / (1 + 4 + 9) = 36 / 14
    assert effective_clusters([1, 2, 3], icc=0.0) == pytest.approx(36 / 14)
    # rho = 1: gamma_c = n_c^2; (1 + 4 + 9)^2 / (1 + 16 + 81) = 196 / 98 = 2
    assert effective_clusters([1, 2, 3], icc=1.0) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="icc"):
        effective_clusters([1, 2], icc=1.5)


@settings(max_examples=30, deadline=None)
@given(clustered(), st.randoms(use_true_random=False))
def test_invariant_to_cluster_order_and_to_duplicating_items(data, random) -> None:
    values, cluster, sizes = data
    sums, _ = _sums(values, cluster)
    base = cr2_ratio_estimate(sums, sizes)
    order = list(range(sizes.size))
    random.shuffle(order)
    shuffled = cr2_ratio_estimate(sums[order], sizes[order])
    assert_allclose(shuffled.variance, base.variance, rtol=1e-10, atol=1e-300)
    assert_allclose(shuffled.df, base.df, rtol=1e-10)
    doubled = cr2_ratio_estimate(2 * sums, 2 * sizes)  # every item twice in its own cluster
    assert_allclose(doubled.variance, base.variance, rtol=1e-10, atol=1e-300)


def test_two_way_variance_matches_statsmodels_two_way_clustering() -> None:
    # Items x runs scores with a run shift; statsmodels' two-group cluster covariance is
    # V_C + V_R - V_CR with each small-sample factor G/(G-1) (K = 1 regressor).
    rng = np.random.default_rng(11)
    sizes = np.array([3, 1, 4, 2, 5, 2])
    runs = 4
    cluster = np.repeat(np.arange(sizes.size), sizes)
    p = np.clip(0.6 + 0.2 * rng.standard_normal(cluster.size), 0.05, 0.95)
    shift = np.array([0.15, -0.1, 0.05, -0.2])
    y = (rng.random((cluster.size, runs)) < np.clip(p[:, None] + shift, 0, 1)).astype(float)
    groups = np.column_stack([np.repeat(cluster, runs), np.tile(np.arange(runs), cluster.size)])
    fit = sm.OLS(y.ravel(), np.ones(y.size)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    cells = np.vstack([y[cluster == c].sum(axis=0) for c in range(sizes.size)])
    res = two_way_cluster_variance(cells, sizes)
    assert res.variance > res.variance_clusters  # the run shift is material here
    assert_allclose(res.variance, fit.bse[0] ** 2, rtol=1e-10)
    assert_allclose(res.variance_clusters, ratio_estimate(cells.sum(axis=1) / runs,
                                                          sizes).variance, rtol=1e-12)
    assert res.df == 3.0


def test_run_effect_p_value_matches_statsmodels_two_way_anova() -> None:
    # Oracle: the additive two-way ANOVA y ~ C(unit) + C(run) of statsmodels, type II.
    import pandas as pd
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(5)
    units, runs = 9, 5
    y = rng.random((units, runs)) + np.array([0.0, 0.3, -0.2, 0.1, 0.0])
    frame = pd.DataFrame({"y": y.ravel(), "unit": np.repeat(np.arange(units), runs),
                          "run": np.tile(np.arange(runs), units)})
    table = anova_lm(ols("y ~ C(unit) + C(run)", data=frame).fit(), typ=2)
    p = run_effect_p_value(y.sum(axis=0), units, score_sumsq=float(np.sum(y**2)),
                           item_mean_sumsq=float(np.sum(y.mean(axis=1) ** 2)))
    assert_allclose(p, table.loc["C(run)", "PR(>F)"], rtol=1e-9)


def test_run_effect_p_value_without_residual_spread_and_bad_input() -> None:
    y = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])  # additive exactly: MS_E = 0
    assert run_effect_p_value(y.sum(axis=0), 3, score_sumsq=3.0,
                              item_mean_sumsq=0.75) == 1.0
    with pytest.raises(ValueError, match="n_items"):
        run_effect_p_value([1.0, 2.0], 1, score_sumsq=1.0, item_mean_sumsq=1.0)
    with pytest.raises(ValueError, match="run_totals"):
        run_effect_p_value([1.0], 3, score_sumsq=1.0, item_mean_sumsq=1.0)
