"""Text of the win-rate report and of the assertion comparisons (BenchmarkQED's statistics).

They format a :class:`~assay.analysis.winrates.WinRateReport` or an
:class:`~assay.analysis.winrates.AssertionComparisons`; they compute nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import columns, fixed, p_value

if TYPE_CHECKING:
    from assay.analysis.winrates import AssertionComparisons, WinRateReport

__all__ = ["format_assertions", "format_win_rates"]

_NOTED_TESTS = {"cluster_sign_flip_exact", "undefined"}
_NOTED_INTERVALS = {"korn_graubard_clopper_pearson", "too_few_clusters",
                    "undefined_no_cluster_variance", "no_scores"}
"""Fallbacks a note names beside the record they concern (see analysis.winrates._stats)."""


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return columns(header, rows, indent="  ")


def format_win_rates(report: WinRateReport, *, digits: int = 3) -> str:
    """The report as text."""
    scope = "within each judge, criterion and task" if report.correction == "holm-per-group" \
        else "over all comparisons shown"
    # the methods by the names winrates.json gives them; a record's fallback is in the notes
    tests = sorted({r.test for r in report.records} - _NOTED_TESTS) or [report.test]
    intervals = sorted({r.interval_method for r in report.records} - _NOTED_INTERVALS) \
        or ["logit_cluster_robust_t"]
    out = [f"Win rates (test: {', '.join(tests)}; Holm {scope}; alpha {report.alpha:g}; "
           f"{100 * report.conf:g}% intervals: {', '.join(intervals)} (CR2); other methods are "
           "named in the notes; SE is the clustered standard error the intervals rest on)"]
    current = None
    rows: list[list[str]] = []
    header = ["arm", "opponent", "task", "win rate", "interval", "SE (clusters)", "n", "W/T/L/fail", "p",
              "p adj", ""]

    def flush() -> None:
        if current is not None:
            out.append("")
            out.append(f"{current[0]} / {current[1]}")
            out.extend(_table(header, rows))

    for r in report.records:
        if (r.judge, r.criterion) != current:
            flush()
            current, rows = (r.judge, r.criterion), []
        rows.append([r.arm, r.opponent, r.task or "all", fixed(r.win_rate, digits),
                     f"[{fixed(r.lower, digits)}, {fixed(r.upper, digits)}]",
                     fixed(r.standard_error_clustered, digits), str(r.n),
                     f"{r.n_wins}/{r.n_ties}/{r.n_losses}/{r.n_failed}", p_value(r.p_value, digits),
                     p_value(r.p_adjusted, digits), "*" if r.significant else ""])
    flush()
    if report.aa:
        out += ["", "A/A deviations (an arm judged against itself; 0 = a fair judge)"]
        out.extend(_table(["judge", "criterion", "arm", "task", "deviation", "interval", "p adj"],
                          [[a.judge, a.criterion, a.arm, a.task or "all", fixed(a.deviation, digits),
                            f"[{fixed(a.lower, digits)}, {fixed(a.upper, digits)}]",
                            p_value(a.p_adjusted, digits)] for a in report.aa]))
    if report.position:
        out += ["", "Positional flip rate (verdict changes when the order is swapped)"]
        out.extend(_table(["judge", "criterion", "flip rate", "interval", "pairs",
                           "first shown wins"],
                          [[p.judge, p.criterion, fixed(p.flip_rate, digits),
                            f"[{fixed(p.lower, digits)}, {fixed(p.upper, digits)}]", str(p.n),
                            fixed(p.first_shown_preference, digits)] for p in report.position]))
    if report.position_direction:
        out += ["", "Direction of the flips (net share towards the answer shown first; 0 = no bias)"]
        out.extend(_table(["judge", "criterion", "to first", "to second", "net", "interval", "p"],
                          [[d.judge, d.criterion, str(d.n_toward_first), str(d.n_toward_second),
                            fixed(d.net_toward_first, digits),
                            f"[{fixed(d.lower, digits)}, {fixed(d.upper, digits)}]",
                            p_value(d.p_value, digits)] for d in report.position_direction]))
    if report.judges:
        out += ["", "Judges on the same trials (agreement; win rate a - b)"]
        out.extend(_table(["criterion", "judge a", "judge b", "arm", "opponent", "agreement",
                           "trials", "difference", "interval", "p adj"],
                          [[j.criterion, j.judge_a, j.judge_b, j.arm, j.opponent,
                            fixed(j.agreement_rate, digits), str(j.n_trials),
                            fixed(j.difference, digits),
                            f"[{fixed(j.lower, digits)}, {fixed(j.upper, digits)}]",
                            p_value(j.p_adjusted, digits)] for j in report.judges]))
    if report.notes:
        out += ["", "Notes"]
        out.extend(f"  - {n}" for n in report.notes)
    return "\n".join(out) + "\n"


def format_assertions(report: AssertionComparisons, *, digits: int = 3) -> str:
    """Assertion comparisons as text."""
    scope = ("within each task" if report.correction == "holm-per-group"
             else "over all pairs shown, Wilcoxon and permutation each a family")
    out = [f"Assertion comparisons (Holm {scope}; alpha {report.alpha:g}; "
           f"permutation: {report.n_resamples} sign patterns, seed {report.seed})"]
    if report.friedman:
        out += ["", "Friedman"]
        out.extend(_table(["task", "arms", "n", "chi2", "p"],
                          [[f.task or "all", ", ".join(f.arms), str(f.n), fixed(f.statistic, digits),
                            p_value(f.p_value, digits)] for f in report.friedman]))
    out += ["", "Pairs"]
    out.extend(_table(["task", "arm", "opponent", "n", "mean arm", "mean opp", "Wilcoxon p adj",
                       "permutation p adj"],
                      [[p.task or "all", p.arm, p.opponent, str(p.n), fixed(p.mean_arm, digits),
                        fixed(p.mean_opponent, digits), p_value(p.wilcoxon_p_adjusted, digits),
                        p_value(p.permutation_p_adjusted, digits)] for p in report.pairs]))
    if report.notes:
        out += ["", "Notes"]
        out.extend(f"  - {n}" for n in report.notes)
    return "\n".join(out) + "\n"
