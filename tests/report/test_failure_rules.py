"""Where two reports give the same quantity under different rules, each names its rule beside
the number (issue 23): the benchmark report counts failures as wrong (atlas-7b 0.592 on the
demo), the answer and the score summary leave them out (0.598), in text and on the pages,
the dashboard included; and the printed labels say systems, questions and topics."""

from __future__ import annotations

import re

import pytest

from assay.analysis.answer import answer
from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.report.html import render_html

WRONG, LEFT_OUT = "failures count as wrong", "failures left out"


@pytest.fixture(scope="module")
def reports(demo_table):
    return (answer(demo_table), score_summary(demo_table),
            benchmark_report(demo_table, seed=7, B=200))


def test_the_text_reports_name_their_rule_beside_the_accuracy(reports):
    said, summary, bench = (str(r) for r in reports)
    correct = next(line for line in said.splitlines() if line.startswith("correct:"))
    assert correct.endswith(f"; {LEFT_OUT}")
    assert "failed (left out)" in said.splitlines()[said.splitlines().index(correct) + 1]
    assert "failed (left out)" in summary and "questions/topics" in summary
    assert "Accuracy (arms in benchmark order, not ranked; failures count as wrong):" in bench


def test_the_dashboard_names_both_rules(reports, tmp_path):
    pages = {p.stem: p for p in render_html(list(reports), tmp_path / "html")}
    index = pages["index"].read_text(encoding="utf-8")
    assert re.search(r"Benchmark accuracy \(failures count as wrong\)", index)
    assert re.search(r"Mean scores by criterion and judge \(failures left out\)", index)
    verdict = index[index.index('id="verdict-table"'):]
    assert LEFT_OUT in verdict.split("</table>")[0]
    assert WRONG in pages["benchmark"].read_text(encoding="utf-8")


def test_the_answer_says_topics_and_systems(reports):
    first = str(reports[0]).splitlines()[0]
    assert " topics," in first and "cluster" not in first
