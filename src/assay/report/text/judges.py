"""Text of the judge reports (CoEval's judge analytics): agreement, differentiation,
calibration, the robust summary and judge consistency. They format a report; they compute
nothing.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from assay.report.text._format import block, columns, fixed, percent, short

if TYPE_CHECKING:
    from assay.analysis.human import HumanEstimate, HumanReport
    from assay.analysis.judges import (
        CalibrationReport,
        DifferentiationReport,
        JudgeConsistency,
        JudgeReport,
        RobustSummary,
    )

__all__ = ["format_calibration", "format_consistency", "format_differentiation",
           "format_judge_report", "format_robust_summary"]


def _columns(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(columns(header, rows))


def format_judge_report(report: JudgeReport, *, digits: int = 3, max_uncertain: int = 10) -> str:
    """Agreement per criterion and task, the judge pairs, flip rates, drift and uncertain units."""
    pct = f"{report.conf * 100:g}%"
    blocks: list[str] = []
    if report.agreement:
        rows = [[a.criterion, a.task or "(all)", a.scale, str(a.num_raters), str(a.n_units),
                 str(a.n_complete_units), fixed(a.icc, digits),
                 f"[{fixed(a.icc_lower, digits)}, {fixed(a.icc_upper, digits)}]",
                 fixed(a.krippendorff_alpha_interval, digits),
                 fixed(a.krippendorff_alpha_ordinal, digits),
                 fixed(a.krippendorff_alpha_nominal, digits), fixed(a.fleiss_kappa, digits),
                 fixed(a.mean_pairwise_agreement, digits)] for a in report.agreement]
        blocks.append("Agreement between judges (a unit is an item, arm and run; '-' = does not "
                      "apply or undefined)\n" + _columns(
                          ["criterion", "task", "scale", "raters", "units", "complete", "ICC(2,1)",
                           f"{pct} interval", "alpha int", "alpha ord", "alpha nom", "Fleiss",
                           "agree"], rows))
    else:
        blocks.append("Agreement between judges: no criterion was scored by two judges on a "
                      "common unit.")
    if report.pairs:
        rows = [[p.criterion, p.task or "(all)", f"{p.judge_a} / {p.judge_b}", str(p.n),
                 fixed(p.spearman_rho, digits), fixed(p.kendall_tau_b, digits), fixed(p.icc, digits),
                 fixed(p.mad, digits), fixed(p.agreement_rate, digits), fixed(p.cohen_kappa, digits),
                 fixed(p.cohen_kappa_linear, digits), fixed(p.cohen_kappa_quadratic, digits)]
                for p in report.pairs]
        blocks.append("Judge pairs\n" + _columns(
            ["criterion", "question set", "judges", "n", "rho", "tau-b", "ICC", "MAD", "agree",
             "kappa", "kappa lin", "kappa quad"], rows))
    if report.position:
        rows = [[r.judge, r.criterion, str(r.n), fixed(r.flip_rate, digits),
                 f"[{fixed(r.lower, digits)}, {fixed(r.upper, digits)}]",
                 fixed(r.reversal_rate, digits), fixed(r.first_shown_preference, digits),
                 fixed(r.flip_rate_after, digits)] for r in report.position]
        blocks.append("Positional flip rate (counterbalanced pairwise trials)\n" + _columns(
            ["judge", "criterion", "trial pairs", "flip rate", f"{pct} interval", "reversals",
             "first shown wins", "flip rate after swap+avg"], rows))
    by_criterion: dict[str, list[float]] = {}
    for d in report.drift:
        by_criterion.setdefault(d.criterion, []).append(d.icc)
    for criterion, values in by_criterion.items():
        finite = [v for v in values if not math.isnan(v)]
        if finite:
            blocks.append(f"Drift of {criterion!r}: ICC(2,1) over {len(values)} windows of "
                          f"{report.drift_window} items ranges from {fixed(min(finite), digits)} to "
                          f"{fixed(max(finite), digits)}")
    if report.uncertain_items:
        threshold = report.uncertainty_threshold
        basis = ("on the [0, 1] scale" if not isinstance(threshold, dict)
                 else "on each criterion's raw scale")
        shown = report.uncertain_items[:max_uncertain]
        rows = [[u.criterion, u.item, u.arm + (f" vs {u.opponent}" if u.opponent else ""),
                 str(u.run), str(u.n_judges), fixed(u.mean, digits), fixed(u.sd, digits)]
                for u in shown]
        blocks.append(f"Uncertain units: {len(report.uncertain_items)} with inter-judge sd above "
                      f"the threshold {basis}" + (f" (largest {len(shown)} shown)"
                                                  if len(shown) < len(report.uncertain_items)
                                                  else "") + "\n"
                      + _columns(["criterion", "item", "arm", "run", "judges", "mean", "sd"], rows))
    if report.n_invalid:
        blocks.append(f"Invalid records kept aside and excluded: {report.n_invalid}")
    if report.human:
        rows = [[h.criterion, h.judge, str(h.n), f"{h.n_items}/{h.n_clusters}",
                 fixed(h.accuracy, digits),
                 f"[{fixed(h.accuracy_lower, digits)}, {fixed(h.accuracy_upper, digits)}]",
                 fixed(h.kappa, digits), fixed(h.bias, digits),
                 f"[{fixed(h.bias_lower, digits)}, {fixed(h.bias_upper, digits)}]"]
                for h in report.human]
        blocks.append(f"Judges against human labels (accuracy and bias with {pct} "
                      "cluster-robust intervals; bias = mean judge minus human, positive = "
                      "more generous)\n" + _columns(
                          ["criterion", "judge", "n", "items/clusters", "accuracy", "interval",
                           "kappa", "bias", "interval"], rows))
    blocks.extend(f"Note: {n}" for n in report.notes)
    return "\n\n".join(blocks)


def format_differentiation(report: DifferentiationReport) -> str:
    """Differentiation score per judge (and criterion) with its interval."""
    return block("Differentiation score (variance of arm means on [0, 1]; higher = the judge "
                 "tells arms apart more)",
                 [f"  {r.judge} / {r.criterion or 'all criteria'}: {short(r.estimate, 5)} "
                  f"[{short(r.lower, 5)}, {short(r.upper, 5)}]" for r in report.rows],
                 report.notes)


def format_calibration(report: CalibrationReport) -> str:
    """Calibration per (judge, task) and overall: the line, rho and MAE before and after."""
    lines = []
    for e in [*report.entries, *([report.overall] if report.overall else [])]:
        name = "overall" if e.judge is None else f"{e.judge} / {e.task}"
        lines.append(f"  {name}: alpha {short(e.alpha)} beta {short(e.beta)}  rho "
                     f"{short(e.rho_raw)} -> {short(e.rho_calibrated)}  MAE {short(e.mae_raw)} "
                     f"-> {short(e.mae_calibrated)}  (fit {e.n_fit}, eval {e.n_eval})")
    return block("Calibration against reference scores (fit on a holdout of items; rho and MAE "
                 "on the other items)", lines, report.notes)


def format_robust_summary(report: RobustSummary) -> str:
    """Robust scores and rank intervals per arm, leave-one-judge-out rankings, stability."""
    lines = []
    for r in report.arms:
        rank = (f"rank {r.rank} [{r.rank_lower}, {r.rank_upper}]" if r.rank_lower is not None
                else f"rank {r.rank}")
        lines.append(f"  {r.arm}: Q {short(r.estimate)} [{short(r.lower)}, {short(r.upper)}]  "
                     f"trimmed {short(r.trimmed_mean)}  median {short(r.median)}  {rank}")
    for row in report.leave_one_judge_out:
        lines.append(f"  without {row.judge}: {' > '.join(row.ranking)}  "
                     f"tau {short(row.kendall_tau)}")
    lines.append(f"  ensemble stability (mean tau over judge subsets): {short(report.stability)}")
    return block(f"Robust summary (trimmed mean cuts {report.trim:g} per tail; rank intervals "
                 f"from {report.B} cluster-bootstrap resamples, seed {report.seed})", lines,
                 report.notes)


def format_consistency(report: JudgeConsistency) -> str:
    """ICC(2,1) between judges per (task, criterion); the chosen criteria marked ``*``."""
    return block(f"Judge consistency: ICC(2,1) between judges ({percent(report.conf)} interval)",
                 [f" {'*' if r.chosen else ' '}{r.task} / {r.criterion}: {short(r.icc)} "
                  f"[{short(r.icc_lower)}, {short(r.icc_upper)}]  {r.num_raters} judges, "
                  f"{r.n_units} units" for r in report.rows], report.notes)


# The human-calibrated estimates (assay.analysis.human): PPI++ beside judge-only and
# humans-only, per criterion and judge; it formats, it computes nothing.

def _human_interval(estimate: float, lower: float, upper: float, digits: int) -> str:
    return f"{fixed(estimate, digits)} [{fixed(lower, digits)}, {fixed(upper, digits)}]"


def _human_rows(records: list[HumanEstimate], digits: int, *, sep: str = " - "
                ) -> list[list[str]]:
    return [[r.arm if r.opponent is None else f"{r.arm}{sep}{r.opponent}",
             _human_interval(r.estimate, r.lower, r.upper, digits),
             _human_interval(r.judge_estimate, r.judge_lower, r.judge_upper, digits),
             _human_interval(r.human_estimate, r.human_lower, r.human_upper, digits),
             f"{r.n}/{r.n + r.n_unlabelled}", f"{r.n_labelled_clusters}/{r.n_clusters}",
             fixed(r.lam, 2), fixed(r.effective_n, 0)] for r in records]


def format_human_report(report: HumanReport, *, digits: int = 3) -> str:
    """The report as aligned columns, one block per criterion and judge."""
    pct = percent(report.conf)
    header = ["system", f"human (PPI++) [{pct}]", "judge only", "humans only", "labelled",
              "clusters", "lambda", "worth n"]
    lines: list[str] = []
    keys = list(dict.fromkeys((r.criterion, r.judge) for r in
                              [*report.arms, *report.pairs, *report.win_rates]))
    for criterion, judge in keys:
        arms = [r for r in report.arms if (r.criterion, r.judge) == (criterion, judge)]
        pairs = [r for r in report.pairs if (r.criterion, r.judge) == (criterion, judge)]
        lines.append(f"{criterion}, judge {judge}" + (" (mean human label on [0, 1]):"
                                                      if arms or pairs else ":"))
        if arms:
            lines += columns(header, _human_rows(arms, digits), indent="  ")
        if pairs:
            lines.append("  pairs (difference of the human means):")
            lines += columns(["pair", *header[1:]], _human_rows(pairs, digits), indent="  ")
        wins = [r for r in report.win_rates if (r.criterion, r.judge) == (criterion, judge)]
        if wins:
            lines.append("  pairwise preferences (win rate of the first over the second, ties "
                         "half; 0.5 = even):")
            lines += columns(["pair", *header[1:]], _human_rows(wins, digits, sep=" vs "),
                             indent="  ")
    lines.append("worth n: the human labels the humans-only mean would need for the PPI++ "
                 "precision (n x V_humans / V_PPI); lambda: the judge's weight (0 ignores it).")
    return block("Human-calibrated estimates (PPI++, clustered)", lines, report.notes)
