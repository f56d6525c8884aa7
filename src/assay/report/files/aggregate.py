"""The results aggregator's files: ``results.json``, ``aggregated.json`` and ``summary.txt``.

``summary.txt`` is the text of the report (:func:`assay.report.text.aggregate.format_summary`).
This module only writes a report; it computes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.data.importers.results_json import write_results_json
from assay.report.text.aggregate import format_summary

if TYPE_CHECKING:
    from assay.analysis.aggregate import AggregateReport
    from assay.data.table import Judgments

__all__ = ["write_aggregate_files"]


def write_aggregate_files(report: AggregateReport, judgments: Judgments,
                          out_dir: str | Path) -> list[Path]:
    """Write ``results.json`` (every score of every run), ``aggregated.json`` and ``summary.txt``.

    Returns the paths written, in that order. ``judgments`` should be the table ``report``
    was made from; results.json holds all its rows, the unscored and non-reportable ones
    included (a null score for a failure).
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = write_results_json(judgments, out / "results.json")
    aggregated = out / "aggregated.json"
    aggregated.write_text(report.to_json() + "\n", encoding="utf-8")
    summary = out / "summary.txt"
    summary.write_text(format_summary(report) + "\n", encoding="utf-8")
    return [results, aggregated, summary]
