"""Calibration curves (CoEval's judge report): judge score against the native metric, binned.

Per judge, over its valid pointwise units that carry a ``reference_score`` (every split,
every task and criterion, as :mod:`assay.analysis.judges._calibration` pairs them): the
units are put in equal-count bins of the judge's normalised score
(:func:`assay.stats.summaries.equal_count_bins`; ties are kept in one bin, so a
three-level judge has at most three bins), and each bin shows the mean judge score and the
mean reference score with its cluster-robust logit t interval
(:func:`assay.analysis.composite.plain_composite`, clusters as in the table). A calibrated
judge's points lie on the diagonal. Reference scores outside [0, 1] get no interval (the
logit interval is for values in [0, 1]); a note says so.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    check_conf,
    clean_record,
    plain_composite,
    pointwise_units,
)
from assay.errors import ConfigError, DesignError
from assay.stats.summaries import equal_count_bins

DEFAULT_BINS = 10


@dataclass(frozen=True)
class CurveBin:
    """One bin of one judge's calibration curve."""

    judge: str
    bin: int
    """0 = lowest judge scores."""
    judge_low: float
    judge_high: float
    judge_mean: float
    """Mean normalised judge score of the bin's units."""
    reference_mean: float
    lower: float
    upper: float
    """Interval of the mean reference score."""
    method: str
    n_units: int
    n_items: int
    n_clusters: int


@dataclass(frozen=True)
class CalibrationCurves(Rendered):
    """Per judge, the mean reference score in equal-count bins of the judge's score."""

    bins: list[CurveBin]
    n_bins: int
    conf: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"n_bins": self.n_bins, "conf": self.conf,
                             "bins": [asdict(b) for b in self.bins], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def calibration_curves(model: Model, *, n_bins: int = DEFAULT_BINS,
                       conf: float = 0.95) -> CalibrationCurves:
    """Calibration curves per judge; see the module docstring.

    Parameters
    ----------
    model : Judgments or path
        Needs a ``reference_score`` column (``assay native-scores`` fills it).
    n_bins : int, default 10
        Equal-count bins asked for per judge (fewer when ties or few units leave some empty).
    conf : float, default 0.95
    """
    table = as_judgments(model)
    conf = check_conf(conf)
    if int(n_bins) < 1:
        raise ConfigError(f"n_bins must be at least 1, got {n_bins}")
    frame = table.frame
    if "reference_score" not in frame or frame["reference_score"].isna().all():
        raise DesignError("no reference_score values: calibration curves compare the judges "
                          "with a benchmark-native score (assay native-scores RUN fills it)")
    units = pointwise_units(table, reportable_only=False, extra=("reference_score",)).frame
    units = units[units["reference_score"].notna()].copy()
    if units.empty:
        raise DesignError("no valid pointwise unit has a reference_score")
    units["reference_score"] = units["reference_score"].astype(np.float64)
    notes: list[str] = []
    outside = ~units["reference_score"].between(0.0, 1.0)
    if outside.any():
        notes.append(f"{int(outside.sum())} units have a reference score outside [0, 1]: the "
                     "bins' means are shown without intervals.")
    out: list[CurveBin] = []
    for judge in sorted(map(str, units["judge"].unique())):
        own = units[units["judge"] == judge]
        labels = equal_count_bins(own["value"].to_numpy(dtype=np.float64), int(n_bins))
        if labels.max() + 1 < int(n_bins):
            notes.append(f"Judge {judge}: {labels.max() + 1} bins (ties in its scores or few "
                         f"units leave fewer than {int(n_bins)}).")
        for b in range(int(labels.max()) + 1):
            part = own[labels == b]
            judge_values = part["value"].to_numpy(dtype=np.float64)
            ref = part.assign(value=part["reference_score"])
            if outside.any():
                row = {"estimate": float(ref["value"].mean()), "lower": math.nan,
                       "upper": math.nan, "method": "no_interval_outside_unit_range",
                       "n_items": int(ref["item"].nunique()),
                       "n_clusters": int(ref["cluster"].nunique())}
            else:
                row = plain_composite(ref, conf=conf)
            out.append(CurveBin(judge, b, float(judge_values.min()), float(judge_values.max()),
                                float(judge_values.mean()), row["estimate"], row["lower"],
                                row["upper"], row["method"], len(part), row["n_items"],
                                row["n_clusters"]))
    return CalibrationCurves(out, int(n_bins), conf, notes)
