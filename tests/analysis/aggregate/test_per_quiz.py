"""Per-quiz breakdowns of the run aggregation, worked by hand."""

from __future__ import annotations

import math

import pytest

from assay.analysis.aggregate import aggregate
from assay.report.text import format_summary
from tests.analysis.judges.conftest import make_table


def test_per_quiz_run_statistics_by_hand() -> None:
    rows = [{"item": item, "arm": "A", "task": quiz, "run": run, "judge": "gpt-4-0613",
             "score": score}
            for quiz, item, run, score in (("q1", "a", 1, 1.0), ("q1", "b", 1, 3.0),
                                           ("q1", "a", 2, 3.0), ("q1", "b", 2, 5.0),
                                           ("q2", "c", 1, 10.0), ("q2", "c", 2, 20.0))]
    report = aggregate(make_table(rows, {"score": "range:0,100"}), n_resamples=200)
    by = {q.quiz: q for q in report.per_quiz}
    assert by["q1"].per_run_scores == (2.0, 4.0) and by["q1"].mean == 3.0
    assert by["q1"].std_dev == pytest.approx(math.sqrt(2.0))
    assert by["q2"].per_run_scores == (10.0, 20.0) and by["q2"].mean == 15.0
    assert by["q2"].num_runs == 2 and by["q1"].n_scores == 4
    assert set(report.to_dict()["per_quiz"]) == {"q1", "q2"}
    assert "PER-QUIZ BREAKDOWN" in format_summary(report)  # summary.txt keeps its layout
    assert all(len(line) <= 80 for line in format_summary(report).splitlines())
