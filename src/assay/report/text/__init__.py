"""Plain-text renderings of reports for the terminal and ``print``: one module per report family.

``render_text(result)`` lays out any result of :mod:`assay.analysis` by the renderer
registered here for its type; ``print(result)`` and ``result.to_text()`` come the same way,
through :mod:`assay._display` (importing this package registers the renderers).
"""

from assay import _display
from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "assay._display": ["render_text"],
    ".aggregate": ["format_summary"],
    ".answer": ["format_answer"],
    ".assertions": ["format_significance"],
    ".benchmark": ["format_benchmark_report"],
    ".coeval": ["format_curves", "format_ensemble", "format_factors", "format_sampling",
                "format_teachers"],
    ".compare": ["format_comparison"],
    ".cost": ["format_cost_summary"],
    ".coverage": ["format_coverage"],
    ".leaderboard": ["format_leaderboard"],
    ".judges": ["format_calibration", "format_consistency", "format_differentiation",
                "format_judge_report", "format_robust_summary"],
    ".scores": ["format_score_summary", "table_overview"],
    ".systems": ["format_attributes", "format_composite", "format_systems"],
    ".winrates": ["format_assertions", "format_win_rates"],
})

RENDERERS: dict[str, str] = {
    "assay.analysis.aggregate._report.AggregateReport": ".aggregate:format_summary",
    "assay.analysis.answer._result.Answer": ".answer:format_answer",
    "assay.analysis.assertions._significance.AssertionSignificance":
        ".assertions:format_significance",
    "assay.analysis.benchmark._report.BenchmarkReport": ".benchmark:format_benchmark_report",
    "assay.analysis.compare.ComparisonReport": ".compare:format_comparison",
    "assay.analysis.composite.CompositeScores": ".systems:format_composite",
    "assay.analysis.cost.CostSummary": ".cost:format_cost_summary",
    "assay.analysis.coverage._report.CoverageReport": ".coverage:format_coverage",
    "assay.analysis.coverage._sampling.SamplingAblation": ".coeval:format_sampling",
    "assay.analysis.coverage._teachers.TeacherReport": ".coeval:format_teachers",
    "assay.analysis.judges._curves.CalibrationCurves": ".coeval:format_curves",
    "assay.analysis.judges._ensemble.EnsembleReport": ".coeval:format_ensemble",
    "assay.analysis.systems._factors.FactorBreakdown": ".coeval:format_factors",
    "assay.analysis.judges._calibration.CalibrationReport": ".judges:format_calibration",
    "assay.analysis.judges._differentiation.DifferentiationReport":
        ".judges:format_differentiation",
    "assay.analysis.judges._report.JudgeReport": ".judges:format_judge_report",
    "assay.analysis.judges._robust.JudgeConsistency": ".judges:format_consistency",
    "assay.analysis.judges._robust.RobustSummary": ".judges:format_robust_summary",
    "assay.analysis.leaderboard._report.LeaderboardReport": ".leaderboard:format_leaderboard",
    "assay.analysis.scores.ScoreSummary": ".scores:format_score_summary",
    "assay.analysis.systems._attributes.AttributeReport": ".systems:format_attributes",
    "assay.analysis.systems._report.SystemsReport": ".systems:format_systems",
    "assay.analysis.winrates._assertions.AssertionComparisons": ".winrates:format_assertions",
    "assay.analysis.winrates._report.WinRateReport": ".winrates:format_win_rates",
}
"""Result type (its import path) -> its renderer (``.module:function`` in this package)."""

_display.register_text({kind: __name__ + target for kind, target in RENDERERS.items()})
