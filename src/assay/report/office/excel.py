"""The Excel workbook (``--format xlsx``): CoEval's ``complete-report`` for stakeholder review.

One workbook, one table per sheet, each with a bold frozen header row, an autofilter over
its rows and a number format per column (proportions and correlations ``0.000``, dollars
``0.000000``, p-values ``0.0000``, counts ``0``). Cells hold the report objects' values at full
precision (the format only changes what is shown); a missing value is an empty cell; text
that a spreadsheet would read as a formula (``= + - @``, a tab or CR first) is prefixed with
``'`` (:mod:`assay.data.cells`, the policy of every CSV and xlsx writer).

Sheets, each written when its report is in ``reports``:

========================  ==================================================================
``Summary``               per arm: composite score with its interval (all tasks together,
                          :class:`~assay.analysis.composite.CompositeScores`) and the
                          ranking with rank interval, trimmed mean and median
                          (:class:`~assay.analysis.judges._robust.RobustSummary`)
``Scores``                per (criterion, judge, arm[, opponent]) mean score with its interval
                          (:class:`~assay.analysis.scores.ScoreSummary`)
``ScoresByTask``          per (arm, task) composite score (``CompositeScores``)
``Coverage``              per task and per (task, data generator): ACR, RAR, surface bias
                          (:class:`~assay.analysis.coverage._report.CoverageReport`)
``JudgeAgreement``        per judge pair: ICC, Spearman, Kendall, MAD, kappas
                          (:class:`~assay.analysis.judges._report.JudgeReport` ``pairs``)
``JudgeReliability``      per (criterion, task): ICC(2,1) with interval, Krippendorff's alpha
``PositionBias``          flip rates per (judge, criterion)
``Calibration``           per (judge, task) and overall
                          (:class:`~assay.analysis.judges._calibration.CalibrationReport`)
``WinRates``              :class:`~assay.analysis.winrates._report.WinRateReport` records
``Bench*``                the benchmark tables (accuracy, contrasts, simultaneous, pass^k,
                          stability, cost, frontier, failures) of a
                          :class:`~assay.analysis.benchmark._report.BenchmarkReport`
``FailedRecords``         every record of ``judgments.invalid`` with its validity class
``Notes``                 every report's notes
========================  ==================================================================

The renderer computes nothing: it lays out ``to_dict()`` of each report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import xlsxwriter

from assay.analysis.benchmark import BenchmarkReport
from assay.analysis.composite import CompositeScores
from assay.analysis.cost import CostSummary
from assay.analysis.coverage import CoverageReport, TeacherReport
from assay.analysis.judges import CalibrationReport, JudgeReport, RobustSummary
from assay.analysis.scores import ScoreSummary
from assay.analysis.systems import FactorBreakdown
from assay.analysis.winrates import WinRateReport
from assay.data.cells import safe_cell
from assay.data.filenames import sheet_name
from assay.report._collect import reports_by_type

__all__ = ["BENCHMARK_SHEETS", "number_format", "write_workbook"]

BENCHMARK_SHEETS: dict[str, str] = {
    "accuracy": "BenchAccuracy", "contrasts": "BenchContrasts", "simultaneous": "BenchSimultaneous",
    "pass_k": "BenchPassK", "stability": "BenchStability", "cost": "BenchCost",
    "frontier": "BenchFrontier", "failures": "BenchFailures",
}
"""Benchmark table (``BenchmarkReport.to_dict()`` key) -> sheet name."""

_COUNT = "0"
_PROPORTION = "0.000"
_P = "0.0000"
_USD = "0.000000"
_GENERAL = "General"


def number_format(column: str) -> str:
    """The Excel number format of a column, chosen from its name.

    Examples
    --------
    >>> number_format("p_adjusted"), number_format("usd_per_item_lower"), number_format("n_items")
    ('0.0000', '0.000000', '0')
    >>> number_format("estimate"), number_format("mad")
    ('0.000', '0.000')
    """
    if column.startswith("p_") or column == "p_value":
        return _P
    if column.startswith("usd"):
        return _USD
    if column in {"n", "k", "row", "run", "runs", "size", "rank", "rank_lower", "rank_upper", "df",
                  "wrong", "window", "count"} or column.startswith(("n_", "num_")):
        return _COUNT
    if column.startswith("tokens"):
        return "0.0"
    return _PROPORTION


def write_workbook(reports: Sequence[Any] | Mapping[str, Any], judgments: Any,
                   path: str | Path) -> Path:
    """Write the analysis workbook to ``path`` (``.xlsx``) and return the path.

    Parameters
    ----------
    reports : sequence or mapping of report objects
        Any of ``ScoreSummary``, ``BenchmarkReport``, ``CompositeScores``, ``RobustSummary``,
        ``CoverageReport``, ``JudgeReport``, ``CalibrationReport``, ``WinRateReport``,
        ``CostSummary`` (a
        mapping's values are used; ``(title, report)`` pairs are accepted). Others are ignored.
    judgments : Judgments or None
        The table the reports came from; its ``invalid`` records fill ``FailedRecords``.
    path : str or Path
        The file to write; its folder is created when missing.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import tempfile, zipfile
    >>> out = write_workbook([], None, Path(tempfile.mkdtemp()) / "empty.xlsx")
    >>> "xl/worksheets/sheet1.xml" in zipfile.ZipFile(out).namelist()
    True
    """
    found = _by_type(reports)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    book = xlsxwriter.Workbook(str(out), {"nan_inf_to_errors": True})
    try:
        sheets = _Sheets(book)
        sheets.table("Summary", _summary(found), empty="no composite scores or robust ranking "
                     "in this set: the judges report makes them")
        if ScoreSummary in found:
            sheets.table("Scores", found[ScoreSummary].to_dict()["scores"])
        if CompositeScores in found:
            rows = [r for r in found[CompositeScores].to_dict()["composite"] if r.get("task") is not None]
            sheets.table("ScoresByTask", rows, empty="no task column: one composite per arm only")
        if FactorBreakdown in found:
            sheets.table("StudentScores", found[FactorBreakdown].to_dict()["cells"])
        if CoverageReport in found:
            sheets.table("Coverage", _coverage(found[CoverageReport].to_dict()))
        else:
            sheets.table("Coverage", [], empty="no coverage report: it needs task and attributes "
                         "columns (the data generator's attribute strata)")
        if TeacherReport in found:
            sheets.table("TeacherCoverage", found[TeacherReport].to_dict()["teachers"])
        if JudgeReport in found:
            judges = found[JudgeReport].to_dict()
            sheets.table("JudgeAgreement", judges["pairs"], empty="fewer than two judges scored "
                         "the same units")
            sheets.table("JudgeReliability", judges["agreement"])
            sheets.table("PositionBias", judges["position"], empty="no pairwise judgments with "
                         "both positions")
        else:
            sheets.table("JudgeAgreement", [], empty="no judges report in this set")
        if CalibrationReport in found:
            sheets.table("Calibration", _calibration(found[CalibrationReport].to_dict()))
        if WinRateReport in found:
            sheets.table("WinRates", found[WinRateReport].to_dict()["records"])
        if CostSummary in found:
            cost = found[CostSummary].to_dict()
            spend = [{"by": by, **row} for by in ("judge", "arm", "criterion")
                     for row in cost[f"judge_spend_by_{by}"]]
            sheets.table("JudgeSpend", spend, empty="no run store: the judges' calls are in a run "
                         "folder (assay report RUN_FOLDER)")
            sheets.table("SystemCost", cost["system_cost"], empty="no usd or tokens column")
        if BenchmarkReport in found:
            bench = found[BenchmarkReport].to_dict()
            for key, name in BENCHMARK_SHEETS.items():
                if bench.get(key):
                    sheets.table(name, bench[key])
        sheets.table("FailedRecords", _invalid(judgments), empty="no invalid records")
        sheets.table("Notes", [{"report": type(r).__name__, "note": note}
                               for r in found.values() for note in r.to_dict().get("notes") or []],
                     empty="no notes")
    finally:
        book.close()
    return out


def _by_type(reports: Sequence[Any] | Mapping[str, Any]) -> dict[type, Any]:
    return reports_by_type(reports, _KNOWN)


_KNOWN = (ScoreSummary, BenchmarkReport, CompositeScores, RobustSummary, CoverageReport, JudgeReport,
          CalibrationReport, WinRateReport, CostSummary, FactorBreakdown, TeacherReport)


def _summary(found: dict[type, Any]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    if CompositeScores in found:
        for r in found[CompositeScores].to_dict()["composite"]:
            if r.get("task") is None:
                rows[r["arm"]] = {"arm": r["arm"], "composite": r["estimate"], "composite_lower": r["lower"],
                                  "composite_upper": r["upper"], "n_items": r["n_items"],
                                  "n_clusters": r["n_clusters"]}
    if RobustSummary in found:
        for r in found[RobustSummary].to_dict()["arms"]:
            row = rows.setdefault(r["arm"], {"arm": r["arm"]})
            row.update({"rank": r["rank"], "rank_lower": r["rank_lower"], "rank_upper": r["rank_upper"],
                        "trimmed_mean": r["trimmed_mean"], "median": r["median"]})
    return list(rows.values())


def _coverage(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for r in report["coverage"]:
        rows.append({"task": r["task"], "teacher": None, **{k: v for k, v in r.items() if k not in
                                                            {"task", "strata", "acr_by_teacher"}}})
        for teacher, acr in (r.get("acr_by_teacher") or {}).items():
            rows.append({"task": r["task"], "teacher": teacher, "acr": acr})
    return rows


def _calibration(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for judge, by_task in report["calibration"].items():
        if judge == "_overall":
            rows.append({"judge": None, "task": None, **by_task})
            continue
        for task, entry in by_task.items():
            rows.append({"judge": judge, "task": task, **entry})
    return rows


def _invalid(judgments: Any) -> list[dict[str, Any]]:
    frame = getattr(judgments, "invalid", None)
    if frame is None or len(frame) == 0:
        return []
    return [dict(r) for r in frame.to_dict(orient="records")]


class _Sheets:
    """Writes tables into a workbook with shared cell formats."""

    def __init__(self, book: xlsxwriter.Workbook) -> None:
        self.book = book
        self.names: set[str] = set()
        """Sheet names given: each at most 31 characters, none of []:*?/\\, no two alike."""
        self.header = book.add_format({"bold": True, "bottom": 1, "bg_color": "#E8EEF4"})
        self.formats = {f: book.add_format({"num_format": f}) for f in (_COUNT, _PROPORTION, _P, _USD, "0.0")}

    def table(self, name: str, records: Sequence[Mapping[str, Any]], *, empty: str = "no rows") -> None:
        sheet = self.book.add_worksheet(sheet_name(name, self.names))
        columns = list(dict.fromkeys(k for r in records for k in r))
        if not records:
            sheet.write_string(0, 0, "Not available")
            sheet.write_string(1, 0, empty)
            sheet.set_column(0, 0, 60)
            return
        for c, column in enumerate(columns):
            sheet.write_string(0, c, safe_cell(str(column)), self.header)
            numeric = any(_is_number(r.get(column)) for r in records)
            fmt = self.formats.get(number_format(column)) if numeric else None
            width = max(len(column), *(min(len(_text(r.get(column))), 50) for r in records))
            sheet.set_column(c, c, min(max(width, 8) + 2, 52), fmt)
        for i, record in enumerate(records, start=1):
            for c, column in enumerate(columns):
                self._cell(sheet, i, c, record.get(column))
        sheet.freeze_panes(1, 0)
        sheet.autofilter(0, 0, len(records), len(columns) - 1)

    def _cell(self, sheet: Any, row: int, col: int, value: Any) -> None:
        if _missing(value):
            sheet.write_blank(row, col, None)
        elif isinstance(value, bool):
            sheet.write_boolean(row, col, value)
        elif _is_number(value):
            sheet.write_number(row, col, float(value))
        else:
            sheet.write_string(row, col, safe_cell(_text(value)))


def _missing(value: Any) -> bool:
    if value is None or isinstance(value, (list, dict, tuple, str)):
        return value is None
    return bool(pd.isna(value))


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, str)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, default=str)
    return str(value)
