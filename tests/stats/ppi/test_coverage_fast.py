"""A fast seeded coverage check of the clustered PPI++ interval against the naive judge one,
with a judge generous to one system (bench/coverage_ppi.py's model, fewer replicates)."""

from __future__ import annotations

import numpy as np
from bench.coverage_ppi import coverage
from scipy.stats import binomtest


def test_ppi_covers_where_the_judge_only_interval_does_not() -> None:
    res = coverage("by system", "items", 150, seed=7)
    for target in ("B", "A-B"):
        hits = round(res[f"{target} ppi++"][0] * 150)
        assert binomtest(hits, 150, 0.95).pvalue > 0.01, (target, hits)
        assert res[f"{target} judge"][0] < 0.5  # the biased judge's own interval misses
        assert res[f"{target} ppi++"][1] < res[f"{target} humans"][1]  # narrower than humans
    assert np.isfinite(res["B ppi++"][1])


def test_the_pairwise_preference_cell_too() -> None:
    res = coverage("preference", "clusters", 150, seed=7)
    hits = round(res["win ppi++"][0] * 150)
    assert binomtest(hits, 150, 0.95).pvalue > 0.01, hits
    assert res["win judge"][0] < 0.5  # the judge leaning to B misses the human win rate
    assert res["win ppi++"][1] < res["win humans"][1]
