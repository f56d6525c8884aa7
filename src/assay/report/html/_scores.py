"""The scores page: a :class:`~assay.analysis.scores.ScoreSummary` laid out per criterion."""

from __future__ import annotations

from collections.abc import Sequence

from assay.analysis.scores import ScoreRow, ScoreSummary
from assay.report._glossary import method_words
from assay.report.html._figures import ForestPoint, forest
from assay.report.html._model import (
    Column,
    Figure,
    Highlight,
    Page,
    Section,
    Table,
    distinguishing,
    is_missing,
    linked,
    view_query,
)

SCORE_COLUMNS = (
    Column("judge", "judge"), Column("arm", "arm"), Column("opponent", "opponent"),
    Column("n", "n", "int"), Column("n_failed", "failed", "int"),
    Column("n_items", "items", "int"), Column("n_clusters", "clusters", "int"),
    Column("runs", "runs", "int"), Column("estimate", "mean", "fixed"),
    Column("lower", "lower", "fixed"), Column("upper", "upper", "fixed"),
    Column("method", "method"),
)


def _label(row: ScoreRow) -> str:
    return row.arm if row.opponent is None else f"{row.arm} vs {row.opponent}"


def _columns(rows: Sequence[ScoreRow]) -> tuple[Column, ...]:
    pairwise = any(r.opponent is not None for r in rows)
    return tuple(c for c in SCORE_COLUMNS if pairwise or c.key != "opponent")


def _records(rows: Sequence[ScoreRow]) -> list[dict[str, object]]:
    return [vars(r) for r in rows]


def _criterion_section(criterion: str, rows: list[ScoreRow], pct: str) -> Section:
    scale = rows[0].scale
    raw = scale == "interval"
    intro = (f"Scale {scale}; the mean is " + ("on the raw scale" if raw else
                                               "normalised to [0, 1]")
             + f", with its {pct} interval (method per row). Click a point to filter the table; "
             "a count of failed judgments links to them in the viewer (assay view RUN "
             "--reports FOLDER).")
    points = [ForestPoint(label=_label(r), group=r.judge, estimate=r.estimate, lower=r.lower,
                          upper=r.upper, key=f"{r.judge} {_label(r).replace(' vs ', ' ')}",
                          detail=f"n = {r.n}, {method_words(r.method)}")
              for r in rows]
    figures: tuple[Figure, ...] = ()
    if any(not is_missing(r.estimate) for r in rows):
        figures = (forest(points, x_title="mean score" if raw else "mean score (normalised)",
                          caption=f"{criterion}: mean per system and judge with {pct} intervals"),)
    records = _records(rows)
    table = linked(Table.from_records(records, _columns(rows),
                                      caption=f"{criterion}: scores per judge and system",
                                      name=f"scores-{criterion}"),
                   records, {"n_failed": _failed_link})
    return Section(title=criterion, intro=intro, figures=figures, tables=(table,))


def _failed_link(record: dict[str, object]) -> str | None:
    """The viewer's query of the judgments without a score behind ``n_failed``."""
    if not record.get("n_failed"):
        return None
    return view_query(record, ("criterion", "judge", "arm", "opponent"), verdict="failed")


def scores_page(summary: ScoreSummary) -> Page:
    """The scores page and its dashboard highlights."""
    pct = f"{summary.conf * 100:g}%"
    by_criterion: dict[str, list[ScoreRow]] = {}
    for row in summary.rows:
        by_criterion.setdefault(row.criterion, []).append(row)
    sections = [_criterion_section(c, rows, pct) for c, rows in by_criterion.items()]
    if not sections:
        sections.append(Section(title="Scores", missing="The table holds no criterion with a "
                                "mean (nominal criteria have none)."))
    sections.append(_invalid_section(summary))
    sections.append(Section(title="Notes", notes=tuple(summary.notes),
                            missing=None if summary.notes else "The analysis left no notes."))
    facts = (("criteria", str(len(by_criterion))), ("rows", str(len(summary.rows))),
             ("confidence", pct), ("invalid records kept aside", str(summary.n_invalid)))
    return Page(slug="scores", title="Score summary", sections=tuple(sections),
                summary="Mean score per criterion, judge and system with cluster-robust intervals.",
                facts=facts, highlights=_highlights(summary, by_criterion, pct))


def _invalid_section(summary: ScoreSummary) -> Section:
    if not summary.n_invalid:
        return Section(title="Invalid records", missing="No run-folder record was kept aside "
                       "as invalid (or the source was not a run folder).")
    table = Table.from_records(
        [{"validity_class": k, "n": v} for k, v in summary.invalid_by_class.items()],
        (Column("validity_class", "validity class"), Column("n", "records", "int")),
        caption="Records kept aside by validity class", name="invalid-records")
    return Section(title="Invalid records", tables=(table,),
                   intro=f"{summary.n_invalid} run-folder records failed a validity check; "
                         "they are excluded from every statistic.")


def _highlights(summary: ScoreSummary, by_criterion: dict[str, list[ScoreRow]],
                pct: str) -> tuple[Highlight, ...]:
    ranked = [row for rows in by_criterion.values()
              for judge in dict.fromkeys(r.judge for r in rows)
              for row in sorted((r for r in rows if r.judge == judge),
                                key=lambda r: -r.estimate if not is_missing(r.estimate) else 1.0)]
    columns = (Column("criterion", "criterion"), Column("scale", "scale"), *(
        c for c in _columns(ranked) if c.key in ("judge", "arm", "opponent", "estimate", "lower",
                                                 "upper")))
    rankings = Section(
        title="Mean scores by criterion and judge (failures left out)",
        intro=f"Arms ordered by mean within each criterion and judge; {pct} intervals.",
        tables=(Table.from_records(_records(ranked), columns, caption="Mean scores (failures left out)",
                                   name="dashboard-scores"),))
    failed = [r for r in summary.rows if r.n_failed]
    quality_tables = []
    if failed:
        quality_tables.append(linked(Table.from_records(
            _records(failed), distinguishing(_records(failed), (
                Column("criterion", "criterion"), Column("judge", "judge"), Column("arm", "arm"),
                Column("n", "scored", "int"), Column("n_failed", "failed", "int"))),
            caption="Judgments without a score (left out of the means)", name="failed-judgments"),
            _records(failed), {"n_failed": _failed_link}))
    if summary.n_invalid:
        quality_tables.append(Table.from_records(
            [{"validity_class": k, "n": v} for k, v in summary.invalid_by_class.items()],
            (Column("validity_class", "validity class"), Column("n", "records", "int")),
            caption="Invalid records kept aside", name="invalid-records"))
    quality = Section(title="Failed judgments and invalid records", tables=tuple(quality_tables),
                      missing=None if quality_tables else
                      "Every judgment has a score and no record was kept aside as invalid.")
    return (Highlight("rankings", rankings), Highlight("quality", quality))
