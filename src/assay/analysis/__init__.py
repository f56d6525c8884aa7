"""Analyses: judgments tables in, report objects out (no I/O, no printing).
"""

from __future__ import annotations

from assay._lazy import attach as _attach

# Loaded on first use (PEP 562): `import assay` loads neither scipy nor pandas.
__getattr__, __dir__, _lazy_all = _attach(__name__, {
    ".aggregate": ["AggregateReport", "aggregate"],
    ".benchmark": [
        "BenchmarkReport",
        "Registration",
        "benchmark_report",
        "benchmark_rows",
        "reference_hash",
        "register_contrasts",
    ],
    ".compare": ["ComparisonReport", "compare"],
    ".composite": ["CompositeScores", "composite_score_by_student"],
    ".cost": ["CostSummary", "SpendRow", "SystemCost", "cost_summary"],
    ".coverage": [
        "AttributeSpace",
        "CoverageReport",
        "InteractionMatrix",
        "coverage_ratio",
        "coverage_report",
        "interaction_matrix",
    ],
    ".human": ["HumanEstimate", "HumanReport", "human_calibrated", "human_support"],
    ".judges": [
        "CalibrationReport",
        "DifferentiationReport",
        "JudgeConsistency",
        "JudgeReport",
        "RobustSummary",
        "calibrate_judges",
        "differentiation_score",
        "judge_agreement",
        "judge_consistency",
        "load_or_fit_calibration",
        "robust_summary",
    ],
    ".leaderboard": ["LeaderboardReport", "leaderboard"],
    ".scores": ["ScoreSummary", "score_summary"],
    ".systems": [
        "AttributeReport",
        "HeadToHeadRow",
        "SystemsReport",
        "performance_by_attribute",
        "systems_report",
    ],
    ".winrates": ["AssertionComparisons", "WinRateReport", "assertion_comparisons", "win_rates"],
})
__all__ = _lazy_all
