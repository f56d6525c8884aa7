"""Mean score per criterion, judge and arm, with an interval that respects clusters.

The first look at any judgments table: for each (criterion, judge, arm[, opponent]) the
number of scores, the mean on the [0, 1] scale of the criterion (the raw scale for an
interval criterion), and a cluster-robust interval whose method is named. Runs are
averaged within an item first and items are summed within their cluster, so neither
runs nor items are taken as independent draws (hr_report's ratio estimator).

Rows without a score (a failure_kind saying why) are left out of the mean and counted
in ``n_failed``; the benchmark report, by contrast, counts a failed answer as wrong.

pandas is imported inside the functions that read a table: the result types and
:func:`row_from_sums` stay pandas-free, so the small-table path of ``assay report``
(:mod:`assay.analysis.pushdown`) starts without it.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from assay._display import Rendered
from assay.analysis._mean_rule import mean_interval
from assay.analysis.benchmark._design import FLAGGED_COVERAGE

if TYPE_CHECKING:
    import pandas as pd

    from assay.data.table import Judgments


@dataclass(frozen=True)
class ScoreRow:
    criterion: str
    judge: str
    arm: str
    opponent: str | None
    scale: str
    """The criterion's scale; ``estimate`` is on [0, 1] unless it is ``interval``."""
    n: int
    """Scores in the mean."""
    n_failed: int
    """Rows with no score (failures), left out of the mean."""
    n_items: int
    n_clusters: int
    runs: int
    estimate: float
    lower: float
    upper: float
    method: str
    conf: float
    effective_clusters: float | None = None
    """G*, the effective number of clusters (the benchmark report's design rule); None
    without an interval over clusters."""
    design_flagged: bool = False
    """Few effective clusters of unequal size, flagged as the benchmark report flags them
    (:func:`assay.analysis.benchmark._design.design_flag_note`), with a note."""


@dataclass(frozen=True)
class ScoreSummary(Rendered):
    """Per (criterion, judge, arm[, opponent]) mean scores with cluster-robust intervals."""

    rows: list[ScoreRow]
    conf: float
    n_invalid: int
    """Run-folder records kept aside as invalid (CoEval's validity classes)."""
    invalid_by_class: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    categories: list[dict[str, Any]] = field(default_factory=list)
    """Per (criterion, judge, arm, task) of pointwise rows when the table has two or more
    tasks: the mean with its own interval and simultaneous intervals over the tasks
    (:func:`assay.analysis.categories.category_breakdown`)."""
    category_contrasts: list[dict[str, Any]] = field(default_factory=list)
    """Per (criterion, judge, task, arm1, arm2): paired differences, Holm-adjusted over the
    tasks and pairs of each (criterion, judge)."""

    def to_dict(self) -> dict[str, Any]:
        def clean(value: Any) -> Any:
            return None if isinstance(value, float) and math.isnan(value) else value

        return {
            "conf": self.conf,
            "n_invalid": self.n_invalid,
            "invalid_by_class": dict(self.invalid_by_class),
            "scores": [{k: clean(v) for k, v in asdict(r).items()} for r in self.rows],
            "categories": [{k: clean(v) for k, v in r.items()} for r in self.categories],
            "category_contrasts": [{k: clean(v) for k, v in r.items()}
                                   for r in self.category_contrasts],
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def score_summary(judgments: Judgments, *, conf: float = 0.95) -> ScoreSummary:
    """Mean score per criterion, judge and arm (and opponent for pairwise rows).

    The interval is the cluster-robust t interval on the logit scale (CR2 variance,
    Bell-McCaffrey df: C - 1 when the clusters have one size) for a criterion normalised
    to [0, 1] (the interval a win rate gets from ``--kind winrate``), with the Korn-Graubard
    effective-n Clopper-Pearson interval where that is undefined (mean 0 or 1, or no
    variance between clusters), as the benchmark report falls back, with a note; the
    cluster-robust (CR2) t interval on the raw scale for an interval criterion. Nominal
    criteria have no mean and are left out, with a note. Rows of an arm against itself
    (Arena-Hard's baseline judged against itself) are left out with a note, as the
    leaderboard leaves them out.
    """
    import pandas as pd

    if not 0 < conf < 1:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    frame = judgments.frame.copy()
    frame["value"] = judgments.normalised_scores()
    rows: list[ScoreRow] = []
    notes: list[str] = []
    held_back = int((~frame["reportable"]).sum())
    if held_back:
        frame = frame[frame["reportable"]]
        notes.append(f"{held_back} rows of the dev or calibration split are not reportable "
                     "and are left out.")
    opponent = frame["opponent"] if "opponent" in frame else pd.Series(None, index=frame.index)
    itself = (opponent == frame["arm"]).to_numpy(dtype=bool)
    if itself.any():  # a baseline judged against itself: as the leaderboard, left out
        frame, opponent = frame[~itself], opponent[~itself]
        notes.append(f"{int(itself.sum())} A/A trials (an arm against itself) carry no "
                     "information on the scores and are left out.")
    frame["opponent_key"] = opponent.astype(object).where(opponent.notna(), "")
    keys = ["criterion", "judge", "arm", "opponent_key"]
    for (criterion, judge, arm, opp), group in frame.groupby(keys, sort=False):
        scale = judgments.scale(str(criterion))
        if scale.kind == "nominal":
            note = f"Criterion {criterion!r} is nominal: it has no mean and is left out here."
            if note not in notes:
                notes.append(note)
            continue
        scored = group[group["score"].notna()]
        values = scored["score"] if scale.kind == "interval" else scored["value"]
        rows.append(_row(str(criterion), str(judge), str(arm), str(opp) or None, scale.spelling(),
                         scored.assign(v=values), n_failed=len(group) - len(scored), conf=conf,
                         binary=scale.kind == "binary", bounded=scale.kind != "interval"))
    notes += fallback_notes(rows)
    categories, contrasts = _by_task(judgments, frame, conf, notes)
    counts = judgments.invalid["validity_class"].value_counts() if len(judgments.invalid) else {}
    return ScoreSummary(rows=rows, conf=conf, n_invalid=len(judgments.invalid),
                        invalid_by_class={str(k): int(v) for k, v in dict(counts).items()},
                        notes=notes, categories=categories, category_contrasts=contrasts)


def fallback_notes(rows: list[ScoreRow]) -> list[str]:
    """One note per row whose interval is a fallback or is missing for want of variance."""
    notes = []
    for row in rows:
        who = (f"{row.criterion!r}, judge {row.judge}, arm {row.arm}"
               + (f" vs {row.opponent}" if row.opponent else ""))
        if row.method == "korn_graubard_clopper_pearson":
            why = (f"the mean is {row.estimate:g} (every score at that end of the scale)"
                   if row.estimate in (0.0, 1.0) else
                   "every cluster has the same mean (no variance between clusters)")
            notes.append(f"{who}: {why}, where the cluster-robust t interval is not defined; "
                         "its interval is the Korn-Graubard interval, as in the benchmark "
                         "report (conservative for scores between 0 and 1).")
        if row.design_flagged and row.effective_clusters is not None:
            notes.append(f"{who}: the {row.n_clusters} clusters count as "
                         f"{row.effective_clusters:.1f} effective clusters (their sizes "
                         "differ), so the interval rests on a few large clusters; as in the "
                         "benchmark and win-rate reports, which flag the same design, its "
                         "degrees of freedom are the independence working model's "
                         f"(Bell-McCaffrey), which covered {FLAGGED_COVERAGE} in assay's "
                         "coverage simulation.")
        if row.method == "undefined_no_cluster_variance":
            notes.append(f"{who}: every cluster has the same mean (no variance between "
                         "clusters) on a scale without bounds: no interval, as a zero-width "
                         "one would claim certainty.")
    return notes


def _by_task(judgments: Judgments, frame: pd.DataFrame, conf: float,
             notes: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The per-task breakdown of the pointwise rows, when there are two or more tasks."""

    if "task" not in frame or frame["task"].nunique() < 2:
        return [], []
    from assay.analysis.categories import category_breakdown

    pointwise = frame[frame["opponent_key"] == ""].copy()
    kinds = {c: judgments.scale(str(c)).kind for c in pointwise["criterion"].unique()}
    kind = pointwise["criterion"].map(kinds)
    pointwise = pointwise[kind != "nominal"]
    pointwise["value"] = pointwise["score"].where(kind[pointwise.index] == "interval",
                                                  pointwise["value"])
    bounded = {str(c): k != "interval" for c, k in kinds.items()}
    categories, contrasts, more = category_breakdown(
        pointwise, group=["criterion", "judge"], category="task", conf=conf,
        bounded=lambda key: bounded[key["criterion"]])
    notes += more
    return categories, contrasts


def weighted_item_means(scored: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per (cluster, item): the weighted mean of the rows' ``v`` and the item's weight.

    The item's value is sum(w v) / sum(w) over its rows. Without a ``weight`` column the
    item's weight is 1 (its runs averaged first, every item counting once). With one, the
    item's weight is sum(w) over its scored rows, so the ratio of cluster sums
    sum(w_i v_i) / sum(w_i) over items is the weighted mean of every scored row,
    sum(w s) / sum(w): Arena-Hard's score, where a strong verdict counts three times (Li
    et al. 2024, "From Crowdsourced Data to High-Quality Benchmarks: Arena-Hard and
    BenchBuilder Pipeline"), and a question with one game left counts that game once, with
    its weight (Arena-Hard v0.1's rule; the leaderboard counts battles the same way).
    """
    import pandas as pd

    weighted = "weight" in scored
    weight = (scored["weight"].fillna(1.0) if weighted
              else pd.Series(1.0, index=scored.index))
    parts = pd.DataFrame({"cluster": scored["cluster"], "item": scored["item"],
                          "wv": weight * scored["v"], "w": weight})
    grouped = parts.groupby(["cluster", "item"], sort=False)
    totals = grouped["w"].sum()
    return grouped["wv"].sum() / totals, (totals if weighted else grouped["w"].mean())


def _row(criterion: str, judge: str, arm: str, opponent: str | None, scale: str,
         scored: pd.DataFrame, *, n_failed: int, conf: float, binary: bool,
         bounded: bool) -> ScoreRow:
    nan = float("nan")
    base = dict(criterion=criterion, judge=judge, arm=arm, opponent=opponent, scale=scale,
                n=len(scored), n_failed=n_failed, conf=conf)
    if scored.empty:
        return ScoreRow(**base, n_items=0, n_clusters=0, runs=0, estimate=nan, lower=nan,
                        upper=nan, method="no_scores")
    items, item_weights = weighted_item_means(scored)
    return row_from_items(base, items, item_weights, runs=int(scored["run"].max()), conf=conf,
                          binary=binary, bounded=bounded)


def row_from_items(base: dict[str, Any], items: pd.Series, item_weights: pd.Series, *,
                   runs: int, conf: float, binary: bool, bounded: bool) -> ScoreRow:
    """One row of the summary from its item means and weights (:func:`weighted_item_means`,
    indexed by cluster and item, in order of first appearance), summed per cluster here:
    the same sums whether pandas or an engine computed the item means."""
    import pandas as pd

    parts = pd.DataFrame({"s": item_weights * items, "n": item_weights,
                          "ss": item_weights * items**2})
    summed = parts.groupby(level="cluster", sort=False).sum()  # one groupby, three sums
    sums = summed["s"].to_numpy(dtype=np.float64)
    sizes = summed["n"].to_numpy(dtype=np.float64)
    sumsq = summed["ss"].to_numpy(dtype=np.float64)
    return row_from_sums(base, sums, sizes, sumsq, n_items=len(items), runs=runs, conf=conf,
                         binary=binary, bounded=bounded)


def row_from_sums(base: dict[str, Any], sums: npt.NDArray[np.float64],
                  sizes: npt.NDArray[np.float64], sumsq: npt.NDArray[np.float64], *,
                  n_items: int, runs: int, conf: float, binary: bool, bounded: bool) -> ScoreRow:
    """One row of the summary from its cluster-level sufficient statistics.

    ``sums``, ``sizes`` and ``sumsq`` are, per cluster, the sum of the weighted item means
    times the item weights, the sum of the item weights (the number of items when every
    weight is 1) and the weighted sum of the squared item means
    (:func:`weighted_item_means`); ``base`` holds the row's criterion, judge, arm,
    opponent, scale, n, n_failed and conf. Whoever computed the sums (pandas here, an
    engine in :mod:`assay.analysis.pushdown`), the row is the same.
    """
    res = mean_interval(sums, sizes, sumsq, conf=conf, bounded=bounded)
    return ScoreRow(**base, n_items=n_items, n_clusters=len(sums), runs=runs,
                    effective_clusters=res.effective_clusters,
                    design_flagged=res.design_flagged, estimate=res.estimate, lower=res.lower,
                    upper=res.upper, method=res.method)
