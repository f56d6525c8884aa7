"""Per (criterion, judge) statistics over runs, and the interval over items beside them.

The results aggregator's numbers: the run-level means, their mean, median, sample SD, range and a
percentile bootstrap over the run means. Beside them an interval over items that respects
clusters, because a handful of run means says how repeatable the judging was, not how
precisely the questions pin the mean down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.analysis._mean_rule import RAW_T, mean_interval

RUN_CI_METHOD = "percentile_bootstrap_over_run_means"
ITEMS_CI_METHOD = RAW_T  # "cluster_robust_t": the raw-scale rule's own label


@dataclass(frozen=True)
class ItemsInterval:
    """Mean score over items with a cluster-robust t interval on the raw score scale.

    Runs (and arms, when several are pooled) are averaged within an item; items are summed
    within their cluster; the ratio estimator and its CR2 variance over clusters give the
    standard error, and the interval uses Student's t with the Bell-McCaffrey df (C - 1 when
    the clusters have one size; :func:`~assay.stats.intervals.cr2_ratio_estimate`).
    """

    estimate: float
    """Mean over items of the item means (raw score scale)."""
    lower: float
    """Lower bound; NaN when ``method`` says the interval is undefined."""
    upper: float
    """Upper bound; NaN when ``method`` says the interval is undefined."""
    standard_error: float
    """sqrt(V2), the CR2 standard error of the ratio estimator; NaN below 2 clusters."""
    df: float | None
    """Bell-McCaffrey degrees of freedom (C - 1 with equal clusters); None below 2 clusters."""
    method: str
    """``"cluster_robust_t"``, or ``"too_few_clusters"`` / ``"undefined_no_cluster_variance"``
    when the interval cannot be formed."""
    conf: float
    """Two-sided confidence level."""
    n_items: int
    """Items with at least one score."""
    n_clusters: int
    """Clusters those items come in."""
    effective_clusters: float | None = None
    """G*, the benchmark's effective number of clusters; None below 2 clusters."""
    flag_note: str | None = None
    """The benchmark's note of a flagged design (few effective clusters of unequal size)."""

    @property
    def design_flagged(self) -> bool:
        return self.flag_note is not None


@dataclass(frozen=True)
class RunStatistics:
    """The results aggregator's run-level statistics of one (criterion, judge)."""

    runs: tuple[int, ...]
    """Run numbers with at least one score, ascending."""
    per_run_scores: tuple[float, ...]
    """Mean score of each run over all its scored items and arms, in the order of ``runs``."""
    mean: float
    """Mean of ``per_run_scores``."""
    median: float
    """Median of ``per_run_scores``."""
    std_dev: float
    """Sample standard deviation (ddof = 1) of ``per_run_scores``; NaN with a single run."""
    minimum: float
    """``min`` in aggregated.json."""
    maximum: float
    """``max`` in aggregated.json."""
    ci_lower: float
    """Percentile bootstrap over the run means (the results aggregator); NaN with a single run."""
    ci_upper: float
    """Percentile bootstrap over the run means (the results aggregator); NaN with a single run."""


NO_RUNS = RunStatistics(runs=(), per_run_scores=(), mean=math.nan, median=math.nan,
                        std_dev=math.nan, minimum=math.nan, maximum=math.nan, ci_lower=math.nan,
                        ci_upper=math.nan)
"""The statistics of a (criterion, judge) without a scored row."""


def run_statistics(frame: pd.DataFrame, *, n_resamples: int, seed: int,
                   conf: float) -> RunStatistics:
    """Per-run means of ``score`` and the results aggregator's statistics over them.

    ``frame`` holds the scored rows of one (criterion, judge). std_dev is NaN with a single
    run, and so are the bootstrap bounds.
    """
    per_run = frame.groupby("run", sort=True)["score"].mean()
    runs = tuple(int(r) for r in per_run.index)
    scores = per_run.to_numpy(dtype=np.float64)
    lower, upper = percentile_bootstrap_mean(scores, n_resamples=n_resamples, seed=seed,
                                             conf=conf)
    return RunStatistics(
        runs=runs, per_run_scores=tuple(float(s) for s in scores), mean=float(scores.mean()),
        median=float(np.median(scores)),
        std_dev=float(np.std(scores, ddof=1)) if len(scores) > 1 else math.nan,
        minimum=float(scores.min()), maximum=float(scores.max()), ci_lower=lower, ci_upper=upper)


def percentile_bootstrap_mean(values: npt.NDArray[np.float64], *, n_resamples: int, seed: int,
                              conf: float) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (the results aggregator's CI).

    ``n_resamples`` resamples of len(values) values drawn with replacement by
    ``numpy.random.default_rng(seed).integers``, the mean of each, and the (1 - conf)/2 and
    (1 + conf)/2 quantiles of those means by numpy's default (linear) interpolation. A fresh
    generator per call, so each (criterion, judge) gets the same interval whatever else is
    in the table. NaN bounds with fewer than two values.

    >>> percentile_bootstrap_mean(np.array([1.0, 2.0]), n_resamples=10_000, seed=42, conf=0.95)
    (1.0, 2.0)
    """
    if len(values) < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(values), size=(n_resamples, len(values)))
    means = values[draws].mean(axis=1)
    low, high = np.percentile(means, [100 * (1 - conf) / 2, 100 * (1 + conf) / 2])
    return float(low), float(high)


def items_interval(frame: pd.DataFrame, *, conf: float, what: str = "") -> ItemsInterval:
    """Cluster-robust t interval over items of the scored rows in ``frame`` (raw scale)."""
    items = frame.groupby(["cluster", "item"], sort=False)["score"].mean()
    clusters = items.groupby(level="cluster", sort=False)
    sums = clusters.sum().to_numpy(dtype=np.float64)
    sizes = clusters.size().to_numpy(dtype=np.float64)
    nan = math.nan
    n_items, n_clusters = len(items), len(sums)
    if n_clusters < 2:
        estimate = float(sums.sum() / sizes.sum()) if n_clusters else nan
        return ItemsInterval(estimate=estimate, lower=nan, upper=nan, standard_error=nan,
                             df=None, method="too_few_clusters", conf=conf, n_items=n_items,
                             n_clusters=n_clusters)
    sumsq = (items**2).groupby(level="cluster", sort=False).sum().to_numpy(dtype=np.float64)
    # the raw-scale rule of every report (the scores report's interval-scale rows), with the
    # benchmark's design flag
    res = mean_interval(sums, sizes, sumsq, conf=conf, bounded=False, what=what)
    # its method is the rule's (the CR2 t, with the suffix _independent_df in a flagged design)
    return ItemsInterval(estimate=res.estimate, lower=res.lower, upper=res.upper,
                         standard_error=res.standard_error, df=res.df, method=res.method, conf=conf,
                         n_items=n_items, n_clusters=n_clusters,
                         effective_clusters=res.effective_clusters, flag_note=res.flag_note)
