"""ratio_estimate and cluster_t_interval: statsmodels oracle, hand values, the seed example."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import special, stats

from assay.stats import cluster_t_interval, ratio_estimate

# Cluster configurations of the seed's example (12 documents x 3 questions, 5 runs), found
# by an exhaustive search for counts k_c of correct runs per cluster (0..15) with the totals
# and the sums of squares that the printed intervals imply: short 116 correct runs of 180
# (0.6444444) with sum k_c^2 = 1142, long 146 of 180 (0.8111111) with sum k_c^2 = 1798.
# Only r and V enter the interval, and V = 12/11 * sum_c (k_c/5 - 3r)^2 / 36^2 depends on the
# k_c only through these two sums, so any configuration with them reproduces the printout.
# The pairing of the long clusters below also reproduces the printed paired difference.
SEED_SHORT = (6, 8, 10, 10, 10, 10, 10, 10, 10, 10, 11, 11)
SEED_LONG = (13, 12, 13, 13, 13, 8, 12, 13, 13, 12, 12, 12)


@st.composite
def clustered_accuracy(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Item accuracies (multiples of 1/R), their cluster ids, and R."""
    runs = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 6), min_size=2, max_size=12))
    items = sum(sizes)
    correct = draw(st.lists(st.integers(0, runs), min_size=items, max_size=items))
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    return np.array(correct) / runs, cluster, np.array(sizes, dtype=float), runs


def _sums(values: np.ndarray, cluster: np.ndarray) -> np.ndarray:
    return np.bincount(cluster, weights=values)


def _statsmodels_cluster(values: np.ndarray, cluster: np.ndarray):
    model = sm.OLS(values, np.ones(values.size))
    return model.fit(cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True)


# ----- ratio_estimate ---------------------------------------------------------------------


def test_ratio_estimate_hand_worked() -> None:
    # S = (2, 2, 1), n = (3, 2, 4): N = 9, r = 5/9; residuals S_c - r n_c are 1/3, 8/9 and
    # -11/9, whose squares sum to 194/81; V = 3/2 * 194/81 / 81 = 97/2187.
    res = ratio_estimate([2, 2, 1], [3, 2, 4])
    r = Fraction(5, 9)
    v = Fraction(3, 2) * sum((s - r * n) ** 2 for s, n in [(2, 3), (2, 2), (1, 4)]) / 81
    assert v == Fraction(97, 2187)
    assert_allclose(res.estimate, float(r), rtol=1e-15)
    assert_allclose(res.variance, float(v), rtol=1e-14)
    assert_allclose(res.standard_error, math.sqrt(97 / 2187), rtol=1e-14)
    assert (res.n, res.n_clusters) == (9.0, 3)


def test_ratio_estimate_matches_statsmodels_cluster_se() -> None:
    # statsmodels' cluster correction is C/(C-1) * (N-1)/(N-K); with one regressor (K = 1)
    # it is C/(C-1), the factor of V.
    rng = np.random.default_rng(20240501)
    sizes = rng.integers(1, 8, size=9)
    cluster = np.repeat(np.arange(sizes.size), sizes)
    values = rng.integers(0, 6, size=cluster.size) / 5
    res = ratio_estimate(_sums(values, cluster), sizes)
    fit = _statsmodels_cluster(values, cluster)
    assert_allclose(res.estimate, fit.params[0], rtol=1e-12)
    assert_allclose(res.standard_error, fit.bse[0], rtol=1e-10)


@settings(max_examples=60, deadline=None)
@given(clustered_accuracy())
def test_ratio_estimate_matches_statsmodels_property(data) -> None:
    values, cluster, sizes, _ = data
    res = ratio_estimate(_sums(values, cluster), sizes)
    fit = _statsmodels_cluster(values, cluster)
    assert_allclose(res.estimate, fit.params[0], rtol=1e-12, atol=1e-15)
    assert_allclose(res.standard_error, fit.bse[0], rtol=1e-8, atol=1e-12)


def test_ratio_estimate_is_exactly_zero_variance_for_equal_cluster_means() -> None:
    # 0.6 = 3/5 is not exact in binary floating point; the rounding noise must not leave a
    # variance of order 1e-33 that would make the t interval look defined.
    sums = np.array([0.6 + 0.6 + 0.6, 0.6 * 5, 0.6 + 0.6])
    res = ratio_estimate(sums, [3, 5, 2])
    assert res.variance == 0.0
    assert res.standard_error == 0.0


@pytest.mark.parametrize(
    ("sums", "sizes", "match"),
    [
        ([1.0], [2.0], "sums must have at least 2"),
        ([1.0, 2.0, 3.0], [2.0, 1.0], "same length"),
        ([1.0, 2.0], [2.0, 0.0], "sizes must be positive"),
        ([1.0, np.nan], [2.0, 3.0], "sums must be finite"),
        ([[1.0, 2.0]], [2.0, 3.0], "sums must be 1-D"),
    ],
)
def test_ratio_estimate_rejects_bad_input(sums, sizes, match) -> None:
    with pytest.raises(ValueError, match=match):
        ratio_estimate(sums, sizes)


@settings(max_examples=60, deadline=None)
@given(clustered_accuracy(), st.randoms(use_true_random=False))
def test_ratio_estimate_invariant_to_cluster_order(data, random) -> None:
    values, cluster, sizes, _ = data
    sums = _sums(values, cluster)
    order = list(range(sizes.size))
    random.shuffle(order)
    a = ratio_estimate(sums, sizes)
    b = ratio_estimate(sums[order], sizes[order])
    assert_allclose(b.estimate, a.estimate, rtol=1e-12)
    assert_allclose(b.variance, a.variance, rtol=1e-9, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(clustered_accuracy(), st.integers(2, 4))
def test_duplicating_items_within_clusters_leaves_v_unchanged(data, copies) -> None:
    # Items are not the sampling unit: every item repeated `copies` times inside its own
    # cluster multiplies S_c, n_c and N alike, and V does not move.
    values, cluster, sizes, _ = data
    a = ratio_estimate(_sums(values, cluster), sizes)
    dup_values = np.repeat(values, copies)
    dup_cluster = np.repeat(cluster, copies)
    b = ratio_estimate(_sums(dup_values, dup_cluster), sizes * copies)
    assert_allclose(b.estimate, a.estimate, rtol=1e-12)
    assert_allclose(b.variance, a.variance, rtol=1e-9, atol=1e-15)


# ----- cluster_t_interval -----------------------------------------------------------------


def test_cluster_t_hand_worked() -> None:
    # r = 5/9, V = 97/2187 (above); t_{2,0.975} = 4.302653; logit r = log(5/4);
    # half-width 4.302653 * sqrt(97/2187) / (20/81) = 3.669888;
    # expit(0.223144 - 3.669888) = 0.030866, expit(0.223144 + 3.669888) = 0.980024.
    res = cluster_t_interval([2, 2, 1], [3, 2, 4])
    t = stats.t.ppf(0.975, 2)
    half = t * math.sqrt(97 / 2187) / (20 / 81)
    assert_allclose(res.lower, special.expit(math.log(1.25) - half), rtol=1e-12)
    assert_allclose(res.upper, special.expit(math.log(1.25) + half), rtol=1e-12)
    assert round(res.lower, 6) == 0.030866
    assert round(res.upper, 6) == 0.980024
    assert res.method == "logit_cluster_robust_t"
    assert (res.df, res.n_clusters, res.n) == (2.0, 3, 9.0)
    assert res.critical_value == t


@pytest.mark.parametrize(
    ("counts", "estimate", "lower", "upper"),
    [
        (SEED_SHORT, 0.6444444, 0.5845116, 0.7001668),
        (SEED_LONG, 0.8111111, 0.7444507, 0.8635697),
    ],
)
def test_cluster_t_reproduces_seed_example(counts, estimate, lower, upper) -> None:
    # 12 clusters of 3 items, 5 runs: S_c = k_c / 5 (see SEED_SHORT above).
    sums = np.array(counts) / 5
    res = cluster_t_interval(sums, np.full(12, 3.0))
    assert round(res.estimate, 7) == estimate
    assert round(res.lower, 7) == lower
    assert round(res.upper, 7) == upper


def test_cluster_t_statsmodels_standard_error_and_logit_construction() -> None:
    rng = np.random.default_rng(7)
    sizes = rng.integers(2, 6, size=15)
    cluster = np.repeat(np.arange(15), sizes)
    values = rng.integers(0, 4, size=cluster.size) / 3
    res = cluster_t_interval(_sums(values, cluster), sizes, conf=0.9)
    fit = _statsmodels_cluster(values, cluster)
    r, se = fit.params[0], fit.bse[0]
    t = stats.t.ppf(0.95, 14)
    lo = special.expit(special.logit(r) - t * se / (r * (1 - r)))
    hi = special.expit(special.logit(r) + t * se / (r * (1 - r)))
    assert_allclose([res.lower, res.upper], [lo, hi], rtol=1e-9)


@pytest.mark.parametrize(
    ("sums", "sizes"),
    [([0, 0, 0], [2, 3, 4]), ([2, 3, 4], [2, 3, 4]), ([1, 1.5, 2], [2, 3, 4])],
    ids=["r=0", "r=1", "V=0"],
)
def test_cluster_t_nan_bounds_where_undefined(sums, sizes) -> None:
    res = cluster_t_interval(sums, sizes)
    assert math.isnan(res.lower) and math.isnan(res.upper)
    assert math.isfinite(res.estimate)


def test_cluster_t_rejects_sums_outside_sizes_and_bad_conf() -> None:
    with pytest.raises(ValueError, match="sums must lie between"):
        cluster_t_interval([4, 1], [3, 2])
    with pytest.raises(ValueError, match="conf"):
        cluster_t_interval([1, 1], [3, 2], conf=1.0)


@settings(max_examples=60, deadline=None)
@given(clustered_accuracy(), st.randoms(use_true_random=False))
def test_cluster_t_invariant_to_reordering_and_duplication(data, random) -> None:
    values, cluster, sizes, _ = data
    sums = _sums(values, cluster)
    order = list(range(sizes.size))
    random.shuffle(order)
    a = cluster_t_interval(sums, sizes)
    b = cluster_t_interval(sums[order], sizes[order])
    c = cluster_t_interval(sums * 2, sizes * 2)
    for other in (b, c):
        assert_allclose(
            [other.estimate, other.lower, other.upper],
            [a.estimate, a.lower, a.upper],
            rtol=1e-9,
            atol=1e-12,
        )
    if not math.isnan(a.lower):
        assert 0 < a.lower < a.estimate < a.upper < 1


@settings(max_examples=40, deadline=None)
@given(clustered_accuracy())
def test_cluster_t_complement_is_mirrored(data) -> None:
    # Scoring wrong as right (S_c -> n_c - S_c) maps r to 1 - r and mirrors the interval.
    values, cluster, sizes, _ = data
    sums = _sums(values, cluster)
    a = cluster_t_interval(sums, sizes)
    b = cluster_t_interval(sizes - sums, sizes)
    assert_allclose([b.lower, b.upper], [1 - a.upper, 1 - a.lower], rtol=1e-9, atol=1e-12)
