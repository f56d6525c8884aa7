"""Text of the assertion significance tests (BenchmarkQED): the comparisons of each
(judge, metric). It formats the report; it computes nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from assay.report.text.winrates import format_assertions

if TYPE_CHECKING:
    from assay.analysis.assertions._significance import AssertionSignificance

__all__ = ["format_significance"]


def format_significance(report: AssertionSignificance) -> str:
    """Each (judge, metric)'s comparisons, then the notes."""
    if not report.tests:
        return "No assertion judge has two or more arms to compare.\n"
    parts = [f"{t.judge} / {t.metric}\n{format_assertions(replace(t.comparisons, notes=[]))}"
             for t in report.tests]
    if report.notes:
        parts.append("Notes\n" + "".join(f"  - {n}\n" for n in report.notes))
    return "\n".join(parts)
