"""Cluster bootstrap: weights, vectorised resample ratios, bootstrap-t and BCa intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

from assay.stats import (
    bca_interval,
    cluster_bootstrap_ratios,
    cluster_bootstrap_weights,
    ratio_estimate,
    studentised_bootstrap_interval,
)

# ----- cluster_bootstrap_weights ----------------------------------------------------------


def test_weights_shape_dtype_and_row_sums() -> None:
    w = cluster_bootstrap_weights(7, 500, rng=3)
    assert w.shape == (500, 7)
    assert w.dtype == np.int32
    assert_array_equal(w.sum(axis=1), np.full(500, 7))
    assert w.min() >= 0


def test_weights_are_reproducible_and_use_only_the_given_rng() -> None:
    state = np.random.get_state()
    a = cluster_bootstrap_weights(5, 20, rng=np.random.default_rng(11))
    b = cluster_bootstrap_weights(5, 20, rng=11)
    assert_array_equal(a, b)
    assert np.random.get_state()[1].tolist() == state[1].tolist()


def test_float_weights_hold_the_same_draws_across_blocks() -> None:
    # 3,000 clusters: blocks of 87 resamples, so 200 resamples cross two block boundaries.
    counts = cluster_bootstrap_weights(3000, 200, rng=7)
    floats = cluster_bootstrap_weights(3000, 200, rng=7, dtype=np.float64)
    assert floats.dtype == np.float64
    assert_array_equal(floats, counts.astype(np.float64))


def test_weights_have_multinomial_moments() -> None:
    # Each count is Binomial(C, 1/C): mean 1, variance (C - 1)/C; counts within a row have
    # covariance -1/C. With C = 4 and 40 000 rows the standard error of the mean is 0.0043.
    w = cluster_bootstrap_weights(4, 40_000, rng=5).astype(float)
    assert_allclose(w.mean(axis=0), 1.0, atol=0.02)
    assert_allclose(w.var(axis=0), 0.75, atol=0.03)
    assert_allclose(np.cov(w.T)[0, 1], -0.25, atol=0.02)
    # The chance that a resample draws every cluster exactly once is 4!/4^4 = 0.09375.
    assert_allclose(np.mean(np.all(w == 1, axis=1)), 0.09375, atol=0.006)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_clusters": 1, "n_resamples": 10, "rng": 1}, "n_clusters"),
        ({"n_clusters": 3, "n_resamples": 0, "rng": 1}, "n_resamples"),
        ({"n_clusters": 3, "n_resamples": 10, "rng": "seed"}, "rng"),
    ],
)
def test_weights_reject_bad_input(kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        cluster_bootstrap_weights(**kwargs)


# ----- cluster_bootstrap_ratios -----------------------------------------------------------


@st.composite
def clusters_and_weights(draw: st.DrawFn):
    c = draw(st.integers(2, 8))
    sizes = np.array(draw(st.lists(st.integers(1, 5), min_size=c, max_size=c)), dtype=float)
    runs = draw(st.integers(1, 4))
    sums = np.array([draw(st.integers(0, int(n) * runs)) / runs for n in sizes])
    seed = draw(st.integers(0, 2**32 - 1))
    weights = cluster_bootstrap_weights(c, 30, rng=seed)
    return sums, sizes, weights


@settings(max_examples=60, deadline=None)
@given(clusters_and_weights())
def test_ratios_equal_ratio_estimate_of_each_explicit_resample(data) -> None:
    # Oracle: build every resample explicitly (cluster c repeated w_bc times) and apply the
    # scalar ratio_estimate; the vectorised version must agree resample by resample.
    sums, sizes, weights = data
    est, se = cluster_bootstrap_ratios(sums, sizes, weights)
    for b, row in enumerate(weights):
        one = ratio_estimate(np.repeat(sums, row), np.repeat(sizes, row))
        assert_allclose(est[b], one.estimate, rtol=1e-12)
        assert_allclose(se[b], one.standard_error, rtol=1e-8, atol=1e-14)


def test_ratios_hand_worked() -> None:
    # Row 2 draws cluster 1 twice and cluster 3 once: r* = 5/10, and
    # V* = 3/2 * (2 * (2 - 1.5)^2 + (1 - 2)^2) / 10^2 = 0.0225.
    res = cluster_bootstrap_ratios([2, 2, 1], [3, 2, 4], [[1, 1, 1], [2, 0, 1], [0, 3, 0]])
    assert_allclose(res.estimates, [5 / 9, 0.5, 1.0], rtol=1e-14)
    assert_allclose(res.standard_errors[:2] ** 2, [97 / 2187, 0.0225], rtol=1e-12)
    assert res.standard_errors[2] == 0.0  # one cluster drawn three times: no variance


def test_ratios_zero_se_for_resamples_of_equal_means_with_inexact_floats() -> None:
    sums = np.array([0.6 * 3, 0.6 * 5, 0.2])
    sizes = np.array([3.0, 5.0, 1.0])
    res = cluster_bootstrap_ratios(sums, sizes, [[2, 1, 0], [1, 1, 1]])
    assert res.standard_errors[0] == 0.0
    assert res.standard_errors[1] > 0.0


def test_ratios_large_weight_matrix_is_processed_in_blocks() -> None:
    rng = np.random.default_rng(0)
    sizes = rng.integers(1, 5, size=600).astype(float)
    sums = rng.binomial(sizes.astype(int), 0.7).astype(float)
    weights = cluster_bootstrap_weights(600, 2500, rng=1)  # 1.5e6 cells > one block
    res = cluster_bootstrap_ratios(sums, sizes, weights)
    for b in (0, 1747, 2499):
        one = ratio_estimate(np.repeat(sums, weights[b]), np.repeat(sizes, weights[b]))
        assert_allclose([res.estimates[b], res.standard_errors[b]],
                        [one.estimate, one.standard_error], rtol=1e-10)


@pytest.mark.parametrize(
    ("weights", "match"),
    [([1, 1, 1], "shape"), ([[1, 1]], "shape"), ([[1, -1, 2]], "non-negative"),
     ([[0, 0, 0]], "at least one cluster")],
)
def test_ratios_reject_bad_weights(weights, match) -> None:
    with pytest.raises(ValueError, match=match):
        cluster_bootstrap_ratios([1, 2, 1], [2, 2, 2], weights)


# ----- studentised_bootstrap_interval -----------------------------------------------------


def test_studentised_hand_worked() -> None:
    # t* = (0.4-0.6)/0.1, (0.5-0.6)/0.1, 0/0.2, (0.7-0.6)/0.1, (0.9-0.6)/0.1 = -2, -1, 0, 1, 3;
    # the sixth resample has se* = 0 and is dropped. Type-7 quantiles at 0.05 and 0.95:
    # positions 0.2 and 3.8 give q_lo = -2 + 0.2 = -1.8, q_hi = 1 + 0.8 * 2 = 2.6, so the
    # interval is [0.6 - 0.26, 0.6 + 0.18] = [0.34, 0.78].
    res = studentised_bootstrap_interval(
        0.6, 0.1, [0.4, 0.5, 0.6, 0.7, 0.9, 0.6], [0.1, 0.1, 0.2, 0.1, 0.1, 0.0], conf=0.9
    )
    assert_allclose([res.lower, res.upper], [0.34, 0.78], rtol=1e-12)
    assert res.n_resamples == 5
    assert res.method == "studentised_cluster_bootstrap"


def test_studentised_with_t_distributed_pivots_is_the_t_interval() -> None:
    # Oracle scipy.stats.t: if the t* are the (i - 1/2)/B quantiles of t_5, the bootstrap-t
    # interval is r -+ t_{5,0.975} se up to the discreteness of B = 200 001 points.
    b = 200_001
    pivots = stats.t.ppf((np.arange(b) + 0.5) / b, 5)
    se_star = np.full(b, 0.02)
    r, se = 0.4, 0.05
    res = studentised_bootstrap_interval(r, se, r + pivots * se_star, se_star)
    t = stats.t.ppf(0.975, 5)
    assert_allclose([res.lower, res.upper], [r - t * se, r + t * se], rtol=1e-4)


def test_studentised_cut_to_bounds_and_nan_cases() -> None:
    boots = np.array([0.9, 0.95, 1.0, 0.97, 0.99])
    ses = np.array([0.02, 0.03, 0.01, 0.02, 0.01])
    res = studentised_bootstrap_interval(0.97, 0.02, boots, ses)
    assert res.upper <= 1.0
    wide = studentised_bootstrap_interval(0.97, 0.02, boots, ses, bounds=None)
    assert wide.upper == pytest.approx(0.97 - np.quantile((boots - 0.97) / ses, 0.025) * 0.02)
    zero_se = studentised_bootstrap_interval(0.5, 0.0, boots, ses)
    assert math.isnan(zero_se.lower) and math.isnan(zero_se.upper)
    too_few = studentised_bootstrap_interval(0.5, 0.1, [0.4, 0.5], [0.1, 0.0])
    assert math.isnan(too_few.lower) and too_few.n_resamples == 1


def test_studentised_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        studentised_bootstrap_interval(0.5, 0.1, [0.4, 0.5], [0.1])
    with pytest.raises(ValueError, match="non-negative"):
        studentised_bootstrap_interval(0.5, 0.1, [0.4, 0.5], [0.1, -0.1])


# ----- bca_interval -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "conf"), [("normal", 0.95), ("skewed", 0.9), ("binary", 0.95), ("binary", 0.8)]
)
def test_bca_matches_scipy_bootstrap_on_unclustered_sample(kind, conf) -> None:
    # What is compared: scipy.stats.bootstrap(method="BCa") on a single sample with the
    # statistic np.mean, against bca_interval fed (a) scipy's own replicates
    # (res.bootstrap_distribution), (b) the mean of the sample, and (c) the leave-one-out
    # means, i.e. the leave-one-cluster-out jackknife with clusters of size 1. Same
    # replicates, same z0 convention (ties count one half), same acceleration and the same
    # type-7 quantiles, so the bounds agree to rounding error. "binary" has many ties.
    rng = np.random.default_rng(42)
    if kind == "normal":
        x = rng.normal(size=40)
    elif kind == "skewed":
        x = rng.exponential(size=25)
    else:
        x = (rng.random(30) < 0.7).astype(float)
    res = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=1999,
                          confidence_level=conf, rng=np.random.default_rng(1))
    jack = (x.sum() - x) / (x.size - 1)
    mine = bca_interval(float(np.mean(x)), res.bootstrap_distribution, jack, conf=conf)
    assert_allclose([mine.lower, mine.upper],
                    [res.confidence_interval.low, res.confidence_interval.high], rtol=1e-9)
    assert_allclose(mine.standard_error, res.standard_error, rtol=1e-12)
    assert (mine.n_resamples, mine.n_clusters) == (1999, x.size)


def test_bca_hand_worked_percentile_case() -> None:
    # Symmetric jackknife (1, 2, 3): a = 0. theta = 2.5 has 2 of 4 replicates below, so
    # z0 = ndtri(0.5) = 0 and BCa is the percentile interval; at conf 0.5 the type-7
    # quantiles 0.25 and 0.75 of (1, 2, 3, 4) are 1.75 and 3.25.
    res = bca_interval(2.5, [1, 2, 3, 4], [1, 2, 3], conf=0.5)
    assert (res.lower, res.upper) == (1.75, 3.25)
    assert res.method == "bca_cluster_bootstrap"


def test_bca_degenerate_cases_give_nan() -> None:
    same = bca_interval(0.5, [0.5] * 10, [0.4, 0.6, 0.5])
    assert math.isnan(same.lower) and math.isnan(same.upper)
    one_side = bca_interval(0.1, [0.2, 0.3, 0.4], [0.1, 0.2, 0.3])
    assert math.isnan(one_side.lower)


def test_bca_equivariant_under_shift_and_scale() -> None:
    rng = np.random.default_rng(8)
    boot = rng.gamma(2.0, size=999)
    jack = rng.gamma(2.0, size=15)
    a = bca_interval(2.0, boot, jack, conf=0.9)
    b = bca_interval(2.0 * 3 + 1, boot * 3 + 1, jack * 3 + 1, conf=0.9)
    assert_allclose([b.lower, b.upper], [a.lower * 3 + 1, a.upper * 3 + 1], rtol=1e-12)
