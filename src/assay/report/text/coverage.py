"""Text of the coverage report (CoEval): ACR, rare-attribute recall and surface bias per task.
It formats the report; it computes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import block, short

if TYPE_CHECKING:
    from assay.analysis.coverage import CoverageReport

__all__ = ["format_coverage"]


def format_coverage(report: CoverageReport) -> str:
    """One line per task: ACR, RAR and surface bias with the counts behind them."""
    return block("Attribute coverage (ACR, rare-attribute recall, surface bias = mean pairwise "
                 "BLEU of prompts)",
                 [f"  {r.task}: ACR {short(r.acr)} ({r.n_covered}/{r.n_strata})  RAR "
                  f"{short(r.rar)} ({r.n_rare_covered}/{r.n_rare})  surface bias "
                  f"{short(r.surface_bias)} ({r.n_prompts} prompts)" for r in report.rows],
                 report.notes)
