"""Analyses: judgments tables in, report objects out (no I/O, no printing)."""

from __future__ import annotations

from assay.analysis.benchmark import BenchmarkReport, benchmark_report
from assay.analysis.benchmark_registration import Registration, register_contrasts
from assay.analysis.scores import ScoreSummary, score_summary
from assay.analysis.selection import benchmark_rows, reference_hash

__all__ = [
    "BenchmarkReport",
    "Registration",
    "ScoreSummary",
    "benchmark_report",
    "benchmark_rows",
    "reference_hash",
    "register_contrasts",
    "score_summary",
]
