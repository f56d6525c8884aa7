"""The verdicts of the answer: per (judge, criterion), the systems ranked and every pair compared.

Scores of one answer (pointwise rows). Each system's estimate and interval is the score
summary's (:mod:`assay.analysis.scores`: runs averaged within a question, questions summed
within their cluster, the ratio estimator with a cluster-robust interval), in the data's
own units: the share of 1s of a binary score, the raw scale of an interval or range score
(a 1-10 score stays on 1-10), the [0, 1] position of an ordinal label. A pair of systems is
compared on the questions both have: d_i = (question mean of the first) - (of the second),
summed within clusters, with the cluster-robust paired t of
:func:`assay.stats.significance.cluster_t_test` (CR2 variance, Bell-McCaffrey df) and its
interval d +- t sqrt(V) (for a bounded score the interval of
:func:`assay.stats.contrasts.paired_difference_interval`, which stays in [-1, 1]); the
p-values of a verdict's pairs are adjusted by Holm's step-down procedure
(:func:`assay.stats.contrasts.holm_adjust`).

Pairwise judgments (rows with an opponent) come from the win-rate report
(:func:`assay.analysis.winrates.win_rates`): each pair's win rate, its cluster-robust
interval and its test of 1/2, Holm-adjusted within the (judge, criterion); each system's
estimate is its share of won comparisons over every opponent, read from the same oriented
trials (a loss of the opponent is a win of the system), with the score summary's interval.

Systems are never pooled together: every number is one system's, or one pair's. Where the
table weights its rows (a ``weight`` column), a system's estimate is the weighted mean of the
score summary, and a pair's difference weighs each shared question's (weighted) mean equally.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from assay.analysis.answer._result import PairDifference, SystemEstimate, Units, Verdict
from assay.analysis.scores import ScoreRow, _row, row_from_items, weighted_item_means
from assay.data.schema import Scale

if TYPE_CHECKING:
    from assay.analysis.winrates import WinRateReport
    from assay.data.table import Judgments
from assay.stats import t_ppf
from assay.stats.contrasts import holm_adjust, paired_difference_interval
from assay.stats.significance import cluster_t_test

__all__ = ["ArmItems", "pairwise_verdicts", "pointwise_verdicts", "verdict_from_items"]


def _units(kind: str) -> Units:
    return "share" if kind == "binary" else "normalised" if kind == "ordinal" else "raw"


def pointwise_verdicts(judgments: Judgments, frame: pd.DataFrame, *, conf: float,
                       notes: list[str]) -> list[Verdict]:
    """A verdict per (judge, criterion) of the pointwise, reportable rows of ``frame``."""
    out: list[Verdict] = []
    for (judge, criterion), rows in frame.groupby(["judge", "criterion"], sort=False):
        scale = judgments.scale(str(criterion))
        if scale.kind == "nominal":
            notes.append(f"criterion {criterion!r} is nominal (unordered labels): no system is "
                         "better on it, so it is left out.")
            continue
        units = _units(scale.kind)
        value = rows["score"] if units in ("raw", "share") else rows["value"]
        rows = rows.assign(v=value)
        arms = []
        for arm, group in rows.groupby("arm", sort=False):
            scored = group[group["v"].notna()]
            items, weights = (weighted_item_means(scored) if len(scored) else
                              (pd.Series(dtype=np.float64), pd.Series(dtype=np.float64)))
            arms.append(ArmItems(str(arm), items, weights, n=len(scored),
                                 n_failed=len(group) - len(scored),
                                 runs=int(scored["run"].max()) if len(scored) else 0))
        scored = rows["score"].dropna()
        out.append(verdict_from_items(
            str(judge), str(criterion), scale, units, arms, conf=conf,
            low=float(scored.min()) if len(scored) else None,
            high=float(scored.max()) if len(scored) else None, n_judgments=len(rows),
            n_items=int(rows["item"].nunique()), n_clusters=int(rows["cluster"].nunique()),
            n_runs=int(rows["run"].nunique())))
    return out


@dataclass(frozen=True)
class ArmItems:
    """One system's scored questions under a (judge, criterion): its question means and
    weights (:func:`~assay.analysis.scores.weighted_item_means`, indexed by cluster and
    item in order of first appearance; the engine indexes them by integer codes of the
    labels, one per label, which match and group as the labels do), and its counts of
    scores and failures."""

    arm: str
    items: pd.Series
    weights: pd.Series
    n: int
    """Scored rows."""
    n_failed: int
    runs: int
    """Its highest run with a score."""


def verdict_from_items(judge: str, criterion: str, scale: Scale, units: Units,
                       arms: list[ArmItems], *, conf: float, low: float | None,
                       high: float | None, n_judgments: int, n_items: int, n_clusters: int,
                       n_runs: int) -> Verdict:
    """The verdict of one (judge, criterion) from its systems' question means: whoever
    computed them (pandas here, an engine in :mod:`assay.analysis.pushdown`), the same
    arithmetic makes every number of the verdict from them."""
    systems = []
    for a in arms:
        base = dict(criterion=criterion, judge=judge, arm=a.arm, opponent=None,
                    scale=scale.spelling(), n=a.n, n_failed=a.n_failed, conf=conf)
        if not a.n:
            nan = math.nan
            row = ScoreRow(**base, n_items=0, n_clusters=0, runs=0, estimate=nan, lower=nan,
                           upper=nan, method="no_scores")
        else:
            row = row_from_items(base, a.items, a.weights, runs=a.runs, conf=conf,
                                 binary=scale.kind == "binary", bounded=units != "raw")
        systems.append(SystemEstimate(
            arm=a.arm, rank=0, estimate=row.estimate, lower=row.lower, upper=row.upper,
            n_items=row.n_items, n_clusters=row.n_clusters, n_failed=row.n_failed,
            method=row.method))
    ranked = _ranked(systems)
    items_of = {a.arm: a.items for a in arms}
    pairs = _holm([_pointwise_pair(items_of[a.arm], items_of[b.arm], a.arm, b.arm,
                                   bounded=units != "raw", conf=conf)
                   for a, b in combinations(ranked, 2)], conf)
    return Verdict(
        judge=judge, criterion=criterion, scale=scale.spelling(), units=units, low=low,
        high=high, systems=tuple(ranked), pairs=tuple(pairs), n_judgments=n_judgments,
        n_items=n_items, n_clusters=n_clusters, n_runs=n_runs)


def _ranked(systems: list[SystemEstimate]) -> list[SystemEstimate]:
    """Best first; equal estimates share the best rank; a system without an estimate last."""
    order = sorted(systems, key=lambda s: -s.estimate if math.isfinite(s.estimate) else math.inf)
    out: list[SystemEstimate] = []
    for position, system in enumerate(order, start=1):
        rank = position
        if out and out[-1].estimate == system.estimate:
            rank = out[-1].rank
        out.append(replace(system, rank=rank))
    return out


def _pointwise_pair(first: pd.Series, second: pd.Series, name_1: str, name_2: str, *,
                    bounded: bool, conf: float) -> PairDifference:
    """``name_1`` against ``name_2`` on their shared questions (indexed by cluster, item)."""
    if first.empty or second.empty:  # a system without a scored question
        return PairDifference(better=name_1, worse=name_2, difference=math.nan,
                              lower=math.nan, upper=math.nan, p_value=math.nan,
                              p_adjusted=math.nan, detected=None, detected_unadjusted=None,
                              n_items=0, n_clusters=0, method="no_shared_questions")
    if first.index.equals(second.index):  # the same questions in the same order: no join
        diff = first.to_numpy(np.float64) - second.to_numpy(np.float64)
        index = first.index
    else:
        both = pd.concat([first.rename("a"), second.rename("b")], axis=1, join="inner")
        diff = (both["a"] - both["b"]).to_numpy(np.float64)
        index = both.index
    n, nan = len(diff), math.nan
    estimate = float(diff.mean()) if n else nan
    if estimate < 0:  # the pair reads from the better side
        return _pointwise_pair(second, first, name_2, name_1, bounded=bounded, conf=conf)
    clusters = np.asarray(index.get_level_values("cluster"))
    per_cluster = pd.DataFrame({"d": diff, "d2": diff * diff}).groupby(clusters, sort=False)
    summed = per_cluster.sum()
    sums = summed["d"].to_numpy(np.float64)
    sizes = per_cluster.size().to_numpy(np.float64)
    sumsq = summed["d2"].to_numpy(np.float64)
    base = dict(better=name_1, worse=name_2, difference=estimate, n_items=n,
                n_clusters=len(sums))
    if len(sums) < 2:
        return PairDifference(**base, lower=nan, upper=nan, p_value=nan, p_adjusted=nan,
                              detected=None, detected_unadjusted=None, method="too_few_clusters")
    test = cluster_t_test(sums, sizes, variance="CR2", sumsq=sumsq)
    if not math.isfinite(test.p_value):
        return PairDifference(**base, lower=nan, upper=nan, p_value=nan, p_adjusted=nan,
                              detected=None, detected_unadjusted=None,
                              method="undefined_no_cluster_variance")
    if bounded:
        interval = paired_difference_interval(sums, sizes, conf=conf, variance="CR2",
                                              sumsq=sumsq)
        lower, upper = interval.lower, interval.upper
    else:
        half = float(t_ppf((1 + conf) / 2, test.df)) * float(test.standard_error or 0.0)
        lower, upper = estimate - half, estimate + half
    return PairDifference(**base, lower=lower, upper=upper, p_value=test.p_value,
                          p_adjusted=nan, detected=None, detected_unadjusted=None,
                          method="paired_cluster_robust_t")


def _holm(pairs: list[PairDifference], conf: float) -> list[PairDifference]:
    """Holm-adjusted p-values over the pairs that have a test, and whether each is detected."""
    p = np.array([pair.p_value for pair in pairs], dtype=np.float64)
    finite = np.isfinite(p)
    adjusted = np.full(p.shape, np.nan)
    if finite.any():
        adjusted[finite] = holm_adjust(p[finite])
    out = []
    for pair, adj in zip(pairs, adjusted, strict=True):
        detected = None if not math.isfinite(adj) else bool(adj <= 1 - conf)
        before = None if not math.isfinite(pair.p_value) else bool(pair.p_value <= 1 - conf)
        out.append(replace(pair, p_adjusted=float(adj), detected=detected,
                           detected_unadjusted=before))
    return out


def pairwise_verdicts(report: WinRateReport, *, conf: float, notes: list[str]) -> list[Verdict]:
    """A verdict per (judge, criterion) of the pairwise rows, from the win-rate report
    (made with ``correction="holm-per-group"``: Holm within each judge and criterion)."""
    notes.extend(report.notes)
    trials = report.trials
    out: list[Verdict] = []
    for (judge, criterion), group in trials.groupby(["judge", "criterion"], sort=False):
        records = [r for r in report.records if r.judge == judge and r.criterion == criterion
                   and r.task is None and r.arm != r.opponent]
        systems = _ranked(_win_shares(group, str(judge), str(criterion), conf))
        pairs = []
        for r in records:
            won = r.win_rate >= 0.5
            better, worse = (r.arm, r.opponent) if won else (r.opponent, r.arm)
            rate = r.win_rate if won else 1 - r.win_rate
            lower, upper = (r.lower, r.upper) if won else (1 - r.upper, 1 - r.lower)
            detected = None if not math.isfinite(r.p_adjusted) else bool(r.p_adjusted <= 1 - conf)
            before = None if not math.isfinite(r.p_value) else bool(r.p_value <= 1 - conf)
            pairs.append(PairDifference(
                better=better, worse=worse, difference=rate - 0.5, lower=lower - 0.5,
                upper=upper - 0.5, p_value=r.p_value, p_adjusted=r.p_adjusted,
                detected=detected, detected_unadjusted=before, n_items=r.n, n_clusters=r.n_clusters,
                method=f"win_rate_{r.test}", win_rate=rate))
        rank = {s.arm: s.rank for s in systems}
        pairs.sort(key=lambda p: (rank.get(p.better, 0), rank.get(p.worse, 0)))
        out.append(Verdict(
            judge=str(judge), criterion=str(criterion), scale="pairwise", units="win_rate",
            low=None, high=None, systems=tuple(systems), pairs=tuple(pairs),
            n_judgments=len(group), n_items=int(group["item"].nunique()),
            n_clusters=int(group["cluster"].nunique()), n_runs=int(group["run"].nunique())))
    return out


def _win_shares(trials: pd.DataFrame, judge: str, criterion: str,
                conf: float) -> list[SystemEstimate]:
    """Each system's share of won comparisons, from both sides of the oriented trials (an arm
    judged against itself, an A/A trial, is left out: it says nothing of the arm)."""
    trials = trials[trials["arm"] != trials["opponent"]]
    sides = pd.concat([
        trials.assign(system=trials["arm"], v=trials["score"]),
        trials.assign(system=trials["opponent"], v=1.0 - trials["score"]),
    ], ignore_index=True)
    out = []
    for system, group in sides.groupby("system", sort=False):
        scored = group[group["v"].notna()]
        row = _row(criterion, judge, str(system), None, "pairwise", scored,
                   n_failed=len(group) - len(scored), conf=conf, binary=False, bounded=True)
        out.append(SystemEstimate(
            arm=str(system), rank=0, estimate=row.estimate, lower=row.lower, upper=row.upper,
            n_items=row.n_items, n_clusters=row.n_clusters, n_failed=row.n_failed,
            method=row.method))
    return out
