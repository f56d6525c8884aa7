"""Cohen's kappa (plain, linear, quadratic) and Fleiss' kappa: hand-worked tables and statsmodels.

Oracles: ``statsmodels.stats.inter_rater.cohens_kappa`` (on the contingency table; its
'linear' / 'quadratic' weights are |i - j| and (i - j)^2 on the category positions, which
give the same kappa as ours scaled by 1 / (k - 1)) and ``statsmodels...fleiss_kappa``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from assay.stats.agreement import cohen_kappa, fleiss_kappa

# Rows: rater a's category 0, 1, 2; columns: rater b's. n = 10.
TABLE_3X3 = np.array([[3, 1, 0], [1, 2, 1], [0, 1, 1]])


def _ratings_from_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = [], []
    for i in range(table.shape[0]):
        for j in range(table.shape[1]):
            a += [i] * int(table[i, j])
            b += [j] * int(table[i, j])
    return np.array(a, dtype=float), np.array(b, dtype=float)


def _table(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    t = np.zeros((k, k))
    for x, y in zip(a.astype(int), b.astype(int), strict=True):
        t[x, y] += 1
    return t


# ----- Cohen: hand-worked ----------------------------------------------------------------------


def test_cohen_two_by_two_textbook() -> None:
    # 50 units: yes/yes 20, yes/no 5, no/yes 10, no/no 15. p_o = 35/50 = 0.7; rater a says yes
    # 25/50, rater b 30/50: p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.2 / 0.5 = 0.4.
    a, b = _ratings_from_table(np.array([[15, 10], [5, 20]]))
    res = cohen_kappa(a, b)
    assert_allclose([res.estimate, res.observed_agreement, res.expected_agreement],
                    [0.4, 0.7, 0.5], rtol=1e-12)
    assert (res.n, res.n_categories, res.weights, res.method, res.undefined) == (
        50, 2, "none", "cohen_kappa", None)


def test_cohen_three_levels_plain_linear_quadratic_by_hand() -> None:
    # Margins (0.4, 0.4, 0.2) for both raters.
    # Plain: p_o = 6/10; p_e = .16 + .16 + .04 = .36; kappa = .24 / .64 = 0.375.
    # Linear (w = |i-j|/2): observed disagreement 4 cells one level apart x 0.5 / 10 = 0.2;
    #   expected: one apart .16+.16+.08+.08 = .48 x .5 = .24, two apart .08+.08 = .16 x 1;
    #   total .40; kappa = 1 - .2/.4 = 0.5.
    # Quadratic (w = ((i-j)/2)^2): observed 4 x .25 / 10 = .1; expected .48 x .25 + .16 = .28;
    #   kappa = 1 - .1/.28 = 9/14.
    a, b = _ratings_from_table(TABLE_3X3)
    assert_allclose(cohen_kappa(a, b).estimate, 0.375, rtol=1e-12)
    assert_allclose(cohen_kappa(a, b, weights="linear").estimate, 0.5, rtol=1e-12)
    assert_allclose(cohen_kappa(a, b, weights="quadratic").estimate, 9 / 14, rtol=1e-12)
    lin = cohen_kappa(a, b, weights="linear")
    assert_allclose([lin.observed_agreement, lin.expected_agreement], [0.8, 0.6], rtol=1e-12)


def test_cohen_missing_ratings_are_dropped_pairwise() -> None:
    a, b = _ratings_from_table(TABLE_3X3)
    a2 = np.concatenate([a, [np.nan, 2.0, np.nan]])
    b2 = np.concatenate([b, [0.0, np.nan, np.nan]])
    res = cohen_kappa(a2, b2, weights="quadratic")
    assert res.n == 10
    assert_allclose(res.estimate, 9 / 14, rtol=1e-12)


def test_cohen_constant_raters() -> None:
    # Both raters say "1" throughout: expected disagreement 0, kappa is 0/0 -> NaN + reason.
    res = cohen_kappa([1, 1, 1, 1], [1, 1, 1, 1], categories=[0, 1, 2])
    assert np.isnan(res.estimate) and res.undefined == "no_variation"
    assert res.observed_agreement == 1.0 and res.expected_agreement == 1.0
    # One constant rater, the other varied: p_o = p_e = 1/2, kappa = 0 exactly (not NaN).
    res = cohen_kappa([1, 1, 1, 1], [0, 1, 0, 1])
    assert res.estimate == 0.0 and res.undefined is None
    # Each constant on a different category: p_o = 0 = p_e -> kappa 0.
    assert cohen_kappa([0, 0, 0], [1, 1, 1]).estimate == 0.0


def test_cohen_no_pairs() -> None:
    res = cohen_kappa([np.nan, 1.0], [2.0, np.nan])
    assert np.isnan(res.estimate) and res.undefined == "no_units" and res.n == 0


def test_cohen_declared_categories_change_weighted_kappa_when_a_middle_level_is_unused() -> None:
    # Codes 0, 2, 3 observed on a 0..3 scale: declared spacing puts 0 two steps from 2.
    a = np.array([0, 0, 2, 3, 3, 2, 0, 3], dtype=float)
    b = np.array([0, 2, 2, 3, 2, 3, 0, 0], dtype=float)
    declared = cohen_kappa(a, b, weights="linear", categories=[0, 1, 2, 3])
    observed_only = cohen_kappa(a, b, weights="linear")
    oracle = sm_cohens_kappa(_table(a, b, 4), wt="linear", return_results=False)
    assert_allclose(declared.estimate, oracle, rtol=1e-12)
    assert not np.isclose(declared.estimate, observed_only.estimate)
    # plain kappa does not depend on the spacing
    assert_allclose(cohen_kappa(a, b, categories=[0, 1, 2, 3]).estimate,
                    cohen_kappa(a, b).estimate, rtol=1e-12)


def test_cohen_is_symmetric_in_the_raters_and_invariant_to_relabelling() -> None:
    a, b = _ratings_from_table(TABLE_3X3)
    for w in (None, "linear", "quadratic"):
        assert_allclose(cohen_kappa(a, b, weights=w).estimate,
                        cohen_kappa(b, a, weights=w).estimate, rtol=1e-12)
    # plain kappa: any relabelling of nominal categories
    mapping = {0.0: 7.0, 1.0: -3.0, 2.0: 11.0}
    assert_allclose(cohen_kappa([mapping[x] for x in a], [mapping[x] for x in b]).estimate,
                    0.375, rtol=1e-12)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(a=[0, 1], b=[0]), "same length"),
    (dict(a=[[0, 1]], b=[[0, 1]]), "1-D"),
    (dict(a=[0, np.inf], b=[0, 1]), "inf"),
    (dict(a=[0, 5], b=[0, 1], categories=[0, 1, 2]), "not among the categories"),
    (dict(a=[0, 1], b=[0, 1], weights="cubic"), "weights"),
    (dict(a=[0, 1], b=[0, 1], categories=[0, 0, 1]), "distinct"),
])
def test_cohen_rejects_bad_input(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        cohen_kappa(**kwargs)


@st.composite
def rating_pairs(draw: st.DrawFn):
    k = draw(st.integers(2, 5))
    n = draw(st.integers(2, 60))
    a = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    missing = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return k, np.array(a, float), np.array(b, float), np.array(missing)


@settings(max_examples=120, deadline=None)
@given(rating_pairs())
def test_cohen_matches_statsmodels(data) -> None:
    k, a, b, missing = data
    keep = ~missing
    assume(keep.sum() >= 2)
    table = _table(a[keep], b[keep], k)
    margins = np.outer(table.sum(1), table.sum(0)) / table.sum() ** 2
    assume(np.sum(np.diag(margins)) < 1 - 1e-9)  # kappa defined
    a_nan = np.where(missing, np.nan, a)
    for ours, wt in ((None, None), ("linear", "linear"), ("quadratic", "quadratic")):
        res = cohen_kappa(a_nan, b, weights=ours, categories=np.arange(k))
        # return_results=False: statsmodels' variance terms warn on small tables
        expected = sm_cohens_kappa(table, wt=wt, return_results=False)
        assert_allclose(res.estimate, expected, rtol=1e-9, atol=1e-12)
        assert res.n == int(keep.sum())


# ----- Fleiss ----------------------------------------------------------------------------------

# Fleiss (1971), reproduced e.g. in Wikipedia's "Fleiss' kappa": 10 subjects, 14 raters,
# 5 categories.
FLEISS_1971 = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
                        [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
                        [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])


def test_fleiss_published_example_by_hand() -> None:
    # P_i = (sum_j n_ij^2 - 14) / (14 * 13): row 1 (196 - 14)/182 = 1, row 2 (4+36+16+4-14)/182
    # = 46/182 = 23/91, ...; P-bar = 172/455 = 0.378022. p_j = (20, 28, 39, 21, 32) / 140;
    # P-bar_e = sum p_j^2 = 417/1960 = 0.212755. kappa = (172/455 - 417/1960) / (1 - 417/1960)
    # = 4211/20059 = 0.209931 (Fleiss reports 0.21).
    res = fleiss_kappa(FLEISS_1971)
    assert_allclose(res.observed_agreement, 172 / 455, rtol=1e-12)
    assert_allclose(res.expected_agreement, 417 / 1960, rtol=1e-12)
    assert_allclose(res.estimate, 4211 / 20059, rtol=1e-12)
    assert (res.n, res.n_raters, res.n_categories, res.method) == (10, 14, 5, "fleiss_kappa")


def test_fleiss_matches_statsmodels_on_the_example() -> None:
    assert_allclose(fleiss_kappa(FLEISS_1971).estimate, sm_fleiss_kappa(FLEISS_1971),
                    rtol=1e-12)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 25), st.integers(2, 6), st.integers(2, 5), st.integers(0, 2**32 - 1))
def test_fleiss_matches_statsmodels(units, raters, k, seed) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, size=(units, raters))
    counts = np.stack([(codes == c).sum(axis=1) for c in range(k)], axis=1)
    p = counts.sum(0) / counts.sum()
    assume(np.sum(p**2) < 1 - 1e-9)
    assert_allclose(fleiss_kappa(counts).estimate, sm_fleiss_kappa(counts), rtol=1e-9,
                    atol=1e-12)


def test_fleiss_two_raters_mean_agreement_is_the_agreement_rate() -> None:
    # With two raters P_i is 1 when they agree, else 0: P-bar is the exact agreement rate.
    a, b = _ratings_from_table(TABLE_3X3)
    counts = np.stack([(a == c).astype(int) + (b == c).astype(int) for c in range(3)], axis=1)
    assert_allclose(fleiss_kappa(counts).observed_agreement, 0.6, rtol=1e-12)


def test_fleiss_constant_and_unused_categories() -> None:
    res = fleiss_kappa([[3, 0], [3, 0]])
    assert np.isnan(res.estimate) and res.undefined == "no_variation"
    # an all-zero column (unused level) changes nothing
    assert_allclose(fleiss_kappa(np.column_stack([FLEISS_1971, np.zeros(10)])).estimate,
                    4211 / 20059, rtol=1e-12)


@pytest.mark.parametrize(("counts", "message"), [
    ([[1, 1], [2, 1]], "same number"),
    ([[1, 0], [0, 1]], "at least 2"),
    ([[1.5, 0.5]], "integer"),
    ([[-1, 3]], "non-negative"),
    ([1, 2], "2-D"),
])
def test_fleiss_rejects_bad_input(counts, message) -> None:
    with pytest.raises(ValueError, match=message):
        fleiss_kappa(counts)
