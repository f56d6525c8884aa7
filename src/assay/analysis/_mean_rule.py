"""One interval rule for a mean over clusters, shared by every report that prints one.

A mean score of a criterion, a per-category mean, a win rate: each is a ratio estimator
r = sum_c S_c / sum_c n_c over clusters (runs averaged within an item, items summed within
their cluster), and each report gives it the same interval and the same design flag:

* a bounded mean (a share in [0, 1]: binary scores, a 1-10 range read on [0, 1], a win
  rate): the logit cluster-robust t with the CR2 variance and Bell-McCaffrey df
  (:func:`assay.stats.intervals.cluster_t_interval` with ``variance="CR2"``); where it is
  not defined (r at 0 or 1, or no variance between clusters) the benchmark report's
  fallback, Korn and Graubard's Clopper-Pearson interval on the effective number of items
  (one-sided from the bound at 0 or 1), named in ``method``;
* an interval-scale mean: the CR2 t on the raw scale (Bell and McCaffrey 2002), and no
  interval when the CR2 variance is 0;
* the design flag of the benchmark report: G*, the effective number of clusters at the
  working ICC, and "few effective clusters of unequal size"
  (:func:`assay.analysis.benchmark._design.design_flag_note`), so that one design is
  flagged in every report or in none; and, as in the benchmark report, a flagged design's
  Bell-McCaffrey df come from the independence working model (:func:`df_sumsq`; label
  suffix ``_independent_df``), where the working ICC's df over-cover (98.3-99.25% in the
  Zipf-sized cells of ``bench/coverage_simulation.py``).

Pure numpy/scipy: the small-table path of ``assay report`` reads it without pandas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from assay.analysis.benchmark._design import Design, _flag_note, design_flag_note, design_of
from assay.stats import t_ppf
from assay.stats.intervals import (
    cluster_t_interval,
    cr2_ratio_estimate,
    korn_graubard_interval,
)

FloatArray = npt.NDArray[np.float64]

LOGIT_T = "logit_cluster_robust_t"
RAW_T = "cluster_robust_t"
INDEPENDENT_DF = "_independent_df"
"""Suffix of a method whose Bell-McCaffrey df come from the independence working model
(a flagged design): ``logit_cluster_robust_t_independent_df``,
``cluster_robust_t_independent_df``, as the benchmark report labels them."""
KORN_GRAUBARD = "korn_graubard_clopper_pearson"
NO_VARIANCE = "undefined_no_cluster_variance"
TOO_FEW = "too_few_clusters"


@dataclass(frozen=True)
class MeanInterval:
    """The interval of one mean over clusters under the shared rule."""

    estimate: float
    lower: float
    upper: float
    method: str
    """``logit_cluster_robust_t``, ``korn_graubard_clopper_pearson`` (bounded fallback),
    ``cluster_robust_t`` (raw scale), each t with the suffix ``_independent_df`` in a flagged
    design, ``undefined_no_cluster_variance`` or ``too_few_clusters``."""
    standard_error: float
    """sqrt(V2), the CR2 standard error on the scale of the estimate (NaN below 2 clusters)."""
    df: float
    """Bell-McCaffrey degrees of freedom (NaN below 2 clusters)."""
    n_clusters: int
    effective_clusters: float | None
    """G* at the working ICC; None below 2 clusters."""
    flag_note: str | None
    """The design note of a flagged design (few effective clusters of unequal size)."""

    @property
    def design_flagged(self) -> bool:
        return self.flag_note is not None


def df_sumsq(sumsq: FloatArray, flagged: bool) -> FloatArray | None:
    """The ``sumsq`` argument of the CR2 functions under the one rule: the sums of squares
    (the working ICC's Bell-McCaffrey df, Imbens and Kolesar 2016) unless the design is
    flagged, then None (the independence working model's df, Bell and McCaffrey 2002), as
    the benchmark report's auto rule takes them in a flagged design."""
    return None if flagged else sumsq


def mean_interval(sums: FloatArray, sizes: FloatArray, sumsq: FloatArray, *, conf: float,
                  bounded: bool, what: str = "") -> MeanInterval:
    """The shared interval of r = sum S_c / sum n_c (module doc).

    ``sums``, ``sizes`` and ``sumsq`` are per cluster the sum of the (weighted) item values,
    the sum of the item weights (the items when unweighted) and the weighted sum of squared
    item values; ``what`` names the mean in the design note.

    Three clusters of four items, each with a mean of 1/2: no variance between clusters,
    so the logit t is undefined and the benchmark's Korn-Graubard fallback is named:

    >>> res = mean_interval(np.array([2.0, 2.0, 2.0]), np.array([4.0, 4.0, 4.0]),
    ...                     np.array([2.0, 2.0, 2.0]), conf=0.95, bounded=True)
    >>> res.method, res.estimate
    ('korn_graubard_clopper_pearson', 0.5)
    """
    nan = math.nan
    sums = np.asarray(sums, dtype=np.float64)
    sizes = np.asarray(sizes, dtype=np.float64)
    sumsq = np.asarray(sumsq, dtype=np.float64)
    if sums.size < 2:
        estimate = float(sums.sum() / sizes.sum()) if sizes.size else nan
        return MeanInterval(estimate, nan, nan, TOO_FEW, nan, nan, int(sums.size), None, None)
    design, note = design_flag_note(sums, sumsq, sizes, what=what)
    common = dict(n_clusters=int(sums.size), effective_clusters=design.effective_clusters,
                  flag_note=note)
    df_model, suffix = df_sumsq(sumsq, note is not None), INDEPENDENT_DF if note else ""
    if bounded:
        result = cluster_t_interval(sums, sizes, conf=conf, variance="CR2", sumsq=df_model)
        if not (math.isnan(result.lower) or math.isnan(result.upper)):
            return MeanInterval(result.estimate, result.lower, result.upper, LOGIT_T + suffix,
                                result.standard_error, float(result.df), **common)
        # The benchmark report's fallback (its _korn_graubard_fallback), for binary scores and
        # for shares of a bounded scale alike: a [0, 1] score with mean r has variance at
        # most r(1 - r), so the Clopper-Pearson interval on n* items is conservative.
        # (one-sided from the bound at 0 or 1: korn_graubard_interval turns itself)
        # In a flagged design on G* - 1 design df, as the benchmark's flagged fallback.
        kg = korn_graubard_interval(
            sums, sizes, conf=conf,
            design_df=max(design.effective_clusters - 1.0, 1.0) if note else None)
        return MeanInterval(kg.estimate, kg.lower, kg.upper, kg.method,
                            result.standard_error, float(result.df), **common)
    ratio = cr2_ratio_estimate(sums, sizes, sumsq=df_model)
    if not ratio.standard_error > 0:
        return MeanInterval(ratio.estimate, nan, nan, NO_VARIANCE, ratio.standard_error,
                            float(ratio.df), **common)
    half = t_ppf((1 + conf) / 2, ratio.df) * ratio.standard_error
    return MeanInterval(ratio.estimate, ratio.estimate - half, ratio.estimate + half,
                        RAW_T + suffix,
                        ratio.standard_error, float(ratio.df), **common)


def paired_design(sums: FloatArray, sumsq: FloatArray, sizes: FloatArray, *,
                  what: str) -> tuple[Design, str | None]:
    """The benchmark's design of a paired difference: G* at the largest working ICC of the
    two arms' item values (``sums`` and ``sumsq`` of shape (C, 2), :func:`design_of`), as
    the benchmark reads it for its contrasts, not of the differences (which can cancel a
    cluster effect both arms share and so hide the few large clusters); the note of a
    flagged design in the words of :func:`design_flag_note`."""
    design = design_of(np.asarray(sums, dtype=np.float64), np.asarray(sumsq, dtype=np.float64),
                       np.asarray(sizes, dtype=np.float64), 1)
    return design, _flag_note(design, what)
