"""Sampling over strata: allocations worked by hand, and what each strategy guarantees."""

from __future__ import annotations

from collections import Counter

import pytest

from assay.datapoints import equal_allocation, proportional_allocation, sample_indices

# 3 strata of 60, 30 and 10 items
STRATA = ["a"] * 60 + ["b"] * 30 + ["c"] * 10


def test_allocations_worked_by_hand():
    # proportional: 20 x (0.6, 0.3, 0.1) = 12, 6, 2 exactly
    assert proportional_allocation([60, 30, 10], 20) == [12, 6, 2]
    # 9 x (0.6, 0.3, 0.1) = 5.4, 2.7, 0.9: floors 5, 2, 0; the two largest remainders
    # (0.9 of c, 0.7 of b) get the 2 left
    assert proportional_allocation([60, 30, 10], 9) == [5, 3, 1]
    # equal: 20 / 3 = 6 r 2 -> 7, 7, 6
    assert equal_allocation([60, 30, 10], 20) == [7, 7, 6]
    # 40 / 3 = 13 r 1 -> 14, 13, 10 (c has 10), then the 3 left shared by a and b: 16, 14
    assert equal_allocation([60, 30, 10], 40) == [16, 14, 10]
    assert sum(equal_allocation([5, 0, 7], 100)) == 12


@pytest.mark.parametrize("strategy, expected", [
    ("frequency", {"a": 12, "b": 6, "c": 2}),
    ("stratified", {"a": 7, "b": 7, "c": 6}),
])
def test_each_stratum_gets_its_allocation(strategy, expected):
    chosen = sample_indices(STRATA, 20, strategy, seed=42)
    assert Counter(STRATA[i] for i in chosen) == expected
    assert len(set(chosen)) == 20 and chosen == sorted(chosen)


def test_random_is_reproducible_with_its_seed_and_differs_with_another():
    one = sample_indices(STRATA, 20, "random", seed=1)
    assert one == sample_indices(STRATA, 20, "random", seed=1)
    assert one != sample_indices(STRATA, 20, "random", seed=2)
    assert len(set(one)) == 20


def test_stratified_covers_every_stratum_when_the_sample_can():
    strata = ["x"] * 500 + [f"rare{i}" for i in range(9)]
    covered = {strata[i] for i in sample_indices(strata, 10, "stratified", seed=3)}
    assert len(covered) == 10
    # a random sample of 10 from 509 items almost never reaches the 9 rare strata
    assert len({strata[i] for i in sample_indices(strata, 10, "random", seed=3)}) < 10


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="strategy"):
        sample_indices(STRATA, 5, "systematic", seed=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1"):
        sample_indices(STRATA, 0, "random", seed=1)
