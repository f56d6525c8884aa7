"""The aggregation across runs as text: the printed report and ``summary.txt``.

:func:`format_aggregate` is the printed report (``print(report)``, ``assay report --kind
aggregate``): each system on its own, in the user's words (systems, questions, topics,
judges). :func:`format_summary` is ``summary.txt`` in the results aggregator's example
layout (header, inter-rater reliability, one block per metric and evaluator over all systems
together), with, clearly labelled, the interval over items beside the run-level bootstrap,
the interpretation bands and the aggregator's "don'ts" found in the data. Both format a
report; they compute nothing.
"""

from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING

from assay.data.schema import Scale
from assay.report.text._format import columns, fixed, percent

if TYPE_CHECKING:
    from assay.analysis.aggregate import AggregateReport, CriterionReliability, RunAggregation

__all__ = ["format_aggregate", "format_summary"]

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
    if i.method.startswith("cluster_robust_t"):
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


JUDGE_FLAG_TITLES = {**FLAG_TITLES, "one_judge": "One judge only",
                     "unversioned_evaluator": "Judge without a version"}
"""The flags' titles in the printed report, in its words (judges, not evaluators)."""
QUIZ_WORDS = {"task": ("task", "tasks"), "cluster": ("topic", "topics")}
"""What the quizzes are called in the printed report, by the column they are."""


def format_aggregate(report: AggregateReport) -> str:
    """The printed aggregation report: each system on its own, in the user's words.

    Per (criterion, judge), a row per system: the run-level statistics and the interval over
    questions (``report.per_arm``); then the judges' reliability, the per-task or per-topic
    breakdown per system, the warnings and the notes. The pooled figures over all systems
    are the files' (summary.txt, aggregated.json) and are not printed here.
    """
    pct = percent(report.conf)
    one, many = QUIZ_WORDS.get(report.quiz_source, QUIZ_WORDS["cluster"])
    systems = list(dict.fromkeys(arm for a in report.per_arm for arm in a.arms))
    shown = f"{_count(len(systems), 'system', 'systems')}, each shown on its own; " if systems else ""
    lines = [
        f"{_count(report.total_runs, 'run', 'runs')}, {shown}"
        f"{_count(len(report.quiz_ids), one, many)}. (summary.txt and aggregated.json give each "
        "judge's figures over all systems together, in their fixed layout.)",
        f"How to read: 'runs {pct} CI' is the percentile bootstrap over a system's run means "
        f"({report.n_resamples} resamples, seed {report.seed}): how much its mean moves from run "
        f"to run. 'over questions' is its mean over questions with a cluster-robust t interval "
        f"({pct}; runs averaged within a question, topics as the sampling units): the evidence "
        "about the questions. Scores are on each criterion's own scale, ordinal levels on "
        "[0, 1]; failures are left out.",
    ]
    if report.reliability:
        lines += ["", "The judges' reliability (over the units every judge scored):"]
        lines += [f"  {_reliability_line(r, pct)}" for r in report.reliability]
    for (criterion, judge), rows in _by_pair(report.per_arm).items():
        d = _text_digits(rows[0].scale)
        lines += ["", f"{criterion} ({scale_words(rows[0].scale)}); judge {judge}"]
        lines += columns(
            ["system", "mean", "median", "sd", f"runs {pct} CI", "min", "max", "runs",
             "over questions", f"{pct} interval", "questions/topics", "failed"],
            [[a.arms[0], fixed(a.mean, d), fixed(a.median, d), fixed(a.std_dev, d),
              _interval(a.ci_lower, a.ci_upper, d), fixed(a.minimum, d), fixed(a.maximum, d),
              str(a.num_runs), fixed(a.items_interval.estimate, d),
              _interval(a.items_interval.lower, a.items_interval.upper, d)
              if a.items_interval.method.startswith("cluster_robust_t")
              else a.items_interval.method.replace("_", " "),
              f"{a.items_interval.n_items}/{a.items_interval.n_clusters}", str(a.n_missing)]
             for a in rows], indent="  ")
    if report.per_quiz_arm:
        lines += ["", f"Per {one}, each system on its own (the same bootstrap over run means, "
                  f"within the {one}):"]
        lines += columns(
            [one, "criterion", "judge", "system", "mean", f"runs {pct} CI", "sd", "runs"],
            [[q.quiz, q.criterion, q.judge, q.arm or "-",
              fixed(q.mean, d := _text_digits(judgment_scale(report, q.criterion))),
              _interval(q.ci_lower, q.ci_upper, d), fixed(q.std_dev, d), str(q.num_runs)]
             for q in report.per_quiz_arm], indent="  ")
    if report.flags:
        lines += ["", "Warnings (what these results should not be read as):"]
        lines += [f"  ! {JUDGE_FLAG_TITLES[f.kind]}: {f.message}" for f in report.flags]
    lines += [f"Note: {note}" for note in report.notes]
    return "\n".join(lines)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _by_pair(rows: tuple[RunAggregation, ...]) -> dict[tuple[str, str], list[RunAggregation]]:
    out: dict[tuple[str, str], list[RunAggregation]] = {}
    for a in rows:
        out.setdefault((a.criterion, a.judge), []).append(a)
    return out


def _text_digits(scale: str) -> int:
    """Two decimals on wide scales (0-100 points), three on [0, 1] as the other reports print."""
    return 2 if _digits(scale) == 2 else 3


def scale_words(scale: str) -> str:
    """How a criterion's means read: on [0, 1], on its own scale, or ordinal levels on [0, 1]."""
    parsed = Scale.parse(scale)
    if parsed.kind == "ordinal":
        return f"{scale}, levels read on [0, 1]"
    return f"{scale}, on [0, 1]" if _digits(scale) == 4 else f"{scale}, its own scale"


def _interval(lower: float | None, upper: float | None, digits: int) -> str:
    return f"[{fixed(lower, digits)}, {fixed(upper, digits)}]"


def _reliability_line(r: CriterionReliability, pct: str) -> str:
    judges = f"judges {', '.join(r.judges)}; {r.num_units} units"
    if r.icc is None or r.mad is None or r.spearman is None:
        return f"{r.criterion}: too few units scored by every judge ({judges})"
    digits = _text_digits(r.scale)
    unit = " points" if digits == 2 else ""

    def band(text: str | None) -> str:
        return f" ({text})" if text else ""

    return (f"{r.criterion}: ICC(2,1) {fixed(r.icc.estimate)} {pct} interval "
            f"{_interval(r.icc.lower, r.icc.upper, 3)}{band(r.icc_band)}; MAD "
            f"{fixed(r.mad.estimate, digits)}{unit}{band(r.mad_band)}; Spearman rho "
            f"{fixed(r.spearman.estimate)}{band(r.rho_band)}; {judges}")
