"""The judges' differentiation score (CoEval, "Key Metrics"): the variance of a judge's mean
scores across arms; higher = the judge discriminates better. Units, clusters and
normalisation are the composite score's (:func:`~assay.analysis.composite.pointwise_units`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    check_conf,
    clean_record,
    cluster_matrix,
    pointwise_units,
)
from assay.errors import ConfigError
from assay.stats.intervals import cluster_bootstrap_weights

__all__ = ["DifferentiationReport", "DifferentiationRow", "differentiation_score"]


@dataclass(frozen=True)
class DifferentiationRow:
    """Spread of one judge's mean scores across arms, on one criterion or all it scores."""

    judge: str
    criterion: str | None
    """None: all the judge's criteria together (only when it scores more than one)."""
    estimate: float
    """Population variance (ddof = 0) of the arm means; NaN with fewer than 2 arms."""
    lower: float
    upper: float
    method: str
    n: int
    """Units behind the arm means."""
    n_arms: int
    n_clusters: int
    arm_means: dict[str, float]


@dataclass(frozen=True)
class DifferentiationReport(Rendered):
    """Differentiation score per judge (CoEval): variance of its scores across arms."""

    rows: list[DifferentiationRow]
    conf: float
    B: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "B": self.B, "seed": self.seed,
                      "differentiation": [asdict(r) for r in self.rows],
                      "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def differentiation_score(judgments: Model, *, conf: float = 0.95, B: int = 2000,
                          seed: int = 1) -> DifferentiationReport:
    r"""Differentiation score of each judge: how far apart its mean scores of the arms are.

    Parameters
    ----------
    judgments : Judgments or path
    conf : float, default 0.95
        Level of the percentile intervals.
    B : int, default 2000
        Cluster-bootstrap resamples for the intervals.
    seed : int, default 1
        Seed of the resampling (``numpy.random.default_rng(seed)``; rows in table order).

    Returns
    -------
    DifferentiationReport
        A row per (judge, criterion) and, for a judge scoring several criteria, one for all
        of them together.

    Notes
    -----
    With m_a the mean normalised score the judge gave arm a over its valid units
    (see :func:`pointwise_units`) and A arms,

    .. math:: D = \frac{1}{A} \sum_a (m_a - \bar m)^2

    (the arms compared are the whole population of interest, hence ddof = 0). D carries
    sampling noise as well as the arms' true spread (its expectation exceeds the true
    variance by about the mean squared standard error of the m_a), so compare judges on the
    same items. The interval is the percentile interval of D over a cluster bootstrap
    (clusters drawn with replacement with all their items, arms and runs; resamples in
    which an arm has no unit are dropped and counted in a note).
    """
    table = as_judgments(judgments)
    conf = check_conf(conf)
    if int(B) < 2:
        raise ConfigError(f"B must be at least 2, got {B}")
    units = pointwise_units(table)
    frame, notes = units.frame, list(units.notes)
    gen = np.random.default_rng(seed)
    rows: list[DifferentiationRow] = []
    for judge in pd.unique(frame["judge"]):
        own = frame[frame["judge"] == judge]
        criteria = list(pd.unique(own["criterion"]))
        scopes: list[str | None] = [*criteria, None] if len(criteria) > 1 else criteria
        for criterion in scopes:
            part = own if criterion is None else own[own["criterion"] == criterion]
            rows.append(_differentiation_row(str(judge), criterion, part, gen, int(B), notes,
                                             conf=conf))
    return DifferentiationReport(rows, conf, int(B), int(seed), notes)


def _differentiation_row(judge: str, criterion: str | None, part: pd.DataFrame,
                         gen: np.random.Generator, n_resamples: int, notes: list[str], *,
                         conf: float) -> DifferentiationRow:
    clusters, arms, sums, counts = cluster_matrix(part, "arm")
    means = sums.sum(axis=0) / counts.sum(axis=0)
    nan = math.nan

    def row(estimate: float, lower: float, upper: float, method: str) -> DifferentiationRow:
        return DifferentiationRow(judge=judge, criterion=criterion, estimate=estimate, lower=lower,
                                  upper=upper, method=method, n=len(part), n_arms=len(arms),
                                  n_clusters=len(clusters),
                                  arm_means=dict(zip(arms, means.tolist(), strict=True)))

    if len(arms) < 2:
        return row(nan, nan, nan, "fewer_than_two_arms")
    estimate = float(np.var(means))
    if len(clusters) < 2:
        return row(estimate, nan, nan, "too_few_clusters")
    w = cluster_bootstrap_weights(len(clusters), n_resamples, rng=gen).astype(np.float64)
    boot_counts = w @ counts
    ok = np.all(boot_counts > 0, axis=1)
    boot = np.var((w[ok] @ sums) / boot_counts[ok], axis=1)
    if not ok.all():
        notes.append(f"Differentiation of {judge}: {int((~ok).sum())} of {n_resamples} resamples "
                     "left an arm without units and were dropped.")
    if boot.size < 2:
        return row(estimate, nan, nan, "too_few_resamples")
    lower, upper = np.quantile(boot, [(1.0 - conf) / 2.0, (1.0 + conf) / 2.0])
    return row(estimate, float(lower), float(upper), "percentile_cluster_bootstrap")
