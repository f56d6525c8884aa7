"""Robust summary (CoEval's robust-summary report): outlier-robust scores and rankings.

For each arm: the composite score Q with its cluster-robust interval, the trimmed mean and
the median of its item scores, and its rank with a rank interval from a cluster bootstrap.
Across judges: the ranking with each judge left out, and the ensemble's stability, the
Kendall tau between the full ensemble's ranking and the ranking each subset of judges
gives. Units are those of :func:`assay.analysis.composite.pointwise_units`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import stats as sps
from scipy.stats import rankdata

from assay._display import Rendered
from assay.analysis.benchmark import rank_intervals
from assay.analysis.composite import (
    Model,
    as_judgments,
    clean_record,
    cluster_matrix,
    composite_score_by_student,
    pointwise_units,
)
from assay.errors import ConfigError
from assay.stats.intervals import cluster_bootstrap_weights

FloatArray = npt.NDArray[np.float64]

DEFAULT_TRIM = 0.1
"""Share of item scores cut from each tail for the trimmed mean (10% + 10%)."""


def trimmed_mean(values: npt.ArrayLike, trim: float) -> float:
    r"""Mean after cutting floor(trim * n) values from each end of the sorted values.

    .. math:: \bar x_{trim} = \frac{1}{n - 2g} \sum_{i=g+1}^{n-g} x_{(i)}, \quad
              g = \lfloor \mathrm{trim} \cdot n \rfloor

    (Wilcox 2012, Introduction to Robust Estimation and Hypothesis Testing, 3rd ed., 3.1);
    the convention of ``scipy.stats.trim_mean``, its oracle. NaN for no values.

    >>> trimmed_mean([1.0, 2.0, 3.0, 4.0, 100.0], 0.2)
    3.0
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    if x.size == 0:
        return math.nan
    g = int(trim * x.size)
    return float(x[g:x.size - g].mean())


@dataclass(frozen=True)
class RobustArmRow:
    """One arm's composite score, robust location and rank."""

    arm: str
    estimate: float
    """Composite score Q (mean over valid units)."""
    lower: float
    upper: float
    method: str
    trimmed_mean: float
    """Trimmed mean of the arm's item scores (each the mean of the item's valid units)."""
    median: float
    """Median of the arm's item scores."""
    n_items: int
    rank: int
    """1 = highest Q; ties share the best rank."""
    rank_lower: int | None
    rank_upper: int | None


@dataclass(frozen=True)
class LeaveOneJudgeOut:
    """The ranking without one judge."""

    judge: str
    """The judge left out."""
    ranking: list[str]
    """Arms from highest to lowest Q without that judge."""
    scores: dict[str, float]
    kendall_tau: float
    """Kendall tau-b with the full ensemble's Q over the arms (NaN when undefined)."""
    changed: bool
    """Whether any arm's rank differs from the full ensemble's."""


@dataclass(frozen=True)
class SubsetRanking:
    judges: list[str]
    kendall_tau: float


@dataclass(frozen=True)
class StabilityBySize:
    size: int
    n_subsets: int
    mean_tau: float
    min_tau: float


@dataclass(frozen=True)
class RobustSummary(Rendered):
    """Outlier-robust scores and the stability of the ranking across judges."""

    arms: list[RobustArmRow]
    """In rank order."""
    leave_one_judge_out: list[LeaveOneJudgeOut]
    subsets: list[SubsetRanking]
    stability_by_size: list[StabilityBySize]
    stability: float
    """Ensemble stability: mean Kendall tau over the judge subsets evaluated."""
    judges: list[str]
    trim: float
    conf: float
    B: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({
            "conf": self.conf, "trim": self.trim, "B": self.B, "seed": self.seed,
            "judges": self.judges, "arms": [asdict(r) for r in self.arms],
            "leave_one_judge_out": [asdict(r) for r in self.leave_one_judge_out],
            "stability": self.stability,
            "stability_by_size": [asdict(r) for r in self.stability_by_size],
            "subsets": [asdict(r) for r in self.subsets], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def robust_summary(judgments: Model, *, trim: float = DEFAULT_TRIM, conf: float = 0.95,
                   B: int = 2000, seed: int = 1, max_subsets: int = 256) -> RobustSummary:
    """Robust scores per arm, rank intervals, leave-one-judge-out rankings and stability.

    Parameters
    ----------
    judgments : Judgments or path
    trim : float, default 0.1
        Share cut from each tail of an arm's item scores for the trimmed mean, in [0, 0.5).
    conf : float, default 0.95
        Level of the intervals and rank intervals.
    B : int, default 2000
        Cluster-bootstrap resamples for the rank intervals.
    seed : int, default 1
        Seed of the bootstrap (``numpy.random.default_rng(seed)``) and of the draw of judge
        subsets when there are more than `max_subsets`.
    max_subsets : int, default 256
        Judge subsets to evaluate for stability: all non-empty proper subsets when there
        are no more, else this many drawn at random (a note says so).

    Notes
    -----
    *Item scores.* An arm's item score is the mean of its valid units on that item (over
    judges, criteria and runs); the trimmed mean and median are over its items. They
    resist outlying items, not outlying judges: the leave-one-judge-out rankings and the
    stability address judges.

    *Rank intervals.* Q* = (w S) / (w n) for each cluster-bootstrap resample w
    (:func:`assay.stats.cluster_bootstrap_weights` on the (cluster x arm) sums S and unit
    counts n); an arm's rank interval holds the (1 - conf)/2 and (1 + conf)/2 quantiles of
    its rank over the resamples, as in the benchmark report.

    *Stability.* For each subset of judges, Q per arm over that subset's units; tau is
    Kendall's tau-b (``scipy.stats.kendalltau``) between the full ensemble's Q and the
    subset's over the arms both define. The stability score is the mean tau over the
    subsets, also given per subset size. Leaving a judge out is the subset of all others.
    """
    table = as_judgments(judgments)
    if not 0.0 <= trim < 0.5:
        raise ConfigError(f"trim must be in [0, 0.5), got {trim}")
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf}")
    if int(B) < 2 or int(max_subsets) < 1:
        raise ConfigError("B must be at least 2 and max_subsets at least 1")
    units = pointwise_units(table)
    frame, notes = units.frame, list(units.notes)
    if frame.empty:
        raise ConfigError("no valid pointwise units to summarise (see the notes of "
                          "composite_score_by_student)")
    composite = composite_score_by_student(table, conf=conf)
    overall = {r.arm: r for r in composite.rows if r.task is None and r.n > 0}
    arms = [a for a in table.arms if a in overall]
    q_full = np.array([overall[a].estimate for a in arms])
    ranks = rankdata(-q_full, method="min").astype(int)

    item_scores = frame.groupby(["arm", "item"], sort=False)["value"].mean()
    rank_lower, rank_upper = _bootstrap_ranks(frame, arms, B=int(B), seed=seed, conf=conf,
                                              notes=notes)
    rows = []
    for a, arm in enumerate(arms):
        items = item_scores.loc[arm].to_numpy(dtype=np.float64)
        row = overall[arm]
        rows.append(RobustArmRow(
            arm=arm, estimate=row.estimate, lower=row.lower, upper=row.upper, method=row.method,
            trimmed_mean=trimmed_mean(items, trim), median=float(np.median(items)),
            n_items=int(items.size), rank=int(ranks[a]),
            rank_lower=None if rank_lower is None else int(rank_lower[a]),
            rank_upper=None if rank_upper is None else int(rank_upper[a])))
    rows.sort(key=lambda r: (r.rank, r.arm))

    judges = [str(j) for j in pd.unique(frame["judge"])]
    sums = frame.pivot_table(index="judge", columns="arm", values="value", aggfunc="sum",
                             fill_value=0.0).reindex(index=judges, columns=arms, fill_value=0.0)
    counts = frame.pivot_table(index="judge", columns="arm", values="value", aggfunc="count",
                               fill_value=0).reindex(index=judges, columns=arms, fill_value=0)
    s, n = sums.to_numpy(dtype=np.float64), counts.to_numpy(dtype=np.float64)

    loo: list[LeaveOneJudgeOut] = []
    if len(judges) < 2:
        notes.append("Only one judge: no leave-one-judge-out rankings and no ensemble stability.")
    else:
        for j, judge in enumerate(judges):
            keep = [k for k in range(len(judges)) if k != j]
            q = _subset_q(s, n, keep)
            finite = np.isfinite(q)
            order = sorted((a for a in range(len(arms)) if finite[a]), key=lambda a: (-q[a], arms[a]))
            sub_ranks = rankdata(-q[finite], method="min")
            loo.append(LeaveOneJudgeOut(
                judge=judge, ranking=[arms[a] for a in order],
                scores={arms[a]: float(q[a]) for a in range(len(arms)) if finite[a]},
                kendall_tau=_tau(q_full, q),
                changed=bool(not finite.all() or np.any(sub_ranks != rankdata(
                    -q_full[finite], method="min")))))
    subsets = _subsets(len(judges), int(max_subsets), seed, notes)
    ranked = [SubsetRanking([judges[k] for k in sub], _tau(q_full, _subset_q(s, n, list(sub))))
              for sub in subsets]
    by_size: list[StabilityBySize] = []
    for size in sorted({len(r.judges) for r in ranked}):
        taus = np.array([r.kendall_tau for r in ranked if len(r.judges) == size])
        ok = taus[np.isfinite(taus)]
        by_size.append(StabilityBySize(size, int(taus.size),
                                       float(ok.mean()) if ok.size else math.nan,
                                       float(ok.min()) if ok.size else math.nan))
    all_taus = np.array([r.kendall_tau for r in ranked])
    finite_taus = all_taus[np.isfinite(all_taus)]
    if all_taus.size > finite_taus.size:
        notes.append(f"{all_taus.size - finite_taus.size} judge subsets give no Kendall tau "
                     "(fewer than two arms scored, or all arms tied) and are left out of the "
                     "stability score.")
    if len(arms) < 3 and len(judges) > 1:
        notes.append(f"With {len(arms)} arms Kendall tau can only be -1, 0 or 1 (and NaN on "
                     "ties): stability says little.")
    stability = float(finite_taus.mean()) if finite_taus.size else math.nan
    return RobustSummary(rows, loo, ranked, by_size, stability, judges, float(trim), conf,
                         int(B), int(seed), notes)


def _subset_q(s: FloatArray, n: FloatArray, keep: Sequence[int]) -> FloatArray:
    num, den = s[list(keep)].sum(axis=0), n[list(keep)].sum(axis=0)
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _tau(x: FloatArray, y: FloatArray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2 or np.all(x[ok] == x[ok][0]) or np.all(y[ok] == y[ok][0]):
        return math.nan
    return float(sps.kendalltau(x[ok], y[ok]).statistic)


def _subsets(n_judges: int, limit: int, seed: int, notes: list[str]) -> list[tuple[int, ...]]:
    """Non-empty proper subsets of the judges: all of them, or `limit` drawn at random."""
    if n_judges < 2:
        return []
    total = 2**n_judges - 2
    if total <= limit:
        return [c for size in range(1, n_judges) for c in combinations(range(n_judges), size)]
    gen = np.random.default_rng([seed, 1])
    chosen: set[tuple[int, ...]] = set()
    while len(chosen) < limit:
        mask = gen.random(n_judges) < 0.5
        if 0 < mask.sum() < n_judges:
            chosen.add(tuple(np.flatnonzero(mask).tolist()))
    notes.append(f"Stability over {limit} of the {total} judge subsets, drawn at random "
                 f"(each judge in or out with probability 1/2; seed {seed}).")
    return sorted(chosen, key=lambda c: (len(c), c))


def _bootstrap_ranks(frame: pd.DataFrame, arms: list[str], *, B: int, seed: int, conf: float,
                     notes: list[str]) -> tuple[FloatArray | None, FloatArray | None]:
    clusters, groups, sums, counts = cluster_matrix(frame, "arm")
    index = [groups.index(a) for a in arms]
    sums, counts = sums[:, index], counts[:, index]
    if len(clusters) < 2 or len(arms) < 2:
        notes.append("Rank intervals need at least two clusters and two arms; none are given.")
        return None, None
    w = cluster_bootstrap_weights(len(clusters), B, rng=np.random.default_rng(seed))
    w = w.astype(np.float64)
    boot_counts = w @ counts
    ok = np.all(boot_counts > 0, axis=1)
    if not ok.all():
        notes.append(f"{int((~ok).sum())} of {B} resamples left an arm without units and were "
                     "dropped from the rank intervals.")
    if ok.sum() < 2:
        return None, None
    boot = (w[ok] @ sums) / boot_counts[ok]
    return rank_intervals(boot, conf=conf)


@dataclass(frozen=True)
class ConsistencyRow:
    """ICC(2,1) between the judges of one criterion in one task."""

    task: str
    criterion: str
    judges: list[str]
    num_raters: int
    n_units: int
    """Units (item, arm, run) every one of these judges scored."""
    icc: float
    icc_lower: float
    icc_upper: float
    method: str
    reason: str | None
    """Why ``icc`` or its bounds are NaN, when they are."""
    chosen: bool
    """Whether this row gives the task's value in the mapping."""


@dataclass(frozen=True, eq=False)
class JudgeConsistency(Rendered, Mapping[str, float]):
    """ICC(2,1) between judges per task; reads as a mapping task -> ICC.

    The mapping gives, per task, the ICC of one criterion (``chosen`` in ``rows``); the
    rows hold every (task, criterion) with at least two judges, with the interval.
    """

    rows: list[ConsistencyRow]
    conf: float
    notes: list[str] = field(default_factory=list)

    def _chosen(self) -> dict[str, float]:
        return {r.task: r.icc for r in self.rows if r.chosen}

    def __getitem__(self, task: str) -> float:
        return self._chosen()[task]

    def __iter__(self) -> Iterator[str]:
        return iter(self._chosen())

    def __len__(self) -> int:
        return len(self._chosen())

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "consistency": [asdict(r) for r in self.rows],
                      "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


ALL_TASKS = "all"
"""The mapping key of :func:`judge_consistency` for a table without a ``task`` column."""


def judge_consistency(judgments: Model, *, criterion: str | None = None,
                      conf: float = 0.95) -> JudgeConsistency:
    """ICC(2,1) between the judges per task (CoEval's ``judge_consistency``).

    Parameters
    ----------
    judgments : Judgments or path
    criterion : str, optional
        The criterion whose ICC the mapping gives per task. By default, per task, the
        criterion scored by the most judges (then the most common units, then by name);
        a note names it when there was a choice.
    conf : float, default 0.95

    Returns
    -------
    JudgeConsistency
        A mapping task -> ICC (key ``"all"`` without a ``task`` column) and a row per
        (task, criterion) scored by two or more judges.

    Notes
    -----
    A unit is an (item, arm, run) of one criterion; the ratings matrix has a column per
    judge of that criterion and task and a row per unit all of them scored (on the
    normalised scale, which leaves the ICC unchanged: it is invariant to one linear map of
    all ratings). The ICC is :func:`assay.stats.agreement._reliability.icc_agreement`: ICC(A,1) of
    McGraw and Wong = Shrout and Fleiss's ICC(2,1), two-way, absolute agreement, single
    rater, with its F-based interval. Only reportable, pointwise, valid units count (see
    :func:`assay.analysis.composite.pointwise_units`).
    """
    from assay.stats.agreement import icc_agreement

    table = as_judgments(judgments)
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf}")
    units = pointwise_units(table)
    frame, notes = units.frame.copy(), list(units.notes)
    if criterion is not None and criterion not in set(frame["criterion"]):
        raise ConfigError(f"criterion {criterion!r} has no valid units; criteria: "
                          + ", ".join(map(str, pd.unique(frame["criterion"]))))
    frame["task"] = frame["task"].where(frame["task"].notna(), ALL_TASKS)
    rows: list[ConsistencyRow] = []
    for task in sorted(map(str, pd.unique(frame["task"]))):
        candidates: list[ConsistencyRow] = []
        in_task = frame[frame["task"] == task]
        for name in pd.unique(in_task["criterion"]):
            part = in_task[in_task["criterion"] == name]
            judges = [str(j) for j in pd.unique(part["judge"])]
            if len(judges) < 2:
                continue
            matrix = part.pivot_table(index=["item", "arm", "run"], columns="judge",
                                      values="value", aggfunc="first")[judges].dropna()
            reason: str | None
            if len(matrix) < 2:
                icc, lower, upper = math.nan, math.nan, math.nan
                method, reason = "too_few_units", "fewer than 2 units every judge scored"
            else:
                res = icc_agreement(matrix.to_numpy(dtype=np.float64), conf=conf)
                icc, lower, upper, method, reason = (res.estimate, res.lower, res.upper,
                                                     res.method, res.reason)
            candidates.append(ConsistencyRow(
                task=task, criterion=str(name), judges=judges, num_raters=len(judges),
                n_units=len(matrix), icc=icc, icc_lower=lower, icc_upper=upper, method=method,
                reason=reason, chosen=False))
        if not candidates:
            notes.append(f"Task {task}: no criterion is scored by two or more judges, so it has "
                         "no ICC.")
            continue
        if criterion is not None:
            pick = next((c for c in candidates if c.criterion == criterion), None)
        else:
            pick = min(candidates, key=lambda c: (-c.num_raters, -c.n_units, c.criterion))
            if len(candidates) > 1:
                notes.append(f"Task {task}: the ICC given is that of {pick.criterion} (most "
                             "judges); every criterion's is in the rows.")
        rows += [replace(c, chosen=c is pick) for c in candidates]
    return JudgeConsistency(rows, float(conf), notes)
