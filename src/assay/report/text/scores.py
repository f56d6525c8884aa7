"""Plain-text renderings for the terminal. They format analysis objects; they compute nothing
but counts of what is already in a table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import columns, fixed
from assay.report.text.categories import format_categories

if TYPE_CHECKING:
    from assay.analysis.scores import ScoreSummary
    from assay.data.table import Judgments


def _columns(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(columns(header, rows))


def table_overview(judgments: Judgments) -> str:
    """What a judgments table holds: size, systems, judges, criteria with scales, runs."""
    f = judgments.frame
    lines = [
        f"{len(f)} judgments: {f['item'].nunique()} questions in {f['cluster'].nunique()} topics, "
        f"{f['arm'].nunique()} systems, runs 1..{int(f['run'].max())}",
        f"systems: {', '.join(map(str, judgments.arms))}",
        f"judges: {', '.join(map(str, f['judge'].unique()))}",
        "criteria: " + ", ".join(f"{c} ({judgments.scale(c).spelling()})"
                                 for c in judgments.criteria),
    ]
    failed = int(f["score"].isna().sum())
    if failed:
        kinds = f.loc[f["score"].isna(), "failure_kind"].value_counts()
        lines.append(f"rows without a score: {failed} ("
                     + ", ".join(f"{k} {v}" for k, v in kinds.items()) + ")")
    if "reportable" in f and not f["reportable"].all():
        lines.append(f"not reportable (dev or calibration split): {int((~f['reportable']).sum())}")
    if len(judgments.invalid):
        counts = judgments.invalid["validity_class"].value_counts()
        lines.append(f"invalid records kept aside: {len(judgments.invalid)} ("
                     + ", ".join(f"{k} {v}" for k, v in counts.items()) + ")")
    self_judging = int(judgments.self_judging().sum())
    self_teaching = int(judgments.self_teaching().sum())
    if self_judging or self_teaching:
        lines.append(f"self-judging rows: {self_judging}, self-teaching rows: {self_teaching}")
    return "\n".join(lines)


def format_score_summary(summary: ScoreSummary, *, digits: int = 3) -> str:
    """The score summary as aligned columns, one block per criterion."""
    pct = f"{summary.conf * 100:g}%"
    blocks: list[str] = []
    by_criterion: dict[str, list] = {}
    for row in summary.rows:
        by_criterion.setdefault(row.criterion, []).append(row)
    for criterion, rows in by_criterion.items():
        scale = rows[0].scale
        title = f"{criterion} ({scale}; mean " + ("on the raw scale" if scale == "interval"
                                                   else "normalised to [0, 1]") + ")"
        body = [[r.judge, r.arm + (f" vs {r.opponent}" if r.opponent else ""), str(r.n),
                 str(r.n_failed), f"{r.n_items}/{r.n_clusters}", fixed(r.estimate, digits),
                 f"[{fixed(r.lower, digits)}, {fixed(r.upper, digits)}]", r.method] for r in rows]
        blocks.append(title + "\n" + _columns(
            ["judge", "system", "n", "failed (left out)", "questions/topics", "mean", f"{pct} interval",
             "method"],
            body))
    blocks += format_categories(summary.categories, summary.category_contrasts,
                                conf=summary.conf, group=("criterion", "judge"), digits=digits)
    if summary.n_invalid:
        blocks.append(f"Invalid records kept aside and excluded: {summary.n_invalid} ("
                      + ", ".join(f"{k} {v}" for k, v in summary.invalid_by_class.items()) + ")")
    blocks.extend(f"Note: {n}" for n in summary.notes)
    return "\n\n".join(blocks)
