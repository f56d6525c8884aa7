"""ICC(A,1) = Shrout-Fleiss ICC(2,1) against hand-worked values, pingouin and McGraw-Wong's formulas.

Oracles:
- the published example of Shrout and Fleiss (1979), worked by hand below with exact fractions;
- pingouin.intraclass_corr, row "ICC(A,1)", with its CI *unrounded* (pingouin rounds CI95 to
  2 decimals by default: ``options["round.column.CI95"]``);
- an independent transcription, in this file, of McGraw and Wong's (1996) Table 7 interval
  written with their a, b and v (pingouin and psych write v through F_j and the ICC instead).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from assay.stats.agreement import icc_agreement
from tests.stats.agreement._pingouin import pingouin_icc_a1

# Shrout & Fleiss (1979), Table 2: six targets (rows) rated by four judges (columns).
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
                          [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def mcgraw_wong(ratings: np.ndarray, conf: float = 0.95) -> tuple[float, float, float]:
    """McGraw & Wong (1996) Table 7, ICC(A,1), with their a, b and Satterthwaite v."""
    n, k = ratings.shape
    grand = ratings.mean()
    msr = k * np.sum((ratings.mean(axis=1) - grand) ** 2) / (n - 1)
    msc = n * np.sum((ratings.mean(axis=0) - grand) ** 2) / (k - 1)
    resid = ratings - ratings.mean(axis=1, keepdims=True) - ratings.mean(axis=0) + grand
    mse = np.sum(resid**2) / ((n - 1) * (k - 1))
    rho = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    a = k * rho / (n * (1 - rho))
    b = 1 + k * rho * (n - 1) / (n * (1 - rho))
    v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1) + (b * mse) ** 2 / ((n - 1) * (k - 1)))
    q = 1 - (1 - conf) / 2
    f_l, f_u = stats.f.ppf(q, n - 1, v), stats.f.ppf(q, v, n - 1)
    lower = n * (msr - f_l * mse) / (f_l * (k * msc + (k * n - k - n) * mse) + n * msr)
    upper = n * (f_u * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_u * msr)
    return rho, lower, upper


def test_shrout_fleiss_published_example_by_hand():
    # Grand mean 29/6... work in exact fractions. Row sums 24, 12, 26, 16, 30, 19 (total 127);
    # column sums 46, 15, 26, 40; sum of squares 841.
    # SS_total = 841 - 127^2/24 = 4055/24; SS_R = (24^2+12^2+26^2+16^2+30^2+19^2)/4 - 127^2/24
    #          = 2913/4 - 16129/24 = 1349/24; SS_C = (46^2+15^2+26^2+40^2)/6 - 16129/24 = 2339/24;
    # SS_E = (4055 - 1349 - 2339)/24 = 367/24.
    # MS_R = 1349/120 = 11.24, MS_C = 2339/72 = 32.49, MS_E = 367/360 = 1.02 (the paper's BMS,
    # JMS, EMS), and ICC(2,1) = (MS_R - MS_E) / (MS_R + 3 MS_E + 4 (MS_C - MS_E)/6) = 0.29.
    msr, msc, mse = Fraction(1349, 120), Fraction(2339, 72), Fraction(367, 360)
    icc = (msr - mse) / (msr + 3 * mse + Fraction(4, 6) * (msc - mse))
    assert icc == Fraction(3680, 12700)  # 0.289764
    res = icc_agreement(SHROUT_FLEISS)
    assert_allclose([res.mean_square_units, res.mean_square_raters, res.mean_square_error],
                    [float(msr), float(msc), float(mse)], rtol=1e-12)
    assert_allclose(res.estimate, float(icc), rtol=1e-12)
    assert round(res.estimate, 2) == 0.29  # Shrout & Fleiss (1979), Table 4
    # R psych::ICC on the same table prints ICC2 0.29, lower 0.019, upper 0.76.
    assert round(res.lower, 3) == 0.019 and round(res.upper, 2) == 0.76
    # F = MS_R / MS_E = 11.03 on (5, 15) df.
    assert_allclose(res.f_statistic, float(msr / mse), rtol=1e-12)
    assert_allclose(res.p_value, stats.f.sf(float(msr / mse), 5, 15), rtol=1e-10)
    assert (res.n, res.n_raters, res.conf, res.reason) == (6, 4, 0.95, None)


def test_shrout_fleiss_against_pingouin_and_mcgraw_wong():
    res = icc_agreement(SHROUT_FLEISS)
    pg_row = pingouin_icc_a1(SHROUT_FLEISS)
    assert_allclose(res.estimate, pg_row["ICC"], rtol=1e-10)
    assert_allclose([res.lower, res.upper], pg_row["CI95"], rtol=1e-9)
    assert_allclose(res.f_statistic, pg_row["F"], rtol=1e-10)
    assert_allclose(res.p_value, pg_row["pval"], rtol=1e-9)
    assert_allclose([res.estimate, res.lower, res.upper], mcgraw_wong(SHROUT_FLEISS), rtol=1e-10)


def test_pingouin_wine_dataset():
    # pingouin's own documented example (8 wines, 4 judges): ICC(A,1) 0.728, CI [0.43, 0.93].
    data = pg.read_dataset("icc")
    wide = data.pivot_table(index="Wine", columns="Judge", values="Scores").to_numpy(dtype=float)
    res = icc_agreement(wide)
    assert round(res.estimate, 3) == 0.728
    assert (round(res.lower, 2), round(res.upper, 2)) == (0.43, 0.93)
    pg_row = pingouin_icc_a1(wide)
    assert_allclose([res.estimate, res.lower, res.upper],
                    [pg_row["ICC"], *pg_row["CI95"]], rtol=1e-9)


@pytest.mark.parametrize(("n", "k", "seed", "ties"), [
    (10, 2, 1, False), (30, 3, 2, True), (200, 2, 3, False), (15, 5, 4, True), (3, 2, 5, False),
])
def test_random_designs_against_pingouin(n, k, seed, ties):
    rng = np.random.default_rng(seed)
    units = rng.normal(0, 2, size=(n, 1))
    offsets = rng.normal(0, 1, size=(1, k))
    ratings = 50 + 5 * (units + offsets + rng.normal(0, 1.5, size=(n, k)))
    if ties:
        ratings = np.clip(np.round(ratings / 20), 1, 5)  # a 1-5 scale with many ties
    res = icc_agreement(ratings)
    pg_row = pingouin_icc_a1(ratings)
    assert_allclose(res.estimate, pg_row["ICC"], rtol=1e-9, atol=1e-12)
    assert_allclose([res.lower, res.upper], pg_row["CI95"], rtol=1e-8, atol=1e-12)
    assert_allclose([res.estimate, res.lower, res.upper], mcgraw_wong(ratings), rtol=1e-9,
                    atol=1e-12)


@pytest.mark.parametrize("conf", [0.8, 0.9, 0.99])
def test_other_levels_against_mcgraw_wong(conf):
    rng = np.random.default_rng(11)
    ratings = rng.normal(0, 1, size=(25, 1)) + rng.normal(0, 0.7, size=(25, 3)) + [0, 0.3, -0.2]
    res = icc_agreement(ratings, conf=conf)
    assert_allclose([res.estimate, res.lower, res.upper], mcgraw_wong(ratings, conf), rtol=1e-10)
    assert res.conf == conf


def test_wider_level_gives_a_wider_interval():
    a, b = icc_agreement(SHROUT_FLEISS, conf=0.9), icc_agreement(SHROUT_FLEISS, conf=0.99)
    assert b.lower < a.lower < a.estimate < a.upper < b.upper


def test_every_rating_equal_is_nan_with_a_reason():
    res = icc_agreement(np.full((5, 3), 7.0))
    assert np.isnan(res.estimate) and np.isnan(res.lower) and np.isnan(res.upper)
    assert "same value" in res.reason


def test_exact_agreement_is_one_with_undefined_interval():
    ratings = np.column_stack([[1, 2, 4, 5.0], [1, 2, 4, 5.0]])
    res = icc_agreement(ratings)
    assert res.estimate == 1.0
    assert np.isnan(res.lower) and np.isnan(res.upper)
    assert "agree exactly" in res.reason


def test_constant_offset_between_raters():
    # x2 = x1 + 2, so MS_E = 0. Grand mean 11/3; unit means 2, 3, 6:
    # MS_R = k * sum (mean_i - 11/3)^2 / (n - 1) = 2 * (25 + 4 + 49)/9 / 2 = 26/3;
    # rater means 8/3 and 14/3: MS_C = n * (1 + 1) / (k - 1) = 6;
    # ICC = MS_R / (MS_R + (k/n) MS_C) = (26/3) / (26/3 + 4) = 26/38.
    res = icc_agreement([[1, 3], [2, 4], [5, 7]])
    assert_allclose(res.estimate, 26 / 38, rtol=1e-12)
    assert np.isnan(res.lower) and np.isnan(res.upper)
    assert "constant offset" in res.reason


def test_two_by_two_with_no_unit_or_rater_effect():
    res = icc_agreement([[1, 2], [2, 1]])
    assert np.isnan(res.estimate) and "denominator" in res.reason


def test_constant_rater_still_gives_a_defined_icc():
    # One rater gives 5 to everyone: ICC(A,1) is defined (here 0: the unit means and rater
    # means explain nothing the residual does not) and pingouin agrees.
    ratings = np.array([[5, 1], [5, 2], [5, 4], [5, 3.0]])
    res = icc_agreement(ratings)
    pg_row = pingouin_icc_a1(ratings)
    assert_allclose(res.estimate, pg_row["ICC"], atol=1e-12)
    assert_allclose([res.lower, res.upper], pg_row["CI95"], atol=1e-10)


@pytest.mark.parametrize(("ratings", "match"), [
    ([1, 2, 3], "2-D"),
    ([[1], [2]], "at least 2 raters"),
    ([[1, 2]], "at least 2 units"),
    ([[1, 2], [np.nan, 3]], "complete"),
    ([["a", "b"], ["c", "d"]], "numbers"),
])
def test_bad_ratings_raise(ratings, match):
    with pytest.raises(ValueError, match=match):
        icc_agreement(ratings)


@pytest.mark.parametrize("conf", [0, 1, 1.5, "x"])
def test_bad_conf_raises(conf):
    with pytest.raises(ValueError, match="conf"):
        icc_agreement(SHROUT_FLEISS, conf=conf)


matrices = st.integers(3, 12).flatmap(lambda n: st.integers(2, 4).flatmap(
    lambda k: st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k),
                       min_size=n, max_size=n)))


@settings(max_examples=60, deadline=None)
@given(matrices, st.randoms(use_true_random=False), st.floats(0.5, 20), st.floats(-50, 50))
def test_invariant_to_order_and_to_a_linear_change_of_scale(rows, rnd, scale, shift):
    x = np.array(rows, dtype=float)
    base = icc_agreement(x)
    rows_perm = list(range(x.shape[0]))
    cols_perm = list(range(x.shape[1]))
    rnd.shuffle(rows_perm)
    rnd.shuffle(cols_perm)
    other = icc_agreement(x[np.ix_(rows_perm, cols_perm)] * scale + shift)
    for name in ("estimate", "lower", "upper"):
        assert_allclose(getattr(other, name), getattr(base, name), rtol=1e-7, atol=1e-9,
                        equal_nan=True)
    assert (other.reason is None) == (base.reason is None)
    if base.reason is None:
        assert base.lower <= base.estimate <= base.upper


@pytest.mark.slow
def test_coverage_of_the_interval_under_the_two_way_random_model():
    # Unit sd 1, rater sd 0.5, error sd 0.8: ICC = 1 / (1 + 0.25 + 0.64) = 0.529.
    truth = 1 / (1 + 0.25 + 0.64)
    rng = np.random.default_rng(20240229)
    reps, hits = 600, 0
    for _ in range(reps):
        x = (rng.normal(0, 1, size=(30, 1)) + rng.normal(0, 0.5, size=(1, 4))
             + rng.normal(0, 0.8, size=(30, 4)))
        res = icc_agreement(x)
        hits += res.lower <= truth <= res.upper
    # The F-based interval is approximate; it should not be far from 95%.
    assert stats.binomtest(hits, reps, 0.95).pvalue > 0.01


def test_satterthwaite_numerator_zero_but_for_rounding_gives_no_interval_in_any_order():
    # a*MS_C + b*MS_E is exactly 0 here (ICC = -1/63); rounding made v a tiny positive
    # number in some column orders and gave a zero-width "interval" (found by hypothesis).
    x = np.array([[0, 0, 5], [0, 1, 4], [0, 1, 4], [0, 1, 4]], dtype=float)
    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0], [0, 2, 1]):
        result = icc_agreement(x[:, order])
        assert result.estimate == pytest.approx(-1 / 63)
        assert np.isnan(result.lower) and np.isnan(result.upper) and result.reason is not None


@pytest.mark.parametrize("scale", [1.0, 7.0, 1e-3, 1e6, 1e150])
def test_interval_is_scale_free_at_a_tiny_satterthwaite_df(scale: float) -> None:
    # Issue 12 (b): v is about 0.01, F_L about 1.5e305; F_L times the denominator
    # overflowed at x7 (NaN, with a reason about the df) while x1 gave an interval.
    ratings = np.array([[0, 2, 3], [0, 4, 1], [0, 4, 2], [2, 3, 0]], dtype=float)
    base = icc_agreement(ratings, min_df=0.0)
    scaled = icc_agreement(ratings * scale, min_df=0.0)
    assert base.reason is None and 0.0 < base.df < 0.02
    assert_allclose([scaled.estimate, scaled.lower, scaled.upper, scaled.df],
                    [base.estimate, base.lower, base.upper, base.df], rtol=1e-9)
    assert scaled.reason is None
    # the limits as F_L -> inf: L = -n / (k c + kn - k - n), c = MS_C / MS_E = 31/7
    assert_allclose(base.lower, -4 / (3 * 31 / 7 + 12 - 3 - 4), rtol=1e-9)


def test_interval_on_a_fraction_of_a_degree_of_freedom_is_not_given():
    # Issue 26 (4): three units, v = 0.0099. McGraw-Wong's bounds (pingouin's too) close
    # around the estimate, [-0.351, -0.307] for ICC -0.316 from 3 units, as if it were
    # known to +-0.02; below 0.1 df the interval covered 0-54% in a simulation of the
    # two-way random model (MIN_SATTERTHWAITE_DF). Hand-worked: grand mean 19/6; unit means
    # 3, 3, 3.5; rater means 2, 13/3: MS_R = 2 (1/36 + 1/36 + 1/9) / 2 = 1/6,
    # MS_C = 3 * 2 (7/6)^2 = 49/6, SS_total = 462/36 = 77/6, SS_E = 77/6 - 1/3 - 49/6 = 13/3,
    # MS_E = 13/6, so ICC = (1/6 - 13/6) / (1/6 + 13/6 + (2/3)(49/6 - 13/6)) = -2 / (19/3).
    # (pingouin's own bounds overflow to NaN here: its F quantile is about 1e308.)
    ratings = np.array([[3, 3], [1, 5], [2, 5]], dtype=float)
    res = icc_agreement(ratings)
    assert_allclose(res.estimate, -6 / 19, rtol=1e-12)
    assert 0.0 < res.df < 0.01
    assert np.isnan(res.lower) and np.isnan(res.upper)
    assert "Satterthwaite degrees of freedom" in res.reason and "below 0.1" in res.reason
    raw = icc_agreement(ratings, min_df=0.0)  # what was printed before
    assert raw.reason is None and raw.lower < raw.estimate < raw.upper < raw.lower + 0.05


@pytest.mark.parametrize("min_df", [-1.0, float("nan"), float("inf"), "x"])
def test_bad_min_df_raises(min_df):
    with pytest.raises(ValueError, match="min_df"):
        icc_agreement(SHROUT_FLEISS, min_df=min_df)
