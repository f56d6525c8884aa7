"""The answer's "What humans would say" of an engine table: the pandas path's PPI++ lines.

:func:`assay.analysis.human.human_calibrated` needs, of each criterion holding human labels,
a judge's mean [0, 1] value per (arm, item) over its runs and the humans' mean per (arm,
item), every human judge together (pointwise), or the same means of the preference
oriented to the pair's first system per (first, second, item) (pairwise), with each item's
cluster and the order of first appearance. So the engine sends, of the criteria holding
human labels only, the sum and count of the values per (criterion, judge, arm, opponent,
cluster, item) and Python folds the humans together, orients the pairwise units and
hands the means to :func:`~assay.analysis.answer._humans.human_lines_of_units`, the pandas
answer's own code (and so :func:`~assay.analysis.human.human_calibrated_units`, the same
PPI++). Size of the pull: one row per (judge, system, opponent, item) of those criteria
(six short columns), i.e. their rows divided by the runs (and positions) - never more than
the verdicts' pull of the question means, and nothing of the criteria without human labels:
bench/bench_scale.py's 30 M rows (600,000 questions, 5 systems, 10 runs) with human labels
on its criterion would send 3 M rows for its judge (a tenth of the table) plus one per
labelled unit; without human labels, as there, nothing but the (criterion, judge) pairs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from assay.analysis.answer._humans import NO_HUMANS
from assay.analysis.judges._human import is_human
from assay.analysis.pushdown._table import VIEW, EngineTable

if TYPE_CHECKING:
    import pandas as pd

    from assay.analysis.answer._result import HumanLine

__all__ = ["engine_human_lines"]

_HUMANS = "human"
"""The one judge name the human judges' units are folded into (pandas averages every human
row of a unit together)."""
_MAPPED = ("binary", "range")
"""The engine's scales with a map to [0, 1] (:meth:`EngineTable.value_sql`); an interval
criterion has none, and pandas leaves its rows out of the human units."""


def engine_human_lines(table: EngineTable, *, conf: float,
                       judged_from: str = VIEW) -> tuple[tuple[HumanLine, ...], str]:
    """:func:`~assay.analysis.answer._humans.human_lines` of an engine table, the same lines.

    ``judged_from``: a relation holding the table's (criterion, judge) pairs, all of them
    (the answer passes its table of counts per group, so the table is not scanned for them
    again)."""
    from assay.analysis.answer._humans import human_lines_of_units

    judged = table.query(f"SELECT criterion, judge FROM {judged_from} GROUP BY criterion, judge")
    if not any(is_human(judge) for _, judge in judged):
        return (), NO_HUMANS
    criteria = sorted({str(c) for c, judge in judged
                       if is_human(judge) and table.scale(str(c)).kind in _MAPPED})
    units, preferences = _units(table, criteria)
    return human_lines_of_units(units, preferences, conf=conf)


def _units(table: EngineTable, criteria: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pointwise and the pairwise units of ``criteria`` (those of
    :func:`~assay.analysis.human._report.pointwise_units` and
    :func:`~assay.analysis.human._pairwise.preference_units`), one row per unit, in the
    order of first appearance."""
    import pandas as pd

    pointwise = pd.DataFrame(columns=["criterion", "judge", "item", "cluster", "arm", "value"])
    pairwise = pd.DataFrame(columns=["criterion", "judge", "item", "cluster", "first", "second",
                                     "value"])
    if not criteria:
        return pointwise, pairwise
    listed = ", ".join(table.text(c) for c in criteria)
    got = table.engine.numpy(
        f"SELECT criterion, judge, arm, coalesce(opponent, '') AS opponent, cluster, item, "
        f"sum({table.value_sql()}) AS s, count(score) AS n FROM {VIEW} "
        f"WHERE reportable AND score IS NOT NULL AND criterion IN ({listed}) "
        f"GROUP BY criterion, judge, arm, coalesce(opponent, ''), cluster, item "
        f"ORDER BY {table.first_row}")
    frame = pd.DataFrame({name: np.asarray(got[name], dtype=object).astype(str) for name in
                          ("criterion", "judge", "arm", "opponent", "cluster", "item")})
    frame["s"] = np.asarray(got["s"], dtype=np.float64)
    frame["n"] = np.asarray(got["n"], dtype=np.float64)
    frame["rank"] = np.arange(len(frame))
    humans = [j for j in pd.unique(frame["judge"]) if is_human(j)]  # the rule, once a name
    frame["judge"] = frame["judge"].where(~frame["judge"].isin(humans), _HUMANS)
    paired = frame["opponent"].ne("").to_numpy()
    if not paired.all():
        pointwise = _means(frame[~paired], ["criterion", "judge", "item", "cluster", "arm"])
    if paired.any():
        rows = frame[paired].copy()
        # oriented to the pair's first system, as preference_units: arms by first appearance
        # in the table, then the opponents that are never an arm
        arms = [str(a) for (a,) in table.query(
            f"SELECT arm FROM {VIEW} GROUP BY arm ORDER BY {table.first_row}")]
        opponents = [str(o) for (o,) in table.query(
            f"SELECT opponent FROM {VIEW} WHERE opponent IS NOT NULL GROUP BY opponent "
            f"ORDER BY {table.first_row}")]
        order = {name: k for k, name in enumerate(dict.fromkeys([*arms, *opponents]))}
        swap = (rows["arm"].map(order) > rows["opponent"].map(order)).to_numpy()
        rows["first"] = np.where(swap, rows["opponent"], rows["arm"])
        rows["second"] = np.where(swap, rows["arm"], rows["opponent"])
        rows["s"] = np.where(swap, rows["n"] - rows["s"], rows["s"])  # a sum of 1 - value
        pairwise = _means(rows, ["criterion", "judge", "item", "cluster", "first", "second"])
    return pointwise, pairwise


def _means(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per unit of ``keys`` (the humans' sums folded together): its mean ``value``,
    the units ordered by their first row."""
    units = rows.groupby(keys, sort=False).agg(s=("s", "sum"), n=("n", "sum"),
                                               rank=("rank", "min"))
    units = units.sort_values("rank", kind="stable").reset_index()
    units["value"] = units["s"] / units["n"]
    return units[[*keys, "value"]]
