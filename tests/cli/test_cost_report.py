"""A judge run's spend reaches the reports: ``assay report RUN --kind cost`` in text, JSON, the
dashboard's cost summary and the workbook, adding up to what the run store holds."""

from __future__ import annotations

import json
import sqlite3

import openpyxl
import pytest

from tests.cli._judge_helpers import PAIRWISE, run, write_config


@pytest.fixture
def run_folder(server, tmp_path):
    joint = {**PAIRWISE, "joint": True}
    metric = {"kind": "metric", "reference": "long", "metrics": ["token_f1"]}
    config = write_config(tmp_path, server.url, judges=[joint, metric])
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    return tmp_path / "run"


def test_the_judges_spend_is_in_text_json_dashboard_and_workbook(run_folder, tmp_path, capsys):
    with sqlite3.connect(run_folder / "judgments.sqlite") as db:
        usd, tokens_in, calls = db.execute(
            "select sum(usd), sum(tokens_in), count(*) from judgments where usd is not null").fetchone()
    assert calls == 6 and usd > 0  # 3 questions x 2 trials, both criteria in one call
    out = tmp_path / "rep"
    assert run(["report", str(run_folder), "--kind", "cost", "--format", "text,json,html,xlsx",
                "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"Judges' spend: ${usd:,.4f} for 6 calls, {tokens_in:,} tokens in" in text
    data = json.loads((out / "cost.json").read_text())
    assert data["judge_spend_total"]["usd"] == pytest.approx(usd)
    for by in ("judge", "arm", "criterion"):
        rows = data[f"judge_spend_by_{by}"]
        assert sum(r["usd"] for r in rows) == pytest.approx(usd), by
    assert {r["name"] for r in data["judge_spend_by_criterion"]} == {"relevance", "diversity"}
    dashboard = (out / "index.html").read_text()
    cost = dashboard[dashboard.index("Cost summary"):dashboard.index("Key quality metrics")]
    assert "judge spend by judge" in cost and "judge-model" in cost
    assert "No report in this set carries cost" not in cost
    book = openpyxl.load_workbook(out / "analysis.xlsx")
    spend = list(book["JudgeSpend"].values)
    assert spend[0][:3] == ("by", "name", "calls")
    assert sum(r[5] for r in spend[1:] if r[0] == "judge") == pytest.approx(usd)


def test_a_table_without_cost_skips_the_cost_report_with_its_reason(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("item,arm,score\nq1,a,1\nq2,a,2\n")
    assert run(["report", str(path), "--kind", "cost"]) == 2
    assert "no cost to report" in capsys.readouterr().err
