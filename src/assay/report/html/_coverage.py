"""Coverage pages: a :class:`~assay.analysis.coverage._report.CoverageReport` laid out, and the
teacher x arm interaction matrix read from a judgments table.

The interaction matrix is built here from the table, and says so: each cell is the mean of
the normalised scores of the (teacher, arm) pair (all judges and criteria that normalise),
the row effect of a teacher is its row's mean cell minus the grand mean of cells, and the
column effect of an arm likewise. They are descriptive means with no interval; the
statistics with intervals live in the analyses.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import numpy as np
import pandas as pd

from assay.analysis.coverage import CoverageReport
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
                                                 colorscale="Blues", digits=0,
                                                 caption=f"{row.task}: items per stratum "
                                                 f"({first} by {' / '.join(rest) or 'all'})"),),
                   tables=(Table.from_records(records, columns, caption="Items per stratum",
                                              name=f"strata-{row.task}"),),
                   intro=f"{len(gaps)} strata are empty or rare (gaps in coverage); filter the table "
                         "with 'yes' under rare to list them.")


def interaction_page(judgments: Any) -> Page | None:
    """Teacher x arm heatmap of mean normalised scores with row and column effects; self-teaching
    cells marked. None when the table has no teacher column (see the module docstring)."""
    frame = judgments.frame
    if "teacher" not in frame or frame["teacher"].isna().all():
        return None
    norm = judgments.normalised_scores()
    keep = frame["reportable"].astype(bool).to_numpy() & ~np.isnan(norm)
    rows = pd.DataFrame({"teacher": frame.loc[keep, "teacher"].astype(str).to_numpy(),
                         "arm": frame.loc[keep, "arm"].astype(str).to_numpy(), "value": norm[keep]})
    cells = rows.groupby(["teacher", "arm"]).agg(mean=("value", "mean"), n=("value", "size"))
    matrix = cells["mean"].unstack("arm")
    teachers, arms = [str(t) for t in matrix.index], [str(a) for a in matrix.columns]
    grand = float(np.nanmean(matrix.to_numpy()))
    row_effect = matrix.mean(axis=1) - grand
    col_effect = matrix.mean(axis=0) - grand
    text = [[("" if is_missing(v) else f"{v:.3f}") + (" *" if t == a else "")
             for a, v in zip(arms, matrix.loc[t].tolist(), strict=True)] for t in teachers]
    figure = heatmap(matrix.to_numpy().tolist(), arms, teachers, title="mean score",
                     colorscale="Viridis", text=text,
                     caption="Mean normalised score per (teacher, arm); * marks self-teaching "
                             "cells (teacher = arm)")
    records = [{"teacher": t, "arm": a, "mean": float(m), "n": int(n), "self_teaching": t == a}
               for (t, a), m, n in zip(cells.index, cells["mean"], cells["n"], strict=True)]
    effects = [{"kind": "row (teacher)", "name": f"teacher {t}", "effect": float(v)}
               for t, v in row_effect.items()]
    effects += [{"kind": "column (arm)", "name": f"arm {a}", "effect": float(v)}
                for a, v in col_effect.items()]
    effect_figure = stacked_bars([e["name"] for e in effects], [("effect", [e["effect"] for e in effects])],
                                 y_title="effect on mean score", filter_table=0,
                                 caption="Row effects (teachers, should be small) and column effects "
                                         "(arms, should be large)")
    sections = (
        Section(title="Teacher x arm", figures=(figure,), tables=(Table.from_records(
            records, (Column("teacher", "teacher"), Column("arm", "arm"),
                      Column("mean", "mean score", "fixed"), Column("n", "scores", "int"),
                      Column("self_teaching", "self-teaching", "bool")),
            caption="Cells of the matrix", name="interaction-cells"),),
            intro="Computed here from the judgments table: each cell is the mean of the scores "
                  "normalised to [0, 1] (every judge and criterion with a normalisation), "
                  "reportable rows only; descriptive, without intervals."),
        Section(title="Row and column effects", figures=(effect_figure,), tables=(
            Table.from_records(effects, (Column("name", "name"), Column("kind", "effect of"),
                                         Column("effect", "effect", "fixed")),
                               caption="Effects: row or column mean minus the grand mean of cells",
                               name="interaction-effects"),),
            intro=f"Grand mean of the cells {grand:.3f}."),
    )
    return Page(slug="interaction", title="Interaction matrix", sections=sections,
                summary="Teacher x arm mean scores with row and column effects; self-teaching "
                        "cells marked.",
                facts=(("teachers", str(len(teachers))), ("arms", str(len(arms)))))
