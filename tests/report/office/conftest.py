"""Reports of the demo simulator's run folder, built once for the office-format tests."""

from __future__ import annotations

from typing import Any

import pytest

from assay.analysis import (
    aggregate,
    benchmark_report,
    benchmark_rows,
    calibrate_judges,
    composite_score_by_student,
    coverage_report,
    judge_agreement,
    robust_summary,
    score_summary,
    win_rates,
)


# Session, not package, scope: under pytest -n a worker that moves between packages would rebuild it.
@pytest.fixture(scope="session")
def demo(demo_table: Any) -> tuple[Any, dict[str, Any]]:
    """(judgments, {name: report}) of the demo evaluation (seed 7), with few resamples."""
    judgments = demo_table
    reports = {
        "scores": score_summary(judgments),
        "benchmark": benchmark_report(benchmark_rows(judgments), B=200, seed=1),
        "aggregate": aggregate(judgments, n_resamples=200),
        "judges": judge_agreement(judgments),
        "composite": composite_score_by_student(judgments),
        "robust": robust_summary(judgments, B=200),
        "coverage": coverage_report(judgments),
        "calibration": calibrate_judges(judgments),
        "winrates": win_rates(judgments),
    }
    return judgments, reports


class FakeReport:
    """A hand-made report: a subclass of a report type whose ``to_dict()`` returns ``data``."""

    @staticmethod
    def of(kind: type, data: dict[str, Any]) -> Any:
        cls = type(f"Fake{kind.__name__}", (kind,), {
            "__init__": lambda self: None, "to_dict": lambda self: data})
        return cls()
