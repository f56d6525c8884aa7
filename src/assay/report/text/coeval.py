"""Text of CoEval's remaining reports: teachers, the teacher x system interaction matrix,
calibration curves, Table 7, ensemble weights, per-factor scores with percentile bands. It
formats the reports; it computes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.text._format import block, columns, fixed, percent

if TYPE_CHECKING:
    from assay.analysis.coverage import InteractionMatrix, SamplingAblation, TeacherReport
    from assay.analysis.judges import CalibrationCurves, EnsembleReport
    from assay.analysis.systems import FactorBreakdown

__all__ = ["format_curves", "format_ensemble", "format_factors", "format_interaction",
           "format_sampling", "format_teachers"]


def _interval(lower: float, upper: float) -> str:
    return f"[{fixed(lower)}, {fixed(upper)}]"


def format_teachers(report: TeacherReport) -> str:
    """A row per teacher and task, then synthetic vs benchmark."""
    rows = [[r.task, r.teacher, r.kind, str(r.n_items), fixed(r.acr), fixed(r.diversity),
             fixed(r.quality), _interval(r.lower, r.upper)] for r in report.teachers]
    lines = columns(["task", "teacher", "kind", "items", "ACR", "diversity", "quality",
                     f"{percent(report.conf)} interval"], rows, indent="  ")
    if report.kinds:
        lines += ["", "  Synthetic vs benchmark:"]
        lines += columns(["task", "kind", "items", "diversity", "quality", "interval"],
                         [[k.task, k.kind, str(k.n_items), fixed(k.diversity), fixed(k.quality),
                           _interval(k.lower, k.upper)] for k in report.kinds], indent="  ")
    return block("Teacher report (diversity = mean normalised entropy over the nuanced "
                 "attributes; quality = mean judge score of the answers)", lines, report.notes)


def format_interaction(result: InteractionMatrix) -> str:
    """The matrix (a row per question writer, a column per system; * marks self-teaching),
    then each cell with its interval, then the row and column effects."""
    def cell(value: float, teacher: str, arm: str) -> str:
        return fixed(value) + (" *" if teacher == arm else "")

    lines = columns(["writer", *result.arms],
                    [[t, *(cell(v, t, a) for a, v in zip(result.arms, row, strict=True))]
                     for t, row in zip(result.teachers, result.matrix(), strict=True)],
                    indent="  ")
    if result.cells:
        lines += ["", f"  Cells ({percent(result.conf)} cluster-robust intervals):"]
        lines += columns(["writer", "system", "composite", "interval", "scores", "items"],
                         [[c.teacher, c.arm, fixed(c.estimate), _interval(c.lower, c.upper),
                           str(c.n), str(c.n_items)] for c in result.cells], indent="  ")
        lines += ["", f"  Effects (mean minus the grand mean {fixed(result.grand_mean)}):"]
        lines += columns(["effect of", "name", "effect"],
                         [["writer", t, fixed(v)] for t, v in result.row_effects.items()]
                         + [["system", a, fixed(v)] for a, v in result.column_effects.items()],
                         indent="  ")
    return block("Interaction matrix (composite score per question writer and system; "
                 "* = the writer is the system)", lines, result.notes)


def format_curves(report: CalibrationCurves) -> str:
    """A row per judge and bin: judge mean against reference mean with its interval."""
    rows = [[b.judge, str(b.bin), f"{fixed(b.judge_low)}-{fixed(b.judge_high)}",
             fixed(b.judge_mean), fixed(b.reference_mean), _interval(b.lower, b.upper),
             str(b.n_units)] for b in report.bins]
    return block(f"Calibration curves (equal-count bins, up to {report.n_bins} per judge)",
                 columns(["judge", "bin", "range", "judge mean", "reference mean",
                          f"{percent(report.conf)} interval", "units"], rows, indent="  "),
                 report.notes)


def format_sampling(report: SamplingAblation) -> str:
    """Table 7: a row per design."""
    rows = [[d.design, str(d.sample_size), fixed(d.acr), _interval(d.acr_low, d.acr_high),
             fixed(d.rar), _interval(d.rar_low, d.rar_high), fixed(d.stability),
             fixed(d.tau_with_all_items)] for d in report.designs]
    return block(f"Sampling designs compared ({report.population} items, {report.n_strata} "
                 f"strata, {report.n_rare} rare; seed {report.seed})",
                 columns(["design", "items", "ACR", "2.5-97.5%", "RAR", "2.5-97.5%",
                          "stability", "tau vs all"], rows, indent="  "), report.notes)


def format_ensemble(report: EnsembleReport) -> str:
    """Weights per judge, the outliers named, and the weighted ranking."""
    lines = columns(["judge", "weight", "item-rest r", "offset", "outlier"],
                    [[j.judge, fixed(j.weight), fixed(j.rest_correlation),
                      fixed(j.mean_offset), j.reason or "no"] for j in report.judges],
                    indent="  ")
    lines += ["", f"  Outlier judges: {', '.join(report.outliers) or 'none'}", ""]
    lines += columns(["rank", "arm", "weighted", "equal weights"],
                     [[str(a.rank), a.arm, fixed(a.weighted_score), fixed(a.equal_weight_score)]
                      for a in report.arms], indent="  ")
    return block("Robust ensemble weights (item-rest correlation, floored at 0)", lines,
                 report.notes)


def format_factors(report: FactorBreakdown) -> str:
    """Scores per system, task and factor, then the percentile bands."""
    lines = columns(["system", "task", "factor", "score", f"{percent(report.conf)} interval",
                     "units"],
                    [[c.arm, c.task, c.criterion, fixed(c.estimate), _interval(c.lower, c.upper),
                      str(c.n)] for c in report.cells], indent="  ")
    lines += ["", "  Percentile bands of item scores:"]
    lines += columns(["system", "task", "10%", "25%", "50%", "75%", "90%", "items"],
                     [[b.arm, b.task, fixed(b.p10), fixed(b.p25), fixed(b.p50), fixed(b.p75),
                       fixed(b.p90), str(b.n_items)] for b in report.bands], indent="  ")
    return block("Scores per system, task and rubric factor", lines, report.notes)
