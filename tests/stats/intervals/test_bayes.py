"""beta_binomial_bayes_interval against brute-force numerical integration."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from assay.stats import beta_binomial_bayes_interval

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(400)


def _gl(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [lo, hi]."""
    half = (hi - lo) / 2
    return lo + half * (_NODES + 1), half * _WEIGHTS


def _unnormalised(mu: np.ndarray, rho: np.ndarray, x, m) -> np.ndarray:
    """Posterior density up to a constant on the mu x rho product grid, from
    scipy.stats.betabinom with a = mu (1 - rho)/rho and b = (1 - mu)(1 - rho)/rho."""
    scale = (1 - rho[None, :]) / rho[None, :]
    a = mu[:, None] * scale
    b = (1 - mu[:, None]) * scale
    logp = np.zeros_like(a)
    for xi, mi in zip(x, m, strict=True):
        logp += stats.betabinom.logpmf(xi, mi, a, b)
    return logp


def _brute_force(x, m, points):
    """Posterior mean of mu and rho and the CDF of mu at `points`, by a 400 x 400
    Gauss-Legendre product rule on (0, 1)^2 (and on (0, p) x (0, 1) for the CDF)."""
    mu, wm = _gl(0.0, 1.0)
    rho, wr = _gl(0.0, 1.0)
    logp = _unnormalised(mu, rho, x, m)
    shift = logp.max()
    dens = np.exp(logp - shift) * wm[:, None] * wr[None, :]
    total = dens.sum()
    mean_mu = float((dens.sum(axis=1) * mu).sum() / total)
    mean_rho = float((dens.sum(axis=0) * rho).sum() / total)
    cdf = []
    for p in points:
        mu_p, wm_p = _gl(0.0, p)
        part = np.exp(_unnormalised(mu_p, rho, x, m) - shift) * wm_p[:, None] * wr[None, :]
        cdf.append(float(part.sum() / total))
    return mean_mu, mean_rho, cdf


@pytest.mark.parametrize(
    ("x", "m"),
    [
        ([7, 9, 4, 8, 10, 6], [10] * 6),
        ([3, 0, 5, 2], [5, 3, 8, 4]),
        ([12, 10, 15, 8, 14, 9, 11, 13, 10, 12, 14, 13], [15] * 12),
    ],
)
def test_matches_brute_force_integration(x, m) -> None:
    res = beta_binomial_bayes_interval(x, m)
    mean_mu, mean_rho, cdf = _brute_force(x, m, [res.lower, res.posterior_median, res.upper])
    assert_allclose(res.posterior_mean, mean_mu, atol=2e-5)
    assert_allclose(res.rho_mean, mean_rho, atol=2e-4)
    assert_allclose(cdf, [0.025, 0.5, 0.975], atol=2e-4)
    assert res.estimate == res.posterior_mean
    assert res.alternative == "two-sided"


def test_all_wrong_is_one_sided_and_matches_brute_force() -> None:
    x, m = [0, 0, 0, 0], [5, 5, 4, 6]
    res = beta_binomial_bayes_interval(x, m, conf=0.9)
    assert res.lower == 0.0 and res.alternative == "less"
    _, _, cdf = _brute_force(x, m, [res.upper])
    assert_allclose(cdf, [0.9], atol=2e-4)


def test_all_right_is_one_sided_from_one() -> None:
    res = beta_binomial_bayes_interval([5, 5, 4], [5, 5, 4])
    assert res.upper == 1.0 and res.alternative == "greater"
    mirror = beta_binomial_bayes_interval([0, 0, 0], [5, 5, 4])
    assert_allclose(res.lower, 1 - mirror.upper, atol=1e-9)
    assert_allclose(res.posterior_mean, 1 - mirror.posterior_mean, atol=1e-9)


def test_single_run_per_cluster_is_beta_posterior() -> None:
    # With m_c = 1, P(x_c | mu, rho) = mu^x_c (1 - mu)^(1 - x_c) whatever rho is, so with flat
    # priors mu | x ~ Beta(1 + 3, 1 + 1) and rho | x stays uniform (mean 1/2).
    res = beta_binomial_bayes_interval([1, 1, 1, 0], [1, 1, 1, 1])
    assert_allclose(res.posterior_mean, 2 / 3, atol=1e-5)
    assert_allclose(res.posterior_median, stats.beta.ppf(0.5, 4, 2), atol=5e-5)
    assert_allclose([res.lower, res.upper], stats.beta.ppf([0.025, 0.975], 4, 2), atol=5e-5)
    assert_allclose(res.rho_mean, 0.5, atol=1e-9)


def test_sharp_posterior_is_resolved_by_the_refined_grid() -> None:
    # 400 clusters: the interval is a few hundredths wide, narrower than 10 coarse cells;
    # a finer grid must agree to well within the interval's width.
    rng = np.random.default_rng(3)
    m = rng.integers(5, 40, size=400)
    x = rng.binomial(m, rng.beta(8, 2, size=400))
    default = beta_binomial_bayes_interval(x, m)
    fine = beta_binomial_bayes_interval(x, m, grid_size=600)
    width = default.upper - default.lower
    assert width < 0.05
    assert_allclose([default.lower, default.upper, default.posterior_mean],
                    [fine.lower, fine.upper, fine.posterior_mean], atol=width * 1e-3)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 8), st.integers(0, 8)), min_size=2, max_size=8),
       st.randoms(use_true_random=False))
def test_invariant_to_cluster_order(clusters, random) -> None:
    m = [mi for mi, _ in clusters]
    x = [min(xi, mi) for mi, xi in clusters]
    order = list(range(len(m)))
    random.shuffle(order)
    a = beta_binomial_bayes_interval(x, m, grid_size=64)
    b = beta_binomial_bayes_interval([x[i] for i in order], [m[i] for i in order], grid_size=64)
    assert_allclose([b.lower, b.upper, b.posterior_mean, b.rho_mean],
                    [a.lower, a.upper, a.posterior_mean, a.rho_mean], rtol=1e-9)
    assert 0.0 <= a.lower <= a.posterior_median <= a.upper <= 1.0


@pytest.mark.parametrize(
    ("x", "m", "match"),
    [([1, 2], [2, 1], "between 0 and trials"), ([1.5, 1], [2, 2], "integer"),
     ([1, 1], [0, 2], "at least 1"), ([1], [2], "at least 2")],
)
def test_rejects_bad_counts(x, m, match) -> None:
    with pytest.raises(ValueError, match=match):
        beta_binomial_bayes_interval(x, m)
