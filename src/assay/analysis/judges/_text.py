"""Plain-text rendering of a judge report. It formats the report; it computes nothing."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.analysis.judges._report import JudgeReport


def _fmt(value: float | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def _columns(header: list[str], rows: list[list[str]]) -> str:
    widths = [max([len(header[i]), *(len(r[i]) for r in rows)]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(lines)


def format_judge_report(report: JudgeReport, *, digits: int = 3, max_uncertain: int = 10) -> str:
    """Agreement per criterion and task, the judge pairs, flip rates, drift and uncertain units."""
    pct = f"{report.conf * 100:g}%"
    blocks: list[str] = []
    if report.agreement:
        rows = [[a.criterion, a.task or "(all)", a.scale, str(a.num_raters), str(a.n_units),
                 str(a.n_complete_units), _fmt(a.icc, digits),
                 f"[{_fmt(a.icc_lower, digits)}, {_fmt(a.icc_upper, digits)}]",
                 _fmt(a.krippendorff_alpha_interval, digits),
                 _fmt(a.krippendorff_alpha_ordinal, digits),
                 _fmt(a.krippendorff_alpha_nominal, digits), _fmt(a.fleiss_kappa, digits),
                 _fmt(a.mean_pairwise_agreement, digits)] for a in report.agreement]
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
                 _fmt(p.spearman_rho, digits), _fmt(p.kendall_tau_b, digits), _fmt(p.icc, digits),
                 _fmt(p.mad, digits), _fmt(p.agreement_rate, digits), _fmt(p.cohen_kappa, digits),
                 _fmt(p.cohen_kappa_linear, digits), _fmt(p.cohen_kappa_quadratic, digits)]
                for p in report.pairs]
        blocks.append("Judge pairs\n" + _columns(
            ["criterion", "task", "judges", "n", "rho", "tau-b", "ICC", "MAD", "ACR", "kappa",
             "kappa lin", "kappa quad"], rows))
    if report.position:
        rows = [[r.judge, r.criterion, str(r.n), _fmt(r.flip_rate, digits),
                 f"[{_fmt(r.lower, digits)}, {_fmt(r.upper, digits)}]",
                 _fmt(r.reversal_rate, digits), _fmt(r.first_shown_preference, digits),
                 _fmt(r.flip_rate_after, digits)] for r in report.position]
        blocks.append("Positional flip rate (counterbalanced pairwise trials)\n" + _columns(
            ["judge", "criterion", "trial pairs", "PFR", f"{pct} interval", "reversals",
             "first shown wins", "PFR after swap+avg"], rows))
    by_criterion: dict[str, list[float]] = {}
    for d in report.drift:
        by_criterion.setdefault(d.criterion, []).append(d.icc)
    for criterion, values in by_criterion.items():
        finite = [v for v in values if not math.isnan(v)]
        if finite:
            blocks.append(f"Drift of {criterion!r}: ICC(2,1) over {len(values)} windows of "
                          f"{report.drift_window} items ranges from {_fmt(min(finite), digits)} to "
                          f"{_fmt(max(finite), digits)}")
    if report.uncertain_items:
        threshold = report.uncertainty_threshold
        basis = ("on the [0, 1] scale" if not isinstance(threshold, dict)
                 else "on each criterion's raw scale")
        shown = report.uncertain_items[:max_uncertain]
        rows = [[u.criterion, u.item, u.arm + (f" vs {u.opponent}" if u.opponent else ""),
                 str(u.run), str(u.n_judges), _fmt(u.mean, digits), _fmt(u.sd, digits)]
                for u in shown]
        blocks.append(f"Uncertain units: {len(report.uncertain_items)} with inter-judge sd above "
                      f"the threshold {basis}" + (f" (largest {len(shown)} shown)"
                                                  if len(shown) < len(report.uncertain_items)
                                                  else "") + "\n"
                      + _columns(["criterion", "item", "arm", "run", "judges", "mean", "sd"], rows))
    if report.n_invalid:
        blocks.append(f"Invalid records kept aside and excluded: {report.n_invalid}")
    blocks.extend(f"Note: {n}" for n in report.notes)
    return "\n\n".join(blocks)
