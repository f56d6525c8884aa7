"""Plain-text renderings of reports for the terminal and ``print``: one module per report family.

``render_text(result)`` lays out any result of :mod:`assay.analysis` by the renderer its type
has in :data:`RENDERERS`; ``print(result)`` and ``result.to_text()`` come the same way,
through :mod:`assay._display`, the one import that reaches up here.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "assay.report._dispatch": ["RENDERERS", "render_text"],
    ".aggregate": ["format_aggregate", "format_summary"],
    ".answer": ["format_answer"],
    ".assertions": ["format_significance"],
    ".benchmark": ["format_benchmark_report"],
    ".coeval": ["format_curves", "format_ensemble", "format_factors", "format_sampling",
                "format_teachers"],
    ".compare": ["format_comparison"],
    ".cost": ["format_cost_summary"],
    ".coverage": ["format_coverage"],
    ".leaderboard": ["format_leaderboard"],
    ".plan": ["format_evaluation_plan"],
    ".judges": ["format_calibration", "format_consistency", "format_differentiation",
                "format_judge_report", "format_robust_summary"],
    ".scores": ["format_score_summary", "table_overview"],
    ".systems": ["format_attributes", "format_composite", "format_systems"],
    ".winrates": ["format_assertions", "format_win_rates"],
})
