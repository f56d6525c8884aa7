"""The systems report page: a :class:`~assay.analysis.systems._report.SystemsReport` laid out (rankings
with rank intervals, per-task breakdown, head-to-head paired differences, performance by
attribute), and the smaller page of a bare :class:`~assay.analysis.composite.CompositeScores`
(rankings and per-task breakdown only, saying where the rest comes from).

Every number is read from the report objects; nothing is computed here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from assay.analysis.composite import CompositeScores
from assay.analysis.systems import SystemsReport
from assay.report._glossary import method_words
from assay.report.html._figures import ForestPoint, forest
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table, is_missing
from assay.report.text._format import p_text

RANK_COLUMNS = (
    Column("rank", "rank", "int"), Column("arm", "arm"), Column("estimate", "Q", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("rank_lower", "rank lower", "int"), Column("rank_upper", "rank upper", "int"),
    Column("n_items", "items", "int"), Column("method", "method"),
)
COMPOSITE_COLUMNS = (
    Column("arm", "arm"), Column("task", "task"), Column("estimate", "Q", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("standard_error", "standard error", "fixed", 4), Column("n", "units", "int"),
    Column("n_failed", "failed", "int"), Column("n_items", "items", "int"),
    Column("n_clusters", "clusters", "int"), Column("method", "method"),
)
PAIR_COLUMNS = (
    Column("arm", "arm"), Column("opponent", "opponent"), Column("task", "task"),
    Column("estimate", "difference", "fixed"), Column("lower", "lower", "fixed"),
    Column("upper", "upper", "fixed"), Column("standard_error", "standard error", "fixed", 4),
    Column("p_value", "p-value", "p"), Column("p_adjusted", "p-value (Holm)", "p"),
    Column("n", "shared items", "int"), Column("n_clusters", "clusters", "int"),
    Column("method", "method"),
)
ATTRIBUTE_COLUMNS = (
    Column("attribute", "attribute"), Column("value", "value"), Column("arm", "arm"),
    Column("estimate", "Q", "fixed"), Column("lower", "lower", "fixed"),
    Column("upper", "upper", "fixed"), Column("standard_error", "standard error", "fixed", 4),
    Column("n", "units", "int"), Column("n_items", "items", "int"),
    Column("n_clusters", "clusters", "int"), Column("method", "method"),
)
ALL_TASKS = "all tasks"


def systems_page(report: SystemsReport) -> Page:
    """The systems report page and its dashboard highlight (the head-to-head table)."""
    pct = f"{report.conf * 100:g}%"
    ranks = [asdict(r) for r in report.rankings.arms]
    points = [ForestPoint(label=r.arm, group="composite Q", estimate=r.estimate, lower=r.lower,
                          upper=r.upper, key=r.arm,
                          detail=f"rank {r.rank} [{_text(r.rank_lower)}, {_text(r.rank_upper)}]")
              for r in report.rankings.arms]
    rankings = Section(
        title="Rankings", figures=_forest(points, "composite score Q",
                                          f"Composite Q per system with {pct} intervals"),
        tables=(Table.from_records(ranks, RANK_COLUMNS, caption="Systems in rank order",
                                   name="systems-rankings"),),
        intro=f"Rank 1 = highest composite Q. A rank interval holds the central {pct} of the "
              f"system's rank over {report.B} cluster-bootstrap resamples (seed {report.seed}).",
        missing=None if ranks else "No system has a composite score.")
    pairs = [_pair_record(asdict(r)) for r in report.head_to_head]
    pair_points = [ForestPoint(label=f"{r.arm} - {r.opponent}", group=r.task or ALL_TASKS,
                               estimate=r.estimate, lower=r.lower, upper=r.upper, key=r.arm,
                               detail=f"p-value (Holm) {p_text(r.p_adjusted)}")
                   for r in report.head_to_head]
    head = Section(
        title="Head-to-head paired differences",
        figures=_forest(pair_points, "difference of item scores (arm - opponent)",
                        f"Mean paired difference with {pct} cluster-robust intervals",
                        reference=0.0),
        tables=(Table.from_records(pairs, PAIR_COLUMNS, caption="Pairs of systems",
                                   name="systems-head-to-head"),),
        intro="Per pair, the mean over the items both systems were scored on of the difference "
              "of their item scores (an item's score: the mean of its valid units), with a "
              f"cluster-robust t interval ({pct}) and test; p-values are Holm-adjusted over the "
              "pairs of each task scope.",
        missing=None if pairs else "Fewer than two systems: no pairs.")
    sections = [rankings, _per_task(report.composite), head,
                *_attribute_sections(report), Section(
                    title="Notes", notes=tuple(report.notes),
                    missing=None if report.notes else "The analysis left no notes.")]
    highlight = Section(title="Head-to-head", tables=(Table.from_records(pairs, tuple(
        c for c in PAIR_COLUMNS if c.key in ("arm", "opponent", "task", "estimate", "lower",
                                             "upper", "p_adjusted")),
        caption="Paired differences of systems", name="dashboard-head-to-head"),),
        missing=None if pairs else "Fewer than two systems.")
    facts = (("systems", str(len(ranks))), ("confidence", pct),
             ("rank intervals", f"{report.B} resamples, seed {report.seed}"),
             ("attributes", ", ".join(report.attributes.attributes) or "none"))
    return Page(slug="systems", title="Systems report", sections=tuple(sections), facts=facts,
                summary="Per-task scores, rankings with rank intervals, head-to-head "
                        "differences and performance by attribute.",
                highlights=(Highlight("rankings", highlight, order=75),))


def composite_page(report: CompositeScores) -> Page:
    """The page of composite scores alone: Q per system and per task."""
    pct = f"{report.conf * 100:g}%"
    overall = sorted((r for r in report.rows if r.task is None),
                     key=lambda r: (is_missing(r.estimate), -_number(r.estimate), r.arm))
    points = [ForestPoint(label=r.arm, group="composite Q", estimate=r.estimate, lower=r.lower,
                          upper=r.upper, key=r.arm, detail=r.method) for r in overall]
    title = "Rubric-weighted composite Q" if report.weights else "Composite Q"
    sections = [
        Section(title=f"{title} per system", figures=_forest(
            points, "composite score Q", f"{title} per system with {pct} intervals"),
            tables=(Table.from_records([asdict(r) for r in overall], COMPOSITE_COLUMNS,
                                       caption="Systems, highest Q first", name="composite"),),
            intro=f"Mean normalised score over valid units with a {pct} cluster-robust t "
                  "interval on the logit scale. Rank intervals, head-to-head differences and "
                  "performance by attribute are on the systems page.",
            missing=None if overall else "No system has a composite score."),
        _per_task(report),
        Section(title="Notes", notes=tuple(report.notes),
                missing=None if report.notes else "The analysis left no notes."),
    ]
    facts: tuple[tuple[str, str], ...] = (("confidence", pct),)
    if report.weights:
        facts += (("weights", ", ".join(f"{k} {v:.3g}" for k, v in report.weights.items())),)
    return Page(slug="composite", title="Composite scores", sections=tuple(sections), facts=facts,
                summary="Composite score Q per system and per task with cluster-robust intervals.")


def _per_task(composite: CompositeScores) -> Section:
    pct = f"{composite.conf * 100:g}%"
    rows = [r for r in composite.rows if r.task is not None]
    points = [ForestPoint(label=str(r.task), group=r.arm, estimate=r.estimate, lower=r.lower,
                          upper=r.upper, key=r.arm, detail=r.method) for r in rows]
    return Section(
        title="Per-task breakdown",
        figures=_forest(points, "composite score Q", f"Composite Q per task and system ({pct})"),
        tables=(Table.from_records([asdict(r) for r in rows], COMPOSITE_COLUMNS,
                                   caption="Composite Q per task", name="systems-per-task"),),
        missing=None if rows else "The table has no task column: no per-task breakdown.")


def _attribute_sections(report: SystemsReport) -> list[Section]:
    by = report.attributes
    pct = f"{by.conf * 100:g}%"
    if not by.rows:
        reason = by.notes[-1] if by.notes else "No attributes."
        return [Section(title="Performance by attribute", missing=reason)]
    sections = []
    for key in by.attributes:
        rows = [r for r in by.rows if r.attribute == key]
        points = [ForestPoint(label=r.value, group=r.arm, estimate=r.estimate, lower=r.lower,
                              upper=r.upper, key=r.value, detail=f"{r.n} units, {method_words(r.method)}")
                  for r in rows]
        sections.append(Section(
            title=f"Performance by attribute: {key}",
            figures=_forest(points, "composite score Q",
                            f"Composite Q per value of {key} and system ({pct})"),
            tables=(Table.from_records([asdict(r) for r in rows], ATTRIBUTE_COLUMNS,
                                       caption=f"Composite Q by {key}",
                                       name="systems-by-" + re.sub(r"[^A-Za-z0-9_-]+", "-", key)),),
            intro=f"Q over the valid units of items whose {key} has the value shown, with a "
                  f"{pct} cluster-robust t interval on the logit scale."))
    return sections


def _forest(points: Sequence[ForestPoint], x_title: str, caption: str, *,
            reference: float | None = None) -> tuple[Figure, ...]:
    if not any(not is_missing(p.estimate) for p in points):
        return ()
    return (forest(points, x_title=x_title, caption=caption, reference=reference),)


def _pair_record(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "task": record["task"] if record["task"] is not None else ALL_TASKS}


def _number(value: Any) -> float:
    return 0.0 if is_missing(value) else float(value)


def _text(value: Any, spec: str = "d") -> str:
    if is_missing(value):
        return "-"
    return format(value, spec)
