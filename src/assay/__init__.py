"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics."""

from __future__ import annotations

from assay._version import __version__
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
from assay.errors import AssayError, ConfigError, DesignError, InputError, ValidationError
from assay.report.html import render_html

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
