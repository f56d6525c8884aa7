"""The cost page: the generic layout of the cost summary, titled, with the judges' spend per
judge and the systems' own cost offered to the dashboard's cost summary."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from assay.report.html._generic import generic_page
from assay.report.html._model import Highlight, Page

if TYPE_CHECKING:
    from assay.analysis.cost import CostSummary


def cost_page(report: CostSummary) -> Page:
    """The cost summary as a page; its per-judge spend and systems' cost tables are the
    dashboard's cost highlights."""
    page = generic_page(report)
    total = report.total
    summary = ("Judges' spend: " + ("no price" if total is None or total.usd is None
                                     else f"${total.usd:,.4f}")
               + (f" for {total.calls:,.0f} calls, {total.tokens_in + total.tokens_out:,.0f} tokens"
                  if total is not None else "")
               if total is not None else "The systems' own cost (no run store: no judges' spend)")
    wanted = {"judge spend by judge": 0} if report.by_judge else {}
    if report.systems:
        wanted["system cost"] = 1
    highlights = tuple(Highlight("cost", section, order=10 + wanted[section.title])
                       for section in page.sections if section.title in wanted)
    return replace(page, slug="cost", title="Cost and tokens", summary=summary,
                   highlights=highlights)
