"""Krippendorff's alpha against Krippendorff's worked example, the ``krippendorff`` package and
a brute-force pair enumeration written from the definition (no coincidence matrix)."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.stats.agreement import krippendorff_alpha

N = np.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers
# (rows here are observers, as in the paper) x 12 units, missing values allowed.
PAPER = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
])
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def brute_force_alpha(ratings: np.ndarray, level: str) -> float:
    """alpha = 1 - D_o / D_e by enumerating pairs: D_o over ordered pairs of values within a unit
    weighted 1/(m_u - 1), D_e over all ordered pairs of pairable values, for the metric's delta."""
    units = [[v for v in row if not np.isnan(v)] for row in ratings]
    units = [u for u in units if len(u) >= 2]
    pooled = sorted(v for u in units for v in u)
    n = len(pooled)

    def delta(c: float, k: float) -> float:
        if level == "nominal":
            return float(c != k)
        if level == "interval":
            return (c - k) ** 2
        if level == "ratio":
            return 0.0 if c + k == 0 else ((c - k) / (c + k)) ** 2
        lo, hi = min(c, k), max(c, k)
        between = sum(1 for g in pooled if lo <= g <= hi)  # n_g summed over lo..hi
        n_lo, n_hi = pooled.count(lo), pooled.count(hi)
        return (between - (n_lo + n_hi) / 2) ** 2

    d_o = sum(delta(u[i], u[j]) / (len(u) - 1)
              for u in units for i, j in itertools.permutations(range(len(u)), 2)) / n
    d_e = sum(delta(pooled[i], pooled[j])
              for i, j in itertools.permutations(range(n), 2)) / (n * (n - 1))
    return 1 - d_o / d_e


def test_paper_example_nominal_by_hand() -> None:
    # Pairable values n = 40 with n_1..n_5 = 9, 13, 10, 5, 3 (unit 12 has one value); the
    # off-diagonal coincidences sum to 8 (units 2, 6 and 8 disagree). alpha_nominal =
    # 1 - (n - 1) * 8 / (n^2 - sum n_c^2) = 1 - 39 * 8 / (1600 - 384) = 113/152 = 0.7434.
    res = krippendorff_alpha(PAPER.T, level="nominal")
    assert_allclose(res.estimate, 113 / 152, rtol=1e-12)
    assert (res.n, res.n_units, res.level, res.undefined) == (40, 11, "nominal", None)


@pytest.mark.parametrize(("level", "published"), [
    ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)])
def test_paper_example_published_values(level, published) -> None:
    res = krippendorff_alpha(PAPER.T, level=level)
    assert round(res.estimate, 3) == published
    assert_allclose(res.estimate, krippendorff.alpha(reliability_data=PAPER,
                                                     level_of_measurement=level), rtol=1e-12)
    assert_allclose(res.estimate, brute_force_alpha(PAPER.T, level), rtol=1e-12)


@st.composite
def reliability_tables(draw: st.DrawFn):
    units = draw(st.integers(2, 14))
    raters = draw(st.integers(2, 5))
    k = draw(st.integers(2, 6))
    values = draw(st.lists(st.integers(0, k - 1), min_size=units * raters,
                           max_size=units * raters))
    missing = draw(st.lists(st.booleans(), min_size=units * raters, max_size=units * raters))
    x = np.array(values, dtype=float).reshape(units, raters)
    x[np.array(missing).reshape(units, raters)] = np.nan
    return x


@settings(max_examples=100, deadline=None)
@given(reliability_tables(), st.sampled_from(LEVELS))
def test_matches_krippendorff_package_and_brute_force(x, level) -> None:
    pairable = np.sum(~np.isnan(x), axis=1) >= 2
    assume(pairable.any())
    assume(np.unique(x[pairable][~np.isnan(x[pairable])]).size >= 2)
    ours = krippendorff_alpha(x, level=level).estimate
    # the package wants raters in rows and refuses a one-value domain; it ignores units
    # with fewer than two values too
    oracle = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    assert_allclose(ours, oracle, rtol=1e-9, atol=1e-12)
    assert_allclose(ours, brute_force_alpha(x, level), rtol=1e-9, atol=1e-12)


def test_continuous_values_with_ties_and_missing() -> None:
    rng = np.random.default_rng(3)
    truth = rng.normal(size=40)
    x = np.column_stack([truth + rng.normal(scale=s, size=40) for s in (0.3, 0.5, 0.8)])
    x = np.round(x, 1)  # ties
    x[rng.random(x.shape) < 0.2] = np.nan
    for level in ("ordinal", "interval"):
        assert_allclose(krippendorff_alpha(x, level=level).estimate,
                        krippendorff.alpha(reliability_data=x.T, level_of_measurement=level),
                        rtol=1e-9)


def test_perfect_agreement_is_one_and_independent_ratings_near_zero() -> None:
    x = np.array([[1, 1, 1], [2, 2, np.nan], [0, 0, 0], [2, 2, 2]], dtype=float)
    for level in ("nominal", "ordinal", "interval"):
        assert krippendorff_alpha(x, level=level).estimate == pytest.approx(1.0, abs=1e-12)
    rng = np.random.default_rng(11)
    noise = rng.integers(0, 5, size=(4000, 3)).astype(float)
    assert abs(krippendorff_alpha(noise, level="interval").estimate) < 0.03


def test_constant_ratings_and_no_pairable_units_are_nan_with_reason() -> None:
    res = krippendorff_alpha([[2, 2], [2, 2], [2, np.nan]], level="interval")
    assert np.isnan(res.estimate) and res.undefined == "no_variation"
    assert res.observed_disagreement == 0.0 and res.expected_disagreement == 0.0
    res = krippendorff_alpha([[1, np.nan], [np.nan, 2]], level="nominal")
    assert np.isnan(res.estimate) and res.undefined == "no_pairable_units" and res.n_units == 0


def test_one_constant_rater_is_defined() -> None:
    # rater 2 always says 1; rater 1 varies: alpha is defined (and poor), not NaN.
    x = np.array([[0, 1], [1, 1], [2, 1], [1, 1]], dtype=float)
    res = krippendorff_alpha(x, level="interval")
    assert np.isfinite(res.estimate)
    assert_allclose(res.estimate, krippendorff.alpha(reliability_data=x.T,
                                                     level_of_measurement="interval"), rtol=1e-12)


def test_invariances() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, size=(25, 4)).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    base = {lvl: krippendorff_alpha(x, level=lvl).estimate for lvl in LEVELS}
    perm = x[rng.permutation(25)][:, rng.permutation(4)]  # reorder units and raters
    for lvl in LEVELS:
        assert_allclose(krippendorff_alpha(perm, level=lvl).estimate, base[lvl], rtol=1e-12)
    # interval alpha is invariant to affine rescaling; ordinal to monotone transforms
    assert_allclose(krippendorff_alpha(3 * x + 7, level="interval").estimate, base["interval"],
                    rtol=1e-12)
    assert_allclose(krippendorff_alpha(np.exp(x), level="ordinal").estimate, base["ordinal"],
                    rtol=1e-12)


@pytest.mark.parametrize(("ratings", "kwargs", "message"), [
    ([1, 2, 3], {}, "2-D"),
    ([[1, np.inf]], {}, "inf"),
    ([[1, 2]], {"level": "cardinal"}, "level"),
    ([[-1, 2], [1, 2]], {"level": "ratio"}, "non-negative"),
])
def test_rejects_bad_input(ratings, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(ratings, **kwargs)


@settings(max_examples=60, deadline=None)
@given(reliability_tables(), st.sampled_from(["interval", "ordinal"]))
def test_closed_form_oracle_of_the_data_tests_is_the_package(x, level) -> None:
    # conftest's variance / mid-rank form stands in for the package on large real tables.
    from tests.stats.agreement.conftest import _alpha_closed_form

    pairable = np.sum(~np.isnan(x), axis=1) >= 2
    assume(pairable.any())
    assume(np.unique(x[pairable][~np.isnan(x[pairable])]).size >= 2)
    assert_allclose(_alpha_closed_form(x, level),
                    krippendorff.alpha(reliability_data=x.T, level_of_measurement=level),
                    rtol=1e-9, atol=1e-12)
