"""Paired differences: cluster-robust t (statsmodels oracle), Tango (published + brute force)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import optimize, stats

from assay.stats import (
    effective_pairs,
    paired_difference_interval,
    tango_effective_n,
    tango_interval,
)

# The seed example's short and long clusters (see test_ratio_cluster_t.py): correct runs of
# 5 per cluster of 3 items. sum_c (dk_c + 2.5)^2 = 49 for dk = short - long, which gives the
# printed difference -0.167 [-0.256, -0.077].
SEED_SHORT = np.array((6, 8, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11))
SEED_LONG = np.array((13, 12, 13, 13, 13, 8, 12, 13, 13, 12, 12, 12))


@st.composite
def paired_items(draw: st.DrawFn):
    """Item accuracies of two arms (multiples of 1/R) and cluster ids."""
    runs = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 5), min_size=2, max_size=10))
    items = sum(sizes)
    first = draw(st.lists(st.integers(0, runs), min_size=items, max_size=items))
    second = draw(st.lists(st.integers(0, runs), min_size=items, max_size=items))
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    return (np.array(first) / runs, np.array(second) / runs, cluster,
            np.array(sizes, dtype=float))


# ----- paired_difference_interval ---------------------------------------------------------


def test_paired_hand_worked() -> None:
    # D = (1, 0, -0.5), n = (2, 2, 2): d = 1/12; residuals 5/6, -1/6, -2/3; V_d = 3/2 *
    # (25 + 1 + 16)/36 / 36 = 7/144; half-width t_{2,.975} sqrt(7/144) = 0.948646; the upper
    # end 1.031979 is cut to 1.
    res = paired_difference_interval([1, 0, -0.5], [2, 2, 2])
    half = stats.t.ppf(0.975, 2) * math.sqrt(7 / 144)
    assert_allclose(res.standard_error, math.sqrt(7 / 144), rtol=1e-14)
    assert_allclose(res.lower, 1 / 12 - half, rtol=1e-12)
    assert res.upper == 1.0
    assert res.method == "cluster_robust_t"


def test_paired_reproduces_seed_example() -> None:
    diff = (SEED_SHORT - SEED_LONG) / 5
    res = paired_difference_interval(diff, np.full(12, 3.0))
    assert (round(res.estimate, 3), round(res.lower, 3), round(res.upper, 3)) == (
        -0.167, -0.256, -0.077)
    # By hand: V_d = 12/11 * sum (dk_c/5 + 0.5)^2 / 36^2 = 12/11 * (49/25) / 1296.
    assert_allclose(res.standard_error ** 2, 12 / 11 * 49 / 25 / 1296, rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(paired_items(), st.sampled_from([0.8, 0.9, 0.95]))
def test_paired_matches_statsmodels_cluster_t(data, conf) -> None:
    first, second, cluster, sizes = data
    diff = first - second
    res = paired_difference_interval(np.bincount(cluster, weights=diff), sizes, conf=conf)
    fit = sm.OLS(diff, np.ones(diff.size)).fit(
        cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)
    assert_allclose(res.estimate, fit.params[0], rtol=1e-12, atol=1e-15)
    assert_allclose(res.standard_error, fit.bse[0], rtol=1e-8, atol=1e-12)
    if res.standard_error > 0:
        lo, hi = fit.conf_int(alpha=1 - conf)[0]
        assert_allclose([res.lower, res.upper], [max(lo, -1.0), min(hi, 1.0)], rtol=1e-8, atol=1e-12)
    else:
        assert math.isnan(res.lower) and math.isnan(res.upper)


@settings(max_examples=60, deadline=None)
@given(paired_items(), st.randoms(use_true_random=False))
def test_paired_swap_negates_and_reorder_and_duplicate_change_nothing(data, random) -> None:
    first, second, cluster, sizes = data
    sums = np.bincount(cluster, weights=first - second)
    a = paired_difference_interval(sums, sizes)
    swapped = paired_difference_interval(np.bincount(cluster, weights=second - first), sizes)
    assert_allclose([swapped.estimate, swapped.lower, swapped.upper],
                    [-a.estimate, -a.upper, -a.lower], rtol=1e-9, atol=1e-12)
    order = list(range(sizes.size))
    random.shuffle(order)
    b = paired_difference_interval(sums[order], sizes[order])
    c = paired_difference_interval(sums * 3, sizes * 3)
    for other in (b, c):
        assert_allclose([other.estimate, other.standard_error, other.lower, other.upper],
                        [a.estimate, a.standard_error, a.lower, a.upper], rtol=1e-9, atol=1e-12)


def test_paired_one_sided_bounds() -> None:
    sums = np.array([0.5, -0.2, 0.3, 0.1, 0.4])
    sizes = np.array([2.0, 2.0, 3.0, 1.0, 2.0])
    two = paired_difference_interval(sums, sizes, conf=0.95)
    one = paired_difference_interval(sums, sizes, conf=0.975, alternative="greater")
    # The one-sided 97.5% lower bound is the lower end of the two-sided 95% interval.
    assert_allclose(one.lower, two.lower, rtol=1e-12)
    assert one.upper == 1.0 and one.alternative == "greater"
    less = paired_difference_interval(sums, sizes, conf=0.9, alternative="less")
    assert less.lower == -1.0
    assert_allclose(less.upper, less.estimate + stats.t.ppf(0.9, 4) * less.standard_error)


def test_paired_zero_variance_gives_nan_bounds() -> None:
    res = paired_difference_interval([0.4, 0.2, 0.6], [2, 1, 3])
    assert res.standard_error == 0.0
    assert math.isnan(res.lower) and math.isnan(res.upper)


def test_paired_rejects_sums_outside_range() -> None:
    with pytest.raises(ValueError, match="diff_sums must lie between"):
        paired_difference_interval([-3, 1], [2, 2])


# ----- tango_interval ---------------------------------------------------------------------


def _mle_q01(b: float, c: float, n: float, delta: float) -> float:
    """Constrained MLE of p01 given p10 - p01 = delta, by direct numerical maximisation of
    b log(p01 + delta) + c log p01 + (n - b - c) log(1 - 2 p01 - delta)."""
    d = n - b - c
    lo, hi = max(0.0, -delta), (1.0 - delta) / 2.0

    def negll(p: float) -> float:
        out = 0.0
        for count, prob in ((b, p + delta), (c, p), (d, 1 - 2 * p - delta)):
            if count > 0:
                out -= count * math.log(prob)
        return out

    return optimize.minimize_scalar(
        negll, bounds=(lo + 1e-12, hi - 1e-12), method="bounded",
        options={"xatol": 1e-12}).x


def _likelihood_root(b, c, n, delta):
    """Root in (max(0, -delta), (1 - delta)/2) of the likelihood equation
    b/(p + delta) + c/p = 2d/(1 - 2p - delta), multiplied out: 2n p^2 + B p - c delta (1 - delta)."""
    big_b = delta * (2 * (n - b - c) + b + 3 * c) - b - c
    disc = big_b**2 + 8 * n * c * delta * (1 - delta)
    return (-big_b + np.sqrt(np.maximum(disc, 0))) / (4 * n)


def _scan(b, c, n, conf, points=400_001):
    """Brute force: the set of delta on a grid of step 5e-6 where |T(delta)| <= z."""
    delta = np.linspace(-1, 1, points)[1:-1]
    q01 = _likelihood_root(b, c, n, delta)
    var = n * (2 * q01 + delta * (1 - delta))
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (b - c - n * delta) / np.sqrt(var)
    inside = np.abs(score) <= stats.norm.ppf((1 + conf) / 2)
    return delta[inside].min(), delta[inside].max()


def test_tango_published_example_cavo_2012() -> None:
    # Fagerland, Lydersen and Laake (2017), ch. 8: complete response before and after
    # consolidation therapy (Cavo et al. 2012), n = 161 pairs, n12 = 6, n21 = 16:
    # estimate -0.0621, Tango asymptotic score 95% CI -0.1240 to -0.0054.
    res = tango_interval(6 / 161, 16 / 161, 161)
    assert (round(res.estimate, 4), round(res.lower, 4), round(res.upper, 4)) == (
        -0.0621, -0.1240, -0.0054)
    assert res.method == "tango_items"


@pytest.mark.parametrize("delta", [-0.3, -0.05, 0.0, 0.1, 0.45])
def test_tango_constrained_mle_is_the_likelihood_maximum(delta) -> None:
    b, c, n = 7.5, 3.25, 40.0
    assert_allclose(_likelihood_root(b, c, n, delta), _mle_q01(b, c, n, delta), atol=1e-7)


@pytest.mark.parametrize(
    ("b", "c", "n", "conf"),
    [(6, 16, 161, 0.95), (40, 20, 160, 0.95), (3.4, 0.0, 25.7, 0.9), (0.0, 0.0, 30, 0.95),
     (12.2, 11.9, 50.5, 0.99), (9, 1, 10, 0.95)],
)
def test_tango_matches_brute_force_scan(b, c, n, conf) -> None:
    res = tango_interval(b / n, c / n, n, conf=conf)
    lo, hi = _scan(b, c, n, conf)
    assert_allclose([res.lower, res.upper], [lo, hi], atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.floats(1, 500), st.sampled_from([0.8, 0.95]))
def test_tango_swap_negates_and_contains_estimate(a, share, n, conf) -> None:
    q10, q01 = a, (1 - a) * share
    res = tango_interval(q10, q01, n, conf=conf)
    swapped = tango_interval(q01, q10, n, conf=conf)
    assert_allclose([swapped.lower, swapped.upper], [-res.upper, -res.lower], atol=1e-9)
    assert -1.0 <= res.lower <= res.estimate <= res.upper <= 1.0
    assert res.upper > res.lower


def test_tango_no_discordant_pairs_hand_worked() -> None:
    # b = c = 0: T = -n D / sqrt(n D (1 - D)) for D > 0, so D = z^2 / (n + z^2).
    res = tango_interval(0.0, 0.0, 10)
    z2 = stats.norm.ppf(0.975) ** 2
    assert_allclose([res.lower, res.upper], [-z2 / (10 + z2), z2 / (10 + z2)], rtol=1e-10)


def test_tango_one_sided_equals_two_sided_at_doubled_level() -> None:
    two = tango_interval(0.2, 0.1, 80, conf=0.9)
    greater = tango_interval(0.2, 0.1, 80, conf=0.95, alternative="greater")
    less = tango_interval(0.2, 0.1, 80, conf=0.95, alternative="less")
    assert_allclose([greater.lower, less.upper], [two.lower, two.upper], rtol=1e-12)
    assert (greater.upper, less.lower) == (1.0, -1.0)


def test_tango_all_pairs_discordant_one_way() -> None:
    res = tango_interval(1.0, 0.0, 10)
    assert res.upper == 1.0
    lo, _ = _scan(10.0, 0.0, 10.0, 0.95)
    assert_allclose(res.lower, lo, atol=1e-5)


def test_tango_rejects_bad_shares() -> None:
    with pytest.raises(ValueError, match="q10 \\+ q01"):
        tango_interval(0.7, 0.6, 10)
    with pytest.raises(ValueError, match="q01"):
        tango_interval(0.2, -0.1, 10)
    with pytest.raises(ValueError, match="n must be"):
        tango_interval(0.2, 0.1, 0)


# ----- effective_pairs and tango_effective_n ----------------------------------------------


def test_effective_pairs_hand_worked_and_cap() -> None:
    # (0.2 + 0.1 - 0.1^2) / 0.05^2 = 0.29 / 0.0025 = 116.
    assert_allclose(effective_pairs(0.2, 0.1, 0.1, 0.05, 200), 116.0, rtol=1e-12)
    assert effective_pairs(0.2, 0.1, 0.1, 0.01, 200) == 200.0


@settings(max_examples=40, deadline=None)
@given(st.floats(0, 0.5, allow_subnormal=False), st.floats(0, 0.5, allow_subnormal=False),
       st.floats(1e-3, 0.2))
def test_effective_pairs_gives_simple_sample_with_the_clustered_variance(q10, q01, se) -> None:
    # A simple paired sample of n_eff pairs has Var(d) = (q10 + q01 - d^2) / n_eff = SE^2.
    d = q10 - q01
    n_eff = effective_pairs(q10, q01, d, se, 1e12)
    if n_eff > 0:
        assert_allclose((q10 + q01 - d * d) / n_eff, se * se, rtol=1e-10)


def test_effective_pairs_rejects_zero_standard_error() -> None:
    with pytest.raises(ValueError, match="standard_error"):
        effective_pairs(0.2, 0.1, 0.1, 0.0, 100)


def test_tango_effective_n_hand_worked_and_width_identity() -> None:
    # 36 (z_{0.975} / t_{11,0.975})^2 = 36 (1.959964 / 2.200985)^2 = 28.547262.
    n_eff = tango_effective_n(36, 12, 0.025)
    assert round(n_eff, 6) == 28.547262
    # A z interval on n_eff pairs is as wide as a t_{C-1} interval on the I items.
    v = 0.3
    assert_allclose(stats.norm.ppf(0.975) * math.sqrt(v / n_eff),
                    stats.t.ppf(0.975, 11) * math.sqrt(v / 36), rtol=1e-12)


def test_tango_effective_n_rejects_bad_level() -> None:
    with pytest.raises(ValueError, match="level"):
        tango_effective_n(36, 12, 0.5)
    with pytest.raises(ValueError, match="n_clusters"):
        tango_effective_n(36, 1, 0.025)
