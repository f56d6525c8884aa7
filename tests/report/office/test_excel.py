"""The workbook read back with openpyxl and compared with the report objects' values."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from numpy.testing import assert_allclose

from assay.analysis import BenchmarkReport
from assay.report.office import BENCHMARK_SHEETS, write_workbook
from tests.report.office.conftest import FakeReport

openpyxl = pytest.importorskip("openpyxl")


def _records(sheet: Any) -> list[dict[str, Any]]:
    rows = list(sheet.iter_rows(values_only=True))
    header = rows[0]
    return [dict(zip(header, row, strict=True)) for row in rows[1:]]


@pytest.fixture(scope="module")
def book(demo: tuple[Any, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Any:
    judgments, reports = demo
    path = write_workbook(list(reports.values()), judgments, tmp_path_factory.mktemp("xlsx") / "a.xlsx")
    return openpyxl.load_workbook(path)


def test_sheets_present_in_order(book: Any) -> None:
    names = book.sheetnames
    required = ("Summary", "Scores", "Coverage", "JudgeAgreement", "FailedRecords")
    for name in (*required, *BENCHMARK_SHEETS.values()):
        assert name in names
    assert names[0] == "Summary"


def test_every_table_has_frozen_header_and_autofilter(book: Any) -> None:
    for sheet in book:
        assert sheet.freeze_panes == "A2", sheet.title
        # the filter spans the header and every data row
        last = sheet.max_row
        assert sheet.auto_filter.ref is not None and sheet.auto_filter.ref.startswith("A1:")
        assert sheet.auto_filter.ref.endswith(str(last)), sheet.title
        assert sheet["A1"].font.b


def test_summary_matches_composite_and_robust(book: Any, demo: tuple[Any, dict[str, Any]]) -> None:
    _, reports = demo
    composite = {r["arm"]: r for r in reports["composite"].to_dict()["composite"] if r["task"] is None}
    robust = {r["arm"]: r for r in reports["robust"].to_dict()["arms"]}
    rows = _records(book["Summary"])
    assert {r["arm"] for r in rows} == set(composite) == set(robust)
    for row in rows:
        assert_allclose([row["composite"], row["composite_lower"], row["composite_upper"]],
                        [composite[row["arm"]][k] for k in ("estimate", "lower", "upper")], rtol=1e-15)
        assert (row["rank"], row["rank_lower"], row["rank_upper"]) == tuple(
            robust[row["arm"]][k] for k in ("rank", "rank_lower", "rank_upper"))
    # the best arm of the demo (cirrus-70b, the strongest simulated system) ranks first
    assert next(r for r in rows if r["rank"] == 1)["arm"] == "cirrus-70b"


def test_scores_and_agreement_cells_equal_report_values(book: Any, demo: tuple[Any, dict[str, Any]]) -> None:
    _, reports = demo
    expected = reports["scores"].to_dict()["scores"]
    rows = _records(book["Scores"])
    assert len(rows) == len(expected)
    for row, rec in zip(rows, expected, strict=True):
        assert (row["criterion"], row["judge"], row["arm"]) == (rec["criterion"], rec["judge"], rec["arm"])
        assert_allclose([row["estimate"], row["lower"], row["upper"]], [rec["estimate"], rec["lower"],
                        rec["upper"]], rtol=1e-15)
        assert row["opponent"] == rec["opponent"]  # None for pointwise rows: an empty cell
    pairs = reports["judges"].to_dict()["pairs"]
    rows = _records(book["JudgeAgreement"])
    assert [(r["judge_a"], r["judge_b"]) for r in rows] == [(p["judge_a"], p["judge_b"]) for p in pairs]
    for row, rec in zip(rows, pairs, strict=True):
        for key in ("spearman_rho", "kendall_tau_b", "icc", "n"):
            if rec[key] is None:
                assert row[key] is None
            else:
                assert row[key] == pytest.approx(rec[key], rel=1e-15)


def test_benchmark_sheets(book: Any, demo: tuple[Any, dict[str, Any]]) -> None:
    _, reports = demo
    bench = reports["benchmark"].to_dict()
    for key, name in BENCHMARK_SHEETS.items():
        rows = _records(book[name])
        assert len(rows) == len(bench[key])
        for row, rec in zip(rows, bench[key], strict=True):
            for column, value in rec.items():
                if isinstance(value, float) and not math.isnan(value):
                    assert row[column] == pytest.approx(value, rel=1e-15), (name, column)
                elif value is None:
                    assert row[column] is None
                else:
                    assert row[column] == value


def test_failed_records_hold_every_invalid_record(book: Any, demo: tuple[Any, dict[str, Any]]) -> None:
    judgments, _ = demo
    rows = _records(book["FailedRecords"])
    assert len(rows) == len(judgments.invalid) > 0
    assert [r["validity_class"] for r in rows] == list(judgments.invalid["validity_class"])
    assert {"MISSING_RESPONSE", "MISSING_DATAPOINT"} <= {r["validity_class"] for r in rows}


def test_coverage_per_task_and_teacher(book: Any, demo: tuple[Any, dict[str, Any]]) -> None:
    _, reports = demo
    coverage = reports["coverage"].to_dict()["coverage"]
    rows = _records(book["Coverage"])
    for rec in coverage:
        task_row = next(r for r in rows if r["task"] == rec["task"] and r["teacher"] is None)
        assert task_row["acr"] == pytest.approx(rec["acr"]) and task_row["rar"] == pytest.approx(rec["rar"])
        for teacher, acr in rec["acr_by_teacher"].items():
            row = next(r for r in rows if r["task"] == rec["task"] and r["teacher"] == teacher)
            assert row["acr"] == pytest.approx(acr, rel=1e-15)


def test_number_formats(book: Any) -> None:
    sheet = book["BenchAccuracy"]
    header = [c.value for c in sheet[1]]
    assert sheet.cell(2, header.index("estimate") + 1).number_format == "0.000"
    cost = book["BenchCost"]
    header = [c.value for c in cost[1]]
    assert cost.cell(2, header.index("usd_per_item") + 1).number_format == "0.000000"
    wins = book["WinRates"]
    header = [c.value for c in wins[1]]
    assert wins.cell(2, header.index("p_adjusted") + 1).number_format == "0.0000"
    assert wins.cell(2, header.index("n") + 1).number_format == "0"


def test_hand_made_report_and_no_invalid(tmp_path: Path) -> None:
    accuracy = [{"arm": "a_1 & b", "estimate": 0.5, "lower": None, "upper": None, "method": "descriptive"},
                {"arm": "b", "estimate": 0.25, "lower": float("nan"), "upper": 0.75, "method": "x"}]
    fake = FakeReport.of(BenchmarkReport, {"accuracy": accuracy, "contrasts": [], "notes": ["hello"]})
    book = openpyxl.load_workbook(write_workbook({"benchmark": fake}, None, tmp_path / "sub" / "h.xlsx"))
    rows = _records(book["BenchAccuracy"])
    assert rows[0] == {"arm": "a_1 & b", "estimate": 0.5, "lower": None, "upper": None,
                       "method": "descriptive"}
    assert rows[1]["lower"] is None and rows[1]["upper"] == 0.75  # NaN is written as an empty cell
    assert "BenchContrasts" not in book.sheetnames
    assert book["FailedRecords"]["A1"].value == "Not available"
    assert book["Summary"]["A1"].value == "Not available"
    assert _records(book["Notes"]) == [{"report": "FakeBenchmarkReport", "note": "hello"}]
