"""Comparing two runs (CoEval, "Comparing Multiple Runs"): rankings, score deltas, coverage.

``compare(a, b)`` reads two judgments tables, run A (the baseline) and run B, and reports,
for every (judge, criterion) both runs scored pointwise:

* **Rankings**: each arm's mean score in each run over that run's items (runs averaged within
  an item, then the mean over items, normalised to [0, 1] by the criterion's scale, or on the
  raw scale for an interval criterion: see ``scale``), its rank
  in each run (1 = best; ties share the lowest rank) and the change ``rank_b - rank_a``
  (negative: the arm moved up).
* **Deltas**: per arm, ``B - A`` over the items *both* runs scored for that arm: the item
  difference is d_i = mean_B(i) - mean_A(i) (each the mean over its runs); items are summed
  within their cluster (run A's cluster of the item; a note counts items run B puts in
  another cluster), and the mean difference gets the
  cluster-robust paired t interval of
  :func:`assay.stats.contrasts._paired.paired_difference_interval` (ratio estimator over clusters,
  CR2 variance with Bell-McCaffrey df: C - 1 df when the clusters have one size). Items only
  one run scored are counted, never paired.
* **Coverage**: items, clusters and arms of each run, the items they share, and when both
  runs carry ``attributes`` the attribute coverage ratio (ACR) per task and overall, with
  its change.

Reportable rows with a score only; pairwise rows (with an opponent) are left out, since a
preference depends on which pairs were compared (the win-rate report reads them), and
nominal criteria have no mean. A difference needs no normalisation: a criterion on an
interval scale (no map to [0, 1]) is compared on its raw scale, within itself (``scale`` =
``raw``), and a criterion whose scale normalises in one run but not in the other is not
compared. Each exclusion is counted in the notes.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.stats as sps

from assay._display import Rendered
from assay.analysis._mean_rule import INDEPENDENT_DF, RAW_T, df_sumsq, paired_design
from assay.data.table import Judgments
from assay.stats.contrasts import paired_difference_interval
from assay.stats.intervals import cr2_ratio_estimate

__all__ = ["ComparisonReport", "CoverageChange", "RankChange", "ScoreDelta", "compare"]


@dataclass(frozen=True)
class RankChange:
    """One arm's mean score and rank for one (judge, criterion) in runs A and B."""

    judge: str
    criterion: str
    arm: str
    score_a: float
    """Mean over run A's items of the item means, on ``scale``; NaN when A lacks the arm."""
    score_b: float
    rank_a: int | None
    """1 = best in run A; None when run A lacks the arm."""
    rank_b: int | None
    rank_change: int | None
    """``rank_b - rank_a``: negative means the arm moved up in B."""
    scale: str = "normalised_0_1"
    """``normalised_0_1``, or ``raw`` for a criterion on an interval scale."""


@dataclass(frozen=True)
class ScoreDelta:
    """B - A for one arm, paired over the items both runs scored."""

    judge: str
    criterion: str
    arm: str
    estimate: float
    """Mean over shared items of mean_B(item) - mean_A(item), on ``scale``."""
    lower: float
    """Cluster-robust paired t bound; NaN when undefined (see ``method``)."""
    upper: float
    standard_error: float
    df: float | None
    method: str
    """``cluster_robust_t``, ``too_few_clusters`` (fewer than 2 shared clusters) or
    ``no_shared_items``."""
    n: int
    """Items both runs scored for the arm."""
    n_clusters: int
    n_only_a: int
    """Items only run A scored for the arm (left out of the pairing)."""
    n_only_b: int
    conf: float
    scale: str = "normalised_0_1"
    """``normalised_0_1``, or ``raw`` for a criterion on an interval scale."""
    effective_clusters: float | None = None
    """G* of the shared items at the largest working ICC of the two runs' values (the
    benchmark's rule for a paired difference); None below 2 clusters."""
    design_flagged: bool = False
    """Few effective clusters of unequal size, flagged as the benchmark flags them."""


@dataclass(frozen=True)
class CoverageChange:
    """What each run covers: items, clusters, arms, and ACR per task when attributes exist."""

    task: str | None
    """None: all tasks together."""
    items_a: int
    items_b: int
    items_shared: int
    clusters_a: int
    clusters_b: int
    acr_a: float | None
    """Attribute coverage ratio of run A; None without attributes in both runs."""
    acr_b: float | None
    acr_change: float | None
    """``acr_b - acr_a``."""


@dataclass(frozen=True)
class ComparisonReport(Rendered):
    """Run B against run A: rank changes, paired score deltas and coverage change."""

    label_a: str
    label_b: str
    rankings: tuple[RankChange, ...]
    deltas: tuple[ScoreDelta, ...]
    coverage: tuple[CoverageChange, ...]
    arms_a: tuple[str, ...]
    arms_b: tuple[str, ...]
    conf: float
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """``comparison.json``: numbers as numbers, NaN as null."""
        def records(rows: tuple[Any, ...]) -> list[dict[str, Any]]:
            return [{k: _clean(v) for k, v in asdict(r).items()} for r in rows]

        raw = any(r.scale == "raw" for r in self.rankings)
        return {"run_a": self.label_a, "run_b": self.label_b, "conf": self.conf,
                "direction": "b_minus_a", "scale": "per_row" if raw else "normalised_0_1",
                "arms_a": list(self.arms_a), "arms_b": list(self.arms_b),
                "rankings": records(self.rankings), "deltas": records(self.deltas),
                "coverage": records(self.coverage), "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (np.floating, np.integer)):
        return _clean(value.item())
    return value


def _scored(judgments: Judgments, label: str, notes: list[str]) -> pd.DataFrame:
    """Reportable, scored, pointwise rows of non-nominal criteria: ``value`` is the score
    normalised to [0, 1], or the raw score of an interval criterion (``scale`` says which)."""
    frame = judgments.frame.assign(value=judgments.normalised_scores(), scale="normalised_0_1")
    interval = [c for c in judgments.criteria if judgments.scale(str(c)).kind == "interval"]
    raw = frame["criterion"].isin(interval).to_numpy()
    frame.loc[raw, "value"] = frame.loc[raw, "score"].astype(float)
    frame.loc[raw, "scale"] = "raw"
    keep = frame["reportable"].astype(bool)
    if "opponent" in frame:
        pairwise = keep & frame["opponent"].notna()
        if pairwise.any():
            notes.append(f"Run {label}: {int(pairwise.sum())} pairwise rows left out (a "
                         "preference depends on the pairs compared; see the win-rate report).")
        keep &= ~frame["opponent"].notna()
    nominal = [c for c in judgments.criteria if judgments.scale(str(c)).kind == "nominal"]
    if nominal and (keep & frame["criterion"].isin(nominal)).any():
        notes.append(f"Run {label}: criteria on a nominal scale have no mean and are left out: "
                     f"{', '.join(map(str, nominal))}.")
        keep &= ~frame["criterion"].isin(nominal)
    unscored = keep & frame["value"].isna()
    if unscored.any():
        notes.append(f"Run {label}: {int(unscored.sum())} rows without a score left out.")
    keep &= frame["value"].notna()
    return frame.loc[keep, ["item", "cluster", "arm", "run", "judge", "criterion", "value",
                            "scale"]]


def _item_means(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean over runs per (judge, criterion, arm, item), with the item's cluster."""
    grouped = rows.groupby(["judge", "criterion", "arm", "item"], sort=False, observed=True)
    return grouped.agg(value=("value", "mean"), cluster=("cluster", "first"),
                       scale=("scale", "first")).reset_index()


def _ranks(scores: pd.Series) -> dict[str, int]:
    """Rank 1 = highest mean; ties share the lowest rank (competition ranking)."""
    ranked = scores.rank(method="min", ascending=False)
    return {str(arm): int(r) for arm, r in ranked.items()}


def compare(judgments_a: Judgments, judgments_b: Judgments, *, conf: float = 0.95,
            label_a: str = "A", label_b: str = "B") -> ComparisonReport:
    """Compare run B with run A: ranking differences, paired score deltas, coverage change.

    Parameters
    ----------
    judgments_a, judgments_b : Judgments
        The baseline run A and the run B compared with it.
    conf : float, default 0.95
        Confidence level of the paired intervals.
    label_a, label_b : str
        Names of the runs in the report (e.g. their paths).

    Returns
    -------
    ComparisonReport
        See the module docstring for the definitions.

    Examples
    --------
    Two runs of one judge on four questions in two documents; run B gets question q2 right:

    >>> import pandas as pd
    >>> from assay.data.table import Judgments
    >>> from assay.data.schema import Scale
    >>> def run(scores):
    ...     return Judgments(pd.DataFrame({"item": ["q1", "q2", "q3", "q4"],
    ...         "cluster": ["d1", "d1", "d2", "d2"], "arm": "m", "run": 1, "judge": "em",
    ...         "criterion": "correct", "score": scores, "reportable": True}),
    ...         {"correct": Scale("binary")})
    >>> report = compare(run([1.0, 0.0, 1.0, 0.0]), run([1.0, 1.0, 1.0, 0.0]))
    >>> d = report.deltas[0]
    >>> d.estimate, d.n, d.n_clusters, d.method
    (0.25, 4, 2, 'cluster_robust_t')
    >>> round(d.standard_error, 4)
    0.25
    """
    if not 0.0 < conf < 1.0:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    notes: list[str] = []
    rows_a = _scored(judgments_a, label_a, notes)
    rows_b = _scored(judgments_b, label_b, notes)
    means_a, means_b = _item_means(rows_a), _item_means(rows_b)
    keys_a = set(map(tuple, means_a[["judge", "criterion"]].drop_duplicates().to_numpy()))
    keys_b = set(map(tuple, means_b[["judge", "criterion"]].drop_duplicates().to_numpy()))
    shared = [k for k in dict.fromkeys(map(tuple, means_a[["judge", "criterion"]].to_numpy()))
              if k in keys_b]
    for label, only in ((label_a, keys_a - keys_b), (label_b, keys_b - keys_a)):
        for judge, criterion in sorted(only):
            notes.append(f"(judge {judge}, criterion {criterion}) is only in run {label}: "
                         "not compared.")
    rankings: list[RankChange] = []
    deltas: list[ScoreDelta] = []
    for judge, criterion in shared:
        a = means_a[(means_a["judge"] == judge) & (means_a["criterion"] == criterion)]
        b = means_b[(means_b["judge"] == judge) & (means_b["criterion"] == criterion)]
        scale = str(a["scale"].iloc[0])
        if scale != str(b["scale"].iloc[0]):
            notes.append(f"(judge {judge}, criterion {criterion}) is on an interval scale in one "
                         "run and maps to [0, 1] in the other: the runs are on different scales "
                         "and are not compared (declare the same --scale for both).")
            continue
        score_a = a.groupby("arm", sort=False)["value"].mean()
        score_b = b.groupby("arm", sort=False)["value"].mean()
        rank_a, rank_b = _ranks(score_a), _ranks(score_b)
        arms = list(dict.fromkeys([*map(str, score_a.index), *map(str, score_b.index)]))
        for arm in arms:
            ra, rb = rank_a.get(arm), rank_b.get(arm)
            rankings.append(RankChange(
                judge=str(judge), criterion=str(criterion), arm=arm,
                score_a=float(score_a.get(arm, math.nan)), score_b=float(score_b.get(arm, math.nan)),
                rank_a=ra, rank_b=rb, rank_change=None if ra is None or rb is None else rb - ra,
                scale=scale))
            if arm in rank_a and arm in rank_b:
                deltas.append(_delta(a[a["arm"] == arm], b[b["arm"] == arm], str(judge),
                                     str(criterion), arm, conf, notes, scale))
    return ComparisonReport(
        label_a=label_a, label_b=label_b, rankings=tuple(rankings), deltas=tuple(deltas),
        coverage=tuple(_coverage(judgments_a, judgments_b, notes)),
        arms_a=tuple(map(str, pd.unique(rows_a["arm"]))),
        arms_b=tuple(map(str, pd.unique(rows_b["arm"]))), conf=conf, notes=tuple(notes))


def _delta(a: pd.DataFrame, b: pd.DataFrame, judge: str, criterion: str, arm: str, conf: float,
           notes: list[str], scale: str) -> ScoreDelta:
    paired = a[["item", "cluster", "value"]].merge(b[["item", "cluster", "value"]], on="item",
                                                  suffixes=("_a", "_b"))
    paired = paired.rename(columns={"cluster_a": "cluster"})
    moved = int((paired["cluster"] != paired["cluster_b"]).sum())
    if moved:
        notes.append(f"{arm} ({judge}, {criterion}): {moved} shared items sit in another cluster "
                     f"in run B; run A's clusters are used.")
    n = len(paired)
    only_a, only_b = len(a) - n, len(b) - n
    base = dict(judge=judge, criterion=criterion, arm=arm, n=n, n_only_a=only_a,
                n_only_b=only_b, conf=conf, scale=scale)
    if n == 0:
        notes.append(f"{arm} ({judge}, {criterion}): the runs share no item; no delta.")
        return ScoreDelta(estimate=math.nan, lower=math.nan, upper=math.nan,
                          standard_error=math.nan, df=None, method="no_shared_items",
                          n_clusters=0, **base)
    diff = paired["value_b"].to_numpy() - paired["value_a"].to_numpy()
    sums = pd.Series(diff).groupby(paired["cluster"].to_numpy(), sort=False).agg(["sum", "size"])
    if len(sums) < 2:
        notes.append(f"{arm} ({judge}, {criterion}): the shared items come from one cluster; "
                     "the delta has no interval.")
        return ScoreDelta(estimate=float(diff.mean()), lower=math.nan, upper=math.nan,
                          standard_error=math.nan, df=None, method="too_few_clusters",
                          n_clusters=len(sums), **base)
    sumsq = pd.Series(diff * diff).groupby(paired["cluster"].to_numpy(), sort=False).sum()
    arms = paired[["value_a", "value_b"]].to_numpy(np.float64)
    by = paired["cluster"].to_numpy()
    arm_sums = pd.DataFrame(arms).groupby(by, sort=False).sum().to_numpy(np.float64)
    arm_sq = pd.DataFrame(arms * arms).groupby(by, sort=False).sum().to_numpy(np.float64)
    design, flagged = paired_design(arm_sums, arm_sq, sums["size"].to_numpy(np.float64),
                                    what=f"{arm} ({judge}, {criterion}), delta")
    # the one rule's df: the working ICC's, the independence model's in a flagged design
    df_model = df_sumsq(sumsq.to_numpy(), flagged is not None)
    if scale == "raw":  # a raw difference has no bound at +-1: the same CR2 t, never clipped
        res = _raw_difference_interval(sums["sum"].to_numpy(), sums["size"].to_numpy(),
                                       df_model, conf)
    else:
        res = paired_difference_interval(sums["sum"].to_numpy(), sums["size"].to_numpy(),
                                         conf=conf, variance="CR2", sumsq=df_model)
    if math.isnan(res.lower):
        notes.append(f"{arm} ({judge}, {criterion}): every cluster has the same mean difference "
                     f"({res.estimate:.3f}); the t interval is undefined.")
    elif flagged:
        notes.append(flagged)
    method = RAW_T + (INDEPENDENT_DF if flagged else "")
    return ScoreDelta(estimate=res.estimate, lower=res.lower, upper=res.upper,
                      standard_error=res.standard_error, df=res.df, method=method,
                      n_clusters=int(res.n_clusters), **base,
                      effective_clusters=design.effective_clusters,
                      design_flagged=flagged is not None)


class _RawInterval(NamedTuple):
    estimate: float
    lower: float
    upper: float
    standard_error: float
    df: float | None
    n_clusters: int


def _raw_difference_interval(sums: Any, sizes: Any, sumsq: Any, conf: float) -> _RawInterval:
    """The CR2 ratio estimate of a mean raw difference with its Student t interval
    (Bell-McCaffrey df), unbounded; NaN bounds when the CR2 variance is 0."""
    ratio = cr2_ratio_estimate(sums, sizes, sumsq=sumsq)
    half = (float(sps.t.ppf((1 + conf) / 2, ratio.df)) * ratio.standard_error
            if ratio.standard_error > 0 else math.nan)
    return _RawInterval(estimate=ratio.estimate, lower=ratio.estimate - half,
                        upper=ratio.estimate + half, standard_error=ratio.standard_error,
                        df=ratio.df, n_clusters=len(sums))


def _coverage(a: Judgments, b: Judgments, notes: list[str]) -> list[CoverageChange]:
    from assay.analysis.coverage import coverage_ratio

    fa, fb = a.frame, b.frame
    attributes = "attributes" in fa and "attributes" in fb
    if not attributes:
        notes.append("ACR needs an attributes column in both runs; only item coverage is compared.")
    tasks: list[str | None] = [None]
    if "task" in fa and "task" in fb:
        tasks += sorted(set(map(str, fa["task"].dropna())) | set(map(str, fb["task"].dropna())))
    out = []
    for task in tasks:
        pa = fa if task is None else fa[fa["task"].astype(str) == task]
        pb = fb if task is None else fb[fb["task"].astype(str) == task]
        acr_a = acr_b = None
        if attributes:
            acr_a = _acr(coverage_ratio, a, task, pa)
            acr_b = _acr(coverage_ratio, b, task, pb)
        change = None if acr_a is None or acr_b is None else acr_b - acr_a
        items_a, items_b = set(pa["item"]), set(pb["item"])
        out.append(CoverageChange(task=task, items_a=len(items_a), items_b=len(items_b),
                                  items_shared=len(items_a & items_b),
                                  clusters_a=int(pa["cluster"].nunique()),
                                  clusters_b=int(pb["cluster"].nunique()),
                                  acr_a=acr_a, acr_b=acr_b, acr_change=change))
    return out


def _acr(coverage_ratio: Any, table: Judgments, task: str | None, part: pd.DataFrame) -> float | None:
    if part.empty:
        return None
    value = float(coverage_ratio(table, task_id=task))
    return None if math.isnan(value) else value
