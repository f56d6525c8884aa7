"""Aggregation across runs and the judges' reliability (the results aggregator).

For every (criterion, judge): the per-run means over all questions of all quizzes (every
item and arm scored in that run, on the raw score scale), their mean, median, sample
standard deviation (ddof = 1), minimum and maximum, and the results aggregator's percentile bootstrap
interval over those run means (10,000 resamples, seed 42). That interval says how much the
*run* mean moves between repetitions of the judging; with five runs it is five numbers. So
beside it, clearly named, stands ``items_interval``: the mean over items with a
cluster-robust t interval (runs and arms averaged within an item, items summed within
clusters, CR2 variance with Bell-McCaffrey df), which is the evidence about the questions.

For every criterion scored by two or more judges: ICC(2,1) = ICC(A,1) with its F-based
interval, the mean absolute difference (MAD) on the score scale and Spearman's rho (mean
over rater pairs and the matrix), over the units every judge scored, with the results aggregator's
interpretation bands. And the results aggregator's "don'ts" as flags: a single run, std_dev > 5, one
judge only, evaluator names without versions.

What enters: reportable rows only (dev and calibration splits are counted and left out);
rows without a score (failures) are left out and counted. Nominal criteria have no mean and
are left out. Pairwise rows (with an ``opponent``) are not aggregated over runs, since a
preference pooled over arms and opponents depends on which pairs were compared (the win-rate
report handles them), but they do enter the reliability, a unit then being an (item, arm,
opponent, position, run). The files' aggregations pool the arms, as the results aggregator
(one benchmark) does: they describe how each judge scored the whole set of answers.
``per_arm`` and ``per_quiz_arm`` hold the same statistics for each arm apart, which the
printed report and the page show; ``assay.score_summary`` and the benchmark report compare
arms. Ordinal levels are read on [0, 1] everywhere, the per-quiz breakdown included.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis._weights import refuse_weights
from assay.analysis.aggregate._flags import HIGH_VARIANCE_POINTS, Flag, has_version
from assay.analysis.aggregate._quizzes import QuizAggregation, per_quiz
from assay.analysis.aggregate._reliability import (
    CriterionReliability,
    criterion_reliability,
    on_points_scale,
    scale_width,
)
from assay.analysis.aggregate._runs import (
    ITEMS_CI_METHOD,
    NO_RUNS,
    RUN_CI_METHOD,
    ItemsInterval,
    RunStatistics,
    items_interval,
    run_statistics,
)
from assay.data.table import Judgments

__all__ = [
    "AggregateReport",
    "CriterionReliability",
    "Flag",
    "ItemsInterval",
    "RunAggregation",
    "aggregate",
]

MAX_QUIZZES = 50
"""Quizzes above which no per-quiz breakdown is made (clusters standing in for quizzes)."""


@dataclass(frozen=True)
class RunAggregation(RunStatistics):
    """The results aggregator's statistics of one (criterion, judge) over runs (the fields of
    :class:`RunStatistics`), with the items interval."""

    criterion: str
    """``metric_name`` in aggregated.json."""
    judge: str
    """``evaluator_model`` in aggregated.json."""
    scale: str
    """The criterion's scale; every number here is on its raw score scale."""
    num_runs: int
    n_scores: int
    """Scores behind the run means."""
    n_missing: int
    """Rows without a score (failures): left out."""
    arms: tuple[str, ...]
    """Arms pooled in the run means."""
    items_interval: ItemsInterval
    """The interval over items that respects clusters (the evidence about the questions)."""


@dataclass(frozen=True, eq=False)
class AggregateReport(Rendered):
    """The results aggregator's aggregation: per (criterion, judge) over runs, and the judges' reliability."""

    benchmark_config_name: str | None
    benchmark_version: str | None
    quiz_ids: tuple[str, ...]
    """The ``task`` values of the reportable rows, or their clusters when there is no task."""
    total_runs: int
    """Distinct run numbers among the reportable scored rows."""
    aggregations: tuple[RunAggregation, ...]
    reliability: tuple[CriterionReliability, ...]
    """One per criterion scored by two or more judges (nominal criteria aside)."""
    flags: tuple[Flag, ...]
    """The results aggregator's "don'ts" found in the data."""
    notes: tuple[str, ...]
    conf: float
    n_resamples: int
    seed: int
    n_rows: int
    """Rows of the table."""
    n_not_reportable: int
    """Rows of the dev or calibration split: left out."""
    n_unscored: int
    """Reportable rows without a score (failures): left out and counted."""
    n_invalid: int
    """Run-folder records kept aside as invalid: never in the table's statistics."""
    one_judge_criteria: dict[str, str] = field(default_factory=dict)
    """Criteria scored by one judge only -> that judge."""
    per_quiz: tuple[QuizAggregation, ...] = ()
    """Per-quiz breakdowns: the run-level statistics per quiz and (criterion, judge)."""
    per_arm: tuple[RunAggregation, ...] = ()
    """The same run-level statistics and items interval per (criterion, judge) for each system
    apart (``arms`` holds the one system), which the printed report and the page show; the
    pooled ``aggregations`` are the files' (aggregated.json, summary.txt)."""
    per_quiz_arm: tuple[QuizAggregation, ...] = ()
    """The per-quiz breakdown for each system apart (``arm`` set)."""
    quiz_source: str = "cluster"
    """The column the quizzes are: ``"task"`` when the table has tasks, else ``"cluster"``."""

    def to_dict(self) -> dict[str, Any]:
        """The content of ``aggregated.json``: the results aggregator's fields, then assay's additions."""
        aggregations = {f"{a.criterion}_{a.judge}": _aggregation_record(a)
                        for a in self.aggregations}
        return {
            "benchmark_config_name": self.benchmark_config_name,
            "benchmark_version": self.benchmark_version,
            "quiz_ids": list(self.quiz_ids),
            "total_runs": self.total_runs,
            "aggregations": aggregations,
            "inter_rater_reliability": {r.criterion: _reliability_record(r)
                                        for r in self.reliability},
            "conf": self.conf,
            "methods": {
                "ci": {"method": RUN_CI_METHOD, "resampled": "per_run_scores",
                       "statistic": "mean", "n_resamples": self.n_resamples, "seed": self.seed,
                       "quantiles": "numpy.percentile, linear interpolation"},
                "items_interval": {"method": ITEMS_CI_METHOD,
                                   "description": "runs and arms averaged within an item, "
                                   "items summed within clusters, ratio estimator, CR2 "
                                   "variance, t with Bell-McCaffrey df (C - 1 with equal "
                                   "clusters), raw score scale"},
                "icc": "ICC(2,1) = ICC(A,1): two-way, absolute agreement, single rater; "
                       "McGraw-Wong F-based interval",
                "mad": "mean over rater pairs of the mean absolute difference, score scale",
                "spearman_rho": "mean over rater pairs of Spearman's rho (mid-ranks)",
            },
            "counts": {"rows": self.n_rows, "not_reportable": self.n_not_reportable,
                       "unscored": self.n_unscored, "invalid_records": self.n_invalid},
            "flags": [{"kind": f.kind, "criterion": f.criterion, "judge": f.judge,
                       "message": f.message} for f in self.flags],
            "per_quiz": {quiz: {f"{q.criterion}_{q.judge}": _quiz_record(q)
                                for q in self.per_quiz if q.quiz == quiz}
                         for quiz in dict.fromkeys(q.quiz for q in self.per_quiz)},
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)


def _num(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _quiz_record(q: QuizAggregation) -> dict[str, Any]:
    return {"metric_name": q.criterion, "evaluator_model": q.judge, "mean": _num(q.mean),
            "median": _num(q.median), "std_dev": _num(q.std_dev), "min": _num(q.minimum),
            "max": _num(q.maximum), "ci_lower": _num(q.ci_lower), "ci_upper": _num(q.ci_upper),
            "per_run_scores": list(q.per_run_scores), "num_runs": q.num_runs,
            "num_scores": q.n_scores}


def _aggregation_record(a: RunAggregation) -> dict[str, Any]:
    i = a.items_interval
    return {
        "metric_name": a.criterion, "evaluator_model": a.judge, "mean": _num(a.mean),
        "median": _num(a.median), "std_dev": _num(a.std_dev), "min": _num(a.minimum),
        "max": _num(a.maximum),
        "ci_lower": _num(a.ci_lower), "ci_upper": _num(a.ci_upper),
        "per_run_scores": list(a.per_run_scores), "num_runs": a.num_runs,
        "ci_method": RUN_CI_METHOD, "runs": list(a.runs), "scale": a.scale,
        "num_scores": a.n_scores, "num_missing": a.n_missing, "arms": list(a.arms),
        "items_interval": {"estimate": _num(i.estimate), "lower": _num(i.lower),
                           "upper": _num(i.upper), "standard_error": _num(i.standard_error),
                           "df": i.df, "method": i.method, "conf": i.conf,
                           "n_items": i.n_items, "n_clusters": i.n_clusters,
                           "effective_clusters": _num(i.effective_clusters),
                           "design_flagged": i.design_flagged},
    }


def _matrix(values: np.ndarray, judges: tuple[str, ...]) -> dict[str, dict[str, float | None]]:
    return {a: {b: _num(float(values[i, j])) for j, b in enumerate(judges)}
            for i, a in enumerate(judges)}


def _reliability_record(r: CriterionReliability) -> dict[str, Any]:
    icc, mad, rho = r.icc, r.mad, r.spearman
    return {
        "icc": _num(icc.estimate) if icc else None,
        "icc_ci_lower": _num(icc.lower) if icc else None,
        "icc_ci_upper": _num(icc.upper) if icc else None,
        "mad": _num(mad.estimate) if mad else None,
        "spearman_rho": _num(rho.estimate) if rho else None,
        "num_raters": r.num_raters,
        "raters": list(r.judges), "num_units": r.num_units,
        "num_units_incomplete": r.num_units_incomplete, "scale": r.scale,
        "icc_p_value": _num(icc.p_value) if icc else None,
        "mad_points_of_100": _num(r.mad_points),
        "spearman_matrix": _matrix(rho.matrix, r.judges) if rho else None,
        "mad_matrix": _matrix(mad.matrix, r.judges) if mad else None,
        "interpretation": {"icc": r.icc_band, "mad": r.mad_band, "spearman_rho": r.rho_band},
        "notes": list(r.notes),
    }


def aggregate(judgments: Judgments, *, n_resamples: int = 10_000, seed: int = 42,
              conf: float = 0.95, benchmark_config_name: str | None = None,
              benchmark_version: str | None = None) -> AggregateReport:
    """The results aggregator's aggregation of a judgments table across runs, with the judges' reliability.

    Parameters
    ----------
    judgments : Judgments
        The table; reportable rows with a score enter, the rest are counted.
    n_resamples : int, default 10000
        B of the percentile bootstrap over the run means.
    seed : int, default 42
        Seed of ``numpy.random.default_rng``, fresh for every (criterion, judge), so each
        interval is reproducible on its own.
    conf : float, default 0.95
        Level of the bootstrap, items and ICC intervals.
    benchmark_config_name, benchmark_version : str, optional
        Written as given (null when not given).

    Returns
    -------
    AggregateReport
        ``to_dict()`` is aggregated.json, ``str()`` is summary.txt.
    """
    if not 0 < conf < 1:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    frame = judgments.frame
    refuse_weights(frame, "aggregates across runs")
    notes: list[str] = []
    reportable = frame[frame["reportable"].astype(bool)]
    n_not_reportable = len(frame) - len(reportable)
    if n_not_reportable:
        notes.append(f"{n_not_reportable} rows of the dev or calibration split are not "
                     "reportable and are left out.")
    scored = reportable[reportable["score"].notna()]
    n_unscored = len(reportable) - len(scored)
    if n_unscored:
        notes.append(f"{n_unscored} reportable row(s) without a score (failures) are left "
                     "out of every statistic.")
    if len(judgments.invalid):
        notes.append(f"{len(judgments.invalid)} run-folder records were kept aside as invalid "
                     "and are not in any statistic.")
    pairwise = (scored["opponent"].notna() if "opponent" in scored
                else pd.Series(False, index=scored.index))
    aggregations: list[RunAggregation] = []
    reliability: list[CriterionReliability] = []
    flags: list[Flag] = []
    one_judge: dict[str, str] = {}
    per_arm: list[RunAggregation] = []
    aggregated_rows: list[pd.DataFrame] = []  # the rows aggregated, ordinal levels on [0, 1]
    for criterion in pd.unique(reportable["criterion"]):
        name = str(criterion)
        scale = judgments.scale(name)
        rows = scored[scored["criterion"] == criterion]
        all_rows = reportable[reportable["criterion"] == criterion]
        if scale.kind == "nominal":
            notes.append(f"{name!r} is nominal: it has no mean and no ICC, and is left out "
                         "here (the judges report has its kappa).")
            continue
        if pairwise[rows.index].any():
            notes.append(f"{name!r} is pairwise: its preferences are not aggregated over runs "
                         "(a preference pooled over arms and opponents depends on which pairs "
                         "were compared; see the win-rate report), but they enter the "
                         "judges' reliability.")
        else:
            if scale.kind == "ordinal":  # on [0, 1], as every other report reads a level
                rows = rows.assign(score=scale.normalise(rows["score"].to_numpy(np.float64)))
                all_rows = all_rows.assign(
                    score=scale.normalise(all_rows["score"].to_numpy(np.float64)))
            for judge in pd.unique(all_rows["judge"]):
                agg = _aggregation(rows[rows["judge"] == judge],
                                   all_rows[all_rows["judge"] == judge], name, str(judge),
                                   scale.spelling(), n_resamples=n_resamples, seed=seed,
                                   conf=conf)
                aggregations.append(agg)
                if agg.items_interval.flag_note is not None:
                    notes.append(agg.items_interval.flag_note)
                own = rows[rows["judge"] == judge]
                own_all = all_rows[all_rows["judge"] == judge]
                per_arm.extend(_aggregation(own[own["arm"] == arm], own_all[own_all["arm"] == arm],
                                            name, str(judge), scale.spelling(),
                                            n_resamples=n_resamples, seed=seed, conf=conf)
                               for arm in pd.unique(own_all["arm"]))
                if agg.num_runs > 1 and agg.std_dev == 0:
                    notes.append(f"{name} ({judge}): every run has the same mean, so the "
                                 "run-level interval has zero width; it says nothing about "
                                 "the items (see the items interval).")
            aggregated_rows.append(rows)
            if scale.kind == "ordinal":
                notes.append(f"{name!r} is ordinal: its means are on [0, 1], level i of "
                             f"{len(scale.levels)} ({', '.join(scale.levels)}) read as "
                             f"i / {len(scale.levels) - 1} as in every other report, which "
                             "treats the levels as equally spaced.")
            rows = scored[scored["criterion"] == criterion]
        judges = [str(j) for j in pd.unique(rows["judge"])]
        if len(judges) >= 2:
            result = criterion_reliability(rows, name, scale, conf=conf)
            reliability.append(result)
            notes.extend(result.notes)
        elif judges:
            one_judge[name] = judges[0]
    flags = _flags(aggregations, one_judge, judgments, scored)
    quiz_source = "task" if "task" in reportable and reportable["task"].notna().any() else "cluster"
    quiz_ids = tuple(str(q) for q in pd.unique(reportable[quiz_source].dropna()))
    pairs = [(a.criterion, a.judge) for a in aggregations]
    rows = pd.concat(aggregated_rows) if aggregated_rows else scored.iloc[:0]
    quizzes: tuple[QuizAggregation, ...] = ()
    quizzes_arm: tuple[QuizAggregation, ...] = ()
    if 1 < len(quiz_ids) <= MAX_QUIZZES:
        quizzes, quizzes_arm = (per_quiz(rows, quiz_source, pairs, n_resamples=n_resamples,
                                         seed=seed, conf=conf, by_arm=by_arm)
                                for by_arm in (False, True))
    if len(quiz_ids) > MAX_QUIZZES:
        notes.append(f"{len(quiz_ids)} quizzes ({quiz_source} values): over {MAX_QUIZZES}, so "
                     "no per-quiz breakdown is made.")
    return AggregateReport(
        benchmark_config_name=benchmark_config_name, benchmark_version=benchmark_version,
        quiz_ids=quiz_ids, total_runs=int(scored["run"].nunique()),
        aggregations=tuple(aggregations), reliability=tuple(reliability), flags=tuple(flags),
        notes=tuple(notes), conf=conf, n_resamples=n_resamples, seed=seed, n_rows=len(frame),
        n_not_reportable=n_not_reportable, n_unscored=n_unscored,
        n_invalid=len(judgments.invalid), one_judge_criteria=one_judge, per_quiz=quizzes,
        per_arm=tuple(per_arm), per_quiz_arm=quizzes_arm, quiz_source=quiz_source)


def _aggregation(rows: pd.DataFrame, all_rows: pd.DataFrame, criterion: str, judge: str,
                 scale: str, *, n_resamples: int, seed: int, conf: float) -> RunAggregation:
    items = items_interval(rows, conf=conf, what=f"{criterion} / {judge}, items interval")
    stats = NO_RUNS if rows.empty else run_statistics(rows, n_resamples=n_resamples, seed=seed,
                                                      conf=conf)
    return RunAggregation(
        **vars(stats), criterion=criterion, judge=judge, scale=scale, num_runs=len(stats.runs),
        n_scores=len(rows), n_missing=len(all_rows) - len(rows),
        arms=tuple(str(a) for a in pd.unique(rows["arm"])), items_interval=items)


def _flags(aggregations: list[RunAggregation], one_judge: dict[str, str], judgments: Judgments,
           scored: pd.DataFrame) -> list[Flag]:
    flags: list[Flag] = []
    total_runs = int(scored["run"].nunique())
    if total_runs == 1:
        flags.append(Flag("single_run", "every score comes from a single run, so nothing is "
                          "averaged over runs and there is no run-to-run spread or run-level "
                          "interval. Run the evaluation again."))
    for a in aggregations:
        where = f"{a.criterion} ({a.judge})"
        if a.num_runs == 1 and total_runs > 1:
            flags.append(Flag("single_run", f"{where}: a single run, so no averaging over runs, "
                              "no standard deviation and no run-level interval. Run it again.",
                              a.criterion, a.judge))
        elif a.num_runs == 0:
            flags.append(Flag("single_run", f"{where}: no scored run at all.", a.criterion,
                              a.judge))
        width = scale_width(judgments.scale(a.criterion))
        if a.num_runs > 1 and on_points_scale(a.std_dev, width) > HIGH_VARIANCE_POINTS:
            unit = ("points" if width is None or width == 100
                    else f"points of 100 (std dev {a.std_dev:.3g} on a scale {width:g} wide)")
            flags.append(Flag("high_variance",
                              f"{where}: std dev across runs is "
                              f"{on_points_scale(a.std_dev, width):.2f} {unit}, above "
                              f"{HIGH_VARIANCE_POINTS:g}: increase runs or refine the metric.",
                              a.criterion, a.judge))
    for criterion, judge in one_judge.items():
        flags.append(Flag("one_judge", f"{criterion}: only one judge ({judge}) scored it, so "
                          "there is no inter-rater reliability to check it against.",
                          criterion, judge))
    for judge in pd.unique(scored["judge"]):
        if not has_version(str(judge)):
            flags.append(Flag("unversioned_evaluator",
                              f"{judge}: the evaluator name carries no version (a date, a "
                              "snapshot number or a v-tag); record the exact model, e.g. "
                              "gpt-4-0613 rather than gpt-4.", None, str(judge)))
    return flags
