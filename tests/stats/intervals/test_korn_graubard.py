"""korn_graubard_interval: scipy binomtest (exact) and beta oracles, degenerate cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from assay.stats import korn_graubard_interval, ratio_estimate


def _svyciprop_beta(sums, sizes, conf, tail_q=None):
    """R survey's svyciprop(method = "beta") written out, plus assay's cap at N."""
    est = ratio_estimate(sums, sizes)
    r, v, n_items, c = est.estimate, est.variance, est.n, est.n_clusters
    alpha = 1 - conf
    q = 1 - alpha / 2 if tail_q is None else tail_q
    n_eff = r * (1 - r) / v * (stats.t.ppf(q, n_items - 1) / stats.t.ppf(q, c - 1)) ** 2
    n_eff = min(n_eff, n_items)
    a = 1 - q
    lo = stats.beta.ppf(a, n_eff * r, n_eff * (1 - r) + 1)
    hi = stats.beta.ppf(1 - a, n_eff * r + 1, n_eff * (1 - r))
    return n_eff, lo, hi


def test_capped_at_n_items_equals_clopper_pearson_binomtest() -> None:
    # 10 clusters of 10 items, 5 or 6 right in each: r = 0.55, residuals +-0.5, so
    # V = 10/9 * 10 * 0.25 / 100^2 = 2.78e-4 and r(1-r)/V = 891. The df factor
    # (t_{99}/t_9)^2 = (1.984217/2.262157)^2 = 0.7694 leaves 685.5 > 100, so n* = N = 100
    # and the interval is Clopper-Pearson for 55 of 100.
    sums = np.array([5, 6] * 5, dtype=float)
    sizes = np.full(10, 10.0)
    res = korn_graubard_interval(sums, sizes)
    assert res.n == 100.0
    ci = stats.binomtest(55, 100).proportion_ci(0.95, method="exact")
    assert_allclose([res.lower, res.upper], [ci.low, ci.high], rtol=1e-10)
    assert res.method == "korn_graubard_clopper_pearson"
    assert (res.df, res.n_clusters, res.alternative) == (9.0, 10, "two-sided")


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_capped_equals_binomtest_one_sided(alternative) -> None:
    sums = np.array([5, 6] * 5, dtype=float)
    res = korn_graubard_interval(sums, np.full(10, 10.0), conf=0.9, alternative=alternative)
    ci = stats.binomtest(55, 100, alternative=alternative).proportion_ci(0.9, method="exact")
    assert_allclose([res.lower, res.upper], [ci.low, ci.high], rtol=1e-10)
    assert res.alternative == alternative


def test_one_item_per_cluster_is_clopper_pearson_on_n_minus_1() -> None:
    # C = N clusters of size 1, y in {0, 1}: V = N/(N-1) * N r(1-r) / N^2 = r(1-r)/(N-1),
    # and t_{N-1}/t_{C-1} = 1, so n* = N - 1 with x = r (N - 1) successes.
    y = np.array([1] * 7 + [0] * 13, dtype=float)
    res = korn_graubard_interval(y, np.ones(20), conf=0.9)
    x = 7 / 20 * 19
    assert_allclose(res.n, 19.0, rtol=1e-12)
    assert_allclose(res.lower, stats.beta.ppf(0.05, x, 19 - x + 1), rtol=1e-10)
    assert_allclose(res.upper, stats.beta.ppf(0.95, x + 1, 19 - x), rtol=1e-10)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 6), st.integers(0, 30)), min_size=2, max_size=12),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_matches_svyciprop_formula(clusters, conf) -> None:
    sizes = np.array([n for n, _ in clusters], dtype=float)
    sums = np.array([n * k / 30 for n, k in clusters])
    est = ratio_estimate(sums, sizes)
    res = korn_graubard_interval(sums, sizes, conf=conf)
    if est.variance > 0 and 0 < est.estimate < 1:
        n_eff, lo, hi = _svyciprop_beta(sums, sizes, conf)
        assert_allclose([res.n, res.lower, res.upper], [n_eff, lo, hi], rtol=1e-9)
    assert 0.0 <= res.lower <= res.estimate <= res.upper <= 1.0
    assert res.upper > res.lower
    assert res.n <= sizes.sum()


def test_zero_variance_uses_n_items_before_df_adjustment() -> None:
    # Every cluster of 4 items half right: V = 0, so n* = 12 (t_{11,.975}/t_{2,.975})^2
    # = 12 (2.200985/4.302653)^2 = 3.140096 and x = n*/2.
    res = korn_graubard_interval([2, 2, 2], [4, 4, 4])
    n_eff = 12 * (stats.t.ppf(0.975, 11) / stats.t.ppf(0.975, 2)) ** 2
    assert_allclose(res.n, n_eff, rtol=1e-12)
    assert round(res.n, 6) == 3.140096
    x = n_eff / 2
    assert_allclose(res.lower, stats.beta.ppf(0.025, x, n_eff - x + 1), rtol=1e-10)
    assert_allclose(res.upper, stats.beta.ppf(0.975, x + 1, n_eff - x), rtol=1e-10)
    assert res.alternative == "two-sided"


def test_all_wrong_is_one_sided_upper_bound_at_conf() -> None:
    # r = 0: [0, 1 - (1 - conf)^(1/n*)], n* = 12 (t_{11,0.95}/t_{2,0.95})^2 = 4.539174
    # (one-sided quantiles), upper = 1 - 0.05^(1/4.539174) = 0.483135.
    res = korn_graubard_interval([0, 0, 0], [4, 4, 4])
    n_eff = 12 * (stats.t.ppf(0.95, 11) / stats.t.ppf(0.95, 2)) ** 2
    assert_allclose(res.n, n_eff, rtol=1e-12)
    assert res.lower == 0.0
    assert_allclose(res.upper, 1 - 0.05 ** (1 / n_eff), rtol=1e-10)
    assert round(res.upper, 6) == 0.483135
    assert res.alternative == "less"


def test_all_right_is_one_sided_lower_bound_at_conf() -> None:
    res = korn_graubard_interval([4, 4, 4], [4, 4, 4], conf=0.9)
    n_eff = 12 * (stats.t.ppf(0.9, 11) / stats.t.ppf(0.9, 2)) ** 2
    assert res.upper == 1.0
    assert_allclose(res.lower, 0.1 ** (1 / n_eff), rtol=1e-10)
    assert res.alternative == "greater"


def test_all_wrong_with_integer_effective_n_matches_binomtest() -> None:
    # One item per cluster: factor 1 and V = 0 gives n* = N = 25 exactly.
    res = korn_graubard_interval(np.zeros(25), np.ones(25))
    assert res.n == 25.0
    ci = stats.binomtest(0, 25, alternative="less").proportion_ci(0.95, method="exact")
    assert_allclose(res.upper, ci.high, rtol=1e-10)


def test_complement_mirrors_interval() -> None:
    sums = np.array([1.0, 2.5, 0.5, 3.0])
    sizes = np.array([2.0, 4.0, 3.0, 3.0])
    a = korn_graubard_interval(sums, sizes)
    b = korn_graubard_interval(sizes - sums, sizes)
    assert_allclose([b.lower, b.upper], [1 - a.upper, 1 - a.lower], rtol=1e-10)


def test_one_sided_bounds_are_inside_two_sided_at_same_conf() -> None:
    sums = np.array([1.0, 2.5, 0.5, 3.0])
    sizes = np.array([2.0, 4.0, 3.0, 3.0])
    two = korn_graubard_interval(sums, sizes, conf=0.95)
    lower = korn_graubard_interval(sums, sizes, conf=0.95, alternative="greater")
    upper = korn_graubard_interval(sums, sizes, conf=0.95, alternative="less")
    assert two.lower < lower.lower < two.estimate and lower.upper == 1.0
    assert two.estimate < upper.upper < two.upper and upper.lower == 0.0
    assert not math.isnan(lower.lower)


def test_rejects_bad_alternative() -> None:
    with pytest.raises(ValueError, match="alternative"):
        korn_graubard_interval([1, 2], [3, 3], alternative="both")  # type: ignore[arg-type]


def test_one_sided_away_from_the_observed_bound_is_the_whole_range() -> None:
    at_zero = korn_graubard_interval([0, 0], [3, 3], alternative="greater")
    at_one = korn_graubard_interval([3, 3], [3, 3], alternative="less")
    assert (at_zero.lower, at_zero.upper) == (0.0, 1.0)
    assert (at_one.lower, at_one.upper) == (0.0, 1.0)


def test_design_df_replaces_c_minus_1_in_the_df_adjustment() -> None:
    # All 12 items right in 3 clusters of 4, design df 1.5 (a flagged design's G* - 1):
    # n* = 12 (t_{11,0.95} / t_{1.5,0.95})^2, the bound 0.05^(1/n*) (hand, with scipy.stats.t).
    res = korn_graubard_interval([4, 4, 4], [4, 4, 4], design_df=1.5)
    n_eff = 12 * (stats.t.ppf(0.95, 11) / stats.t.ppf(0.95, 1.5)) ** 2
    assert res.alternative == "greater" and res.upper == 1.0 and res.df == 1.5
    assert abs(res.n - n_eff) < 1e-9 and abs(res.lower - 0.05 ** (1 / n_eff)) < 1e-12
    assert res.lower < korn_graubard_interval([4, 4, 4], [4, 4, 4]).lower
    with pytest.raises(ValueError, match="design_df"):
        korn_graubard_interval([4, 4, 4], [4, 4, 4], design_df=0.5)
