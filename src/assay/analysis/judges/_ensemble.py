"""Robust ensemble weights and outlier judges (CoEval's robust summary and judge consistency).

A unit is one (item, arm, run, criterion) answer-factor; each judge's score of it is its
normalised score (the mean when it scored the unit more than once). Over the units matrix
(units x judges, missing where a judge did not score):

* **Weights.** Each judge's weight is its item-rest correlation, floored at 0 and
  normalised to sum to 1 (:func:`assay.stats.summaries.reliability_weights`): a judge that
  agrees with the rest of the ensemble counts more, one that disagrees counts nothing.
* **Outlier judges.** A judge is named an outlier when its weight is 0 (its scores do not
  rise with the others', or cannot be correlated), or when its mean offset from the rest
  (mean of its score minus the others' mean, over shared units) is more than
  ``offset_limit`` (0.15 on the [0, 1] scale) from the median offset of the judges: it is
  systematically harsher or more generous than the ensemble. A judge that shares no unit
  with another is not compared (weight 0, not an outlier, a note names it).
* **Weighted ranking.** Each arm's weighted score sum_j w_j Q_{arm, j}, Q_{arm, j} the mean
  of judge j's units of the arm (judges that did not score an arm are left out and the
  weights renormalised), beside the equal-weight mean.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from assay._display import Rendered
from assay.analysis.composite import Model, as_judgments, clean_record, pointwise_units
from assay.errors import ConfigError, DesignError
from assay.stats.summaries import reliability_weights

DEFAULT_OFFSET_LIMIT = 0.15


@dataclass(frozen=True)
class JudgeWeight:
    judge: str
    weight: float
    rest_correlation: float
    mean_offset: float
    """Mean of (this judge's score - the other judges' mean) over shared units."""
    n_shared: int
    outlier: bool
    reason: str
    """Why it is named an outlier; empty when it is not."""


@dataclass(frozen=True)
class WeightedArm:
    arm: str
    weighted_score: float
    equal_weight_score: float
    rank: int
    """1 = highest weighted score."""


@dataclass(frozen=True)
class EnsembleReport(Rendered):
    """The ensemble's weights, its outlier judges and the weighted ranking."""

    judges: list[JudgeWeight]
    arms: list[WeightedArm]
    outliers: list[str]
    equal_fallback: bool
    offset_limit: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({
            "offset_limit": self.offset_limit, "equal_fallback": self.equal_fallback,
            "outliers": self.outliers, "judges": [asdict(j) for j in self.judges],
            "arms": [asdict(a) for a in self.arms], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def ensemble_weights(model: Model, *, offset_limit: float = DEFAULT_OFFSET_LIMIT
                     ) -> EnsembleReport:
    """Reliability weights of the judges, outlier judges and the weighted ranking.

    Parameters
    ----------
    model : Judgments or path
    offset_limit : float, default 0.15
        Distance of a judge's mean offset from the judges' median offset (on [0, 1]) beyond
        which it is named an outlier.
    """
    table = as_judgments(model)
    if not offset_limit > 0:
        raise ConfigError(f"offset_limit must be positive, got {offset_limit}")
    units = pointwise_units(table).frame
    if units.empty:
        raise DesignError("no valid pointwise units")
    judges = sorted(map(str, units["judge"].unique()))
    if len(judges) < 2:
        raise DesignError(f"one judge ({judges[0]}): ensemble weights need two or more")
    units = units.assign(task=units["task"].astype(object).where(units["task"].notna(), ""))
    matrix = units.pivot_table(index=["item", "arm", "run", "criterion", "task"],
                               columns="judge", values="value", aggfunc="mean", sort=True)
    matrix = matrix.reindex(columns=judges)
    m = matrix.to_numpy(dtype=np.float64)
    fit = reliability_weights(m)
    present = ~np.isnan(m)
    filled = np.where(present, m, 0.0)
    offsets = []
    for j in range(len(judges)):
        others = present.sum(axis=1) - present[:, j]
        rows = present[:, j] & (others > 0)
        rest = (filled.sum(axis=1) - filled[:, j])[rows] / others[rows]
        offsets.append(float(np.mean(m[rows, j] - rest)) if rows.any() else math.nan)
    finite = [o for o in offsets if math.isfinite(o)]
    median = float(np.median(finite)) if finite else math.nan
    rows_out = []
    for j, judge in enumerate(judges):
        reasons = []
        if fit.n_shared[j] == 0:
            pass  # nothing to compare: not an outlier, and no weight (a note names it)
        elif fit.weights[j] == 0.0:
            r = fit.rest_correlations[j]
            reasons.append("its scores do not rise with the other judges' "
                           f"(item-rest r = {r:.2f})" if math.isfinite(r) else
                           "its scores cannot be correlated with the other judges'")
        if math.isfinite(offsets[j]) and abs(offsets[j] - median) > offset_limit:
            side = "more generous" if offsets[j] > median else "harsher"
            reasons.append(f"{side} than the ensemble (mean offset {offsets[j]:+.2f}, median "
                           f"{median:+.2f})")
        rows_out.append(JudgeWeight(judge, fit.weights[j], fit.rest_correlations[j],
                                    offsets[j], fit.n_shared[j], bool(reasons),
                                    "; ".join(reasons)))
    weight = dict(zip(judges, fit.weights, strict=True))
    means = units.groupby(["arm", "judge"])["value"].mean()
    scored = []
    for arm in sorted(map(str, units["arm"].unique())):
        per_judge = means.loc[arm]
        w = np.array([weight[str(j)] for j in per_judge.index])
        q = per_judge.to_numpy(dtype=np.float64)
        weighted = float(np.sum(w * q) / w.sum()) if w.sum() > 0 else math.nan
        scored.append((arm, weighted, float(q.mean())))
    order = sorted(scored, key=lambda s: -s[1] if math.isfinite(s[1]) else math.inf)
    arms = [WeightedArm(a, ws, eq, i + 1) for i, (a, ws, eq) in enumerate(order)]
    notes = []
    alone = [judge for j, judge in enumerate(judges) if fit.n_shared[j] == 0]
    if alone:
        notes.append(f"{', '.join(alone)} scored no unit (item, arm, run, criterion) that "
                     "another judge scored: no agreement to weigh, so no weight, and not "
                     "named an outlier.")
    if fit.equal_fallback:
        notes.append("No judge correlates positively with the rest: the weights are equal.")
    notes.append(f"Weights from {m.shape[0]} units (item x arm x run x criterion) and "
                 f"{len(judges)} judges.")
    return EnsembleReport(rows_out, arms, [r.judge for r in rows_out if r.outlier],
                          fit.equal_fallback, float(offset_limit), notes)
