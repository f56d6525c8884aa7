"""MOVER (square-and-add) interval of a difference, checked by hand."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from assay.stats import korn_graubard_interval, mover_difference_interval


def test_symmetric_intervals_without_correlation_give_the_wald_difference() -> None:
    z = stats.norm.ppf(0.975)
    first = (0.5, 0.5 - z * 0.04, 0.5 + z * 0.04)
    second = (0.3, 0.3 - z * 0.03, 0.3 + z * 0.03)
    res = mover_difference_interval(first, second)
    assert res.estimate == pytest.approx(0.2)
    assert res.lower == pytest.approx(0.2 - z * 0.05, rel=1e-12)  # sqrt(0.04^2 + 0.03^2)
    assert res.upper == pytest.approx(0.2 + z * 0.05, rel=1e-12)


def test_correlation_narrows_and_asymmetry_is_kept() -> None:
    first, second = (0.3, 0.2, 0.5), (0.1, 0.05, 0.2)
    res = mover_difference_interval(first, second, correlation=0.5)
    # by hand: L = 0.2 - sqrt(0.01 + 0.01 - 2 (0.5)(0.1)(0.1)), U = 0.2 + sqrt(0.0325)
    assert res.lower == pytest.approx(0.1, rel=1e-12)
    assert res.upper == pytest.approx(0.2 + math.sqrt(0.0325), rel=1e-12)
    plain = mover_difference_interval(first, second)
    assert plain.lower < res.lower and plain.upper > res.upper


def test_korn_graubard_parts_of_a_sparse_difference() -> None:
    # 30 clusters of 5 items; arm 1 right on 4 items in 3 clusters, arm 2 on 1 item.
    sizes = [5.0] * 30
    kg_1 = korn_graubard_interval([2.0, 1.0, 1.0] + [0.0] * 27, sizes)
    kg_2 = korn_graubard_interval([1.0] + [0.0] * 29, sizes)
    res = mover_difference_interval((kg_1.estimate, kg_1.lower, kg_1.upper),
                                    (kg_2.estimate, kg_2.lower, kg_2.upper))
    assert res.estimate == pytest.approx(3 / 150)
    assert res.lower == pytest.approx(
        3 / 150 - math.hypot(kg_1.estimate - kg_1.lower, kg_2.upper - kg_2.estimate))
    assert res.upper - res.estimate > res.estimate - res.lower  # skewed like the parts


@pytest.mark.parametrize("first, second, kwargs, match", [
    ((0.3, 0.4, 0.5), (0.1, 0.0, 0.2), {}, "lower <= estimate"),
    ((0.3, float("nan"), 0.5), (0.1, 0.0, 0.2), {}, "finite"),
    ((0.3, 0.2, 0.5), (0.1, 0.0, 0.2), {"correlation": 1.5}, "correlation"),
])
def test_bad_input_is_refused(first, second, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        mover_difference_interval(first, second, **kwargs)
