"""Write an :class:`~assay.report.kinds._registry.Outcome` in the file formats asked for.

Shared by ``assay report`` and ``assay demo``: the JSON files of each report (and
``skipped.json``), the HTML pages with their dashboard (the answer first; one line counting the skipped
reports, their reasons folded under it), the
Excel workbook, the LaTeX tables and the PNG figures. Each format receives the reports that
declare it. Text goes to the terminal and is the caller's to print.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from assay.report.kinds._build import write_text
from assay.report.kinds._registry import KINDS, Outcome

if TYPE_CHECKING:
    from assay.data.table import Judgments

SKIPPED = "skipped.json"


def write_reports(outcome: Outcome, judgments: Judgments, formats: Collection[str], out: Path, *,
                  html_dir: Path | None = None, partial: bool = False,
                  single_file: bool = False) -> list[Path]:
    """Write every file format in ``formats`` (text is not a file) into ``out``.

    Parameters
    ----------
    outcome : Outcome
        From :func:`~assay.report.kinds.build_reports`.
    judgments : Judgments
        The table the reports were made from (the workbook, the aggregator's files and the
        HTML table pages read it).
    formats : collection of str
        Any of json, html, xlsx, latex, png.
    out : Path
        Folder for the files: ``NAME.json`` and ``skipped.json``, ``analysis.xlsx``,
        ``tables/``, ``figures/``.
    html_dir : Path, optional
        Folder of the HTML pages; ``out`` when not given.
    partial : bool, default False
        The run is still in progress: the HTML pages say their statistics are preliminary.
    single_file : bool, default False
        HTML in one ``index.html`` with a tab per page instead of a file per page.

    Returns
    -------
    list of Path
        The files written.
    """
    written: list[Path] = []
    if "json" in formats:
        for name, made in outcome.made.items():
            kind = KINDS[name]
            written += kind.write_json(kind.file_stem, made.result, judgments, out)
        written.append(write_text(out / SKIPPED, json.dumps(
            {"skipped": outcome.skipped_records()}, indent=2)))
    if "html" in formats:
        written += _write_html(outcome, judgments, html_dir or out, partial=partial,
                               single_file=single_file)
    if "xlsx" in formats:
        from assay.report.office import write_workbook

        written.append(write_workbook(outcome.results("xlsx"), judgments, out / "analysis.xlsx"))
    if "latex" in formats:
        from assay.report.office import write_paper_tables

        written += write_paper_tables(outcome.results("latex"), out / "tables")
    if "png" in formats:
        from assay.report.figures import write_figures

        written += write_figures(outcome.results("png"), out / "figures")
    return written


def _write_html(outcome: Outcome, judgments: Judgments, out: Path, *, partial: bool,
                single_file: bool) -> list[Path]:
    """A page per report, the table's own pages (judge report, score distribution, interaction
    matrix) and the dashboard, which opens on the answer (when it was made) and counts the
    skipped reports in one line."""
    from assay.report.html import (
        HTML_ASSETS,
        interaction_page,
        judge_report_page,
        render_html,
        score_distribution_page,
    )

    judges = outcome.made.get("agreement")
    calibration = outcome.made.get("calibration")
    table_pages = [judge_report_page(judgments, judges=judges.result if judges else None,
                                     calibration=calibration.result if calibration else None),
                   score_distribution_page(judgments)]
    # the matrix's page: from the interaction report when it was made, else from the table
    interaction = None if "interaction" in outcome.made else interaction_page(judgments)
    if interaction is not None:
        table_pages.append(interaction)
    captions = {KINDS[name].file_stem: made.caption for name, made in outcome.made.items()
                if made.caption}
    skipped = {KINDS[name].title: reason for name, reason in outcome.skipped.items()}
    pages = render_html([*outcome.results("html"), *table_pages], out, partial=partial,
                        captions=captions, skipped=skipped, single_file=single_file)
    if single_file:
        return pages
    return [*pages, *(out / name for name in HTML_ASSETS if (out / name).exists())]
