"""Mean absolute difference and mean Spearman rho over rater pairs.

Oracles: scipy.spatial.distance.pdist (city-block distance between rater columns) for MAD;
scipy.stats.spearmanr and pandas' DataFrame.corr(method="spearman") for rho; hand-worked
values in the comments.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from scipy.spatial.distance import pdist, squareform

from assay.stats.agreement import mean_absolute_difference, mean_spearman


def test_mad_hand_worked():
    # Raters (1, 2), (2, 2), (4, 2) on two units: pair 1-2 |1-2|, |2-2| -> 0.5;
    # pair 1-3 |1-4|, |2-2| -> 1.5; pair 2-3 |2-4|, |2-2| -> 1.0; mean (0.5 + 1.5 + 1)/3 = 1.
    res = mean_absolute_difference([[1, 2, 4], [2, 2, 2]])
    assert res.estimate == 1.0
    assert_allclose(res.matrix, [[0, 0.5, 1.5], [0.5, 0, 1.0], [1.5, 1.0, 0]])
    assert (res.n, res.n_raters, res.method, res.reason) == (2, 3, "mean_absolute_difference", None)


@pytest.mark.parametrize(("n", "k", "seed"), [(5, 2, 1), (40, 3, 2), (100, 5, 3)])
def test_mad_against_pdist(n, k, seed):
    x = np.random.default_rng(seed).integers(0, 101, size=(n, k)).astype(float)
    res = mean_absolute_difference(x)
    oracle = squareform(pdist(x.T, metric="cityblock")) / n
    assert_allclose(res.matrix, oracle, rtol=1e-12)
    assert_allclose(res.estimate, pdist(x.T, metric="cityblock").mean() / n, rtol=1e-12)


def test_mad_sees_a_constant_offset():
    x = np.arange(10.0)
    res = mean_absolute_difference(np.column_stack([x, x + 10]))
    assert res.estimate == 10.0


def test_mad_of_identical_raters_is_zero():
    assert mean_absolute_difference([[3, 3], [5, 5]]).estimate == 0.0


def test_spearman_hand_worked():
    # Rater 2 swaps neighbours: d = (1, -1, 1, -1), sum d^2 = 4, rho = 1 - 6*4/(4*15) = 0.6.
    res = mean_spearman([[1, 2], [2, 1], [3, 4], [4, 3]])
    assert_allclose(res.estimate, 0.6, rtol=1e-12)
    assert_allclose(res.matrix, [[1, 0.6], [0.6, 1]], rtol=1e-12)


def test_spearman_with_ties_hand_worked():
    # x = (1, 2, 2, 3) has mid-ranks (1, 2.5, 2.5, 4); y = (1, 2, 3, 4) ranks (1, 2, 3, 4).
    # Centred: (-1.5, 0, 0, 1.5) and (-1.5, -0.5, 0.5, 1.5); cross 4.5; norms sqrt(4.5), sqrt(5).
    # rho = 4.5 / sqrt(4.5 * 5) = sqrt(0.9) = 0.948683.
    res = mean_spearman([[1, 1], [2, 2], [2, 3], [3, 4]])
    assert_allclose(res.estimate, np.sqrt(0.9), rtol=1e-12)


@pytest.mark.parametrize(("n", "k", "seed", "levels"), [
    (8, 2, 1, 100), (50, 3, 2, 5), (200, 4, 3, 3), (30, 6, 4, 1000),
])
def test_spearman_against_scipy_and_pandas(n, k, seed, levels):
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n, 1)) + rng.normal(scale=0.8, size=(n, k))
    x = np.floor((stats.norm.cdf(latent)) * levels)  # ties when levels is small
    res = mean_spearman(x)
    scipy_rho = stats.spearmanr(x).statistic
    scipy_matrix = np.array([[1.0, scipy_rho], [scipy_rho, 1.0]]) if k == 2 else scipy_rho
    assert_allclose(res.matrix, scipy_matrix, rtol=1e-10, atol=1e-12)
    pandas_matrix = pd.DataFrame(x).corr(method="spearman").to_numpy()
    assert_allclose(res.matrix, pandas_matrix, rtol=1e-10, atol=1e-12)
    pairs = [stats.spearmanr(x[:, a], x[:, b]).statistic for a, b in combinations(range(k), 2)]
    assert_allclose(res.estimate, np.mean(pairs), rtol=1e-10)


def test_spearman_ignores_a_constant_offset():
    x = np.random.default_rng(5).normal(size=20)
    assert_allclose(mean_spearman(np.column_stack([x, x + 10])).estimate, 1.0, rtol=1e-12)


def test_constant_rater_gives_nan_with_a_reason():
    x = np.array([[1, 5, 2], [2, 5, 1], [3, 5, 3], [4, 5, 4.0]])
    res = mean_spearman(x)
    assert np.isnan(res.estimate)
    assert "1" in res.reason and "same score" in res.reason
    assert np.isnan(res.matrix[1]).all() and np.isnan(res.matrix[:, 1]).all()
    # The pair of the other two raters is still reported.
    assert_allclose(res.matrix[0, 2], stats.spearmanr(x[:, 0], x[:, 2]).statistic, rtol=1e-12)


@pytest.mark.parametrize(("func", "ratings", "match"), [
    (mean_spearman, [[1, 2]], "at least 2 units"),
    (mean_spearman, [[1], [2]], "at least 2 raters"),
    (mean_absolute_difference, [[1, np.inf]], "complete"),
    (mean_absolute_difference, [1, 2], "2-D"),
])
def test_bad_input_raises(func, ratings, match):
    with pytest.raises(ValueError, match=match):
        func(ratings)


@settings(max_examples=50, deadline=None)
@given(st.integers(3, 15).flatmap(lambda n: st.lists(
    st.lists(st.integers(0, 9), min_size=3, max_size=3), min_size=n, max_size=n)),
    st.permutations([0, 1, 2]))
def test_both_are_invariant_to_the_order_of_raters(rows, order):
    x = np.array(rows, dtype=float)
    mad, rho = mean_absolute_difference(x), mean_spearman(x)
    mad2, rho2 = mean_absolute_difference(x[:, order]), mean_spearman(x[:, order])
    assert_allclose(mad2.estimate, mad.estimate, rtol=1e-12)
    assert_allclose(rho2.estimate, rho.estimate, rtol=1e-10, equal_nan=True)
    assert_allclose(mad2.matrix, mad.matrix[np.ix_(order, order)], rtol=1e-12)
    if rho.reason is None:
        assert -1 <= rho.estimate <= 1
