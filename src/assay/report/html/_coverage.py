"""Coverage pages: a :class:`~assay.analysis.coverage._report.CoverageReport` and the teacher x
arm :class:`~assay.analysis.coverage._interaction.InteractionMatrix` laid out (both computed
in :mod:`assay.analysis.coverage`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from assay.analysis.coverage import CoverageReport, InteractionMatrix, interaction_matrix
from assay.errors import AssayError
from assay.report.html._figures import stacked_bars
from assay.report.html._judges import heatmap
from assay.report.html._model import Column, Figure, Highlight, Page, Section, Table, is_missing

ROW_COLUMNS = (
    Column("task", "task"), Column("n_items", "items", "int"), Column("n_strata", "strata", "int"),
    Column("n_covered", "covered", "int"), Column("acr", "ACR", "fixed"),
    Column("n_rare", "rare strata", "int"), Column("n_rare_covered", "rare covered", "int"),
    Column("rar", "RAR", "fixed"), Column("surface_bias", "surface bias (BLEU)", "fixed"),
    Column("n_prompts", "prompts", "int"), Column("attributes", "attributes"),
)


def coverage_page(report: CoverageReport) -> Page:
    """The coverage summary page and its dashboard highlight."""
    rows = [{**asdict(r), "attributes": ", ".join(r.attributes)} for r in report.rows]
    figures: list[Figure] = []
    if rows:
        figures.append(stacked_bars([r.task for r in report.rows],
                                    [("ACR", [r.acr for r in report.rows]),
                                     ("RAR", [r.rar for r in report.rows])],
                                    y_title="ratio", barmode="group",
                                    caption="Attribute coverage ratio and rare-attribute recall per "
                                            "task"))
    sections = [Section(title="Coverage per task", figures=tuple(figures),
                        tables=(Table.from_records(rows, ROW_COLUMNS, caption="Coverage per task",
                                                   name="coverage"),),
                        intro="ACR = covered strata / all strata; RAR = rare strata covered; "
                              "surface bias = mean pairwise BLEU of prompts (lower: more diverse).",
                        missing=None if rows else "No task.")]
    for r in report.rows:
        sections.append(_strata_section(r))
        if r.acr_by_teacher:
            sections.append(Section(title=f"ACR by teacher: {r.task}", figures=(stacked_bars(
                list(r.acr_by_teacher), [("ACR", list(r.acr_by_teacher.values()))],
                y_title="ACR", caption=f"{r.task}: share of strata each teacher's items cover"),),
                tables=(Table.from_records(
                    [{"teacher": t, "acr": v} for t, v in r.acr_by_teacher.items()],
                    (Column("teacher", "teacher"), Column("acr", "ACR", "fixed")),
                    caption="ACR per teacher", name=f"coverage-teachers-{r.task}"),)))
    sections.append(Section(title="Notes", notes=tuple(report.notes),
                            missing=None if report.notes else "The analysis left no notes."))
    highlight = Section(title="Attribute coverage", tables=(Table.from_records(
        rows, tuple(c for c in ROW_COLUMNS if c.key in ("task", "acr", "rar", "surface_bias"))
        , caption="ACR and RAR per task", name="dashboard-coverage"),),
        missing=None if rows else "No attributes.")
    return Page(slug="coverage", title="Coverage summary", sections=tuple(sections),
                facts=(("rare threshold", str(report.rare_threshold)), ("seed", str(report.seed))),
                summary="Attribute coverage (ACR), rare-attribute recall, surface bias, gaps.",
                highlights=(Highlight("quality", highlight, order=60),))


def _strata_section(row: Any) -> Section:
    strata = row.strata
    title = f"Strata: {row.task}"
    if not strata:
        return Section(title=title, missing=(
            f"{row.n_strata:,} strata: too many to build (see the notes)." if row.n_strata
            else "The task's items have no target attributes (see the notes)."))
    keys = list(row.attributes)
    first, rest = keys[0], keys[1:]
    labels_y = list(dict.fromkeys(s.values.get(first, "") for s in strata))
    labels_x = list(dict.fromkeys(" / ".join(s.values.get(k, "") for k in rest) or "(all)"
                                  for s in strata))
    z = [[0 for _ in labels_x] for _ in labels_y]
    for s in strata:
        x = " / ".join(s.values.get(k, "") for k in rest) or "(all)"
        z[labels_y.index(s.values.get(first, ""))][labels_x.index(x)] += s.count
    records = [{**s.values, "count": s.count, "natural": s.natural, "rare": s.rare} for s in strata]
    columns = (*(Column(k, k) for k in keys), Column("count", "items", "int"),
               Column("natural", "natural", "int"), Column("rare", "rare", "bool"))
    gaps = [r for r in records if r["count"] == 0 or r["rare"]]
    return Section(title=title, figures=(heatmap(z, labels_x, labels_y, title="items",
                                                 colorscale=COUNT_SCALE, zmin=0, digits=0,
                                                 caption=f"{row.task}: items per stratum "
                                                 f"({first} by {' / '.join(rest) or 'all'})"),),
                   tables=(Table.from_records(records, columns, caption="Items per stratum",
                                              name=f"strata-{row.task}"),),
                   intro=f"{len(gaps)} strata are empty or rare (gaps in coverage); filter the table "
                         "with 'yes' under rare to list them.")


COUNT_SCALE = [[0.0, "#f7fbff"], [0.5, "#6baed6"], [1.0, "#08306b"]]
"""Counts from pale (none) to dark (most): plotly.js's named "Blues" runs the other way."""


def interaction_page(source: Any) -> Page | None:
    """Teacher x arm heatmap of composite scores with row and column effects; self-teaching
    cells marked. `source` is an :class:`~assay.analysis.coverage.InteractionMatrix` or a
    judgments table it is computed from (:func:`~assay.analysis.coverage.interaction_matrix`).
    None when the table has no teacher; a matrix the analysis refuses (too many cells) gives a
    page that says why."""
    if isinstance(source, InteractionMatrix):
        result: InteractionMatrix | None = source
    else:
        try:
            result = interaction_matrix(source)
        except AssayError as exc:
            return Page(slug="interaction", title="Interaction matrix", sections=(
                Section(title="Question writer x system", missing=f"Not computed: {exc}."),),
                summary="Question writer x system composite scores: not computed (see the page).")
        if result is None:
            return None
    return _interaction_page(result)


def _interaction_page(result: InteractionMatrix) -> Page:
    teachers, arms = result.teachers, result.arms
    matrix = result.matrix()
    text = [[("" if is_missing(v) else f"{v:.3f}") + (" *" if t == a else "")
             for a, v in zip(arms, row, strict=True)] for t, row in zip(teachers, matrix,
                                                                      strict=True)]
    figure = heatmap(matrix, arms, teachers, title="composite score",
                     colorscale="Viridis", text=text,
                     caption="Composite score per (teacher, arm); * marks self-teaching "
                             "cells (teacher = arm)")
    records = [{**asdict(c), "mean": c.estimate} for c in result.cells]
    effects = [{"kind": "row (teacher)", "name": f"teacher {t}", "effect": v}
               for t, v in result.row_effects.items()]
    effects += [{"kind": "column (arm)", "name": f"arm {a}", "effect": v}
                for a, v in result.column_effects.items()]
    effect_figure = stacked_bars([e["name"] for e in effects], [("effect", [e["effect"] for e in effects])],
                                 y_title="effect on composite score", filter_table=0,
                                 caption="Row effects (teachers, should be small) and column effects "
                                         "(arms, should be large)")
    pct = f"{100 * result.conf:g}%"
    sections = (
        Section(title="Question writer x system", figures=(figure,) if result.cells else (),
                tables=(Table.from_records(
            records, (Column("teacher", "teacher"), Column("arm", "arm"),
                      Column("mean", "composite score", "fixed"), Column("lower", "lower", "fixed"),
                      Column("upper", "upper", "fixed"), Column("n", "scores", "int"),
                      Column("n_items", "items", "int"),
                      Column("self_teaching", "self-teaching", "bool")),
            caption=f"Cells of the matrix with {pct} cluster-robust intervals",
            name="interaction-cells"),),
            intro="Each cell is the composite score of an arm over the items a teacher wrote: the "
                  "mean of its pointwise scores normalised to [0, 1], reportable rows only; "
                  "pairwise preferences are not scores of one answer and are left out.",
            missing=None if result.cells else "No valid pointwise score has a teacher."),
        Section(title="Row and column effects", figures=(effect_figure,) if effects else (),
                tables=(Table.from_records(
                    effects, (Column("name", "name"), Column("kind", "effect of"),
                              Column("effect", "effect", "fixed")),
                    caption="Effects: row or column mean minus the grand mean of cells",
                    name="interaction-effects"),),
                intro=f"Grand mean of the cells {result.grand_mean:.3f}."),
        Section(title="Notes", notes=tuple(result.notes),
                missing=None if result.notes else "The analysis left no notes."),
    )
    return Page(slug="interaction", title="Interaction matrix", sections=sections,
                summary="Question writer x system composite scores with row and column effects; "
                        "self-teaching cells marked.",
                facts=(("teachers", str(len(teachers))), ("arms", str(len(arms)))))
