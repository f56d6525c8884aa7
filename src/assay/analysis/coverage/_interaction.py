"""The teacher x arm interaction matrix (CoEval's ``interaction-matrix``): composite score per cell.

CoEval: "Heatmap: mean composite score for each (teacher, student) cell; row effects: teacher
contribution to scores (should be small); column effects: student contribution (should be
large); self-teaching cells highlighted where teacher == student".

A cell is the composite score Q of an arm over the items one teacher wrote: the mean of the
composite's own units (:func:`assay.analysis.composite.pointwise_units`: reportable, pointwise,
on a scale with a map to [0, 1], with a score). Pairwise rows are not units: a preference
between two answers is not a score of one answer, so it never enters a cell. Each cell has the
composite's cluster-robust t interval on the logit scale. The row effect of a teacher is the
mean of its row's cells minus the grand mean of all cells, the column effect of an arm
likewise (descriptive, without intervals; missing cells are skipped in both means).

The matrix has teachers x arms cells; that product is checked before anything is built, and
above ``max_cells`` the matrix is refused (a teacher column holding an id per item is not a
set of data generators).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    check_conf,
    clean_record,
    plain_composite,
    pointwise_units,
)
from assay.errors import ConfigError

MAX_CELLS = 10_000
"""Default limit on teachers x arms."""


@dataclass(frozen=True)
class InteractionCell:
    """Composite score Q of one arm over the items of one teacher."""

    teacher: str
    arm: str
    estimate: float
    lower: float
    upper: float
    standard_error: float
    method: str
    """``logit_cluster_robust_t``, or why the bounds are NaN."""
    n: int
    """Valid units (rows) in the cell."""
    n_items: int
    n_clusters: int
    self_teaching: bool
    """Teacher and arm are the same model."""


@dataclass(frozen=True)
class InteractionMatrix(Rendered):
    """Teacher x arm composite scores with row and column effects (``assay report --kind
    interaction``: text, JSON and HTML lay this result out)."""

    cells: list[InteractionCell]
    """One per (teacher, arm) with at least one unit, teachers then arms sorted."""
    teachers: list[str]
    arms: list[str]
    grand_mean: float
    """Mean of the cells' estimates (NaN without cells)."""
    row_effects: dict[str, float]
    """Per teacher: its row's mean cell minus the grand mean."""
    column_effects: dict[str, float]
    """Per arm: its column's mean cell minus the grand mean."""
    conf: float
    notes: list[str] = field(default_factory=list)

    def matrix(self) -> list[list[float]]:
        """Cell estimates as rows (teachers) of columns (arms); NaN where a cell is empty."""
        where = {(c.teacher, c.arm): c.estimate for c in self.cells}
        return [[where.get((t, a), math.nan) for a in self.arms] for t in self.teachers]

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "teachers": self.teachers, "arms": self.arms,
                             "grand_mean": self.grand_mean, "row_effects": self.row_effects,
                             "column_effects": self.column_effects,
                             "cells": [asdict(c) for c in self.cells], "notes": self.notes})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def interaction_matrix(judgments: Model, *, conf: float = 0.95,
                       max_cells: int = MAX_CELLS) -> InteractionMatrix | None:
    r"""Composite score per (teacher, arm) with intervals, and row and column effects.

    Parameters
    ----------
    judgments : Judgments or path
        Needs a ``teacher`` column (the model that wrote each item).
    conf : float, default 0.95
        Level of the cells' intervals.
    max_cells : int, default 10000
        Largest teachers x arms product built.

    Returns
    -------
    InteractionMatrix or None
        None when the table has no teacher (no column, or every value missing).

    Raises
    ------
    ConfigError
        More than `max_cells` (teacher, arm) cells, or `conf` outside (0, 1).

    Notes
    -----
    Over the valid units u of arm a on items written by teacher t, with normalised scores
    y_u, cluster sums S_c and unit counts n_c (N = sum_c n_c, C clusters),

    .. math:: Q_{ta} = \frac{1}{N} \sum_u y_u, \qquad
              V = \frac{C}{C-1} \sum_c \frac{(S_c - Q n_c)^2}{N^2},

    and the interval is expit(logit Q -+ t_{C-1,(1+conf)/2} sqrt(V) / (Q (1 - Q))), the
    composite's (Cochran 1977, ch. 6; Cameron and Miller 2015). Effects:
    row_t = mean_a Q_ta - mean_{t,a} Q_ta and column_a = mean_t Q_ta - mean_{t,a} Q_ta over
    the non-empty cells.
    """
    table = as_judgments(judgments)
    conf = check_conf(conf)
    frame = table.frame
    if "teacher" not in frame or frame["teacher"].isna().all():
        return None
    teachers = sorted(map(str, pd.unique(frame["teacher"].dropna())))
    arms = sorted(map(str, pd.unique(frame["arm"])))
    if len(teachers) * len(arms) > max_cells:
        raise ConfigError(
            f"the interaction matrix would have {len(teachers):,} teachers x {len(arms):,} arms "
            f"= {len(teachers) * len(arms):,} cells, over the limit of {max_cells:,}: the "
            "teacher column should name the models that wrote the items, not one id per item")
    units = pointwise_units(table, extra=("teacher",))
    rows, notes = units.frame, list(units.notes)
    placed = rows["teacher"].notna()
    if not placed.all():
        notes.append(f"{int((~placed).sum())} valid units belong to items without a teacher and "
                     "are in no cell.")
    rows = rows.loc[placed].assign(teacher=lambda f: f["teacher"].astype(str))
    cells = [_cell(str(t), str(a), part, conf=conf)
             for (t, a), part in rows.groupby(["teacher", "arm"], sort=True)]
    if not cells:
        notes.append("No valid pointwise unit has a teacher: the matrix is empty.")
        return InteractionMatrix([], teachers, arms, math.nan, {}, {}, conf, notes)
    estimates = pd.DataFrame([(c.teacher, c.arm, c.estimate) for c in cells],
                             columns=["teacher", "arm", "estimate"])
    grand = float(estimates["estimate"].mean())
    row_effects = {str(t): float(v) - grand
                   for t, v in estimates.groupby("teacher")["estimate"].mean().items()}
    column_effects = {str(a): float(v) - grand
                      for a, v in estimates.groupby("arm")["estimate"].mean().items()}
    used = sorted(set(estimates["teacher"])), sorted(set(estimates["arm"]))
    return InteractionMatrix(cells, used[0], used[1], grand, row_effects, column_effects, conf,
                             notes)


def _cell(teacher: str, arm: str, units: pd.DataFrame, *, conf: float) -> InteractionCell:
    return InteractionCell(teacher=teacher, arm=arm, self_teaching=teacher == arm,
                           **plain_composite(units, conf=conf))
