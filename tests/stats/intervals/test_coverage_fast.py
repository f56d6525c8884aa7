"""Fast version of bench/coverage_simulation.py: a few hundred seeded replicates per method.

Same generation as the script (cluster accuracy Beta with mean 0.75 and ICC 0.1, item
accuracy Beta around it with ICC 0.5, 5 Bernoulli runs per item, a second arm at 0.70 tied
to the first by a Gaussian copula) and the same truths (accuracy 0.75, difference 0.05).
The bounds are loose: a two-sided binomial test at the 1% level against 95% (cluster_t,
paired, bootstrap) or against the seed's figure (exact 98.5%, bayes 96.5%), so the tests
catch an interval that is badly wrong, not a point of miscalibration; the full script gives
the figures with their Monte Carlo errors. About 10 s in all, so not marked slow.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from scipy import stats

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "coverage_simulation.py"


def _load() -> ModuleType:
    name = "assay_bench_coverage_simulation"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


sim = _load()


def _tally(method: str, design: str, reps: int, seed: int, B: int = 2000):
    sizes = sim.DESIGNS[design].sizes
    data_rng, boot_rng = (np.random.default_rng(s)
                          for s in np.random.SeedSequence(seed).spawn(2))
    chunk = sim.simulate(sizes, reps, data_rng)
    tally = sim.Tally()
    tally.add(sim.intervals(method, chunk, sizes, n=reps, B=B, rng=boot_rng),
              sim.truth(method))
    return tally


def _assert_near(tally, level: float) -> None:
    p = stats.binomtest(tally.hits, tally.reps, level).pvalue
    assert p > 0.01, (f"coverage {tally.coverage:.4f} over {tally.reps} replicates "
                      f"(below {tally.below}, above {tally.above}); binomial test against "
                      f"{level}: p = {p:.2g}")


def test_design_matches_the_seed() -> None:
    assert (sim.LARGE_SIZES.sum(), sim.LARGE_SIZES.size) == (386, 40)
    assert (sim.SMALL_SIZES.sum(), sim.SMALL_SIZES.size) == (50, 10)


def test_generation_is_unbiased_for_the_truth() -> None:
    # The truth is the expected item accuracy MU_A (and MU_A - MU_B for the difference):
    # the mean of the ratio estimates over many replicates must match it.
    sizes = sim.LARGE_SIZES
    chunk = sim.simulate(sizes, 2000, np.random.default_rng(11))
    r_a = chunk.cluster_a.sum(axis=1) / (sim.RUNS * sizes.sum())
    r_b = chunk.cluster_b.sum(axis=1) / (sim.RUNS * sizes.sum())
    for values, target in ((r_a, sim.MU_A), (r_a - r_b, sim.MU_A - sim.MU_B)):
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - target) < 4 * se
    # the arms are positively correlated (the copula), so the pairing matters
    assert np.corrcoef(r_a, r_b)[0, 1] > 0.3


def test_reproducible() -> None:
    a = _tally("cluster_t", "small", 50, seed=5)
    b = _tally("cluster_t", "small", 50, seed=5)
    assert (a.hits, a.est_sum, a.width_sum) == (b.hits, b.est_sum, b.width_sum)


@pytest.mark.parametrize(("method", "design", "reps", "level"), [
    ("cluster_t", "small", 600, 0.95),
    ("paired", "small", 600, 0.95),
    ("paired", "large", 600, 0.95),
    ("exact", "small", 600, 0.985),
])
def test_cheap_methods(method: str, design: str, reps: int, level: float) -> None:
    _assert_near(_tally(method, design, reps, seed=1000 + reps), level)


def test_exact_is_conservative() -> None:
    tally = _tally("exact", "small", 600, seed=2000)
    assert stats.binomtest(tally.hits, tally.reps, 0.95, alternative="less").pvalue > 0.01


def test_studentised_bootstrap() -> None:
    _assert_near(_tally("bootstrap", "large", 400, seed=3000, B=999), 0.95)


def test_bayes_misses_fall_below() -> None:
    tally = _tally("bayes", "small", 150, seed=4000)
    _assert_near(tally, 0.965)
    assert tally.below >= tally.above  # the flat prior on rho pulls mu toward 0.5
