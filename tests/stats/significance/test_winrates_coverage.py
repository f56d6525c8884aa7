"""Seeded level checks under the null (marked slow; a few seconds)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from assay.stats.significance import cluster_permutation_test, cluster_t_test

pytestmark = pytest.mark.slow


def _null_win_rates(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Question-level win rates with mean 1/2 in 15 documents that share a strong effect."""
    sizes = rng.integers(2, 9, size=15)
    cluster = np.repeat(np.arange(15), sizes)
    effect = rng.normal(0, 0.15, size=15)[cluster]
    w = np.clip(0.5 + effect + rng.normal(0, 0.2, size=cluster.size), 0, 1)  # symmetric: mean 1/2
    return w, cluster


def test_cluster_t_holds_its_level_where_the_item_t_test_does_not() -> None:
    rng = np.random.default_rng(20240611)
    reps, hits_cluster, hits_items = 2000, 0, 0
    for _ in range(reps):
        w, cluster = _null_win_rates(rng)
        sums = np.bincount(cluster, weights=w - 0.5)
        sizes = np.bincount(cluster).astype(float)
        hits_cluster += cluster_t_test(sums, sizes).p_value < 0.05
        hits_items += stats.ttest_1samp(w, 0.5).pvalue < 0.05
    assert stats.binomtest(hits_cluster, reps, 0.05).pvalue > 0.01
    assert hits_items / reps > 0.15  # items as independent units reject far too often


def test_cluster_permutation_holds_its_level() -> None:
    rng = np.random.default_rng(99)
    reps, hits = 400, 0
    for _ in range(reps):
        w, cluster = _null_win_rates(rng)
        hits += cluster_permutation_test(w - 0.5, cluster, n_resamples=199, rng=rng).p_value <= 0.05
    assert stats.binomtest(hits, reps, 0.05).pvalue > 0.01
