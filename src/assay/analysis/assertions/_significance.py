"""Significance tests of assertion scores across arms (BenchmarkQED's assertion pipelines).

BenchmarkQED runs, with ``run_significance_test=True``, an omnibus and pairwise post-hoc tests of
the per-question scores of the arms (``run_assertion_evaluation`` per question set;
``run_hierarchical_assertion_evaluation`` per metric, plus the clustered permutation test as a
secondary analysis, and writes ``significance_summary.csv``). :func:`assertion_significance`
does the same with :func:`~assay.analysis.winrates._assertions.assertion_comparisons`, per
(judge, metric), on the per-question tables of :mod:`assay.analysis.assertions._summaries`:

=========================  ===================================================  ================
metric                     per-question value (``by_question`` column)          count behind it
=========================  ===================================================  ================
``pass_rate`` (standard)   ``pass_rate`` = success / (success + fail)           success + fail
``global_pass_rate``       ``global_pass_rate``                                 assertions_total
``support_level``          ``avg_support_level``                                assertions_total
``supporting_pass_rate``   ``supporting_pass_rate`` (questions with supporting  n_supporting_unique
                           assertions only, as BenchmarkQED)
``discovery_rate``         n_with_discovery / assertions_total                  assertions_total
=========================  ===================================================  ================

The count makes the permutation statistic assertion-level (each question weighs as many
assertions as it has, BenchmarkQED's secondary analysis); it is used only when every arm of a
question has the same count (a note says when it is not). Each (judge, metric) is a family of
its own for Holm's adjustment (within it: all pairs, or per task with ``holm-per-group``).
Friedman's omnibus test needs three or more arms; with two, the pairwise Wilcoxon test is the
test. Tasks with fewer than two arms are left out with a note.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from assay._display import Rendered, write_files
from assay.analysis.assertions._summaries import (
    AssertionSummary,
    HierarchicalSummary,
    assertion_summary,
    hierarchical_summary,
)
from assay.analysis.winrates import AssertionComparisons, Correction, assertion_comparisons
from assay.data.table import Judgments

Kind = Literal["standard", "hierarchical"]
SUMMARY_COLUMNS = ("metric", "level", "test_name", "group1", "group2", "statistic", "p_value",
                   "is_significant", "group1_mean", "group2_mean", "formatted_p_value",
                   "question_set", "judge", "n", "p_value_raw")
"""``significance_summary.csv``: BenchmarkQED's ``summarize_significance_results`` columns, then
``question_set``, ``judge``, ``n`` (questions) and ``p_value_raw`` (before Holm)."""
_SEP = "\x1f"


@dataclass(frozen=True)
class AssertionTest:
    """The tests of one metric of one assertion judge."""

    judge: str
    kind: Kind
    metric: str
    comparisons: AssertionComparisons
    assertion_level: bool
    """The permutation statistic weighs questions by their assertion counts."""


@dataclass(frozen=True, eq=False)
class AssertionSignificance(Rendered):
    """Friedman, pairwise Wilcoxon and clustered permutation tests per (judge, metric)."""

    tests: list[AssertionTest]
    alpha: float
    correction: str
    n_resamples: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """``friedman`` and ``pairs`` records (each with ``judge`` and ``metric``), the settings
        and the notes; NaN as None."""
        friedman: list[dict[str, Any]] = []
        pairs: list[dict[str, Any]] = []
        for t in self.tests:
            d = t.comparisons.to_dict()
            head = {"judge": t.judge, "metric": t.metric}
            friedman += [{**head, **r} for r in d["friedman"]]
            pairs += [{**head, **r, "assertion_level": t.assertion_level} for r in d["pairs"]]
        return {"friedman": friedman, "pairs": pairs, "alpha": self.alpha,
                "correction": self.correction, "n_resamples": self.n_resamples, "seed": self.seed,
                "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        """The text of ``assertions.json``."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def summary_frame(self) -> pd.DataFrame:
        """The rows of ``significance_summary.csv`` (:data:`SUMMARY_COLUMNS`): per judge, each
        metric's Friedman (omnibus) and Wilcoxon (pairwise, Holm-adjusted ``p_value``) rows,
        then each metric's clustered permutation rows under ``<metric>_clustered`` (none with
        ``n_resamples`` 0: the permutation tests switched off)."""
        rows: list[dict[str, Any]] = []
        for judge in dict.fromkeys(t.judge for t in self.tests):
            mine = [t for t in self.tests if t.judge == judge]
            for t in mine:
                c = t.comparisons
                for task in dict.fromkeys([*(f.task for f in c.friedman), *(p.task for p in c.pairs)]):
                    rows += [_row(t.metric, "omnibus", "friedman", "", "", f.statistic, f.p_value,
                                  f.significant, None, None, task, judge, f.n, f.p_value)
                             for f in c.friedman if f.task == task]
                    rows += [_row(t.metric, "pairwise", p.test, p.arm, p.opponent,
                                  p.wilcoxon_statistic, p.wilcoxon_p_adjusted, p.significant_wilcoxon,
                                  p.mean_arm, p.mean_opponent, task, judge, p.n, p.wilcoxon_p_value)
                             for p in c.pairs if p.task == task]
            for t in (mine if self.n_resamples else []):  # 0: permutation tests switched off
                rows += [_row(f"{t.metric}_clustered", "pairwise", "clustered_permutation", p.arm,
                              p.opponent, p.difference, p.permutation_p_adjusted,
                              p.significant_permutation, p.mean_arm, p.mean_opponent, p.task, judge,
                              p.n, p.permutation_p_value)
                         for p in t.comparisons.pairs]
        return pd.DataFrame(rows, columns=list(SUMMARY_COLUMNS))

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """Write ``significance_summary.csv`` when there is a test; return the paths written."""
        return write_files(self, out_dir)


def _row(metric: str, level: str, test: str, g1: str, g2: str, statistic: float, p: float,
         significant: bool | None, m1: float | None, m2: float | None, task: str | None,
         judge: str, n: int, p_raw: float) -> dict[str, Any]:
    formatted = "" if math.isnan(p) else f"{p:.4f}" if p >= 0.001 else "< 0.001"
    return dict(zip(SUMMARY_COLUMNS, (metric, level, test, g1, g2, statistic, p, significant, m1, m2,
                                      formatted, task, judge, n, p_raw), strict=True))


def per_question_metrics(summary: AssertionSummary | HierarchicalSummary) -> pd.DataFrame:
    """The per-question values the tests compare: task, arm, judge, question, metric, value, n.

    >>> rows = pd.DataFrame({"item": ["q1#a1", "q1#a2"], "cluster": "q1", "arm": "rag", "run": 1,
    ...                      "judge": "j", "criterion": "assertion", "score": [1.0, 0.0]})
    >>> per_question_metrics(assertion_summary(rows))[["metric", "value", "n"]].to_dict("records")
    [{'metric': 'pass_rate', 'value': 0.5, 'n': 2}]
    """
    q = summary.by_question
    keys = q[["task", "arm", "judge", "question"]]
    if isinstance(summary, AssertionSummary):
        parts = [("pass_rate", q["pass_rate"], q["success"] + q["fail"])]
    else:
        total = q["assertions_total"]
        has_support = q["n_supporting_unique"] > 0
        parts = [("global_pass_rate", q["global_pass_rate"], total),
                 ("support_level", q["avg_support_level"], total),
                 ("supporting_pass_rate", q["supporting_pass_rate"].where(has_support),
                  q["n_supporting_unique"]),
                 ("discovery_rate", q["n_with_discovery"] / total.where(total > 0), total)]
    out = pd.concat([keys.assign(metric=name, value=value.astype(float), n=count.astype(int))
                     for name, value, count in parts], ignore_index=True)
    return out[out["value"].notna()].reset_index(drop=True)


def _summaries(data: Judgments | pd.DataFrame,
               pass_threshold: float) -> list[AssertionSummary | HierarchicalSummary]:
    frame = data.frame if isinstance(data, Judgments) else data
    out: list[AssertionSummary | HierarchicalSummary] = []
    for _, rows in frame.groupby("judge", sort=False):
        criteria = set(rows["criterion"])
        scored = rows["score"].notna()
        if "assertion" in criteria and scored[rows["criterion"] == "assertion"].any():
            out.append(assertion_summary(rows, pass_threshold=pass_threshold))
        if "global_assertion" in criteria and scored[rows["criterion"] == "global_assertion"].any():
            out.append(hierarchical_summary(rows, pass_threshold=pass_threshold))
    return out


def assertion_significance(
    source: Judgments | pd.DataFrame | Sequence[AssertionSummary | HierarchicalSummary],
    *,
    pass_threshold: float = 0.5,
    alpha: float = 0.05,
    correction: Correction = "holm",
    n_resamples: int = 10_000,
    seed: int = 42,
    method: str = "holm",
) -> AssertionSignificance:
    """Compare the arms of every assertion judge on its per-question metrics.

    Parameters
    ----------
    source : Judgments, pandas.DataFrame or sequence of summaries
        A judgments table (each judge with ``assertion`` rows is summarised as standard, each
        with ``global_assertion`` rows as hierarchical, at `pass_threshold`), or summaries
        already made (each judge's own threshold).
    pass_threshold : float, default 0.5
        Used only when `source` is a table.
    alpha, correction, n_resamples, seed, method
        As :func:`~assay.analysis.winrates._assertions.assertion_comparisons` (`method`: holm,
        bonferroni or fdr_bh within each family); every (judge, metric) uses the same `seed`.

    Returns
    -------
    AssertionSignificance
        No test (and a note) for a judge or task with fewer than two arms.
    """
    notes: list[str] = []
    if isinstance(source, (Judgments, pd.DataFrame)):
        summaries = _summaries(source, pass_threshold)
        if summaries:
            notes.append(f"pass_threshold {pass_threshold:g} for every judge (a run's own thresholds "
                         "are in the significance_summary.csv that 'assay judge' writes).")
    else:
        summaries = list(source)
    tests: list[AssertionTest] = []
    for summary in summaries:
        if isinstance(summary, AssertionSummary):
            notes += list(summary.notes)
        kind: Kind = "standard" if isinstance(summary, AssertionSummary) else "hierarchical"
        metrics = per_question_metrics(summary)
        for (judge, metric), table in metrics.groupby(["judge", "metric"], sort=False):
            test = _test(str(judge), kind, str(metric), table, alpha=alpha, correction=correction,
                         n_resamples=n_resamples, seed=seed, notes=notes, method=method)
            if test is not None:
                tests.append(test)
    return AssertionSignificance(tests=tests, alpha=float(alpha), correction=correction,
                                 n_resamples=int(n_resamples), seed=int(seed), notes=notes)


def _test(judge: str, kind: Kind, metric: str, table: pd.DataFrame, *, alpha: float,
          correction: Correction, n_resamples: int, seed: int,
          notes: list[str], method: str = "holm") -> AssertionTest | None:
    arms = table.groupby("task", sort=False)["arm"].nunique()
    single = [str(t) for t, k in arms.items() if k < 2]
    if single:
        notes.append(f"{judge} / {metric}: task(s) {', '.join(single)} have fewer than 2 arms; "
                     "left out.")
    table = table[table["task"].isin([t for t, k in arms.items() if k >= 2])]
    if table.empty:
        return None
    # question ids are unique within a task, not necessarily across tasks
    table = table.assign(question=table["task"].astype(str) + _SEP + table["question"].astype(str))
    same_count = bool((table.groupby("question")["n"].nunique() == 1).all())
    if not same_count:
        notes.append(f"{judge} / {metric}: the arms of some question have different assertion "
                     "counts; the permutation statistic averages over questions.")
    comparisons = assertion_comparisons(
        table, question="question", arm="arm", value="value",
        n_assertions="n" if same_count else None, task="task", alpha=alpha, correction=correction,
        n_resamples=n_resamples, seed=seed, method=method)
    notes += [f"{judge} / {metric}: {n}" for n in comparisons.notes]
    return AssertionTest(judge=judge, kind=kind, metric=metric, comparisons=comparisons,
                         assertion_level=same_count)

