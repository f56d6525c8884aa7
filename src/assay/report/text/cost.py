"""The cost summary as text: the judges' spend per judge, arm and criterion, and the systems'
own cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import columns, fixed

if TYPE_CHECKING:
    from assay.analysis.cost import CostSummary, SpendRow


def _usd(value: float | None) -> str:
    return "-" if value is None else f"${value:,.4f}"


def _tokens(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _spend_lines(title: str, rows: list[SpendRow], label: str) -> list[str]:
    header = [label, "calls", "tokens in", "tokens out", "usd", "unpriced", "cached", "failed"]
    body = [[r.name, fixed(r.calls, 1), _tokens(r.tokens_in), _tokens(r.tokens_out), _usd(r.usd),
             fixed(r.unpriced_calls, 1), fixed(r.cached_calls, 1), fixed(r.failed_calls, 1)]
            for r in rows]
    return ["", title, *columns(header, body)]


def format_cost_summary(summary: CostSummary) -> str:
    """The judges' spend (total, then per judge, arm and criterion) and the systems' cost."""
    lines: list[str] = []
    total = summary.total
    if total is not None:
        lines.append(f"Judges' spend: {_usd(total.usd)} for {fixed(total.calls, 0)} calls, "
                     f"{_tokens(total.tokens_in)} tokens in and {_tokens(total.tokens_out)} out")
        lines += _spend_lines("per judge", summary.by_judge, "judge")
        lines += _spend_lines("per arm (a pairwise call counted half to each answer it shows)",
                              summary.by_arm, "arm")
        lines += _spend_lines("per criterion", summary.by_criterion, "criterion")
    else:
        lines.append("Judges' spend: not in these files (it is in a run folder's store: "
                     "assay report RUN_FOLDER)")
    if summary.systems:
        header = ["arm", "answers", "usd", "usd per answer", "tokens in", "tokens out"]
        body = [[s.arm, str(s.answers), _usd(s.usd), _usd(s.usd_per_answer), _tokens(s.tokens_in),
                 _tokens(s.tokens_out)] for s in summary.systems]
        lines += ["", "Systems' own cost (producing their answers)", *columns(header, body)]
    for note in summary.notes:
        lines.append(f"Note: {note}")
    return "\n".join(lines).lstrip("\n")
