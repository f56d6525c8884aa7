"""max-t critical values (Tukey and quadrature oracles) and Holm (statsmodels oracle)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import integrate, optimize, stats
from statsmodels.stats.multitest import multipletests

from assay.stats import holm_adjust, holm_stepdown, max_t_critical_value


def _pairwise_covariance(variances) -> np.ndarray:
    """Covariance of all pairwise differences of independent arm estimates (rank K - 1)."""
    k = len(variances)
    pairs = list(itertools.combinations(range(k), 2))
    contrast = np.zeros((len(pairs), k))
    for row, (a, b) in enumerate(pairs):
        contrast[row, a], contrast[row, b] = 1.0, -1.0
    return contrast @ np.diag(variances) @ contrast.T


def _mc_tolerance(density_at_q: float, conf: float, draws: int) -> float:
    """Four Monte Carlo standard errors of a sample quantile: 4 sqrt(p(1-p)/n) / f(q)."""
    return 4 * math.sqrt(conf * (1 - conf) / draws) / density_at_q


# ----- max_t_critical_value ---------------------------------------------------------------


@pytest.mark.parametrize("df", [3, 11, 40.5])
def test_one_pair_is_the_t_quantile_exactly(df) -> None:
    assert max_t_critical_value([[0.01]], df, conf=0.9) == stats.t.ppf(0.95, df)


@pytest.mark.parametrize(("arms", "df"), [(3, 11), (4, 9), (5, 30)])
def test_all_pairs_of_equal_arms_is_tukey(arms, df) -> None:
    # Independent arms with equal variance: max |d_ab| / se(d) over all pairs is the
    # studentised range Q_{K,df} / sqrt(2). The covariance is singular (rank K - 1).
    cov = _pairwise_covariance([0.002] * arms)
    assert np.linalg.matrix_rank(cov) == arms - 1
    c = max_t_critical_value(cov, df, conf=0.95, rng=2024)
    q = stats.studentized_range.ppf(0.95, arms, df) / math.sqrt(2)
    density = math.sqrt(2) * stats.studentized_range.pdf(q * math.sqrt(2), arms, df)
    assert abs(c - q) < _mc_tolerance(density, 0.95, 100_000)


def test_independent_estimates_match_one_dimensional_quadrature() -> None:
    # Identity correlation, k = 3: P(max |T_j| <= c) = E[(2 Phi(c S) - 1)^3], S = sqrt(W/df),
    # W ~ chi^2_df, computed by quadrature and solved for c.
    df, k, conf = 8, 3, 0.9

    def coverage(c: float) -> float:
        def integrand(w: float) -> float:
            return (2 * stats.norm.cdf(c * math.sqrt(w / df)) - 1) ** k * stats.chi2.pdf(w, df)

        return integrate.quad(integrand, 0, np.inf, epsabs=1e-12)[0]

    exact = optimize.brentq(lambda c: coverage(c) - conf, 1.0, 6.0, xtol=1e-10)
    c = max_t_critical_value(np.diag([1.0, 4.0, 0.25]), df, conf=conf, rng=7)
    eps = 1e-4
    density = (coverage(exact + eps) - coverage(exact - eps)) / (2 * eps)
    assert abs(c - exact) < _mc_tolerance(density, conf, 100_000)


def test_bonferroni_and_sidak_bracket_the_max_t_value() -> None:
    # For positively correlated statistics the max-t value lies below Bonferroni's.
    cov = _pairwise_covariance([0.002, 0.003, 0.001, 0.002])
    c = max_t_critical_value(cov, 11, conf=0.95, rng=5)
    bonferroni = stats.t.ppf(1 - 0.05 / (2 * 6), 11)
    assert stats.t.ppf(0.975, 11) < c < bonferroni


def test_seeded_value_is_reproducible_and_scale_free() -> None:
    cov = _pairwise_covariance([0.002, 0.003, 0.001])
    a = max_t_critical_value(cov, 11, rng=99)
    again = max_t_critical_value(cov, 11, rng=np.random.default_rng(99))
    scaled = max_t_critical_value(cov * 1000, 11, rng=99)
    assert a == again
    assert_allclose(scaled, a, rtol=1e-7)  # only the eigendecomposition's rounding differs


def test_infinite_df_is_multivariate_normal() -> None:
    # Two independent estimates: P(max |Z| <= c) = (2 Phi(c) - 1)^2 = 0.95.
    exact = stats.norm.ppf((1 + math.sqrt(0.95)) / 2)
    c = max_t_critical_value(np.eye(2), np.inf, conf=0.95, rng=3)
    density = 2 * (2 * stats.norm.cdf(exact) - 1) * 2 * stats.norm.pdf(exact)
    assert abs(c - exact) < _mc_tolerance(density, 0.95, 100_000)


@pytest.mark.parametrize(
    ("cov", "df", "match"),
    [([[1.0, 0.5], [0.4, 1.0]], 5, "symmetric"), ([[0.0]], 5, "positive diagonal"),
     ([1.0, 2.0], 5, "square"), ([[1.0]], 0, "df")],
)
def test_max_t_rejects_bad_input(cov, df, match) -> None:
    with pytest.raises(ValueError, match=match):
        max_t_critical_value(cov, df, rng=1)


# ----- Holm -------------------------------------------------------------------------------


def test_holm_hand_worked() -> None:
    # Sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04 -> running max 0.03, 0.06,
    # 0.06. At alpha 0.05: 0.01 <= 0.05/3 rejects, 0.03 > 0.05/2 stops; 0.04 is retained even
    # though 0.04 <= 0.05/1.
    assert_allclose(holm_adjust([0.04, 0.01, 0.03]), [0.06, 0.03, 0.06], rtol=1e-12)
    assert holm_stepdown([0.04, 0.01, 0.03], alpha=0.05).tolist() == [False, True, False]


p_values = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.0125, 0.025, 0.05, 1.0])),
    min_size=1, max_size=12)


def _check_against_statsmodels(p, alpha) -> None:
    reject, corrected, _, _ = multipletests(p, alpha=alpha, method="holm")
    assert_allclose(holm_adjust(p), corrected, rtol=1e-15, atol=0)
    assert_array_equal(holm_stepdown(p, alpha=alpha), reject)


@pytest.mark.slow  # 20 drawn families through statsmodels; the edge cases stay in the default run
@settings(max_examples=20, deadline=None)  # multipletests runs gc.collect() on every call
@given(p_values, st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_matches_statsmodels(p, alpha) -> None:
    _check_against_statsmodels(p, alpha)


@pytest.mark.parametrize(
    "p",
    [[0.0125, 0.0125, 0.05, 0.05], [0.05 / 3, 0.025, 0.05], [0.01, 0.01, 0.01], [0.6, 0.001],
     [1.0, 0.0, 0.02, 0.026, 0.9]],
    ids=["ties", "exact-thresholds", "all-equal", "two", "ends"],
)
def test_holm_matches_statsmodels_on_edge_cases(p) -> None:
    _check_against_statsmodels(p, 0.05)


@settings(max_examples=100, deadline=None)
@given(p_values, st.randoms(use_true_random=False))
def test_holm_properties(p, random) -> None:
    adjusted = holm_adjust(p)
    assert np.all(adjusted >= np.asarray(p)) and np.all(adjusted <= 1)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= 0)
    perm = list(range(len(p)))
    random.shuffle(perm)
    assert_allclose(holm_adjust([p[i] for i in perm]), adjusted[perm])
    # Step-down rejections are those with adjusted p <= alpha, away from rounding ties.
    alpha = 0.05
    clear = np.abs(adjusted - alpha) > 1e-12
    assert_array_equal(holm_stepdown(p, alpha=alpha)[clear], (adjusted <= alpha)[clear])


def test_holm_empty_and_bad_input() -> None:
    assert holm_adjust([]).size == 0
    assert holm_stepdown([], alpha=0.05).size == 0
    with pytest.raises(ValueError, match="p_values"):
        holm_adjust([0.2, 1.2])
    with pytest.raises(ValueError, match="alpha"):
        holm_stepdown([0.2], alpha=0.0)
