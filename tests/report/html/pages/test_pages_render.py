"""The bespoke pages without a browser: degenerate inputs give named reasons, not errors."""

from __future__ import annotations

import numpy as np
import pandas as pd

from assay.analysis.aggregate import aggregate
from assay.analysis.judges import judge_agreement, robust_summary
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.report.html import interaction_page, judge_report_page, page_for, score_distribution_page


def one_judge() -> Judgments:
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(12) for _ in range(2)],
                          "cluster": [f"d{i // 3}" for i in range(12) for _ in range(2)],
                          "arm": ["a", "b"] * 12, "run": 1, "judge": "em", "criterion": "correct",
                          "score": rng.integers(0, 2, 24).astype(float), "reportable": True})
    return Judgments(frame, {"correct": Scale("binary")})


def test_one_judge_pages_say_why_sections_are_empty():
    table = one_judge()
    judges = page_for(judge_agreement(table))
    missing = {s.title: s.missing for s in judges.sections}
    assert missing["Agreement per criterion"].startswith("No criterion was scored by two")
    assert missing["Positional bias"].startswith("No pairwise judgments")
    agg = page_for(aggregate(table, n_resamples=200))
    assert {s.title: s.missing for s in agg.sections}["Inter-rater reliability"] \
        == "No criterion was scored by two or more judges."
    robust = page_for(robust_summary(table, B=50, seed=1))
    assert {s.title: s.missing for s in robust.sections}["Sensitivity: one judge removed"] \
        == "Fewer than two judges: nothing to leave out."
    assert interaction_page(table) is None  # no teacher column


def test_histogram_counts_of_a_binary_criterion():
    table = one_judge()
    page = score_distribution_page(table)
    (by_arm, by_judge) = page.sections[0].figures
    counts = table.frame.groupby("arm")["score"].value_counts().unstack(fill_value=0)
    for trace in by_arm.data:
        assert trace["x"] == ["0", "1"]
        assert trace["y"] == [counts.loc[trace["name"], 0.0], counts.loc[trace["name"], 1.0]]
    assert sum(by_judge.data[0]["y"]) == 24
    report = judge_report_page(table)
    assert {s.title: s.missing for s in report.sections}["Agreement with reference scores"] \
        == "The table has no reference_score column."
