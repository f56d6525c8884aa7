"""The printed aggregation report and its page never pool the systems (issue 23).

summary.txt and aggregated.json keep the results aggregator's layout, a figure per judge over
all systems together (tests/analysis/aggregate/test_aggregate_files.py); the printed report
(``str(report)``, ``assay report --kind aggregate``) and the HTML page show a row per system,
in the user's words (systems, questions, topics or tasks: no quizzes), ordinal levels on
[0, 1] in every section.
"""

from __future__ import annotations

import re

import pytest

from assay.analysis.aggregate import aggregate
from assay.report.html import page_for
from assay.report.text import format_summary
from tests.analysis.judges.conftest import make_table

SYSTEMS = ("atlas-7b", "beacon-13b", "cirrus-70b")


def test_the_printed_report_has_a_row_per_system_and_no_pooled_mean(demo_report):
    text = str(demo_report)
    assert "quiz" not in text.lower()
    assert not re.search(r"^\s*Mean:", text, re.M)  # summary.txt's pooled "Mean: 0.6940"
    block = text[text.index("correct (binary"):].split("\n\n")[0].splitlines()
    assert [line.split()[0] for line in block[2:]] == list(SYSTEMS)
    by_arm = {a.arms[0]: a for a in demo_report.per_arm
              if (a.criterion, a.judge) == ("correct", "exact-match")}
    assert set(by_arm) == set(SYSTEMS)
    for line in block[2:]:
        a = by_arm[line.split()[0]]
        assert f"{a.mean:.3f}" in line and f"{a.items_interval.estimate:.3f}" in line
    assert "Per task, each system on its own" in text
    # summary.txt keeps its fixed layout, pooled over the systems
    assert "Quizzes Evaluated: 2" in format_summary(demo_report)


def test_per_system_statistics_are_the_pooled_ones_of_one_system(demo_judgments, demo_report):
    one = demo_judgments.frame
    alone = aggregate(type(demo_judgments)(one[one["arm"] == "atlas-7b"].reset_index(drop=True),
                                           demo_judgments.scales), n_resamples=10_000)
    pooled = {(a.criterion, a.judge): a for a in alone.aggregations}
    for a in (a for a in demo_report.per_arm if a.arms == ("atlas-7b",)):
        b = pooled[(a.criterion, a.judge)]
        assert a.per_run_scores == pytest.approx(b.per_run_scores, rel=1e-12)
        assert (a.ci_lower, a.ci_upper) == pytest.approx((b.ci_lower, b.ci_upper), rel=1e-12)
        assert a.items_interval.estimate == pytest.approx(b.items_interval.estimate, rel=1e-12)


def test_ordinal_levels_are_on_0_1_in_the_per_quiz_breakdown_too(demo_report):
    helpful = [q for q in (*demo_report.per_quiz, *demo_report.per_quiz_arm)
               if q.criterion == "helpfulness"]
    assert helpful and all(0 <= q.mean <= 1 for q in helpful)  # was 1.37, a level index


def test_the_page_shows_systems_and_exports_no_per_quiz_table(demo_report):
    page = page_for(demo_report)
    names = [t.name for s in page.sections for t in s.tables]
    assert "per-quiz" not in names and "per-task" in names
    correct = next(t for s in page.sections if s.title == "correct" for t in s.tables)
    assert [c.label for c in correct.columns][:2] == ["judge", "system"]
    assert {row[1] for row in correct.rows} == set(SYSTEMS)
    assert "pooled" not in " ".join(s.intro or "" for s in page.sections)


def test_without_tasks_the_breakdown_is_per_topic():
    rows = [{"item": f"q{i}", "cluster": f"t{i % 2}", "arm": arm, "run": run,
             "judge": "j-v1", "score": float((i + run) % 3 == 0)}
            for i in range(8) for arm in ("a", "b") for run in (1, 2)]
    report = aggregate(make_table(rows, {"score": "binary"}), n_resamples=200)
    assert "Per topic, each system on its own" in str(report)
    assert "per-topic" in [t.name for s in page_for(report).sections for t in s.tables]
