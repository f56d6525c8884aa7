"""Which renderer lays out which result (:data:`RENDERERS`, :func:`render_text`) and which
writer writes it in another tool's layout (:data:`WRITERS`, :func:`write_files`): the tables
:mod:`assay.report.text` and :mod:`assay.report.files` offer, and their one lookup.

Types and functions are named by their import path (``"assay.analysis.scores.ScoreSummary"``,
``"assay.report.text.scores:format_score_summary"``) so that the tables import nothing:
printing one result loads its own renderer module only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def type_path(cls: type) -> str:
    """``module.QualName`` of a class, the key the tables use."""
    return f"{cls.__module__}.{cls.__qualname__}"


def find(table: Mapping[Any, str], result: object, layout: str | None) -> str | None:
    """The ``module:function`` entry of ``table`` for ``result``'s type or its nearest base
    type (keyed by type path, or by (type path, layout) when ``layout`` is given)."""
    for cls in type(result).__mro__:
        key: Any = type_path(cls) if layout is None else (type_path(cls), layout)
        if key in table:
            return table[key]
    return None


def resolve(target: str) -> Callable[..., Any]:
    """The function a ``module:function`` entry names, its module imported."""
    module, _, name = target.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module), name)
    return function


RENDERERS: dict[str, str] = {
    "assay.analysis.aggregate._report.AggregateReport": ".aggregate:format_aggregate",
    "assay.analysis.answer._result.Answer": ".answer:format_answer",
    "assay.analysis.assertions._significance.AssertionSignificance":
        ".assertions:format_significance",
    "assay.analysis.benchmark._report.BenchmarkReport": ".benchmark:format_benchmark_report",
    "assay.analysis.compare.ComparisonReport": ".compare:format_comparison",
    "assay.analysis.composite.CompositeScores": ".systems:format_composite",
    "assay.analysis.cost.CostSummary": ".cost:format_cost_summary",
    "assay.analysis.coverage._report.CoverageReport": ".coverage:format_coverage",
    "assay.analysis.coverage._interaction.InteractionMatrix": ".coeval:format_interaction",
    "assay.analysis.coverage._sampling.SamplingAblation": ".coeval:format_sampling",
    "assay.analysis.coverage._teachers.TeacherReport": ".coeval:format_teachers",
    "assay.analysis.judges._curves.CalibrationCurves": ".coeval:format_curves",
    "assay.analysis.judges._ensemble.EnsembleReport": ".coeval:format_ensemble",
    "assay.analysis.systems._factors.FactorBreakdown": ".coeval:format_factors",
    "assay.analysis.human._report.HumanReport": ".judges:format_human_report",
    "assay.analysis.judges._calibration.CalibrationReport": ".judges:format_calibration",
    "assay.analysis.judges._differentiation.DifferentiationReport":
        ".judges:format_differentiation",
    "assay.analysis.judges._report.JudgeReport": ".judges:format_judge_report",
    "assay.analysis.judges._robust.JudgeConsistency": ".judges:format_consistency",
    "assay.analysis.judges._robust.RobustSummary": ".judges:format_robust_summary",
    "assay.analysis.leaderboard._report.LeaderboardReport": ".leaderboard:format_leaderboard",
    "assay.analysis.plan._report.EvaluationPlan": ".plan:format_evaluation_plan",
    "assay.analysis.scores.ScoreSummary": ".scores:format_score_summary",
    "assay.analysis.systems._attributes.AttributeReport": ".systems:format_attributes",
    "assay.analysis.systems._report.SystemsReport": ".systems:format_systems",
    "assay.analysis.winrates._assertions.AssertionComparisons": ".winrates:format_assertions",
    "assay.analysis.winrates._report.WinRateReport": ".winrates:format_win_rates",
}
"""Result type (its import path) -> its renderer (``.module:function`` in this package)."""


def render_text(result: object, **options: Any) -> str:
    """``result`` as text, by the renderer :data:`RENDERERS` names for its type (or a base type).

    Raises
    ------
    TypeError
        No renderer is named for the type.

    Examples
    --------
    >>> from assay.analysis.judges import CalibrationReport
    >>> text = render_text(CalibrationReport([], None, 200, 0, None, False, ["nothing to fit"]))
    >>> text.splitlines()[-1]
    'Note: nothing to fit'
    """
    target = find(RENDERERS, result, None)
    if target is None:
        raise TypeError(f"no text renderer for {type_path(type(result))}")
    text: str = resolve("assay.report.text" + target)(result, **options)
    return text


DEFAULT_LAYOUT = "default"
"""The layout ``write_files`` uses when none is named."""

WRITERS: dict[tuple[str, str], str] = {
    ("assay.analysis.assertions._chunk_coverage.ChunkCoverage", "default"):
        ".qed:write_chunk_coverage",
    ("assay.analysis.assertions._qed_hierarchical.QedHierarchical", "default"):
        ".qed:write_qed_hierarchical",
    ("assay.analysis.assertions._significance.AssertionSignificance", "default"):
        ".qed:write_significance_summary",
    ("assay.analysis.assertions._summaries.AssertionSummary", "default"):
        ".qed:write_assertion_tables",
    ("assay.analysis.assertions._summaries.HierarchicalSummary", "default"):
        ".qed:write_hierarchical_tables",
    ("assay.analysis.judges._calibration.CalibrationReport", "default"):
        ".coeval:write_calibration_params",
    ("assay.analysis.winrates._report.WinRateReport", "default"): ".qed:write_winrate_csvs",
    ("assay.analysis.winrates._report.WinRateReport", "comparison"):
        ".qed:write_winrate_comparison",
}
"""(result type, layout) -> its writer (``.module:function`` in this package)."""


def write_files(result: object, out_dir: str | Path, *, layout: str = DEFAULT_LAYOUT,
                **options: Any) -> list[Path]:
    """Write ``result`` into ``out_dir`` in ``layout`` by the writer :data:`WRITERS` names for
    its type (or a base type); return the paths written.

    Raises
    ------
    TypeError
        No writer is named for the type and layout.
    """
    target = find(WRITERS, result, layout)
    if target is None:
        raise TypeError(f"no {layout!r} file writer for {type_path(type(result))}")
    paths: list[Path] = resolve("assay.report.files" + target)(result, Path(out_dir), **options)
    return paths
