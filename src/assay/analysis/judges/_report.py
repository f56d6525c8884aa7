"""Judge analytics (CoEval): how far the judges agree, drift, uncertain units, position bias.

``judge_agreement`` turns a judgments table into a :class:`JudgeReport` whose ``to_dict()`` is
DESIGN.md's ``judges.json``: ``agreement`` (a record per criterion and task, task null for all
tasks together), ``pairs`` (a record per criterion, task and pair of judges), ``position``
(flip rates per judge and criterion), plus ``drift``, ``uncertain_items`` and ``notes``.

Units. Judges agree or not about a *unit*: a judgment's identity without the judge, i.e. an
(item, arm, run) for a criterion, and for pairwise rows also the opponent and the position.
Each statistic uses the units its method can: Krippendorff's alpha every unit scored by two or
more judges (missing ratings allowed), ICC(2,1) and Fleiss' kappa the units every judge
scored (they need a complete design), a pair's statistics the units both judges scored.
Which statistics apply depends on the criterion's scale; see
:mod:`assay.analysis.judges._agreement`. A statistic that does not apply is null.

Only reportable rows with a score enter (a failed judgment is not a rating); both are
counted in the notes. Only judges who share a unit with another judge are raters.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.judges._agreement import (
    AgreementRecord,
    DriftRecord,
    PairRecord,
    UncertainItem,
    agreement,
    drift,
    raters,
    uncertain,
)
from assay.analysis.judges._human import HumanAgreement, human_agreement
from assay.analysis.judges._position import PositionRecord, position_records
from assay.data.table import Judgments

__all__ = [
    "DEFAULT_UNCERTAINTY_THRESHOLD",
    "AgreementRecord",
    "DriftRecord",
    "HumanAgreement",
    "JudgeReport",
    "PairRecord",
    "PositionRecord",
    "UncertainItem",
    "judge_agreement",
]

DEFAULT_UNCERTAINTY_THRESHOLD = 0.375
"""Inter-judge standard deviation on the [0, 1] scale above which a unit is flagged. CoEval
flags "inter-judge sigma > 1.5"; its paper tables put scores on 1 + 4 x score_norm (1 to 5),
where 1.5 is 1.5 / 4 = 0.375 of the range. Two judges a full level apart on High/Medium/Low
(sd 0.354) stay under it; High against Low (sd 0.707) is flagged."""

UNIT = ["item", "arm", "opponent", "position", "run"]


@dataclass(frozen=True)
class JudgeReport(Rendered):
    """Agreement between judges, drift, uncertain units and positional flip rates."""

    agreement: list[AgreementRecord]
    pairs: list[PairRecord]
    position: list[PositionRecord]
    drift: list[DriftRecord]
    uncertain_items: list[UncertainItem]
    conf: float
    """Confidence level of the ICC and flip-rate intervals."""
    drift_window: int
    """Items per drift window."""
    uncertainty_threshold: float | dict[str, float]
    """A threshold on the [0, 1] scale, or thresholds per criterion on each raw scale."""
    n_invalid: int = 0
    """Run-folder records kept aside as invalid (CoEval's validity classes), excluded."""
    notes: list[str] = field(default_factory=list)
    human: list[HumanAgreement] = field(default_factory=list)
    """Each judge against the human labels (judge ``human`` or ``human:<id>``) of its
    criterion: accuracy with a cluster-robust interval, Cohen's kappa, bias."""

    def to_dict(self) -> dict[str, Any]:
        """``judges.json``: numbers as numbers, NaN as null."""
        def records(rows: list[Any]) -> list[dict[str, Any]]:
            return [{k: _clean(v) for k, v in asdict(r).items()} for r in rows]

        threshold = self.uncertainty_threshold
        return {
            "agreement": records(self.agreement),
            "pairs": records(self.pairs),
            "position": records(self.position),
            "drift": records(self.drift),
            "uncertain_items": records(self.uncertain_items),
            "human": records(self.human),
            "conf": self.conf,
            "drift_window": self.drift_window,
            "uncertainty_threshold": dict(threshold) if isinstance(threshold, dict) else threshold,
            "uncertainty_basis": "raw" if isinstance(threshold, dict) else "normalised",
            "n_invalid": self.n_invalid,
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def judge_agreement(
    judgments: Judgments,
    *,
    conf: float = 0.95,
    drift_window: int = 20,
    uncertainty_threshold: float | Mapping[str, float] | None = None,
) -> JudgeReport:
    """Agreement between the judges of each criterion (CoEval's judge analytics).

    Parameters
    ----------
    judgments : Judgments
        The judgments table; criteria scored by one judge only are listed in the notes.
    conf : float, default 0.95
        Confidence level of the ICC(2,1) intervals (McGraw-Wong F) and of the flip rates'
        cluster-robust intervals.
    drift_window : int, default 20
        Items per window of the drift series: ICC(2,1) over each run of this many
        consecutive items (in the table's order of first appearance, among items with a
        unit every judge scored), sliding by one item; all tasks together.
    uncertainty_threshold : float or mapping, optional
        A unit is flagged uncertain when the sample standard deviation (ddof = 1) of its
        judges' scores exceeds this. A float (default
        :data:`DEFAULT_UNCERTAINTY_THRESHOLD` = 0.375) is on the [0, 1] scale of each
        criterion (range, ordinal and binary criteria; interval criteria have no [0, 1]
        scale and are skipped with a note). A mapping ``{criterion: threshold}`` gives
        thresholds on each criterion's raw scale instead, for the criteria it names.

    Returns
    -------
    JudgeReport
        ``to_dict()`` / ``to_json()`` give ``judges.json``; ``print`` gives a text summary.

    Raises
    ------
    ValueError
        `conf` outside (0, 1), `drift_window` below 2, or a threshold that is not positive.
    """
    if not 0 < conf < 1:
        raise ValueError(f"conf must be in (0, 1), got {conf!r}")
    if isinstance(drift_window, bool) or not isinstance(drift_window, int) or drift_window < 2:
        raise ValueError(f"drift_window must be an integer of at least 2, got {drift_window!r}")
    threshold = _check_threshold(uncertainty_threshold)
    notes: list[str] = []
    frame = judgments.frame.copy()
    frame["value"] = judgments.normalised_scores()
    held_back = int((~frame["reportable"].astype(bool)).sum())
    if held_back:
        frame = frame[frame["reportable"].astype(bool)]
        notes.append(f"{held_back} rows of the dev or calibration split are not reportable and "
                     "are left out.")
    for column in ("opponent", "position", "task"):
        if column not in frame:
            frame[column] = np.nan
    # pairwise scores are 1 / 0.5 / 0 by contract: read them as they are when the criterion
    # has no [0, 1] form (an undeclared scale is "interval")
    frame["pair_value"] = frame["value"].where(frame["value"].notna(), frame["score"])
    position = position_records(frame, conf=conf, notes=notes) if frame["position"].notna().any() \
        else []
    failed = int(frame["score"].isna().sum())
    if failed:
        notes.append(f"{failed} judgments without a score (failures) are not ratings and are "
                     "left out of the agreement statistics.")
    frame = frame[frame["score"].notna()].assign(
        opponent=lambda f: f["opponent"].astype(object).where(f["opponent"].notna(), ""),
        position=lambda f: f["position"].fillna(0).astype(int),
        task=lambda f: f["task"].astype(object).where(f["task"].notna(), ""))
    human = human_agreement(frame, {str(c): judgments.scale(str(c))
                                    for c in pd.unique(frame["criterion"])},
                            conf=conf, notes=notes)
    item_order = {item: i for i, item in enumerate(pd.unique(frame["item"]))}
    report = _Collector()
    for criterion in pd.unique(frame["criterion"]):
        _criterion(frame[frame["criterion"] == criterion], str(criterion),
                   judgments.scale(str(criterion)), item_order, report, conf=conf,
                   window=drift_window, threshold=threshold, notes=notes)
    return JudgeReport(
        agreement=report.agreement, pairs=report.pairs, position=position, drift=report.drift,
        uncertain_items=report.uncertain, conf=conf, drift_window=drift_window,
        uncertainty_threshold=threshold, n_invalid=len(judgments.invalid), notes=notes,
        human=human)


@dataclass
class _Collector:
    agreement: list[AgreementRecord] = field(default_factory=list)
    pairs: list[PairRecord] = field(default_factory=list)
    drift: list[DriftRecord] = field(default_factory=list)
    uncertain: list[UncertainItem] = field(default_factory=list)


def _check_threshold(value: float | Mapping[str, float] | None) -> float | dict[str, float]:
    if value is None:
        return DEFAULT_UNCERTAINTY_THRESHOLD
    if isinstance(value, Mapping):
        out = {str(k): float(v) for k, v in value.items()}
        if not all(math.isfinite(v) and v > 0 for v in out.values()):
            raise ValueError("uncertainty_threshold values must be positive numbers")
        return out
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"uncertainty_threshold must be positive, got {value!r}")
    return number


def _criterion(
    rows: pd.DataFrame, criterion: str, scale: Any, item_order: dict[Any, int],
    report: _Collector, *, conf: float, window: int, threshold: float | dict[str, float],
    notes: list[str],
) -> None:
    judges = pd.unique(rows["judge"])
    if len(judges) < 2:
        notes.append(f"criterion {criterion!r} is scored by one judge only ({judges[0]}): there "
                     "is no agreement between judges to measure.")
        return
    grouped = rows.groupby([*UNIT, "judge"], sort=False)
    wide = grouped["score"].mean().unstack("judge")
    level = wide.index.get_level_values
    order = np.lexsort([level("run").to_numpy(), level("position").to_numpy(),
                        level("opponent").astype(str), level("arm").astype(str),
                        level("item").map(item_order).to_numpy()])
    wide = wide.iloc[order]
    wide = wide[sorted(wide.columns, key=str)]
    values = grouped["value"].mean().unstack("judge").reindex(index=wide.index,
                                                              columns=wide.columns)
    tasks = rows.groupby(UNIT, sort=False)["task"].first().reindex(wide.index)
    record, pairs = agreement(wide, criterion=criterion, task=None, scale=scale, conf=conf,
                              notes=notes)
    if record is None:
        return
    report.agreement.append(record)
    report.pairs.extend(pairs)
    for task in sorted(t for t in pd.unique(tasks) if t != ""):
        mask = (tasks == task).to_numpy()
        task_record, task_pairs = agreement(wide[mask], criterion=criterion, task=str(task),
                                            scale=scale, conf=conf, notes=notes)
        if task_record is not None:
            report.agreement.append(task_record)
            report.pairs.extend(task_pairs)
    table = raters(wide)
    if scale.kind != "nominal":
        _drift(table, criterion, item_order, report, conf=conf, window=window, notes=notes)
    _uncertain(table, values, tasks, criterion, scale, report, threshold=threshold, notes=notes)


def _drift(table: pd.DataFrame, criterion: str, item_order: dict[Any, int], report: _Collector,
           *, conf: float, window: int, notes: list[str]) -> None:
    complete = table.notna().all(axis=1).to_numpy()
    item_labels = table.index.get_level_values("item")
    items = sorted(pd.unique(item_labels[complete]), key=lambda i: item_order[i])
    if len(items) < window:
        notes.append(f"criterion {criterion!r}: {len(items)} items have a unit every judge scored, "
                     f"fewer than the drift window of {window}, so there is no drift series.")
        return
    index = {item: i for i, item in enumerate(items)}
    position = np.array([index.get(i, -1) for i in item_labels], dtype=np.int64)
    keep = position >= 0
    report.drift.extend(drift(table[keep], position[keep], [str(i) for i in items],
                              criterion=criterion, window=window, conf=conf))


def _uncertain(table: pd.DataFrame, values: pd.DataFrame, tasks: pd.Series, criterion: str,
               scale: Any, report: _Collector, *, threshold: float | dict[str, float],
               notes: list[str]) -> None:
    if scale.kind == "nominal":
        return
    if isinstance(threshold, dict):
        if criterion in threshold:
            report.uncertain.extend(uncertain(table, table, tasks.reindex(table.index),
                                              criterion=criterion, threshold=threshold[criterion],
                                              basis="raw"))
        return
    if scale.kind == "interval":
        notes.append(f"criterion {criterion!r} has an interval scale with no [0, 1] form: give its "
                     "uncertainty threshold on the raw scale (uncertainty_threshold={criterion: "
                     "value}) to flag uncertain units.")
        return
    scores = values.reindex(index=table.index, columns=table.columns)
    report.uncertain.extend(uncertain(table, scores, tasks.reindex(table.index),
                                      criterion=criterion, threshold=threshold,
                                      basis="normalised"))
