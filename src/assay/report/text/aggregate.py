"""``summary.txt`` of the results aggregator: its example layout (header, inter-rater reliability,
one block per metric and evaluator), with, clearly labelled, the interval over items beside
the run-level bootstrap, the interpretation bands, and the results aggregator's "don'ts"
found in the data. ``print(report)`` of an aggregate report prints it. It formats a report;
it computes nothing.
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

from assay.data.schema import Scale

if TYPE_CHECKING:
    from assay.analysis.aggregate import AggregateReport, CriterionReliability, RunAggregation

__all__ = ["format_summary"]

WIDTH = 80
MISSING = "n/a"
FLAG_TITLES = {
    "single_run": "Single run",
    "high_variance": "High variance (std dev > 5)",
    "one_judge": "Only one judge",
    "unversioned_evaluator": "Evaluator without a version",
}


def _fixed(value: float | None, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.{digits}f}"


def _digits(scale: str) -> int:
    """Two decimals on wide scales (the results aggregator's 0-100), four on narrow ones such as 0/1."""
    parsed = Scale.parse(scale)
    if parsed.kind == "interval" or (parsed.kind == "range" and parsed.maximum is not None
                                     and parsed.minimum is not None
                                     and parsed.maximum - parsed.minimum >= 10):
        return 2
    return 4


def format_summary(report: AggregateReport) -> str:
    """summary.txt: the results aggregator's layout, with the items interval, bands and flags added."""
    pct = f"{report.conf * 100:g}%"
    rule, thin = "=" * WIDTH, "-" * WIDTH
    lines = [
        rule, "BENCHMARK RESULTS SUMMARY", rule,
        f"Configuration: {report.benchmark_config_name or '(not given)'}",
        f"Version: {report.benchmark_version or '(not given)'}",
        f"Total Runs: {report.total_runs}",
        f"Quizzes Evaluated: {len(report.quiz_ids)}",
        "",
        *textwrap.wrap(
            f"How to read: '{pct} CI' is the percentile bootstrap over the run means "
            f"({report.n_resamples} resamples, seed {report.seed}): how much the mean moves "
            f"from run to run. 'Items' is the mean over items with a cluster-robust t "
            f"interval ({pct}; runs and arms averaged within an item, clusters as the sampling "
            "units): the evidence about the questions. Scores are on each metric's raw scale.",
            WIDTH),
        "",
        "INTER-RATER RELIABILITY",
        thin,
    ]
    if not report.reliability:
        lines += ["", "No metric was scored by two or more evaluators."]
    for r in report.reliability:
        lines += ["", *_reliability_block(r, pct)]
    by_criterion: dict[str, list[RunAggregation]] = {}
    for a in report.aggregations:
        by_criterion.setdefault(a.criterion, []).append(a)
    for criterion, aggs in by_criterion.items():
        lines += ["", criterion.upper(), thin]
        for a in aggs:
            lines += ["", *_evaluator_block(a, pct)]
    if report.per_quiz:
        lines += ["", "PER-QUIZ BREAKDOWN", thin]
        for quiz in dict.fromkeys(q.quiz for q in report.per_quiz):
            lines += ["", f"{quiz}:"]
            for q in (q for q in report.per_quiz if q.quiz == quiz):
                d = _digits(judgment_scale(report, q.criterion))
                lines += textwrap.wrap(
                    f"{q.criterion} / {q.judge}: mean {_fixed(q.mean, d)} [{pct} CI: "
                    f"{_fixed(q.ci_lower, d)}, {_fixed(q.ci_upper, d)}], std dev "
                    f"{_fixed(q.std_dev, d)}, N {q.num_runs}", WIDTH, initial_indent="  ",
                    subsequent_indent="    ")
    if report.flags:
        lines += ["", "WARNINGS (what these results should not be read as)", thin]
        for flag in report.flags:
            lines += textwrap.wrap(f"{FLAG_TITLES[flag.kind]}: {flag.message}", WIDTH,
                                   initial_indent="  ! ", subsequent_indent="    ")
    if report.notes:
        lines += ["", "NOTES", thin]
        for note in report.notes:
            lines += textwrap.wrap(note, WIDTH, initial_indent="  - ", subsequent_indent="    ")
    return "\n".join(lines)


def judgment_scale(report: AggregateReport, criterion: str) -> str:
    """The scale of a criterion as its aggregations give it ('' when none does)."""
    return next((a.scale for a in report.aggregations if a.criterion == criterion), "")


def _reliability_block(r: CriterionReliability, pct: str) -> list[str]:
    lines = [f"{r.criterion}:"]
    if r.icc is None or r.mad is None or r.spearman is None:
        lines.append(f"  Units scored by every evaluator: {r.num_units} (too few)")
        lines.append(f"  Number of Raters: {r.num_raters}")
        return lines
    digits = _digits(r.scale)
    band = f"  ({r.icc_band})" if r.icc_band else ""
    lines.append(f"  ICC(2,1): {_fixed(r.icc.estimate, 4)} "
                 f"[{pct} CI: {_fixed(r.icc.lower, 4)}, {_fixed(r.icc.upper, 4)}]{band}")
    mad_band = f"  ({r.mad_band})" if r.mad_band else ""
    unit = "points" if digits == 2 else "on the score scale"
    lines.append(f"  MAD (Mean Absolute Difference): {_fixed(r.mad.estimate, digits)} "
                 f"{unit}{mad_band}")
    rho_band = f"  ({r.rho_band})" if r.rho_band else ""
    lines.append(f"  Spearman rho: {_fixed(r.spearman.estimate, 4)}{rho_band}")
    lines.append(f"  Number of Raters: {r.num_raters}")
    lines += textwrap.wrap(f"Units: {r.num_units} scored by every evaluator "
                           f"({', '.join(r.judges)})", WIDTH, initial_indent="  ",
                           subsequent_indent="    ")
    return lines


def _evaluator_block(a: RunAggregation, pct: str) -> list[str]:
    d = _digits(a.scale)
    i = a.items_interval
    if i.method == "cluster_robust_t":
        items = (f"{_fixed(i.estimate, d)} [{pct} CI: {_fixed(i.lower, d)}, "
                 f"{_fixed(i.upper, d)}] over {i.n_items} items in {i.n_clusters} clusters")
    else:
        items = (f"{_fixed(i.estimate, d)} (no interval: {i.method.replace('_', ' ')}; "
                 f"{i.n_items} items in {i.n_clusters} clusters)")
    return [
        f"  Evaluator: {a.judge}",
        f"    Mean:   {_fixed(a.mean, d)}",
        f"    Median: {_fixed(a.median, d)}",
        f"    Std Dev: {_fixed(a.std_dev, d)}",
        f"    {pct} CI: [{_fixed(a.ci_lower, d)}, {_fixed(a.ci_upper, d)}]"
        f"  (bootstrap over {a.num_runs} run means)",
        f"    Min:    {_fixed(a.minimum, d)}",
        f"    Max:    {_fixed(a.maximum, d)}",
        f"    N:      {a.num_runs}",
        f"    Items:  {items}",
    ]
