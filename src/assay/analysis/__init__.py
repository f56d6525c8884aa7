"""Analyses: judgments tables in, report objects out (no I/O, no printing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from assay.analysis.aggregate import AggregateReport, aggregate
    from assay.analysis.attributes import AttributeReport, performance_by_attribute
    from assay.analysis.benchmark import BenchmarkReport, benchmark_report
    from assay.analysis.benchmark_registration import Registration, register_contrasts
    from assay.analysis.calibration import CalibrationReport, calibrate_judges, load_or_fit_calibration
    from assay.analysis.compare import ComparisonReport, compare
    from assay.analysis.composite import CompositeScores, composite_score_by_student
    from assay.analysis.coverage import CoverageReport, coverage_ratio, coverage_report
    from assay.analysis.differentiation import DifferentiationReport, differentiation_score
    from assay.analysis.judges import JudgeReport, judge_agreement
    from assay.analysis.robust import JudgeConsistency, RobustSummary, judge_consistency, robust_summary
    from assay.analysis.scores import ScoreSummary, score_summary
    from assay.analysis.selection import benchmark_rows, reference_hash
    from assay.analysis.systems import HeadToHeadRow, SystemsReport, systems_report
    from assay.analysis.winrates import AssertionComparisons, WinRateReport, assertion_comparisons, win_rates

# Loaded on first use (PEP 562), so that `import assay` and the CLI's start-up do not pay
# for scipy and pandas until an analysis needs them.
_LAZY = {
    "AggregateReport": "assay.analysis.aggregate",
    "aggregate": "assay.analysis.aggregate",
    "AttributeReport": "assay.analysis.attributes",
    "performance_by_attribute": "assay.analysis.attributes",
    "BenchmarkReport": "assay.analysis.benchmark",
    "benchmark_report": "assay.analysis.benchmark",
    "Registration": "assay.analysis.benchmark_registration",
    "register_contrasts": "assay.analysis.benchmark_registration",
    "CalibrationReport": "assay.analysis.calibration",
    "calibrate_judges": "assay.analysis.calibration",
    "load_or_fit_calibration": "assay.analysis.calibration",
    "ComparisonReport": "assay.analysis.compare",
    "compare": "assay.analysis.compare",
    "CompositeScores": "assay.analysis.composite",
    "DifferentiationReport": "assay.analysis.differentiation",
    "composite_score_by_student": "assay.analysis.composite",
    "differentiation_score": "assay.analysis.differentiation",
    "CoverageReport": "assay.analysis.coverage",
    "coverage_ratio": "assay.analysis.coverage",
    "coverage_report": "assay.analysis.coverage",
    "JudgeReport": "assay.analysis.judges",
    "judge_agreement": "assay.analysis.judges",
    "JudgeConsistency": "assay.analysis.robust",
    "RobustSummary": "assay.analysis.robust",
    "judge_consistency": "assay.analysis.robust",
    "robust_summary": "assay.analysis.robust",
    "ScoreSummary": "assay.analysis.scores",
    "score_summary": "assay.analysis.scores",
    "benchmark_rows": "assay.analysis.selection",
    "reference_hash": "assay.analysis.selection",
    "HeadToHeadRow": "assay.analysis.systems",
    "SystemsReport": "assay.analysis.systems",
    "systems_report": "assay.analysis.systems",
    "AssertionComparisons": "assay.analysis.winrates",
    "WinRateReport": "assay.analysis.winrates",
    "assertion_comparisons": "assay.analysis.winrates",
    "win_rates": "assay.analysis.winrates",
}

__all__ = [
    "AggregateReport",
    "AssertionComparisons",
    "AttributeReport",
    "BenchmarkReport",
    "CalibrationReport",
    "ComparisonReport",
    "CompositeScores",
    "CoverageReport",
    "DifferentiationReport",
    "HeadToHeadRow",
    "JudgeConsistency",
    "JudgeReport",
    "Registration",
    "RobustSummary",
    "ScoreSummary",
    "SystemsReport",
    "WinRateReport",
    "aggregate",
    "assertion_comparisons",
    "benchmark_report",
    "benchmark_rows",
    "calibrate_judges",
    "compare",
    "composite_score_by_student",
    "coverage_ratio",
    "coverage_report",
    "differentiation_score",
    "judge_agreement",
    "judge_consistency",
    "load_or_fit_calibration",
    "performance_by_attribute",
    "reference_hash",
    "register_contrasts",
    "robust_summary",
    "score_summary",
    "systems_report",
    "win_rates",
]


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
