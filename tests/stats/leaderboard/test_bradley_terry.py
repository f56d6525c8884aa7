"""Bradley-Terry ratings: hand computations, Arena's logistic regression in statsmodels, and the
cluster bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assay.stats.leaderboard import bradley_terry, bradley_terry_bootstrap


def test_two_arms_rating_gap_is_400_log10_of_the_odds() -> None:
    # a beats b 3 times, loses once: the MLE odds are 3, the gap 400 log10 3 = 190.85
    fit = bradley_terry([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0], n_arms=2)
    assert fit.converged
    assert fit.ratings[0] - fit.ratings[1] == pytest.approx(400 * math.log10(3), abs=1e-8)
    assert fit.ratings.mean() == pytest.approx(1000.0, abs=1e-9)


def test_a_tie_counts_half_a_win_each_way() -> None:
    # two wins and a tie for a: 2.5 wins against 0.5, odds 5
    fit = bradley_terry([0, 0, 1], [1, 1, 0], [1, 1, 0.5], n_arms=2)
    assert fit.ratings[0] - fit.ratings[1] == pytest.approx(400 * math.log10(5), abs=1e-8)
    # the order of the two arms in a battle carries no meaning (position-symmetrised)
    swapped = bradley_terry([1, 1, 0], [0, 0, 1], [0, 0, 0.5], n_arms=2)
    np.testing.assert_allclose(swapped.ratings, fit.ratings, atol=1e-9)


def test_a_balanced_cycle_rates_every_arm_1000_and_the_anchor_shifts_all() -> None:
    # a > b, b > c, c > a, each once and the reverse once: no arm is better
    a, b = [0, 1, 2, 1, 2, 0], [1, 2, 0, 0, 1, 2]
    y = [1, 1, 1, 0, 0, 0]
    np.testing.assert_allclose(bradley_terry(a, b, y, n_arms=3).ratings, 1000.0, atol=1e-9)
    fit = bradley_terry([0, 0, 1], [1, 2, 2], [1, 0.5, 0], n_arms=3)
    pinned = bradley_terry([0, 0, 1], [1, 2, 2], [1, 0.5, 0], n_arms=3, anchor=(2, 1114.0))
    assert pinned.ratings[2] == pytest.approx(1114.0)
    np.testing.assert_allclose(np.diff(pinned.ratings), np.diff(fit.ratings), atol=1e-9)


def test_matches_arena_logistic_regression_in_statsmodels() -> None:
    """Arena's construction: every battle in both orders, wins doubled, a tie once each way;
    a logistic regression without intercept (one arm's coefficient fixed at 0)."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(7)
    strength = np.array([0.9, 0.2, 0.0, -0.4, -1.0])
    n = 600
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    u = rng.random(n)
    y = np.where(u < 0.85 * p, 1.0, np.where(u < 0.85 * p + 0.15, 0.5, 0.0))
    X, Y = [], []
    for ai, bi, yi in zip(a, b, y, strict=True):
        for first, second, win in ((ai, bi, yi), (bi, ai, 1 - yi)):
            row = np.zeros(5)
            row[first], row[second] = 1.0, -1.0
            # wins weighted 2, a tie as one win and one loss
            for label, times in ((1, round(2 * win)), (0, round(2 * (1 - win)))):
                X.extend([row] * times)
                Y.extend([label] * times)
    X = np.array(X)[:, 1:]  # arm 0 as the reference
    res = sm.Logit(np.array(Y), X).fit(disp=0, tol=1e-12)
    beta = np.concatenate([[0.0], res.params])
    expected = 400 / math.log(10) * (beta - beta.mean()) + 1000
    fit = bradley_terry(a, b, y, n_arms=5)
    np.testing.assert_allclose(fit.ratings, expected, atol=1e-6)


def test_an_arm_that_never_loses_is_flagged_as_not_converged() -> None:
    fit = bradley_terry([0, 0, 1], [1, 1, 2], [1, 1, 0.5], n_arms=3)
    assert not fit.converged


def test_an_arm_without_battles_is_nan() -> None:
    fit = bradley_terry([0, 1], [1, 0], [1, 1], n_arms=3)
    assert math.isnan(fit.ratings[2])
    np.testing.assert_allclose(fit.ratings[:2], 1000.0)


def _battles(seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    strength = np.array([0.6, 0.3, 0.0, -0.8])
    a, b, y, c = [], [], [], []
    for q in range(30):
        for i in range(4):
            for j in range(i + 1, 4):
                p = 1 / (1 + np.exp(-(strength[i] - strength[j])))
                a.append(i), b.append(j), y.append(float(rng.random() < p)), c.append(q)
    return np.array(a), np.array(b), np.array(y), np.array(c)


def test_bootstrap_resamples_whole_questions() -> None:
    """A question judged twice (a second run) is one draw: its intervals do not narrow.

    Doubling every battle inside its question doubles each resample's win matrix, which has
    the same MLE; a bootstrap of single battles would narrow the interval by about 1/sqrt(2).
    """
    a, b, y, c = _battles(3)
    once = bradley_terry_bootstrap(a, b, y, c, n_arms=4, n_resamples=200, rng=5)
    twice = bradley_terry_bootstrap(np.tile(a, 2), np.tile(b, 2), np.tile(y, 2), np.tile(c, 2),
                                    n_arms=4, n_resamples=200, rng=5)
    np.testing.assert_allclose(twice.lower, once.lower, atol=1e-6)
    np.testing.assert_allclose(twice.upper, once.upper, atol=1e-6)
    assert once.n_clusters == 30 and once.n_resamples == 200


def test_bootstrap_intervals_cover_the_fit_and_rank_intervals_hold_the_rank() -> None:
    a, b, y, c = _battles(11)
    res = bradley_terry_bootstrap(a, b, y, c, n_arms=4, n_resamples=300, rng=2)
    assert np.all(res.lower < res.fit.ratings) and np.all(res.fit.ratings < res.upper)
    assert np.all(res.rank_lower <= res.rank) and np.all(res.rank <= res.rank_upper)
    assert res.rank_lower.min() == 1 and res.rank_upper.max() == 4
    again = bradley_terry_bootstrap(a, b, y, c, n_arms=4, n_resamples=300, rng=2)
    np.testing.assert_array_equal(again.lower, res.lower)


@pytest.mark.parametrize("kwargs, message", [
    (dict(arm_a=[0], arm_b=[0], outcome=[1]), "differ"),
    (dict(arm_a=[0], arm_b=[1], outcome=[2]), r"\[0, 1\]"),
    (dict(arm_a=[0], arm_b=[3], outcome=[1]), "arm indices"),
])
def test_invalid_battles_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bradley_terry(n_arms=2, **kwargs)
