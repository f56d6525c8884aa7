"""Benchmark frames for the tests of assay.analysis.benchmark._report."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
import pytest

BenchFactory = Callable[..., pd.DataFrame]


def build_bench(
    *,
    n_docs: int = 12,
    per_doc: int = 3,
    arms: Sequence[str] = ("short", "long"),
    accuracy: Sequence[float] = (0.7, 0.8),
    runs: int = 5,
    seed: int = 2,
    usd: Sequence[float] | None = (0.001, 0.004),
    cluster_effect: float = 0.0,
) -> pd.DataFrame:
    """Seed 003's example design: documents with questions, arms, runs; numpy randomness.

    With ``cluster_effect`` > 0 each document shifts every arm's chance of a right
    answer by a shared normal amount on the logit scale, so clusters matter.
    """
    rng = np.random.default_rng(seed)
    n_items = n_docs * per_doc
    grid = pd.MultiIndex.from_product(
        [np.arange(1, n_items + 1), list(arms), np.arange(1, runs + 1)],
        names=["item", "arm", "run"]).to_frame(index=False)
    doc = (grid["item"].to_numpy() - 1) // per_doc
    grid["cluster"] = "doc" + pd.Series(doc + 1).astype(str)
    grid["item"] = "q" + grid["item"].astype(str)
    arm_index = pd.Categorical(grid["arm"], categories=list(arms)).codes
    base = np.asarray(accuracy, dtype=float)[arm_index]
    if cluster_effect > 0:
        shift = rng.normal(0.0, cluster_effect, n_docs)[doc]
        logit = np.log(base / (1 - base)) + shift
        base = 1.0 / (1.0 + np.exp(-logit))
    grid["correct"] = rng.random(len(grid)) < base
    if usd is not None:
        grid["usd"] = np.asarray(usd, dtype=float)[arm_index]
    return grid


@pytest.fixture(scope="session")
def make_bench() -> BenchFactory:
    return build_bench


@pytest.fixture
def example_bench() -> pd.DataFrame:
    """12 documents with 3 questions each, arms short (0.7) and long (0.8), 5 runs."""
    return build_bench()
