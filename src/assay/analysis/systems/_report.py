"""The systems report (CoEval): per-task scores, rankings with rank intervals, head-to-head
paired differences and performance by attribute, bundled for one page.

* **Per-task breakdown**: :func:`~assay.analysis.composite.composite_score_by_student`, Q per
  arm over all tasks and per task, with cluster-robust logit-t intervals.
* **Rankings**: :func:`~assay.analysis.judges._robust.robust_summary`, ranks with cluster-bootstrap
  rank intervals.
* **Head-to-head**: for every pair of arms, the paired difference of per-item composite
  scores (see :func:`head_to_head`), over all tasks and within each task.
* **By attribute**: :func:`~assay.analysis.systems._attributes.performance_by_attribute`.

Everything is computed here; the page (:mod:`assay.report.html._systems`) only lays it out.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import (
    CompositeScores,
    Model,
    as_judgments,
    clean_record,
    composite_score_by_student,
    pointwise_units,
)
from assay.analysis.judges import RobustSummary, robust_summary
from assay.analysis.systems._attributes import AttributeReport, performance_by_attribute
from assay.errors import ConfigError
from assay.stats.contrasts import holm_adjust, paired_difference_interval
from assay.stats.significance import cluster_t_test


@dataclass(frozen=True)
class HeadToHeadRow:
    """Mean paired difference of item composite scores, ``arm`` minus ``opponent``."""

    arm: str
    """The arm ranked higher on Q over all tasks (the difference is arm - opponent)."""
    opponent: str
    task: str | None
    """None: over all tasks."""
    estimate: float
    """d = sum_c D_c / N, the mean over shared items of the item-score difference."""
    lower: float
    upper: float
    standard_error: float
    """sqrt(V_d), cluster-robust."""
    method: str
    """``cluster_robust_t``, or why there is no interval (``too_few_clusters``)."""
    p_value: float
    """Two-sided cluster-robust t test of d = 0 (NaN where V_d = 0 or C < 2)."""
    p_adjusted: float
    """Holm-adjusted over the pairs of the same task scope (NaN where ``p_value`` is)."""
    df: float
    n: int
    """Items both arms have a valid unit on."""
    n_clusters: int


@dataclass(frozen=True)
class SystemsReport(Rendered):
    """Everything the systems page shows, computed."""

    composite: CompositeScores
    """Q per arm over all tasks and per task."""
    rankings: RobustSummary
    """Ranks, rank intervals, leave-one-judge-out rankings."""
    head_to_head: list[HeadToHeadRow]
    """Over all tasks first, then per task; pairs in rank order."""
    attributes: AttributeReport
    conf: float
    B: int
    seed: int
    notes: list[str] = field(default_factory=list)
    """The notes of the parts, each once, then the head-to-head's own."""

    def to_dict(self) -> dict[str, Any]:
        return clean_record({
            "conf": self.conf, "B": self.B, "seed": self.seed,
            "composite": self.composite.to_dict(), "rankings": self.rankings.to_dict(),
            "head_to_head": [asdict(r) for r in self.head_to_head],
            "attributes": self.attributes.to_dict(), "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def systems_report(judgments: Model, *, conf: float = 0.95, B: int = 2000,
                   seed: int = 1, attribute_space: Any = None) -> SystemsReport:
    """Per-task scores, rankings with rank intervals, head-to-head differences, by attribute.

    Parameters
    ----------
    judgments : Judgments or path
    conf : float, default 0.95
        Level of every interval and rank interval.
    B : int, default 2000
        Cluster-bootstrap resamples of the rank intervals.
    seed : int, default 1
        Seed of the rank intervals' bootstrap (:func:`~assay.analysis.judges._robust.robust_summary`).
    attribute_space : AttributeSpace, mapping, path or None
        The target attributes of the performance by attribute
        (:func:`~assay.analysis.systems._attributes.performance_by_attribute`).

    Returns
    -------
    SystemsReport

    Raises
    ------
    ConfigError
        No valid pointwise unit, `conf` outside (0, 1), or B < 2.
    """
    table = as_judgments(judgments)
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf}")
    composite = composite_score_by_student(table, conf=conf)
    rankings = robust_summary(table, conf=conf, B=B, seed=seed)
    order = [r.arm for r in rankings.arms]
    pairs, own_notes = head_to_head(table, order, conf=conf)
    attributes = performance_by_attribute(table, conf=conf, attribute_space=attribute_space)
    notes = list(dict.fromkeys([*composite.notes, *rankings.notes, *attributes.notes,
                                *own_notes]))
    return SystemsReport(composite, rankings, pairs, attributes, float(conf), int(B), int(seed),
                         notes)


def head_to_head(judgments: Model, arms: list[str], *,
                 conf: float = 0.95) -> tuple[list[HeadToHeadRow], list[str]]:
    r"""Paired differences of per-item composite scores for every pair of `arms`, and notes.

    Parameters
    ----------
    judgments : Judgments or path
    arms : list of str
        The arms, best first: each pair (arms[i], arms[j]) with i < j gives arms[i] minus
        arms[j].
    conf : float, default 0.95

    Returns
    -------
    (list of HeadToHeadRow, list of str)
        A row per pair over all tasks, then per pair within each task (when the table has a
        ``task`` column); the notes.

    Notes
    -----
    An arm's item score y_ai is the mean of its valid units on item i (over judges,
    criteria and runs; :func:`~assay.analysis.composite.pointwise_units`). Over the items
    both arms have a score, d_i = y_ai - y_bi; with D_c the sum of d_i over cluster c and
    n_c its count, :func:`~assay.stats.contrasts._paired.paired_difference_interval` gives

    .. math:: d = \sum_c D_c / N, \qquad
              V_d = \sum_c \frac{(D_c - d\,n_c)^2}{1 - n_c / N} / N^2

    (CR2, Bell and McCaffrey 2002) and d -+ t_{nu,(1+conf)/2} sqrt(V_d), and
    :func:`~assay.stats.significance.cluster_t_test` the two-sided p-value of
    t = d / sqrt(V_d) on nu df, nu the Bell-McCaffrey degrees of freedom at the working ICC
    (Imbens and Kolesar 2016). With clusters of one size V_d = C/(C-1) sum_c (D_c -
    d n_c)^2 / N^2 and nu = C - 1, statsmodels' OLS of d_i on a constant with
    ``cov_type="cluster"`` and ``use_t=True`` (tests/systems/). Each item counts once
    whatever its number of units, so d equals the difference of the two Q only when every
    item has as many units for each arm. The p-values of the pairs within one scope (all
    tasks, or one task) are Holm-adjusted together
    (:func:`~assay.stats.contrasts._multiplicity.holm_adjust`, Holm 1979); a pair without a
    p-value is left out of the family, with a note.
    """
    table = as_judgments(judgments)
    units = pointwise_units(table).frame
    items = (units.groupby(["task", "cluster", "item", "arm"], dropna=False, sort=True)["value"]
             .mean().unstack("arm"))
    scopes: list[str | None] = [None]
    if units["task"].notna().any():
        scopes += sorted(str(t) for t in pd.unique(units["task"].dropna()))
    rows: list[HeadToHeadRow] = []
    notes: list[str] = []
    for task in scopes:
        part = items if task is None else items[items.index.get_level_values("task") == task]
        scoped = [_pair(part, a, b, task, conf=conf) for a, b in combinations(arms, 2)]
        p = np.array([r.p_value for r in scoped])
        ok = np.isfinite(p)
        adjusted = np.full(p.size, math.nan)
        if ok.any():
            adjusted[ok] = holm_adjust(p[ok])
        if not ok.all():
            where = "all tasks" if task is None else f"task {task}"
            notes.append(f"Head-to-head in {where}: {int((~ok).sum())} of {p.size} pairs have no "
                         "p-value (fewer than 2 shared clusters, or every cluster has the same "
                         "mean difference) and are left out of the Holm family.")
        rows += [replace(r, p_adjusted=float(q)) for r, q in zip(scoped, adjusted, strict=True)]
    return rows, notes


def _pair(items: pd.DataFrame, arm: str, opponent: str, task: str | None, *,
          conf: float) -> HeadToHeadRow:
    both = (items[[arm, opponent]].dropna() if {arm, opponent} <= set(items.columns)
            else items.iloc[:0, :0])
    nan = math.nan
    if both.empty:
        return HeadToHeadRow(arm, opponent, task, nan, nan, nan, nan, "no_shared_items", nan, nan,
                             nan, 0, 0)
    diff = (both[arm] - both[opponent]).groupby(level="cluster", sort=True)
    sums, sizes = diff.sum().to_numpy(np.float64), diff.count().to_numpy(np.float64)
    if sums.size < 2:
        return HeadToHeadRow(arm, opponent, task, float(sums.sum() / sizes.sum()), nan, nan, nan,
                             "too_few_clusters", nan, nan, nan, len(both), int(sums.size))
    sumsq = ((both[arm] - both[opponent]) ** 2).groupby(level="cluster", sort=True).sum()
    cr2 = dict(variance="CR2", sumsq=sumsq.to_numpy(np.float64))
    interval = paired_difference_interval(sums, sizes, conf=conf, **cr2)
    test = cluster_t_test(sums, sizes, **cr2)
    return HeadToHeadRow(arm=arm, opponent=opponent, task=task, estimate=interval.estimate,
                         lower=interval.lower, upper=interval.upper,
                         standard_error=interval.standard_error, method="cluster_robust_t",
                         p_value=test.p_value, p_adjusted=nan, df=float(interval.df or nan),
                         n=len(both), n_clusters=int(sums.size))
