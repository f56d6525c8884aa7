"""korn_graubard_midp_interval and korn_graubard_jeffreys_interval: hand-worked values, the
binomial mid-p bounds solved from scipy.stats.binom's mass function, statsmodels' Jeffreys
interval in the unclustered special cases, and the bounds at 0."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from scipy.optimize import brentq
from statsmodels.stats.proportion import proportion_confint

from assay.stats import (
    korn_graubard_interval,
    korn_graubard_jeffreys_interval,
    korn_graubard_midp_interval,
)

# The design of test_korn_graubard's cap test: 10 clusters of 10 with 5 or 6 right, so
# n* reaches the cap N = 100 and the count 55 is an integer.
CAP_SUMS, CAP_SIZES = np.array([5, 6] * 5, float), np.full(10, 10.0)


def _midp_by_mass(x: int, n: int, conf: float) -> tuple[float, float]:
    """Mid-p bounds from the binomial mass and tail (Lancaster 1961), not the beta function:
    P_L(X > x) + P_L(X = x)/2 = a and P_U(X < x) + P_U(X = x)/2 = a."""
    a = (1 - conf) / 2
    lower = brentq(lambda p: stats.binom.sf(x, n, p) + stats.binom.pmf(x, n, p) / 2 - a,
                   1e-12, 1 - 1e-12, xtol=1e-15)
    upper = brentq(lambda p: stats.binom.cdf(x - 1, n, p) + stats.binom.pmf(x, n, p) / 2 - a,
                   1e-12, 1 - 1e-12, xtol=1e-15)
    return lower, upper


@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_midp_capped_at_n_items_equals_the_binomial_mid_p(conf) -> None:
    res = korn_graubard_midp_interval(CAP_SUMS, CAP_SIZES, conf=conf)
    assert res.n == 100.0
    assert_allclose([res.lower, res.upper], _midp_by_mass(55, 100, conf), rtol=1e-9)


def test_midp_one_item_per_cluster_small_count() -> None:
    # C = N = 30 items alone, 3 right: n* = N - 1 = 29 and x = 0.1 * 29 = 2.9 (not a
    # count), so compare with the two neighbouring counts' mid-p bounds on 29 trials,
    # which bracket it (the bounds increase with x).
    y = np.r_[np.ones(3), np.zeros(27)]
    res = korn_graubard_midp_interval(y, np.ones(30))
    assert res.n == pytest.approx(29.0)
    lo2, hi2 = _midp_by_mass(2, 29, 0.95)
    lo3, hi3 = _midp_by_mass(3, 29, 0.95)
    assert lo2 < res.lower < lo3 and hi2 < res.upper < hi3


def test_midp_hand_worked_half_right() -> None:
    # Clusters of 4 items, 2 right each: V = 0, so n* = 12 (t_{11,.975}/t_{2,.975})^2 =
    # 12 (2.200985/4.302653)^2 = 3.140096 and x = 1.570048. g(p) = [I_p(x, n* - x + 1) +
    # I_p(x + 1, n* - x)]/2 is symmetric about 1/2 here (both terms are Beta(1.570048,
    # 2.570048) and Beta(2.570048, 1.570048) distribution functions), so L = 1 - U.
    # The bound solves g(L) = 0.025: with scipy.stats.beta's cdf, g(0.065790) = 0.025.
    res = korn_graubard_midp_interval([2, 2, 2], [4, 4, 4])
    x = res.n / 2
    g = (stats.beta.cdf(res.lower, x, res.n - x + 1)
         + stats.beta.cdf(res.lower, x + 1, res.n - x)) / 2
    assert res.n == pytest.approx(3.140096, abs=1e-6)
    assert g == pytest.approx(0.025, abs=1e-12)
    assert res.lower == pytest.approx(0.065790, abs=1e-6)
    assert res.upper == pytest.approx(1 - res.lower, abs=1e-12)


def test_midp_all_wrong_is_clopper_pearsons_one_sided_bound_on_its_n() -> None:
    # x = 0: g(p) = 1 - (1 - p)^n*/2, so U = 1 - 0.05^(1/n*), with n* at q = 0.975.
    res = korn_graubard_midp_interval([0, 0, 0, 0], [5, 5, 5, 5])
    n_star = 20 * (stats.t.ppf(0.975, 19) / stats.t.ppf(0.975, 3)) ** 2
    assert res.n == pytest.approx(n_star)
    assert res.lower == 0.0
    assert res.upper == pytest.approx(1 - 0.05 ** (1 / n_star))
    full = korn_graubard_midp_interval([5, 5, 5, 5], [5, 5, 5, 5])
    assert (full.lower, full.upper) == pytest.approx((0.05 ** (1 / n_star), 1.0))


def test_midp_lies_inside_clopper_pearson_on_the_same_n() -> None:
    sums, sizes = np.array([1, 0, 0, 2, 0, 1.0]), np.full(6, 5.0)
    m = korn_graubard_midp_interval(sums, sizes)
    cp = korn_graubard_interval(sums, sizes)
    assert m.n == pytest.approx(cp.n)
    assert cp.lower < m.lower < m.estimate < m.upper < cp.upper
    assert m.method == "korn_graubard_midp"


def test_jeffreys_capped_at_n_items_equals_statsmodels() -> None:
    res = korn_graubard_jeffreys_interval(CAP_SUMS, CAP_SIZES)
    assert res.n == 100.0
    assert_allclose([res.lower, res.upper], proportion_confint(55, 100, method="jeffreys"),
                    rtol=1e-10)


def test_jeffreys_hand_worked_unequal_clusters() -> None:
    # test_korn_graubard_wilson's design: clusters of 5 with 1, 0, 0, 2 right, r = 0.15,
    # n* = 6.016238, x = 0.902436: the 2.5% and 97.5% quantiles of
    # Beta(1.402436, 5.613802), from scipy.stats.beta.
    res = korn_graubard_jeffreys_interval([1, 0, 0, 2], [5, 5, 5, 5])
    assert res.n == pytest.approx(6.016238, abs=2e-6)
    a, b = 0.15 * res.n + 0.5, 0.85 * res.n + 0.5
    assert (a, b) == pytest.approx((1.402436, 5.613802), abs=2e-6)
    assert_allclose([res.lower, res.upper], stats.beta.ppf([0.025, 0.975], a, b), rtol=1e-10)
    assert (res.method, res.df, res.n_clusters) == ("korn_graubard_jeffreys", 3.0, 4)


def test_jeffreys_at_zero_and_one_takes_brown_cai_dasgupta_bounds() -> None:
    zero = korn_graubard_jeffreys_interval([0, 0, 0, 0], [5, 5, 5, 5])
    assert zero.lower == 0.0
    assert zero.upper == pytest.approx(stats.beta.ppf(0.975, 0.5, zero.n + 0.5))
    one = korn_graubard_jeffreys_interval([5, 5, 5, 5], [5, 5, 5, 5])
    assert one.upper == 1.0
    assert one.lower == pytest.approx(stats.beta.ppf(0.025, one.n + 0.5, 0.5))


@pytest.mark.parametrize("fn", [korn_graubard_midp_interval, korn_graubard_jeffreys_interval])
def test_rejects_bad_design_df(fn) -> None:
    with pytest.raises(ValueError, match="design_df"):
        fn([1, 2], [5, 5], design_df=0.5)
