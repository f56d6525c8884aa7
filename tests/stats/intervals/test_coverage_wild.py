"""The restricted wild cluster bootstrap of bench/coverage_wild.py (issue 26, run I) against a
direct implementation of its definition: item values rebuilt per draw, the OLS intercept and
its CR1 standard error computed from scratch (no sums expanded in mu0)."""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import coverage_wild as cw


def _direct_t(y: np.ndarray, cluster: np.ndarray, mu0: float) -> float:
    """CR1 t of the intercept of y, mu0 subtracted, from the item values."""
    g = cluster.max() + 1
    n = y.size
    r = y.mean()
    scores = np.bincount(cluster, weights=y - r, minlength=g)
    se = math.sqrt(g / (g - 1) * float(scores @ scores)) / n
    return (r - mu0) / se


def _direct(y: np.ndarray, cluster: np.ndarray, mu0: float, weights: np.ndarray):
    t = _direct_t(y, cluster, mu0)
    t_star = np.array([_direct_t(mu0 + v[cluster] * (y - mu0), cluster, mu0)
                       for v in weights])
    return t, t_star


def _data(sizes: np.ndarray, seed: int):
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(sizes.size), sizes)
    y = (rng.random(cluster.size) < 0.7) * rng.random(cluster.size)
    return y, cluster, np.bincount(cluster, weights=y), sizes.astype(float)


def test_full_rademacher_enumeration_at_six_clusters_matches_the_definition() -> None:
    y, cluster, sums, sizes = _data(np.array([2, 4, 6, 10, 15, 25]), 3)
    weights = np.array(list(itertools.product([-1.0, 1.0], repeat=6)))
    w = cw.WildRestricted(sums, sizes, weights)
    for mu0 in (w.r - 0.12, w.r - 0.04, w.r + 0.05):
        t, t_star = _direct(y, cluster, mu0, weights)
        assert math.isclose(t, w.t(mu0) / math.sqrt(6 / 5), rel_tol=1e-12)
        np.testing.assert_allclose(w.t_star(mu0) / math.sqrt(6 / 5), t_star, rtol=1e-10)
        # v = +-1 reproduce the data: |t*| = |t| for two of the 64 draws
        assert np.sum(np.isclose(np.abs(t_star), abs(t), rtol=1e-12)) == 2
        strictly = np.abs(t_star) > abs(t) * (1 + 1e-9)
        assert w.p_value(mu0) in (strictly.mean(), strictly.mean() + 1 / 64, strictly.mean() + 2 / 64)


def test_interval_ends_are_where_the_p_value_crosses_alpha() -> None:
    y, cluster, sums, sizes = _data(np.array([100, 60, 40] + [1] * 37), 5)
    weights = cw.webb_weights(999, sizes.size, np.random.default_rng(11))
    r, lower, upper = cw.wild_interval(sums, sizes, weights, conf=0.95)
    assert lower < r < upper
    for end, outward in ((lower, -1.0), (upper, 1.0)):
        inside, outside = end - outward * 1e-5, end + outward * 1e-5
        t_in, ts_in = _direct(y, cluster, inside, weights)
        t_out, ts_out = _direct(y, cluster, outside, weights)
        assert np.mean(np.abs(ts_in) > abs(t_in)) > 0.05
        assert np.mean(np.abs(ts_out) > abs(t_out)) <= 0.05


def test_no_between_cluster_variation_gives_no_interval() -> None:
    sizes = np.array([3.0, 5.0, 8.0])
    _, lower, upper = cw.wild_interval(0.5 * sizes, sizes, np.ones((10, 3)))
    assert math.isnan(lower) and math.isnan(upper)
