"""Text of a comparison of two runs: rankings and deltas per (judge, criterion), coverage.
It formats the report; it computes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import fixed, percent

if TYPE_CHECKING:
    from assay.analysis.compare import ComparisonReport

__all__ = ["format_comparison"]


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def format_comparison(report: ComparisonReport) -> str:
    """B against A: per (judge, criterion) the scores, ranks and delta B - A of each arm."""
    lines = [f"Comparison: B = {report.label_b} against A = {report.label_a}",
             "Scores normalised to [0, 1] (an interval criterion: its raw scale, marked); "
             "delta = B - A over the items both runs scored, "
             f"{percent(report.conf)} cluster-robust paired t interval.", ""]
    keys = list(dict.fromkeys((r.judge, r.criterion) for r in report.rankings))
    raw = {(r.judge, r.criterion) for r in report.rankings if r.scale == "raw"}
    for judge, criterion in keys:
        lines.append(f"{criterion} (judge {judge})"
                     + (", raw interval scale" if (judge, criterion) in raw else ""))
        lines.append(f"  {'arm':<24}{'A':>8}{'rank':>6}{'B':>8}{'rank':>6}{'delta':>9}"
                     f"  {'interval':<19}{'items':>6}")
        deltas = {d.arm: d for d in report.deltas if (d.judge, d.criterion) == (judge, criterion)}
        for r in (r for r in report.rankings if (r.judge, r.criterion) == (judge, criterion)):
            d = deltas.get(r.arm)
            interval = f"[{fixed(d.lower)}, {fixed(d.upper)}]" if d else ""
            lines.append(f"  {r.arm:<24}{fixed(r.score_a):>8}{_rank(r.rank_a):>6}"
                         f"{fixed(r.score_b):>8}{_rank(r.rank_b):>6}"
                         f"{fixed(d.estimate) if d else '-':>9}  {interval:<19}"
                         f"{d.n if d else 0:>6}")
        lines.append("")
    lines.append("Coverage")
    for c in report.coverage:
        acr = (f", ACR {fixed(c.acr_a)} -> {fixed(c.acr_b)}" if c.acr_a is not None
               or c.acr_b is not None else "")
        lines.append(f"  {c.task or 'all tasks'}: items {c.items_a} -> {c.items_b} "
                     f"({c.items_shared} shared), clusters {c.clusters_a} -> "
                     f"{c.clusters_b}{acr}")
    if report.notes:
        lines += ["", "Notes", *(f"- {n}" for n in report.notes)]
    return "\n".join(lines)
