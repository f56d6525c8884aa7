"""The win-rate page: a :class:`~assay.analysis.winrates._report.WinRateReport` (BenchmarkQED) laid out.

One section per criterion and question set (task; "all tasks" first): win rates with their
intervals as a forest plot and the table with raw and adjusted p-values; then A/A checks,
positional bias, judge comparisons and notes.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from assay.analysis.winrates import WinRateReport
from assay.report._glossary import method_words
from assay.report.html._figures import ForestPoint, forest
from assay.report.html._judges import position_section
from assay.report.html._model import (
    Column,
    Figure,
    Highlight,
    Page,
    Section,
    Table,
    distinguishing,
    is_missing,
)
from assay.report.text._format import p_text

RECORD_COLUMNS = (
    Column("judge", "judge"), Column("arm", "arm"), Column("opponent", "opponent"),
    Column("win_rate", "win rate", "fixed"), Column("lower", "lower", "fixed"),
    Column("upper", "upper", "fixed"), Column("n", "n", "int"), Column("n_wins", "wins", "int"),
    Column("n_losses", "losses", "int"), Column("n_ties", "ties", "int"),
    Column("n_failed", "failed", "int"), Column("n_clusters", "clusters", "int"),
    Column("p_value", "p-value", "p"), Column("p_adjusted", "adjusted p-value", "p"),
    Column("significant", "significant", "bool"), Column("test", "test"),
)
AA_COLUMNS = (
    Column("judge", "judge"), Column("criterion", "criterion"), Column("task", "task"),
    Column("arm", "arm"), Column("deviation", "deviation from 1/2", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"), Column("n", "n", "int"),
    Column("p_value", "p-value", "p"), Column("p_adjusted", "adjusted p-value", "p"),
    Column("significant", "significant", "bool"),
)
JUDGE_COLUMNS = (
    Column("criterion", "criterion"), Column("judge_a", "judge A"), Column("judge_b", "judge B"),
    Column("arm", "arm"), Column("opponent", "opponent"), Column("n_trials", "trials", "int"),
    Column("agreement_rate", "verdict agreement", "fixed"), Column("win_rate_a", "win rate A", "fixed"),
    Column("win_rate_b", "win rate B", "fixed"), Column("difference", "A - B", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("p_adjusted", "adjusted p-value", "p"), Column("significant", "significant", "bool"),
)


def _records(rows: list[Any]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


def _section(report: WinRateReport, criterion: str, task: str | None, pct: str) -> Section:
    rows = [r for r in report.records if (r.criterion, r.task) == (criterion, task)
            and r.arm != r.opponent]
    points = [ForestPoint(label=f"{r.arm} vs {r.opponent}", group=r.judge, estimate=r.win_rate,
                          lower=r.lower, upper=r.upper, key=f"{r.judge} {r.arm} {r.opponent}",
                          detail=f"n = {r.n}, adjusted p-value {p_text(r.p_adjusted)}")
              for r in rows]
    figures: tuple[Figure, ...] = ()
    if any(not is_missing(p.estimate) for p in points):
        figures = (forest(points, x_title="win rate", reference=0.5,
                          caption=f"{criterion}, {task or 'all tasks'}: win rate with {pct} "
                                  "intervals (0.5: no preference)"),)
    where = "all tasks" if task is None else f"task {task}"
    return Section(
        title=f"{criterion}: {where}", figures=figures,
        tables=(Table.from_records(_records(rows), RECORD_COLUMNS,
                                   caption=f"{criterion}, {where}: win rates",
                                   name=f"winrates-{criterion}-{task or 'all'}"),),
        intro=f"Win rate of the arm over the opponent (ties count one half), {pct} intervals; "
              f"p-values of the {report.test} test, adjusted by {report.correction} within the "
              f"family; significant at alpha = {report.alpha:g} after adjustment.",
        missing=None if rows else "No comparison of two different arms.")


def winrates_page(report: WinRateReport) -> Page:
    """The win-rate page and its dashboard highlight."""
    pct = f"{report.conf * 100:g}%"
    keys = sorted(dict.fromkeys((r.criterion, r.task) for r in report.records),
                  key=lambda k: (k[0], k[1] is not None, k[1] or ""))
    sections = [_section(report, c, t, pct) for c, t in keys]
    if not sections:
        sections.append(Section(title="Win rates", missing="The table has no pairwise judgments."))
    sections.append(Section(
        title="A/A checks", tables=(Table.from_records(_records(report.aa), AA_COLUMNS,
                                                      caption="An arm against itself",
                                                      name="winrates-aa"),) if report.aa else (),
        intro="An arm compared with itself should win half the time; a deviation flags a judge "
              "that prefers a position or an answer's surface.",
        missing=None if report.aa else "No arm was compared with itself."))
    sections.append(position_section(report.position, pct))
    sections.append(Section(
        title="Judges compared", tables=(Table.from_records(_records(report.judges), JUDGE_COLUMNS,
                                                           caption="Two judges on shared trials",
                                                           name="winrates-judges"),)
        if report.judges else (), missing=None if report.judges else "Fewer than two judges "
        "scored the same trials."))
    sections.append(Section(title="Notes", notes=tuple(report.notes),
                            missing=None if report.notes else "The analysis left no notes."))
    overall = [r for r in report.records if r.task is None and r.arm != r.opponent]
    shown = tuple(c for c in RECORD_COLUMNS if c.key in (
        "judge", "arm", "opponent", "win_rate", "lower", "upper", "p_adjusted", "significant"))
    highlight = Section(title="Win rates (all question sets)", tables=(Table.from_records(
        _records(overall), distinguishing(_records(overall), shown),
        caption="Win rates over all question sets", name="dashboard-winrates"),) if overall else (),
        missing=None if overall else "No pairwise comparison.")
    facts = (("comparisons", str(len(report.records))), ("test", method_words(report.test)),
             ("correction", method_words(report.correction)), ("alpha", f"{report.alpha:g}"),
             ("confidence", pct))
    return Page(slug="winrates", title="Win rates", sections=tuple(sections), facts=facts,
                summary="Pairwise win rates per criterion and question set with adjusted p-values.",
                highlights=(Highlight("rankings", highlight, order=60),))
