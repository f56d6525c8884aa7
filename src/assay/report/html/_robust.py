"""The robust summary page: a :class:`~assay.analysis.judges._robust.RobustSummary` laid out, and the
judge consistency per task (:class:`~assay.analysis.judges._robust.JudgeConsistency`) when given.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from assay.analysis.judges import JudgeConsistency, RobustSummary
from assay.report._glossary import method_words
from assay.report.html._figures import ForestPoint, forest, lines_with_errors
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table, is_missing

ARM_COLUMNS = (
    Column("rank", "rank", "int"), Column("arm", "arm"), Column("estimate", "Q", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("trimmed_mean", "trimmed mean", "fixed"), Column("median", "median", "fixed"),
    Column("rank_lower", "rank lower", "int"), Column("rank_upper", "rank upper", "int"),
    Column("n_items", "items", "int"), Column("method", "method"),
)


def robust_page(report: RobustSummary) -> Page:
    """The robust summary page and its dashboard highlight."""
    pct = f"{report.conf * 100:g}%"
    arms = [asdict(r) for r in report.arms]
    points = [ForestPoint(label=r.arm, group="composite Q", estimate=r.estimate, lower=r.lower,
                          upper=r.upper, key=r.arm, detail=f"rank {r.rank}, {method_words(r.method)}")
              for r in report.arms]
    points += [ForestPoint(label=r.arm, group=f"trimmed mean ({report.trim:g} per tail)",
                           estimate=r.trimmed_mean, lower=None, upper=None, key=r.arm)
               for r in report.arms]
    points += [ForestPoint(label=r.arm, group="median", estimate=r.median, lower=None, upper=None,
                           key=r.arm) for r in report.arms]
    figures: tuple[Figure, ...] = ()
    if any(not is_missing(p.estimate) for p in points):
        figures = (forest(points, x_title="score (normalised)",
                          caption=f"Composite Q with {pct} intervals, trimmed mean and median"),)
    sections = [Section(
        title="Final rankings", figures=figures,
        tables=(Table.from_records(arms, ARM_COLUMNS, caption="Arms in rank order",
                                   name="robust-arms"),),
        intro=f"Composite score Q with its {pct} interval and rank interval ({report.B} cluster-"
              f"bootstrap resamples, seed {report.seed}); the trimmed mean and median of item "
              "scores resist outlying judgments.",
        missing=None if arms else "No arm has a composite score.")]
    loo = [{"judge": r.judge, "ranking": " > ".join(r.ranking), "kendall_tau": r.kendall_tau,
            "changed": r.changed} for r in report.leave_one_judge_out]
    sections.append(Section(
        title="Sensitivity: one judge removed", tables=(Table.from_records(loo, (
            Column("judge", "judge left out"), Column("ranking", "ranking without it"),
            Column("kendall_tau", "Kendall tau with full ranking", "fixed"),
            Column("changed", "ranking changed", "bool")), caption="Leave one judge out",
            name="robust-loo"),) if loo else (),
        missing=None if loo else "Fewer than two judges: nothing to leave out."))
    by_size = report.stability_by_size
    sections.append(Section(
        title="Ensemble stability",
        figures=(lines_with_errors([("mean tau", [s.size for s in by_size],
                                     [s.mean_tau for s in by_size], [s.min_tau for s in by_size],
                                     [s.mean_tau for s in by_size])],
                                   x_title="judges in the subset", y_title="Kendall tau",
                                   y_range=(-1.0, 1.0),
                                   caption="Mean Kendall tau with the full ranking by subset size "
                                           "(bar down to the minimum)"),) if by_size else (),
        tables=(Table.from_records([asdict(s) for s in by_size], (
            Column("size", "judges", "int"), Column("n_subsets", "subsets", "int"),
            Column("mean_tau", "mean tau", "fixed"), Column("min_tau", "min tau", "fixed")),
            caption="Stability by subset size", name="robust-stability"),) if by_size else (),
        intro=f"Ensemble stability (mean Kendall tau over judge subsets): "
              f"{'-' if is_missing(report.stability) else f'{report.stability:.3f}'}.",
        missing=None if by_size else "Fewer than two judges: no subsets."))
    sections.append(Section(title="Notes", notes=tuple(report.notes),
                            missing=None if report.notes else "The analysis left no notes."))
    highlight = Section(title="Robust rankings", tables=(Table.from_records(arms, tuple(
        c for c in ARM_COLUMNS if c.key in ("rank", "arm", "estimate", "lower", "upper",
                                            "rank_lower", "rank_upper")),
        caption="Composite Q and rank intervals", name="dashboard-robust"),),
        missing=None if arms else "No arm.")
    facts = (("judges", str(len(report.judges))), ("trim", f"{report.trim:g} per tail"),
             ("bootstrap", f"{report.B} resamples, seed {report.seed}"), ("confidence", pct))
    return Page(slug="robust", title="Robust summary", sections=tuple(sections), facts=facts,
                summary="Trimmed means, medians, rank intervals and ranking stability across judges.",
                highlights=(Highlight("rankings", highlight, order=70),))


def consistency_page(report: JudgeConsistency) -> Page:
    """ICC(2,1) of the judges per task (the consistency the composite leans on)."""
    rows: list[dict[str, Any]] = [{**asdict(r), "judges": ", ".join(r.judges)} for r in report.rows]
    pct = f"{report.conf * 100:g}%"
    points = [ForestPoint(label=r.task, group=r.criterion, estimate=r.icc, lower=r.icc_lower,
                          upper=r.icc_upper, key=r.task, detail=r.method) for r in report.rows]
    figures = (forest(points, x_title="ICC(2,1)", caption=f"ICC per task with {pct} intervals"),) \
        if any(not is_missing(p.estimate) for p in points) else ()
    columns = (Column("task", "task"), Column("criterion", "criterion"), Column("judges", "judges"),
               Column("n_units", "units", "int"), Column("icc", "ICC(2,1)", "fixed"),
               Column("icc_lower", "lower", "fixed"), Column("icc_upper", "upper", "fixed"),
               Column("method", "method"), Column("chosen", "chosen", "bool"),
               Column("reason", "reason"))
    return Page(slug="consistency", title="Judge consistency per task", sections=(
        Section(title="ICC per task", figures=figures, tables=(Table.from_records(
            rows, columns, caption="ICC per task", name="consistency"),),
            missing=None if rows else "No task has two judges."),
        Section(title="Notes", notes=tuple(report.notes),
                missing=None if report.notes else "No notes.")),
        summary="ICC(2,1) of the judges per task.")
