"""Analyses: judgments tables in, report objects out (no I/O, no printing)."""

from __future__ import annotations

from assay.analysis.aggregate import AggregateReport, aggregate
from assay.analysis.attributes import AttributeReport, performance_by_attribute
from assay.analysis.benchmark import BenchmarkReport, benchmark_report
from assay.analysis.benchmark_registration import Registration, register_contrasts
from assay.analysis.calibration import CalibrationReport, calibrate_judges, load_or_fit_calibration
from assay.analysis.compare import ComparisonReport, compare
from assay.analysis.composite import (
    CompositeScores,
    DifferentiationReport,
    composite_score_by_student,
    differentiation_score,
)
from assay.analysis.coverage import CoverageReport, coverage_ratio, coverage_report
from assay.analysis.judges import JudgeReport, judge_agreement
from assay.analysis.robust import JudgeConsistency, RobustSummary, judge_consistency, robust_summary
from assay.analysis.scores import ScoreSummary, score_summary
from assay.analysis.selection import benchmark_rows, reference_hash
from assay.analysis.systems import HeadToHeadRow, SystemsReport, systems_report
from assay.analysis.winrates import AssertionComparisons, WinRateReport, assertion_comparisons, win_rates

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
