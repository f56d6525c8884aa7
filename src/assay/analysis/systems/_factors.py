"""Per-(system, task, factor) scores and percentile bands (CoEval's student report).

* **Cells.** For each arm, task and criterion (a rubric factor), the mean normalised score
  of the valid units with the cluster-robust logit t interval of
  :func:`assay.analysis.composite.plain_composite`; the same over all tasks
  (task ``"all"``). CoEval's workbook sheet StudentScores and its rubric factor heatmap
  (system x factor) are these cells.
* **Percentile bands.** For each arm and task (and ``"all"``), the 10th, 25th, 50th, 75th
  and 90th percentiles of its item scores, an item's score being the mean of its valid
  units (:func:`assay.stats.summaries.percentile_bands`, Hyndman-Fan type 7). They show
  the spread of the arm's items, not an interval for its mean.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    check_conf,
    clean_record,
    plain_composite,
    pointwise_units,
)
from assay.errors import DesignError
from assay.stats.summaries import percentile_bands

ALL = "all"
PERCENTILES = (10.0, 25.0, 50.0, 75.0, 90.0)


@dataclass(frozen=True)
class FactorCell:
    arm: str
    task: str
    criterion: str
    estimate: float
    lower: float
    upper: float
    method: str
    n: int
    n_items: int
    n_clusters: int


@dataclass(frozen=True)
class BandRow:
    arm: str
    task: str
    p10: float
    p25: float
    p50: float
    p75: float
    p90: float
    n_items: int


@dataclass(frozen=True)
class FactorBreakdown(Rendered):
    """Scores per (arm, task, factor) and percentile bands of item scores per arm."""

    cells: list[FactorCell]
    bands: list[BandRow]
    conf: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "cells": [asdict(c) for c in self.cells],
                             "bands": [asdict(b) for b in self.bands],
                             "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def factor_breakdown(model: Model, *, conf: float = 0.95) -> FactorBreakdown:
    """Per-(arm, task, factor) scores with intervals and percentile bands per arm."""
    table = as_judgments(model)
    conf = check_conf(conf)
    found = pointwise_units(table)
    units = found.frame
    if units.empty:
        raise DesignError("no valid pointwise units")
    units = units.assign(task=units["task"].astype(object).where(units["task"].notna(), ALL))
    tasks = sorted(map(str, units["task"].unique()))
    scopes = [(task, units[units["task"] == task]) for task in tasks]
    if len(tasks) > 1:
        scopes.append((ALL, units))
    cells = []
    bands = []
    for task, part in scopes:
        for (arm, criterion), own in part.groupby(["arm", "criterion"], sort=True):
            row = plain_composite(own, conf=conf)
            cells.append(FactorCell(str(arm), task, str(criterion), row["estimate"],
                                    row["lower"], row["upper"], row["method"], row["n"],
                                    row["n_items"], row["n_clusters"]))
        for arm, own in part.groupby("arm", sort=True):
            items = own.groupby("item")["value"].mean()
            b = percentile_bands(items.to_numpy(), percentiles=PERCENTILES)
            bands.append(BandRow(str(arm), task, *b.values, b.n))
    return FactorBreakdown(cells, bands, conf, list(found.notes))

