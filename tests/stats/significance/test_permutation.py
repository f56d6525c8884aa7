"""Clustered permutation test against brute-force enumeration of every sign pattern."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.stats.significance import cluster_permutation_test


def _brute_force(d: np.ndarray, clusters: np.ndarray, alternative: str = "two-sided") -> float:
    """p = share of the 2^C cluster sign patterns at least as extreme as the observed mean."""
    labels = list(dict.fromkeys(clusters.tolist()))
    t_obs = d.mean()
    hits = 0
    patterns = list(itertools.product([-1.0, 1.0], repeat=len(labels)))
    for signs in patterns:
        flip = dict(zip(labels, signs, strict=True))
        t = np.mean([flip[c] * x for x, c in zip(d, clusters, strict=True)])
        if alternative == "greater":
            hits += t >= t_obs - 1e-12
        elif alternative == "less":
            hits += t <= t_obs + 1e-12
        else:
            hits += abs(t) >= abs(t_obs) - 1e-12
    return hits / len(patterns)


@st.composite
def assertions(draw: st.DrawFn):
    """Assertion-level paired differences (-1, 0, 1) in 2-9 questions of 1-4 assertions."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=9))
    n = sum(sizes)
    d = draw(st.lists(st.sampled_from([-1.0, 0.0, 1.0]), min_size=n, max_size=n))
    return np.array(d), np.repeat([f"q{i}" for i in range(len(sizes))], sizes)


def test_hand_worked() -> None:
    # question sums D = (1, 0.5, -0.25) over N = 6: T = 1.25/6. Patterns (+,+,+) = 1.25,
    # (+,+,-) = 1.75 and their negations reach |1.25|; (+,-,+) = 0.25 and (+,-,-) = 0.75 do
    # not: 4 of 8.
    res = cluster_permutation_test([1, 0, 0.5, 0, -0.25, 0], ["a", "a", "b", "b", "c", "c"],
                                   method="exact")
    assert (res.n_extreme, res.n_resamples, res.p_value, res.n, res.n_clusters) == (4, 8, 0.5, 6, 3)
    assert_allclose(res.estimate, 1.25 / 6, rtol=1e-14)
    greater = cluster_permutation_test([1, 0, 0.5, 0, -0.25, 0], ["a", "a", "b", "b", "c", "c"],
                                       method="exact", alternative="greater")
    assert greater.n_extreme == 2  # 1.25 and 1.75


@settings(max_examples=80, deadline=None)
@given(assertions(), st.sampled_from(["two-sided", "greater", "less"]))
def test_exact_matches_brute_force(data, alternative) -> None:
    d, clusters = data
    res = cluster_permutation_test(d, clusters, method="exact", alternative=alternative)
    assert_allclose(res.p_value, _brute_force(d, clusters, alternative), rtol=1e-12)


def test_monte_carlo_is_close_to_exact_and_never_zero() -> None:
    rng = np.random.default_rng(8)
    sizes = rng.integers(1, 6, size=20)
    clusters = np.repeat(np.arange(20), sizes)
    d = rng.choice([-1.0, 0.0, 1.0], p=[0.25, 0.4, 0.35], size=clusters.size)
    exact = cluster_permutation_test(d, clusters, method="exact")
    # P = 200000 sign patterns of 20 clusters are drawn in 4 blocks; the Monte Carlo
    # standard error is at most 0.0011
    mc = cluster_permutation_test(d, clusters, n_resamples=200_000, rng=1)
    assert 0.01 < exact.p_value < 0.99
    assert abs(mc.p_value - exact.p_value) < 4 * math.sqrt(0.25 / 200_000) + 1 / 200_000
    assert mc.p_value == (1 + mc.n_extreme) / (200_000 + 1)
    # a strong effect: no random pattern reaches T, yet p is 1 / (P + 1), not 0
    strong = cluster_permutation_test(np.ones(40), np.arange(40), n_resamples=999, rng=3)
    assert strong.n_extreme == 0 and strong.p_value == 1 / 1000


def test_seeded_and_reproducible_across_blocks() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.05, 1, size=3000)  # 3000 clusters: sign matrices built in many blocks
    a = cluster_permutation_test(d, n_resamples=5_000, rng=42)
    b = cluster_permutation_test(d, n_resamples=5_000, rng=np.random.default_rng(42))
    assert a == b


@settings(max_examples=40, deadline=None)
@given(assertions(), st.randoms(use_true_random=False))
def test_relabelling_and_reordering_clusters_changes_nothing(data, random) -> None:
    d, clusters = data
    base = cluster_permutation_test(d, clusters, method="exact")
    order = list(range(d.size))
    random.shuffle(order)
    renamed = np.array(["z" + c for c in clusters])[order]
    other = cluster_permutation_test(d[order], renamed, method="exact")
    assert other.p_value == base.p_value
    # the question sums as single observations give the same test, only T is rescaled
    sums = [d[clusters == c].sum() for c in dict.fromkeys(clusters.tolist())]
    summed = cluster_permutation_test(sums, method="exact")
    assert summed.p_value == base.p_value


def test_same_difference_in_every_cluster_reaches_the_floor() -> None:
    # every cluster's mean difference is 0.5: only all-plus and all-minus reach |T|
    res = cluster_permutation_test([0.5, 1.0, 0.5, 1.5], ["a", "b", "c", "b"], method="exact")
    assert res.p_value == 2 / 8


def test_errors() -> None:
    with pytest.raises(ValueError, match="clusters"):
        cluster_permutation_test([1.0, 2.0], ["a"])
    with pytest.raises(ValueError, match="method"):
        cluster_permutation_test([1.0, 2.0], method="bootstrap")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="monte_carlo"):
        cluster_permutation_test(np.ones(25), method="exact")
    with pytest.raises(ValueError, match="n_resamples"):
        cluster_permutation_test([1.0, 2.0], n_resamples=0)
    with pytest.raises(ValueError, match="finite"):
        cluster_permutation_test([1.0, np.nan])
