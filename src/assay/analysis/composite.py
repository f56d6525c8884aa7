"""Composite score Q per arm and its rubric-weighted form (CoEval), and the units they share
with the judges' differentiation score (:mod:`assay.analysis.judges._differentiation`).

CoEval ("Metric Formulas"): Q(student) is the mean over all valid (response, factor)
units of the normalised score, and the rubric-weighted composite is
Q_weighted = sum_l w_l x mean(scores on factor l). Here a unit is one row of the judgments
table: one judge's score of one arm's answer to one item on one run for one criterion
(CoEval's factor), normalised to [0, 1] by the criterion's scale. The differentiation
score of a judge is the variance of its mean scores across arms (CoEval, "Key Metrics":
higher = the judge discriminates better).

Which rows are units (:func:`pointwise_units`):

* only reportable rows (dev and calibration splits are left out, with a note);
* only pointwise rows: a pairwise row's score is a preference for one answer over another,
  not a score of the answer, so rows with an ``opponent`` are left out (with a note);
* only criteria with a map to [0, 1] (binary, range, ordinal); interval and nominal
  criteria are left out (with a note);
* a row without a score (a failure) is not a valid unit: counted in ``n_failed``.

Every estimate carries a cluster-robust interval: units are summed within their cluster
(document, topic), so neither items nor runs nor judges are taken as independent draws.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special

from assay._display import Rendered
from assay.analysis._mean_rule import INDEPENDENT_DF, df_sumsq, mean_interval
from assay.analysis.benchmark._design import design_flag_note
from assay.data.table import Judgments
from assay.errors import ConfigError
from assay.stats.intervals import cr2_weighted_means

FloatArray = npt.NDArray[np.float64]
Model = Judgments | str | os.PathLike[str]
"""What CoEval's programmatic API takes: a loaded table, or a path :func:`assay.load` reads."""

UNIT_COLUMNS = ("item", "cluster", "arm", "run", "judge", "criterion", "task", "value")


def as_judgments(model: Model) -> Judgments:
    """The judgments of `model`: itself, or the table or run folder at a path."""
    if isinstance(model, Judgments):
        return model
    if isinstance(model, (str, os.PathLike)):
        from assay.data.io import load

        return load(Path(model))
    raise TypeError(f"expected a Judgments table or a path, got {type(model).__name__}")


def clean_record(record: dict[str, Any]) -> dict[str, Any]:
    """:func:`clean` of a record, typed as one."""
    out: dict[str, Any] = clean(record)
    return out


def clean(value: Any) -> Any:
    """NaN -> None, numpy scalars -> Python numbers, recursively, for JSON."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class UnitTable:
    """Valid pointwise units (a row each, ``value`` on [0, 1]) and what was left out."""

    frame: pd.DataFrame
    """Columns item, cluster, arm, run, judge, criterion, task (None without a task
    column) and value."""
    failed: pd.DataFrame
    """Rows with no score (failures): arm, judge, criterion, task."""
    notes: list[str]


def pointwise_units(judgments: Judgments, *, reportable_only: bool = True,
                    extra: Sequence[str] = ()) -> UnitTable:
    """The valid (response, factor) units of CoEval: see the module docstring.

    `extra` names further columns to carry (None-filled when the table lacks them);
    ``reportable_only=False`` keeps the dev and calibration rows.
    """
    frame = judgments.frame
    notes: list[str] = []
    keep = pd.Series(True, index=frame.index)
    if reportable_only:
        held = int((~frame["reportable"]).sum())
        if held:
            keep &= frame["reportable"].astype(bool)
            notes.append(f"{held} rows of the dev or calibration split are not reportable and "
                         "are left out.")
    if "opponent" in frame:
        pairwise = frame["opponent"].notna()
        if pairwise.any():
            keep &= ~pairwise
            judges = ", ".join(sorted(map(str, pd.unique(frame.loc[pairwise, "judge"]))))
            notes.append(f"{int(pairwise.sum())} pairwise rows ({judges}) are left out: a "
                         "preference between two answers is not a score of one answer.")
    values = judgments.normalised_scores()
    for criterion in pd.unique(frame["criterion"]):
        scale = judgments.scale(str(criterion))
        if scale.kind in ("interval", "nominal"):
            mask = frame["criterion"] == criterion
            if (keep & mask).any():
                notes.append(f"Criterion {criterion!r} has an {scale.kind} scale with no map to "
                             "[0, 1]; it is left out (declare range:MIN,MAX to include it).")
            keep &= ~mask
    out = frame.loc[keep, ["item", "cluster", "arm", "run", "judge", "criterion"]].copy()
    for column in ("task", *extra):
        out[column] = frame.loc[keep, column] if column in frame else None
    out["value"] = values[keep.to_numpy()]
    scored = out["value"].notna()
    failed = out.loc[~scored, ["arm", "judge", "criterion", "task"]].reset_index(drop=True)
    units = out.loc[scored].reset_index(drop=True)
    for column in ("item", "cluster", "arm", "judge", "criterion"):
        units[column] = units[column].astype(str)
    units["task"] = units["task"].astype(object).where(units["task"].notna(), None)
    return UnitTable(units, failed, notes)


def cluster_matrix(units: pd.DataFrame, by: str) -> tuple[list[str], list[str], FloatArray,
                                                              FloatArray]:
    """Clusters, groups, and the (C, G) matrices of summed values and unit counts."""
    sums = units.pivot_table(index="cluster", columns=by, values="value", aggfunc="sum",
                             fill_value=0.0, sort=True, observed=True)
    counts = units.pivot_table(index="cluster", columns=by, values="value", aggfunc="count",
                               fill_value=0, sort=True, observed=True)
    return ([str(c) for c in sums.index], [str(g) for g in sums.columns],
            sums.to_numpy(dtype=np.float64), counts.to_numpy(dtype=np.float64))


def linearised_composite(values: FloatArray, clusters: npt.ArrayLike, factors: npt.ArrayLike,
                         weights: Mapping[str, float]) -> tuple[float, float, int]:
    r"""Weighted sum of per-factor means, its cluster-robust standard error and C.

    With r_l = S_l / N_l the mean of factor l's units and Q = sum_l w_l r_l (weights summing
    to 1), the linearised variance over clusters c = 1..C is

    .. math:: V = \frac{C}{C-1} \sum_c \Big(\sum_l w_l \frac{S_{lc} - r_l n_{lc}}{N_l}\Big)^2,

    the ratio estimator's V when there is one factor (Cochran 1977, ch. 6), and the
    cluster-robust sandwich of an OLS on factor indicators with the C/(C-1) factor
    (Cameron and Miller 2015) for several. Returns (Q, sqrt(V), C); the standard error is
    NaN for fewer than 2 clusters.
    """
    f = np.asarray(factors).astype(str)
    c = np.asarray(clusters).astype(str)
    contribution = np.zeros(values.size)
    estimate = 0.0
    for factor, weight in weights.items():
        mask = f == factor
        n_l = int(mask.sum())
        r_l = float(values[mask].mean())
        estimate += weight * r_l
        contribution[mask] = weight * (values[mask] - r_l) / n_l
    e = pd.Series(contribution).groupby(c).sum().to_numpy()
    n_clusters = e.size
    if n_clusters < 2:
        return estimate, math.nan, n_clusters
    variance = n_clusters / (n_clusters - 1) * float(np.sum(e * e))
    return estimate, math.sqrt(variance), n_clusters


def logit_t_bounds(estimate: float, standard_error: float, df: float, *,
                   conf: float) -> tuple[float, float, str]:
    """expit(logit Q -+ t_df se / (Q (1 - Q))): the cluster-robust t on the logit scale, on
    ``df`` degrees of freedom (Bell-McCaffrey's for the CR2 standard error).

    NaN bounds when Q is 0 or 1, or the standard error or df is 0 or undefined.
    """
    if not (math.isfinite(standard_error) and math.isfinite(df) and df > 0):
        return math.nan, math.nan, "undefined_at_bound_or_no_cluster_variance"
    if not 0.0 < estimate < 1.0 or standard_error <= 0.0:
        return math.nan, math.nan, "undefined_at_bound_or_no_cluster_variance"
    # special.stdtrit is the function scipy.stats.t.ppf evaluates (scipy.stats loads slowly)
    half = (float(special.stdtrit(df, (1.0 + conf) / 2.0)) * standard_error
            / (estimate * (1.0 - estimate)))
    centre = float(special.logit(estimate))
    return (float(special.expit(centre - half)), float(special.expit(centre + half)),
            "logit_cluster_robust_t")


def plain_composite(units: pd.DataFrame, *, conf: float) -> dict[str, Any]:
    """Plain Q over `units` (columns value, cluster, item) with its logit CR2 t interval.

    Returns the fields ``estimate``, ``lower``, ``upper``, ``standard_error``, ``method``,
    ``n``, ``n_items`` and ``n_clusters`` of a result row. Q = sum_c S_c / N over the units'
    cluster sums; the standard error is CR2's (Bell and McCaffrey 2002) and the interval
    expit(logit Q -+ t_nu se / (Q (1 - Q))) with nu the Bell-McCaffrey degrees of freedom
    at the working ICC of the units (:func:`assay.stats.cluster_t_interval` with
    ``variance="CR2"``): with clusters of one size that is the C/(C-1) estimator with C - 1
    df, and with unequal ones the df fall towards the effective number of clusters, where
    the C - 1 df covered 73-91% in the coverage grid (``docs/statistics.md``). It is the one
    rule of every report (:func:`assay.analysis._mean_rule.mean_interval`): in a design the
    benchmark flags, the df of the independence working model (``method`` with the suffix
    ``_independent_df``), and Korn-Graubard where the logit t is undefined (Q at 0 or 1, or
    no variance between clusters), named in ``method``.
    """
    values = units["value"].to_numpy(dtype=np.float64)
    codes, uniques = pd.factorize(units["cluster"].astype(str))
    n_clusters = len(uniques)
    sizes = np.bincount(codes, minlength=n_clusters).astype(np.float64)
    sums = np.bincount(codes, weights=values, minlength=n_clusters)
    estimate = float(sums.sum() / sizes.sum()) if len(units) else math.nan
    row = {"estimate": estimate, "n": len(units), "n_items": int(units["item"].nunique()),
           "n_clusters": n_clusters}
    if n_clusters < 2:
        return {**row, "lower": math.nan, "upper": math.nan, "standard_error": math.nan,
                "method": "too_few_clusters"}
    sumsq = np.bincount(codes, weights=values * values, minlength=n_clusters)
    res = mean_interval(sums, sizes, sumsq, conf=conf, bounded=True)
    return {**row, "lower": res.lower, "upper": res.upper,
            "standard_error": res.standard_error, "method": res.method}


@dataclass(frozen=True)
class CompositeRow:
    """Q of one arm, over all tasks (``task`` None) or one task."""

    arm: str
    task: str | None
    estimate: float
    """Q on [0, 1] (rubric-weighted when the report has weights); NaN when undefined."""
    lower: float
    upper: float
    standard_error: float
    """CR2 standard error of Q (Bell and McCaffrey 2002)."""
    method: str
    n: int
    """Valid units in Q."""
    n_failed: int
    """Units without a score (failures), left out."""
    n_items: int
    n_clusters: int
    effective_clusters: float | None = None
    """G*, the benchmark's effective number of clusters; None below 2 clusters."""
    design_flagged: bool = False
    """Few effective clusters of unequal size, flagged as the benchmark flags them."""


@dataclass(frozen=True, eq=False)
class CompositeScores(Rendered, Mapping[str, float]):
    """Composite score Q per arm; reads as a mapping arm -> Q over all tasks.

    ``scores[arm]``, ``scores.items()`` and ``dict(scores)`` give Q over all tasks, as the
    seed's ``composite_score_by_student`` does; ``rows`` hold the intervals and the per-task
    values.
    """

    rows: list[CompositeRow]
    weights: dict[str, float] | None
    """Normalised rubric weights per criterion (summing to 1), or None for the plain Q."""
    conf: float
    notes: list[str] = field(default_factory=list)

    def _overall(self) -> dict[str, float]:
        return {r.arm: r.estimate for r in self.rows if r.task is None}

    def __getitem__(self, arm: str) -> float:
        return self._overall()[arm]

    def __iter__(self) -> Iterator[str]:
        return iter(self._overall())

    def __len__(self) -> int:
        return len(self._overall())

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "weights": self.weights,
                      "composite": [asdict(r) for r in self.rows], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def check_conf(conf: float) -> float:
    """``conf`` when it is a level in (0, 1), else a ConfigError."""
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf}")
    return float(conf)


def _normalised_weights(weights: Mapping[str, float], criteria: list[str],
                        notes: list[str]) -> dict[str, float]:
    unknown = sorted(set(weights) - set(criteria))
    if unknown:
        raise ConfigError(f"weights name criteria with no valid units: {', '.join(unknown)}; "
                          f"criteria: {', '.join(criteria) or 'none'}")
    clean_weights: dict[str, float] = {}
    for name, w in weights.items():
        value = float(w)
        if not math.isfinite(value) or value < 0:
            raise ConfigError(f"weight of {name!r} must be finite and non-negative, got {w!r}")
        if value > 0:
            clean_weights[str(name)] = value
    total = sum(clean_weights.values())
    if total <= 0:
        raise ConfigError("the weights must have a positive sum")
    if abs(total - 1.0) > 1e-12:
        notes.append(f"The rubric weights sum to {total:g}; they are divided by their sum so "
                     "that Q_weighted stays on [0, 1].")
    left_out = [c for c in criteria if c not in clean_weights]
    if left_out:
        notes.append("Criteria with no (or zero) weight do not enter Q_weighted: "
                     + ", ".join(left_out) + ".")
    return {name: value / total for name, value in clean_weights.items()}


def composite_score_by_student(judgments: Model, *, weights: Mapping[str, float] | None = None,
                               conf: float = 0.95) -> CompositeScores:
    r"""Composite score Q per arm (CoEval's student), optionally rubric-weighted.

    Parameters
    ----------
    judgments : Judgments or path
        The table (or a file or run folder :func:`assay.load` reads).
    weights : mapping of criterion to weight, optional
        w_l of the rubric-weighted composite; divided by their sum (a note says so when it
        is not 1). Criteria without a weight do not enter it.
    conf : float, default 0.95
        Level of the intervals.

    Returns
    -------
    CompositeScores
        A mapping arm -> Q over all tasks, with a row per arm (and per task and arm when
        the table has a ``task`` column) carrying the interval.

    Notes
    -----
    Over the valid units u of an arm (see :func:`pointwise_units`) with normalised scores
    y_u,

    .. math:: Q = \frac{1}{N} \sum_u y_u, \qquad
              Q_{weighted} = \sum_l w_l \, \bar y_l

    with ybar_l the mean over the arm's units on criterion l. The plain Q is a mean over
    clusters and gets the interval every report gives one
    (:func:`assay.analysis._mean_rule.mean_interval`: the logit CR2 t with Bell-McCaffrey
    df of ``--kind scores``, Korn-Graubard where it is undefined, and the benchmark's design
    flag G*); the weighted Q gets the logit t around the CR2 standard error of the weighted
    sum of factor means, on its Bell-McCaffrey df (:func:`assay.stats.cr2_weighted_means`),
    NaN where Q is 0 or 1 or no cluster varies, and the same design flag on its units.
    """
    table = as_judgments(judgments)
    conf = check_conf(conf)
    units = pointwise_units(table)
    frame, notes = units.frame, list(units.notes)
    criteria = list(pd.unique(frame["criterion"]))
    norm_weights = _normalised_weights(weights, criteria, notes) if weights is not None else None
    scopes: list[str | None] = [None]
    if "task" in table.frame and frame["task"].notna().any():
        scopes += sorted(str(t) for t in pd.unique(frame["task"].dropna()))
    rows: list[CompositeRow] = []
    for arm in table.arms:
        for task in scopes:
            part = frame[(frame["arm"] == arm) & ((frame["task"] == task) if task else True)]
            failed = units.failed[(units.failed["arm"] == arm)
                                  & ((units.failed["task"] == task) if task else True)]
            if part.empty and task is not None:
                continue
            rows.append(_composite_row(str(arm), task, part, norm_weights, len(failed),
                                       notes, conf=conf))
    return CompositeScores(rows, norm_weights, conf, notes)


def _composite_row(arm: str, task: str | None, part: pd.DataFrame,
                   weights: dict[str, float] | None, n_failed: int, notes: list[str], *,
                   conf: float) -> CompositeRow:
    nan = math.nan

    def row(estimate: float, lower: float, upper: float, se: float, method: str,
            effective: float | None = None, flagged: bool = False) -> CompositeRow:
        return CompositeRow(arm=arm, task=task, estimate=estimate, lower=lower, upper=upper,
                            standard_error=se, method=method, n=len(part), n_failed=n_failed,
                            n_items=int(part["item"].nunique()),
                            n_clusters=int(part["cluster"].nunique()),
                            effective_clusters=effective, design_flagged=flagged)

    if part.empty:
        return row(nan, nan, nan, nan, "no_units")
    factors = part["criterion"].to_numpy(dtype=str)
    if weights is not None:
        missing = [c for c in weights if c not in set(factors)]
        if missing:
            scope = f" in task {task}" if task else ""
            notes.append(f"{arm} has no units on {', '.join(missing)}{scope}: its rubric-weighted "
                         "Q is undefined there.")
            return row(nan, nan, nan, nan, "missing_factor")
    values = part["value"].to_numpy(dtype=np.float64)
    codes, uniques = pd.factorize(part["cluster"].astype(str))
    scope = f"{arm}" + (f", task {task}" if task else "") + ", Q"
    pooled = [np.bincount(codes, weights=x, minlength=len(uniques))
              for x in (values, np.ones_like(values), values * values)]
    if len(uniques) < 2:
        return row(float(pooled[0].sum() / pooled[1].sum()), nan, nan, nan, "too_few_clusters")
    if weights is None:
        # the plain Q is a mean over clusters: the one rule of every report
        res = mean_interval(*pooled, conf=conf, bounded=True, what=scope)
        if res.flag_note is not None:
            notes.append(res.flag_note)
        return row(res.estimate, res.lower, res.upper, res.standard_error, res.method,
                   res.effective_clusters, res.design_flagged)
    names = list(weights)
    f_codes = pd.Index(names).get_indexer(factors)
    shape = (len(uniques), len(names))
    S, n, Q = (np.zeros(shape) for _ in range(3))
    for target, x in ((S, values), (n, np.ones_like(values)), (Q, values * values)):
        np.add.at(target, (codes, f_codes), x)
    design, note = design_flag_note(pooled[0], pooled[2], pooled[1], what=scope)
    # the one rule's df: the working ICC's, the independence model's in a flagged design
    cr2 = cr2_weighted_means(S, n, np.array([weights[k] for k in names]),
                             sumsq=df_sumsq(Q, note is not None))
    lower, upper, method = logit_t_bounds(cr2.estimate, cr2.standard_error, cr2.df, conf=conf)
    if note is not None:
        notes.append(note)
        method += INDEPENDENT_DF if math.isfinite(lower) else ""
    return row(cr2.estimate, lower, upper, cr2.standard_error, method,
               design.effective_clusters, note is not None)
