"""mdd (hand value, noncentral-t check) and bisect_p_value."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

from assay.stats import bisect_p_value, mdd, paired_difference_interval


def test_mdd_hand_worked() -> None:
    # (t_{11,0.975} + t_{11,0.8}) * 0.04 = (2.200985 + 0.875530) * 0.04 = 0.123061.
    value = mdd(0.04, 11, alpha=0.025)
    assert_allclose(value, (stats.t.ppf(0.975, 11) + stats.t.ppf(0.8, 11)) * 0.04, rtol=1e-14)
    assert round(value, 6) == 0.123061


@pytest.mark.parametrize(("df", "alpha", "power"), [(11, 0.025, 0.8), (39, 0.05, 0.9)])
def test_mdd_gives_about_the_stated_power(df, alpha, power) -> None:
    # At a true difference of MDD the one-sided t test rejects with probability
    # P(T' > t_{df,1-alpha}), T' noncentral t with noncentrality MDD / SE; the MDD formula is
    # the usual approximation to it, close to `power` (within 0.02 here).
    se = 0.03
    achieved = stats.nct.sf(stats.t.ppf(1 - alpha, df), df, mdd(se, df, alpha=alpha,
                                                                 power=power) / se)
    assert abs(achieved - power) < 0.02


def test_mdd_is_nan_without_variance_and_rejects_bad_input() -> None:
    assert math.isnan(mdd(0.0, 11, alpha=0.025))
    with pytest.raises(ValueError, match="standard_error"):
        mdd(-0.1, 11, alpha=0.025)
    with pytest.raises(ValueError, match="alpha"):
        mdd(0.1, 11, alpha=1.5)
    with pytest.raises(ValueError, match="df"):
        mdd(0.1, 0, alpha=0.05)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-6, 0.5))
def test_bisect_finds_the_threshold(threshold) -> None:
    calls = []

    def passes(level: float) -> bool:
        calls.append(level)
        return level >= threshold

    p = bisect_p_value(passes)
    if threshold <= 1e-6:
        assert p == 1e-6
    else:
        assert threshold <= p <= threshold + 1e-9
    assert len(calls) <= 2 + math.ceil(math.log2(0.5 / 1e-9))


def test_bisect_ends() -> None:
    assert bisect_p_value(lambda level: True) == 1e-6
    assert bisect_p_value(lambda level: True, floor=1 / 2001) == 1 / 2001
    assert bisect_p_value(lambda level: False) == 1.0
    assert bisect_p_value(lambda level: level >= 0.5) == 0.5


def test_bisect_recovers_a_t_test_p_value() -> None:
    # The one-sided lower bound d - t_{C-1,1-level} se exceeds -margin exactly when
    # level > P(T_{C-1} > (d + margin) / se): the bisection returns that p-value.
    sums = [0.5, -0.2, 0.3, 0.1, 0.4, 0.0]
    sizes = [2, 2, 3, 1, 2, 2]
    margin = 0.05
    res = paired_difference_interval(sums, sizes)

    def passes(level: float) -> bool:
        bound = paired_difference_interval(sums, sizes, conf=1 - level, alternative="greater")
        return bound.lower > -margin

    expected = stats.t.sf((res.estimate + margin) / res.standard_error, 5)
    assert_allclose(bisect_p_value(passes), expected, atol=2e-9)


def test_bisect_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="floor"):
        bisect_p_value(lambda level: True, floor=0.5)
    with pytest.raises(ValueError, match="tol"):
        bisect_p_value(lambda level: True, tol=0)
    with pytest.raises(ValueError, match="max_iter"):
        bisect_p_value(lambda level: True, max_iter=0)
