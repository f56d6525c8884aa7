"""Exact agreement rate (ACR) and the positional flip rate, by direct enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.stats.agreement import agreement_rate, position_flip_rate


def test_agreement_rate_hand_worked() -> None:
    res = agreement_rate([0, 1, 2, 2, 1], [0, 1, 1, 2, np.nan])
    assert (res.estimate, res.n, res.n_agree, res.undefined) == (0.75, 4, 3, None)
    res = agreement_rate([np.nan], [1])
    assert np.isnan(res.estimate) and res.undefined == "no_units" and res.n == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, np.nan]),
                          st.sampled_from([0.0, 0.5, 1.0, np.nan])), min_size=1, max_size=40))
def test_agreement_rate_matches_a_loop(pairs) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    both = [(x, y) for x, y in pairs if not (np.isnan(x) or np.isnan(y))]
    res = agreement_rate(a, b)
    assert res.n == len(both)
    if both:
        assert res.estimate == sum(x == y for x, y in both) / len(both)


def _verdict(s: float) -> int:
    return 1 if s > 0.5 else -1 if s < 0.5 else 0


def _enumerate(first, second, comparison):
    """Flip, reversal, first-shown share and after-rate, counted one case at a time."""
    n = len(first)
    flips = sum(_verdict(f) != _verdict(s) for f, s in zip(first, second, strict=True))
    reversals = sum(_verdict(f) * _verdict(s) == -1 for f, s in zip(first, second, strict=True))
    won_first = decisive = 0
    for f, s in zip(first, second, strict=True):
        # trial 1: the arm is shown first; trial 2: the opponent is shown first
        for shown_first_wins, verdict in ((_verdict(f) == 1, _verdict(f)),
                                          (_verdict(s) == -1, _verdict(s))):
            if verdict != 0:
                decisive += 1
                won_first += shown_first_wins
    differ = total = 0
    for i, j in itertools.combinations(range(n), 2):
        if comparison[i] == comparison[j]:
            total += 1
            differ += _verdict((first[i] + second[i]) / 2) != _verdict((first[j] + second[j]) / 2)
    return flips / n, reversals / n, (won_first / decisive if decisive else np.nan), \
        (differ / total if total else np.nan), total


def test_flip_rate_hand_worked() -> None:
    # pairs: (W, W) consistent; (W, L) reversal; (T, L) flip; (L, L) consistent -> PFR 2/4,
    # reversals 1/4. Averages 1, .5, .25, 0 -> verdicts W, T | L, L: comparison A differs, B
    # agrees: after = 1/2 over 2 pairs of trial pairs. First-shown answer won 5 of 7 decisive.
    res = position_flip_rate([1, 1, 0.5, 0], [1, 0, 0, 0], comparison=["A", "A", "B", "B"])
    assert (res.estimate, res.n, res.n_flips, res.reversal_rate) == (0.5, 4, 2, 0.25)
    assert (res.after_swap_average, res.n_after, res.n_comparisons) == (0.5, 2, 2)
    assert res.n_decisive == 7 and res.first_shown_preference == pytest.approx(5 / 7)


def test_a_judge_that_always_picks_the_first_answer() -> None:
    # Always prefers position 1: the arm wins when first (1) and loses when second (0).
    res = position_flip_rate([1, 1, 1], [0, 0, 0], comparison=["a", "b", "c"])
    assert res.estimate == 1.0 and res.reversal_rate == 1.0
    assert res.first_shown_preference == 1.0
    assert np.isnan(res.after_swap_average) and res.after_undefined == "no_repeated_trial_pairs"
    # Two trial pairs per comparison: every averaged verdict is a tie -> no flip after.
    res = position_flip_rate([1, 1, 1, 1], [0, 0, 0, 0], comparison=["a", "a", "b", "b"])
    assert res.after_swap_average == 0.0 and res.n_after == 2


def test_graded_preferences_are_read_by_side_of_one_half() -> None:
    res = position_flip_rate([0.9, 0.6, 0.5], [0.7, 0.4, 0.5])
    assert res.n_flips == 1 and res.reversal_rate == pytest.approx(1 / 3)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
                          st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),
                          st.integers(0, 4)), min_size=1, max_size=25))
def test_flip_rate_matches_enumeration(rows) -> None:
    first = [r[0] for r in rows]
    second = [r[1] for r in rows]
    comparison = [r[2] for r in rows]
    res = position_flip_rate(first, second, comparison=comparison)
    flip, reversal, share, after, total = _enumerate(first, second, comparison)
    assert_allclose([res.estimate, res.reversal_rate], [flip, reversal], rtol=1e-12)
    assert_allclose(res.first_shown_preference, share, rtol=1e-12)
    assert_allclose(res.after_swap_average, after, rtol=1e-12)
    assert res.n_after == total
    # swapping which arm is "the arm" (1 - s for both trials, orders exchanged) changes nothing
    mirrored = position_flip_rate([1 - s for s in second], [1 - f for f in first],
                                  comparison=comparison)
    assert_allclose([mirrored.estimate, mirrored.reversal_rate, mirrored.first_shown_preference],
                    [res.estimate, res.reversal_rate, res.first_shown_preference], rtol=1e-12)


def test_flip_rate_empty_and_bad_input() -> None:
    res = position_flip_rate([], [])
    assert np.isnan(res.estimate) and res.undefined == "no_units"
    with pytest.raises(ValueError, match="same length"):
        position_flip_rate([1, 0], [1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        position_flip_rate([1.5], [0])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        position_flip_rate([np.nan], [0])
    with pytest.raises(ValueError, match="one label per trial pair"):
        position_flip_rate([1, 0], [1, 0], comparison=["a"])
