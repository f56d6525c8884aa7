"""Accuracy of each arm: the interval method, its fallbacks, the Bayesian summary, ranks."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from scipy import special, stats
from scipy.stats import rankdata

from assay.analysis.benchmark._data import BenchData
from assay.analysis.benchmark._design import MethodChoice
from assay.analysis.benchmark._resample import ClusterResampler
from assay.errors import DesignError
from assay.stats._results import IntervalResult
from assay.stats.intervals import (
    beta_binomial_bayes_interval,
    cluster_bootstrap_ratios,
    cluster_t_interval,
    korn_graubard_interval,
    ratio_estimate,
    studentised_bootstrap_interval,
    two_way_cluster_variance,
)

FloatArray = npt.NDArray[np.float64]
Record = dict[str, Any]

ZERO_SE = 1e-12
"""A linearised standard error at or below this is V = 0 (rounding of equal cluster means)."""

METHOD_LABELS = {
    "bootstrap": "studentised_cluster_bootstrap",
    "cluster_t": "logit_cluster_robust_t",
    "hull": "cr2_bayes_hull",
    "exact": "korn_graubard_clopper_pearson",
    "bayes": "beta_binomial_bayes",
    "descriptive": "descriptive",
}
"""The ``method`` column of the accuracy table for each report-level method."""

_FALLBACK_NAMES = {"bootstrap": "studentised bootstrap", "cluster_t": "cluster-robust t"}

BAYES_NOTE = (
    "The beta-binomial Bayes interval (flat priors on mu and rho) is an option, not the "
    "default: in the small simulated design it covered 96.5% to 96.6%, with its misses mostly "
    "below the truth (2.9% to 3.2% below, 0.2% to 0.5% above), as the flat prior on rho keeps "
    "mass on strong clustering. Its mu weights clusters alike; the estimate beside it weights "
    "them by their items.")


@dataclass(frozen=True)
class AccuracySection:
    records: list[Record]
    bayes: list[Record] | None
    boot_estimates: FloatArray | None
    """r* of every arm, shape (B, A); None when descriptive."""
    notes: list[str]


def accuracy_section(data: BenchData, choice: MethodChoice,
                     resampler: ClusterResampler | None, *, conf: float,
                     effective: float | None = None) -> AccuracySection:
    """Accuracy per arm with its interval, rank interval and (Bayes) posterior summary.

    The cluster-robust t is CR2 with Bell-McCaffrey degrees of freedom at the working ICC
    (hr_report's C/(C-1) estimator with C - 1 df when the clusters have one size). In a
    flagged design under the auto rule (``choice.widened``) it is widened: the hull with the
    beta-binomial Bayes interval for binary scores, else min(df, G* - 1) degrees of freedom
    with ``effective`` = G*.
    """
    item_accuracy = data.scores.mean(axis=2)
    sums = data.cluster_sums(item_accuracy)
    estimates = sums.sum(axis=0) / data.sizes.sum()
    notes: list[str] = []
    if choice.descriptive or resampler is None:
        points = [{"arm": arm, "estimate": float(estimates[a]), "lower": None, "upper": None,
                   "standard_error": None, "method": "descriptive", "df": None,
                   "rank_lower": None, "rank_upper": None} for a, arm in enumerate(data.arms)]
        return AccuracySection(points, None, None, notes)

    if choice.method == "bayes" and not data.binary:
        raise DesignError('method = "bayes" counts correct runs, and some scores are shares '
                          "between 0 and 1; use another method")
    sumsq = data.cluster_sums(item_accuracy**2)
    correct_runs = np.rint(data.cluster_sums(data.scores.sum(axis=2)))
    boot = resampler.ratios(sums) if choice.method != "bootstrap" else \
        np.empty((resampler.n_resamples, data.n_arms))
    records: list[Record] = []
    bayes: list[Record] = []
    for a, arm in enumerate(data.arms):
        sums_a = sums[:, a]
        ratio = ratio_estimate(sums_a, data.sizes)
        r, se = ratio.estimate, ratio.standard_error
        df: float | None = None
        degenerate = r <= 0.0 or r >= 1.0 or se <= ZERO_SE
        if choice.method == "bootstrap":
            replicates = cluster_bootstrap_ratios(sums_a, data.sizes, resampler.weights)
            boot[:, a] = replicates.estimates
        if choice.method == "bayes":
            result = beta_binomial_bayes_interval(correct_runs[:, a], data.sizes * data.n_runs,
                                                  conf=conf)
            bayes.append({"arm": arm, "posterior_mean": result.posterior_mean,
                          "posterior_median": result.posterior_median,
                          "rho_mean": result.rho_mean})
            lower, upper, method = result.lower, result.upper, result.method
        elif choice.method == "exact":
            kg = korn_graubard_interval(sums_a, data.sizes, conf=conf)
            lower, upper, method = kg.lower, kg.upper, kg.method
        else:
            lower = upper = float("nan")
            if not degenerate and choice.method == "bootstrap":
                interval = studentised_bootstrap_interval(
                    r, se, replicates.estimates, replicates.standard_errors, conf=conf,
                    bounds=(0.0, 1.0))
                lower, upper, method = interval.lower, interval.upper, interval.method
            elif not degenerate:
                interval = cluster_t_interval(sums_a, data.sizes, conf=conf, variance="CR2",
                                              sumsq=sumsq[:, a])
                lower, upper = interval.lower, interval.upper
                method = METHOD_LABELS["cluster_t"]  # CR2; hr_report's V when balanced
                df, se = interval.df, interval.standard_error
                if choice.widened and data.binary:
                    hull = beta_binomial_bayes_interval(correct_runs[:, a],
                                                        data.sizes * data.n_runs, conf=conf)
                    lower, upper = min(lower, hull.lower), max(upper, hull.upper)
                    method = METHOD_LABELS["hull"]
                elif choice.widened:
                    lower, upper, df = _fewer_df(interval, r, df, effective, conf)
            if not (math.isfinite(lower) and math.isfinite(upper)):
                kg, note = _korn_graubard_fallback(arm, sums_a, data.sizes, r, se,
                                                   choice.method, conf=conf)
                lower, upper, method = kg.lower, kg.upper, kg.method
                notes.append(note)
        records.append({"arm": arm, "estimate": r, "lower": lower, "upper": upper,
                        "standard_error": se, "method": method, "df": df})

    notes += _run_notes(data, records, conf=conf)
    rank_lower, rank_upper = rank_intervals(boot, conf=conf)
    for a, record in enumerate(records):
        record["rank_lower"] = int(rank_lower[a])
        record["rank_upper"] = int(rank_upper[a])
    if choice.method == "bayes":
        notes.append(BAYES_NOTE)
    return AccuracySection(records, bayes if choice.method == "bayes" else None, boot, notes)


RUN_MATERIAL = 1.25
"""Two-way variance over one-way variance above which the run component is material."""
RUN_ALPHA = 0.01
"""Level of the items x runs F test a run component must also pass (with 5 runs the two-way
variance alone exceeds the one-way one by chance in about one bench in three)."""


def _run_effect_p(scores: FloatArray) -> float:
    """p-value of the run effect in the two-way ANOVA of items x runs, no replication.

    F = MS_runs / MS_error with MS_runs = I sum_r (mean_r - mean)^2 / (R - 1) and
    MS_error the residual mean square on (I - 1)(R - 1) df (Fisher 1925; the additive
    model of Tukey 1949). 1.0 when MS_error is 0.
    """
    items, runs = scores.shape
    grand = float(scores.mean())
    run_means = scores.mean(axis=0)
    item_means = scores.mean(axis=1)
    ms_runs = items * float(np.sum((run_means - grand) ** 2)) / (runs - 1)
    resid = scores - item_means[:, None] - run_means[None, :] + grand
    df_error = (items - 1) * (runs - 1)
    ms_error = float(np.sum(resid**2)) / df_error if df_error > 0 else 0.0
    if not ms_error > 0.0:
        return 1.0
    return float(stats.f.sf(ms_runs / ms_error, runs - 1, df_error))


def _run_notes(data: BenchData, records: list[Record], *, conf: float) -> list[str]:
    """Estimate the run component; name the population when it is material.

    Adds ``standard_error_two_way`` (cluster x run, Cameron, Gelbach and Miller 2011) to each
    record. The printed intervals treat the runs as given; a shift shared by all items of a
    run (one seed or snapshot per run) is only in the two-way variance.
    """
    notes = []
    for a, record in enumerate(records):
        record["standard_error_two_way"] = None
        if data.n_runs < 2 or data.n_clusters < 2:
            continue
        two_way = two_way_cluster_variance(data.cluster_sums(data.scores[:, a, :]), data.sizes)
        record["standard_error_two_way"] = math.sqrt(two_way.variance)
        if not (two_way.variance > RUN_MATERIAL * two_way.variance_clusters
                and _run_effect_p(data.scores[:, a, :]) < RUN_ALPHA):
            continue
        se = math.sqrt(two_way.variance)
        half = float(stats.t.ppf((1.0 + conf) / 2.0, two_way.df)) * se
        r = two_way.estimate
        notes.append(
            f"The runs of {record['arm']} differ more than their items explain (standard "
            f"error {se:.3g} with runs as a second clustering dimension, against "
            f"{math.sqrt(two_way.variance_clusters):.3g} over clusters): the intervals above "
            f"speak about these {data.n_runs} runs. If each run is one pass with its own seed "
            f"or model snapshot and the question is about runs in general, the two-way "
            f"(cluster x run) interval is [{max(r - half, 0.0):.3g}, {min(r + half, 1.0):.3g}] "
            f"on {two_way.df:g} df (Cameron, Gelbach and Miller 2011).")
    return notes


def fewer_df(df: float, effective: float | None) -> float:
    """min(df, G* - 1), at least 1: the degrees of freedom of a flagged design."""
    if effective is None:
        return df
    return max(min(df, effective - 1.0), 1.0)


def _fewer_df(interval: IntervalResult, r: float, df: float | None, effective: float | None,
              conf: float) -> tuple[float, float, float]:
    """The logit interval again with min(df, G* - 1) degrees of freedom."""
    nu = fewer_df(float(interval.df or 1.0), effective)
    half = float(stats.t.ppf((1.0 + conf) / 2.0, nu)) * interval.standard_error / (r * (1.0 - r))
    centre = float(special.logit(r))
    return float(special.expit(centre - half)), float(special.expit(centre + half)), nu


def _korn_graubard_fallback(arm: str, sums: FloatArray, sizes: FloatArray, r: float,
                            se: float, method: str, *,
                            conf: float) -> tuple[IntervalResult, str]:
    """Korn-Graubard where the chosen interval is not defined (r at 0 or 1, or V = 0).

    Also taken when the studentised bootstrap cannot form an interval (fewer than two
    resamples with a positive standard error).
    """
    name = _FALLBACK_NAMES.get(method, method)
    if r >= 1.0 or r <= 0.0:
        bound = 1 if r >= 1.0 else 0
        alternative: Literal["greater", "less"] = "greater" if bound == 1 else "less"
        result = korn_graubard_interval(sums, sizes, conf=conf, alternative=alternative)
        note = (f"Accuracy of {arm} is {bound}, where the {name} interval is not defined: its "
                f"interval is the Korn-Graubard interval, one-sided from {bound} at level "
                f"{_percent(conf)}.")
        return result, note
    result = korn_graubard_interval(sums, sizes, conf=conf)
    if se <= ZERO_SE:
        note = (f"Every cluster of {arm} has the same accuracy (V = 0), where the {name} "
                f"interval is not defined: its interval is the Korn-Graubard interval at "
                f"{_percent(conf)}.")
    else:
        note = (f"The {name} interval of {arm} could not be formed (too few resamples with a "
                f"positive standard error): its interval is the Korn-Graubard interval at "
                f"{_percent(conf)}.")
    return result, note


def rank_intervals(boot: FloatArray, *, conf: float) -> tuple[FloatArray, FloatArray]:
    """Quantiles of each arm's rank over the resamples (rank 1 = most accurate).

    Ties share the best rank of their group; the lower quantile is rounded down and the
    upper one up to the ranks observed, so the interval holds whole ranks.
    """
    ranks = rankdata(-boot, method="min", axis=1)
    lower = np.quantile(ranks, (1.0 - conf) / 2.0, axis=0, method="lower")
    upper = np.quantile(ranks, (1.0 + conf) / 2.0, axis=0, method="higher")
    return np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)


def _percent(conf: float) -> str:
    return f"{100.0 * conf:g}%"
