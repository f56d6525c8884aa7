"""Text of the systems reports (CoEval): the composite score per arm, performance by
attribute, and the systems report (rankings, per task, head-to-head). They format a report;
they compute nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assay.report.text._format import block, percent, short

if TYPE_CHECKING:
    from assay.analysis.composite import CompositeScores
    from assay.analysis.systems import AttributeReport, SystemsReport

__all__ = ["format_attributes", "format_composite", "format_systems"]


def _descending(x: float) -> float:
    return -x if math.isfinite(x) else math.inf


def format_composite(report: CompositeScores) -> str:
    """The composite score Q per arm (all tasks together), highest first."""
    title = "Rubric-weighted composite score" if report.weights else "Composite score Q"
    rows = sorted((r for r in report.rows if r.task is None), key=lambda r: _descending(r.estimate))
    return block(f"{title} per arm ({percent(report.conf)} cluster-robust intervals)",
                 [f"  {r.arm}: {short(r.estimate)} [{short(r.lower)}, {short(r.upper)}]  n={r.n}"
                  for r in rows], report.notes)


def format_attributes(report: AttributeReport) -> str:
    """The composite score Q per attribute value and arm."""
    return block(f"Composite score Q by attribute ({percent(report.conf)} cluster-robust "
                 "intervals)",
                 [f"  {r.attribute}={r.value}  {r.arm}: {short(r.estimate)} "
                  f"[{short(r.lower)}, {short(r.upper)}]  n={r.n}" for r in report.rows],
                 report.notes)


def format_systems(report: SystemsReport) -> str:
    """Rankings with rank intervals, per-task scores, head-to-head differences, by attribute."""
    lines = [f"Systems report ({percent(report.conf)} intervals; rank intervals from {report.B} "
             f"cluster-bootstrap resamples, seed {report.seed})", "Rankings:"]
    for r in report.rankings.arms:
        rank = (f"[{r.rank_lower}, {r.rank_upper}]" if r.rank_lower is not None else "")
        lines.append(f"  {r.rank}. {r.arm}: Q {short(r.estimate)} [{short(r.lower)}, "
                     f"{short(r.upper)}]  rank interval {rank or 'n/a'}")
    tasks = [r for r in report.composite.rows if r.task is not None]
    if tasks:
        lines.append("Per task:")
        lines += [f"  {r.task} / {r.arm}: {short(r.estimate)} [{short(r.lower)}, "
                  f"{short(r.upper)}]" for r in tasks]
    lines.append("Head-to-head (paired differences of item scores, Holm-adjusted p):")
    for h in report.head_to_head:
        scope = h.task if h.task is not None else "all tasks"
        lines.append(f"  {scope}: {h.arm} - {h.opponent} {short(h.estimate)} "
                     f"[{short(h.lower)}, {short(h.upper)}]  p_adj {short(h.p_adjusted, 4)}")
    if report.attributes.rows:
        lines.append("By attribute:")
        lines += [f"  {r.attribute}={r.value} / {r.arm}: {short(r.estimate)} "
                  f"[{short(r.lower)}, {short(r.upper)}]" for r in report.attributes.rows]
    return block(lines[0], lines[1:], report.notes)
