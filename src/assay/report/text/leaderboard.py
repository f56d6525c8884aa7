"""Text of the leaderboard report: Bradley-Terry ratings (Chatbot Arena) and length-controlled
win rates (AlpacaEval 2.0).

It formats a :class:`~assay.analysis.leaderboard.LeaderboardReport`; it computes nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assay.report.text._format import columns, fixed, percent

if TYPE_CHECKING:
    from assay.analysis.leaderboard import LeaderboardReport

__all__ = ["format_leaderboard"]


def format_leaderboard(report: LeaderboardReport, *, digits: int = 1) -> str:
    """The report as text."""
    anchor = (f"{report.anchor[0]} pinned at {report.anchor[1]:g}" if report.anchor
              else "mean 1000")
    out = [f"Bradley-Terry ratings (Elo scale: 400 per factor 10 of odds, {anchor}; "
           f"{percent(report.conf)} percentile intervals and rank intervals from "
           f"{report.n_resamples} cluster-bootstrap resamples of the clusters of questions, seed "
           f"{report.seed})"]
    current = None
    rows: list[list[str]] = []
    header = ["rank", "arm", "rating", "interval", "rank interval", "battles", "wins", "failed"]

    def flush() -> None:
        if current is not None:
            out.extend(["", f"{current[0]} / {current[1]} ({n_clusters} clusters of "
                        f"questions{effective})"])
            out.extend(columns(header, rows, indent="  "))

    n_clusters, effective = 0, ""
    for r in report.ratings:
        if (r.judge, r.criterion) != current:
            flush()
            current, rows, n_clusters = (r.judge, r.criterion), [], r.n_clusters
            g_star = r.effective_clusters
            effective = (f", {g_star:.1f} effective" if g_star is not None
                         and g_star < 0.8 * r.n_clusters else "")
        rows.append([str(r.rank), r.arm, fixed(r.rating, digits),
                     f"[{fixed(r.lower, digits)}, {fixed(r.upper, digits)}]",
                     f"{r.rank_lower}-{r.rank_upper}", str(r.n_battles), fixed(r.n_wins, 1),
                     str(r.n_failed)])
    flush()
    for method in dict.fromkeys(r.method for r in report.length_controlled):
        records = [r for r in report.length_controlled if r.method == method]
        robust = any(math.isfinite(r.lower) for r in records)
        interval = (f"{percent(report.conf)} cluster-robust intervals" if robust else
                    "standard error of the mean prediction, as AlpacaEval's lc_standard_error")
        out += ["", f"Length-controlled win rates: {method or 'GLM'} (predicted at zero length "
                f"difference; {interval})"]
        out.extend(columns(
            ["judge", "criterion", "arm", "baseline", "LC win rate",
             "interval" if robust else "standard error", "win rate", "length coef", "n"],
            [[r.judge, r.criterion, r.arm, r.opponent, fixed(100 * r.lc_win_rate, digits),
              f"[{fixed(100 * r.lower, digits)}, {fixed(100 * r.upper, digits)}]" if robust
              else fixed(100 * r.standard_error, digits),
              fixed(100 * r.win_rate, digits), fixed(r.length_coefficient, 3), str(r.n)]
             for r in records], indent="  "))
    if report.notes:
        out.append("")
        out.extend(f"Note: {n}" for n in report.notes)
    return "\n".join(out)
