"""assay: evaluate LLM systems with LLM judges and read the results with honest statistics."""

from __future__ import annotations

from assay.analysis.scores import ScoreSummary, score_summary
from assay.data.importers import run_importer
from assay.data.io import load, load_many
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import AssayError, ConfigError, DesignError, InputError, ValidationError

__version__ = "0.1.0"

__all__ = [
    "AssayError",
    "ConfigError",
    "DesignError",
    "InputError",
    "Judgments",
    "Scale",
    "ScoreSummary",
    "ValidationError",
    "__version__",
    "load",
    "load_many",
    "run_importer",
    "score_summary",
]
