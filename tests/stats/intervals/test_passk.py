"""pass^k: brute-force enumeration of k-subsets of runs, and unbiasedness."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from assay.stats import pass_hat_k, pass_hat_k_per_item


def _enumerate(correct: int, runs: int, k: int) -> Fraction:
    """Share of the k-subsets of an item's runs (the first `correct` of them right) that
    contain only right runs."""
    outcomes = [1] * correct + [0] * (runs - correct)
    subsets = list(itertools.combinations(range(runs), k))
    good = sum(all(outcomes[i] for i in s) for s in subsets)
    return Fraction(good, len(subsets))


@st.composite
def passk_data(draw: st.DrawFn):
    runs = draw(st.integers(1, 8))
    k = draw(st.integers(1, runs))
    counts = draw(st.lists(st.integers(0, runs), min_size=1, max_size=30))
    return counts, runs, k


@settings(max_examples=80, deadline=None)
@given(passk_data())
def test_matches_brute_force_enumeration(data) -> None:
    counts, runs, k = data
    per_item = [_enumerate(c, runs, k) for c in counts]
    assert pass_hat_k_per_item(counts, runs, k).tolist() == [float(v) for v in per_item]
    assert pass_hat_k(counts, runs, k) == float(sum(per_item) / len(per_item))


def test_hand_worked() -> None:
    # R = 5, k = 3: C(5,3) = 10; items with 5, 4, 3, 2 right give 10, 4, 1, 0 all-right
    # triples: per item 1, 0.4, 0.1, 0; mean 15/40 = 0.375. k = 1 is plain accuracy.
    assert pass_hat_k_per_item([5, 4, 3, 2], 5, 3).tolist() == [1.0, 0.4, 0.1, 0.0]
    assert pass_hat_k([5, 4, 3, 2], 5, 3) == 0.375
    assert pass_hat_k([5, 4, 3, 2], 5, 1) == 14 / 20


@pytest.mark.parametrize(("runs", "k", "p"), [(5, 3, 0.7), (10, 4, 0.35), (3, 3, 0.9)])
def test_unbiased_for_p_to_the_k(runs, k, p) -> None:
    # E[C(c, k) / C(R, k)] over c ~ Binomial(R, p) equals p^k (scipy.stats.binom oracle).
    c = np.arange(runs + 1)
    values = pass_hat_k_per_item(c, runs, k)
    assert_allclose(np.sum(stats.binom.pmf(c, runs, p) * values), p**k, rtol=1e-12)


def test_exact_for_large_runs() -> None:
    # C(60, 30) / C(64, 30) needs exact integers: 60!/(30! 30!) * 30! 34!/64!.
    expected = Fraction(comb(60, 30), comb(64, 30))
    assert pass_hat_k_per_item([60], 64, 30)[0] == float(expected)
    assert pass_hat_k([60, 64], 64, 30) == float((expected + 1) / 2)


def test_k_of_one_is_accuracy() -> None:
    # The seed prints pass^1 equal to accuracy (0.644 for the short arm): C(c, 1)/C(R, 1) = c/R.
    counts = [2, 2, 2, 3, 3, 3, 3, 4, 4]
    assert pass_hat_k(counts, 5, 1) == pytest.approx(np.mean(counts) / 5, rel=1e-15)


@pytest.mark.parametrize(
    ("counts", "runs", "k", "match"),
    [([1, 2], 3, 4, "k must be at most runs"), ([1, 4], 3, 1, "between 0 and runs"),
     ([1.5], 3, 1, "integer"), ([1], 3, 0, "k must be at least 1"), ([], 3, 1, "at least 1")],
)
def test_rejects_bad_input(counts, runs, k, match) -> None:
    with pytest.raises(ValueError, match=match):
        pass_hat_k(counts, runs, k)
