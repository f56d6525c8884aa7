"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics."""

from __future__ import annotations

from assay.analysis.benchmark import BenchmarkReport, benchmark_report
from assay.analysis.benchmark_registration import Registration, register_contrasts
from assay.analysis.scores import ScoreSummary, score_summary
from assay.data.importers import run_importer
from assay.data.io import load, load_many
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import AssayError, ConfigError, DesignError, InputError, ValidationError

__version__ = "0.1.0"

__all__ = [
    "AssayError",
    "BenchmarkReport",
    "ConfigError",
    "DesignError",
    "InputError",
    "Judgments",
    "Registration",
    "Scale",
    "ScoreSummary",
    "ValidationError",
    "__version__",
    "benchmark_report",
    "load",
    "load_many",
    "register_contrasts",
    "run_importer",
    "score_summary",
]
