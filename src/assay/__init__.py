"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names as _lazy_names
from assay._version import __version__
from assay.errors import AssayError, ConfigError, DesignError, InputError, ValidationError

if TYPE_CHECKING:
    from assay.analysis.aggregate import AggregateReport, aggregate
    from assay.analysis.benchmark import BenchmarkReport, benchmark_report
    from assay.analysis.benchmark_registration import Registration, register_contrasts
    from assay.analysis.calibration import calibrate_judges
    from assay.analysis.compare import ComparisonReport, compare
    from assay.analysis.composite import composite_score_by_student
    from assay.analysis.coverage import coverage_ratio
    from assay.analysis.judges import JudgeReport, judge_agreement
    from assay.analysis.robust import judge_consistency, robust_summary
    from assay.analysis.scores import ScoreSummary, score_summary
    from assay.analysis.winrates import WinRateReport, win_rates
    from assay.data.importers import run_importer
    from assay.data.io import load, load_many
    from assay.data.schema import Scale
    from assay.data.table import Judgments
    from assay.report.html import render_html

# Loaded on first use (PEP 562), so that `import assay` and the CLI's start-up do not pay
# for scipy and pandas until an analysis needs them.
_LAZY = {
    "AggregateReport": "assay.analysis.aggregate",
    "aggregate": "assay.analysis.aggregate",
    "BenchmarkReport": "assay.analysis.benchmark",
    "benchmark_report": "assay.analysis.benchmark",
    "Registration": "assay.analysis.benchmark_registration",
    "register_contrasts": "assay.analysis.benchmark_registration",
    "calibrate_judges": "assay.analysis.calibration",
    "ComparisonReport": "assay.analysis.compare",
    "compare": "assay.analysis.compare",
    "composite_score_by_student": "assay.analysis.composite",
    "coverage_ratio": "assay.analysis.coverage",
    "JudgeReport": "assay.analysis.judges",
    "judge_agreement": "assay.analysis.judges",
    "judge_consistency": "assay.analysis.robust",
    "robust_summary": "assay.analysis.robust",
    "ScoreSummary": "assay.analysis.scores",
    "score_summary": "assay.analysis.scores",
    "WinRateReport": "assay.analysis.winrates",
    "win_rates": "assay.analysis.winrates",
    "run_importer": "assay.data.importers",
    "load": "assay.data.io",
    "load_many": "assay.data.io",
    "Scale": "assay.data.schema",
    "Judgments": "assay.data.table",
    "render_html": "assay.report.html",
}

__all__ = [
    "AggregateReport",
    "AssayError",
    "BenchmarkReport",
    "ComparisonReport",
    "ConfigError",
    "DesignError",
    "InputError",
    "JudgeReport",
    "Judgments",
    "Registration",
    "Scale",
    "ScoreSummary",
    "ValidationError",
    "WinRateReport",
    "__version__",
    "aggregate",
    "benchmark_report",
    "calibrate_judges",
    "compare",
    "composite_score_by_student",
    "coverage_ratio",
    "judge_agreement",
    "judge_consistency",
    "load",
    "load_many",
    "register_contrasts",
    "render_html",
    "robust_summary",
    "run_importer",
    "score_summary",
    "win_rates",
]


__getattr__, __dir__ = _lazy_names(__name__, _LAZY)
