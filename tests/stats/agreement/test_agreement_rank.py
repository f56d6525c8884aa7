"""Spearman and Kendall tau-b matrices against scipy.stats.spearmanr / kendalltau (variant "b")
on pairwise-complete data with ties, missing ratings and constant raters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats

import assay.stats.agreement._rates as agreement
from assay.stats.agreement import kendall_tau_b_matrix, spearman_matrix


def _oracle(x: np.ndarray, which: str) -> np.ndarray:
    m = x.shape[1]
    out = np.full((m, m), np.nan)
    for a in range(m):
        for b in range(m):
            both = ~(np.isnan(x[:, a]) | np.isnan(x[:, b]))
            xa, xb = x[both, a], x[both, b]
            if both.sum() < 2 or np.ptp(xa) == 0 or np.ptp(xb) == 0:
                continue  # scipy warns and returns NaN here; we return NaN silently
            if which == "spearman":
                out[a, b] = stats.spearmanr(xa, xb).statistic
            else:
                out[a, b] = stats.kendalltau(xa, xb, variant="b").statistic
    return out


@st.composite
def tables(draw: st.DrawFn):
    units = draw(st.integers(2, 30))
    raters = draw(st.integers(2, 4))
    levels = draw(st.integers(2, 8))  # few levels: many ties
    values = draw(st.lists(st.integers(0, levels - 1), min_size=units * raters,
                           max_size=units * raters))
    missing = draw(st.lists(st.booleans(), min_size=units * raters, max_size=units * raters))
    x = np.array(values, dtype=float).reshape(units, raters)
    x[np.array(missing).reshape(units, raters)] = np.nan
    return x


@settings(max_examples=100, deadline=None)
@given(tables())
def test_spearman_matches_scipy(x) -> None:
    res = spearman_matrix(x)
    assert_allclose(res.estimate, _oracle(x, "spearman"), rtol=1e-9, atol=1e-12)
    present = ~np.isnan(x)
    assert_array_equal(res.n, present.T.astype(int) @ present.astype(int))
    assert res.method == "spearman"


@settings(max_examples=100, deadline=None)
@given(tables())
def test_kendall_matches_scipy(x) -> None:
    assert_allclose(kendall_tau_b_matrix(x).estimate, _oracle(x, "kendall"), rtol=1e-9,
                    atol=1e-12)


def test_kendall_block_path_equals_table_path(monkeypatch) -> None:
    rng = np.random.default_rng(8)
    x = np.column_stack([rng.normal(size=700), rng.normal(size=700)])
    x[:, 1] += x[:, 0]
    x = np.round(x, 1)
    x[rng.random(x.shape) < 0.1] = np.nan
    by_table = kendall_tau_b_matrix(x).estimate
    monkeypatch.setattr(agreement, "_TABLE_CELLS", 0)
    by_blocks = kendall_tau_b_matrix(x).estimate
    assert_allclose(by_blocks, by_table, rtol=1e-12)
    assert_allclose(by_table, _oracle(x, "kendall"), rtol=1e-9)


def test_continuous_scores() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 3)) + rng.normal(size=(200, 1))
    assert_allclose(spearman_matrix(x).estimate, _oracle(x, "spearman"), rtol=1e-10)
    assert_allclose(kendall_tau_b_matrix(x).estimate, _oracle(x, "kendall"), rtol=1e-10)


def test_hand_worked_values() -> None:
    # Spearman: ranks (1,2,3,4) vs (1,3,2,4): sum d^2 = 2, rho = 1 - 6*2/(4*15) = 0.8.
    # Kendall: (1,2,2,3) vs (1,3,2,3): C = 4, D = 0, one tie in each, tau_b = 4/sqrt(5*5) = 0.8.
    assert_allclose(spearman_matrix([[1, 10], [2, 30], [3, 20], [4, 40]]).estimate[0, 1], 0.8,
                    rtol=1e-12)
    assert_allclose(kendall_tau_b_matrix([[1, 1], [2, 3], [2, 2], [3, 3]]).estimate[0, 1], 0.8,
                    rtol=1e-12)


def test_constant_rater_and_too_few_units_are_nan() -> None:
    x = np.array([[1, 5, 1], [2, 5, np.nan], [3, 5, np.nan]], dtype=float)
    for res in (spearman_matrix(x), kendall_tau_b_matrix(x)):
        assert np.isnan(res.estimate[0, 1]) and np.isnan(res.estimate[1, 1])  # constant rater 2
        assert np.isnan(res.estimate[0, 2])  # one shared unit
        assert res.estimate[0, 0] == 1.0
        assert res.n.tolist() == [[3, 3, 1], [3, 3, 1], [1, 1, 1]]


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="2-D"):
        spearman_matrix([1, 2, 3])
    with pytest.raises(ValueError, match="inf"):
        kendall_tau_b_matrix([[1, np.inf], [2, 3]])
