"""Summaries of assertion judgments (BenchmarkQED): standard and hierarchical (chunk-level
coverage: :mod:`assay.analysis.assertions._chunk_coverage`).

Pure pandas over the rows the assertion judges write (``assay.judge.judges.assertion``,
``assertion_hierarchical``, ``chunk_coverage``): no I/O (``write_csvs`` hands the tables to
:mod:`assay.report.files`).

Readings chosen where BenchmarkQED's documentation leaves it open
--------------------------------------
* An assertion passes when the mean of its *scored* trials exceeds ``pass_threshold``
  (strictly: 0.5 with two trials needs both). Failed trials (``failure_kind`` set) are
  left out of the mean; an assertion with no scored trial is *unscored*: left out of the
  accuracies and counted in ``n_unscored``.
* Micro accuracy (``overall_accuracy``) = passed assertions / scored assertions, pooled
  over questions; macro accuracy (``avg_question_pass_rate``) = mean over questions of
  each question's pass rate.
* A statement repeated within a question (the same text under two assertion ids) is one
  assertion, its trials pooled, as BenchmarkQED's ``groupby(["question", "assertion"])``
  merges them; ``notes`` counts the merged ids.
* ``top_k`` keeps, per question, the k assertions of lowest ``rank`` (ties and missing
  ranks in assertion-id order).
* Hierarchical: per (arm, global assertion) over trials, a supporting assertion passes when
  its pass rate over trials exceeds ``pass_threshold`` (a trial with no row for it, as in
  STAGED mode after a failed global, counts as not passed); ``support_level`` = passed
  supporting / supporting; discovery by majority (more than half of the trials), of a failing
  global too (JOINT judges its discovery; STAGED asks none, so it has none), as BenchmarkQED's
  ``aggregate_hierarchical_scores`` counts it; a passing global with ``support_level`` 0 and
  no discovery fails (``global_score_overridden``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from assay._display import write_files
from assay.analysis.assertions._rows import GROUP, assertion_rows
from assay.data.table import Judgments

__all__ = [
    "AssertionSummary",
    "HierarchicalSummary",
    "assertion_summary",
    "hierarchical_summary",
]

def _top_k(table: pd.DataFrame, top_k: int | None) -> pd.DataFrame:
    if top_k is None:
        return table
    if top_k < 1:
        raise ValueError(f"top_k: expected a positive integer or None, got {top_k}")
    keys = [*GROUP, "question"]
    ordered = table.assign(_r=table["rank"].astype(float).fillna(np.inf)).sort_values(
        [*keys, "_r", "assertion_id"], kind="stable"
    )
    return ordered.groupby(keys, sort=False, dropna=False).head(top_k).drop(columns="_r")


@dataclass(frozen=True)
class AssertionSummary:
    """Standard assertion scoring: per assertion, per question, and overall per (task, arm, judge)."""

    by_assertion: pd.DataFrame
    """task, arm, judge, question, assertion_id, assertion, rank, score (0/1 pass), score_mean,
    score_std (population SD over trials), n_trials, n_failed."""
    by_question: pd.DataFrame
    """task, arm, judge, question, success, fail, pass_rate."""
    overall: pd.DataFrame
    """task, arm, judge, total_assertions, passed_assertions, failed_assertions,
    overall_accuracy (micro), num_questions, avg_question_pass_rate (macro), n_unscored."""
    pass_threshold: float
    notes: tuple[str, ...] = ()
    """Repeated statements merged (how many, per judge)."""

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """``assertion_scores_by_assertion.csv``, ``assertion_scores_by_question.csv``,
        ``assertion_scores_summary.csv``."""
        return write_files(self, out_dir)


def assertion_summary(
    data: Judgments | pd.DataFrame,
    *,
    pass_threshold: float = 0.5,
    top_k: int | None = None,
    criterion: str = "assertion",
) -> AssertionSummary:
    """Pass/fail per assertion and micro/macro accuracy per (task, arm, judge).

    Examples
    --------
    Two questions, one trial: q1 passes 1 of 2 assertions, q2 passes 1 of 1, so micro
    accuracy is 2/3 and macro accuracy (1/2 + 1) / 2 = 0.75.

    >>> rows = pd.DataFrame({"item": ["q1#a1", "q1#a2", "q2#a1"], "cluster": ["q1", "q1", "q2"],
    ...                      "arm": "rag", "run": 1, "judge": "j", "criterion": "assertion",
    ...                      "score": [1.0, 0.0, 1.0]})
    >>> s = assertion_summary(rows).overall
    >>> round(float(s.overall_accuracy.iloc[0]), 4), float(s.avg_question_pass_rate.iloc[0])
    (0.6667, 0.75)
    """
    if not 0.0 <= pass_threshold < 1.0:
        raise ValueError(f"pass_threshold: expected a number in [0, 1), got {pass_threshold}")
    frame, notes = _merge_repeated(assertion_rows(data, [criterion]))
    keys = [*GROUP, "question", "assertion_id"]
    scored = frame[frame["scored"]]
    stats = scored.groupby(keys, dropna=False)["score"].agg(
        score_mean="mean", score_std=lambda s: float(np.std(s.to_numpy(float))), n_trials="count"
    )
    failed = frame[~frame["scored"]].groupby(keys, dropna=False).size().rename("n_failed")
    info = frame.groupby(keys, dropna=False)[["assertion", "rank"]].first()
    table = info.join(stats, how="left").join(failed, how="left").reset_index()
    table["n_trials"] = table["n_trials"].fillna(0).astype(int)
    table["n_failed"] = table["n_failed"].fillna(0).astype(int)
    table = _top_k(table, top_k)
    unscored = table[table["n_trials"] == 0].groupby(GROUP, dropna=False).size().rename("n_unscored")
    table = table[table["n_trials"] > 0].copy()
    table["score"] = (table["score_mean"] > pass_threshold).astype(int)
    by_assertion = table[
        [
            *keys[:4],
            "assertion_id",
            "assertion",
            "rank",
            "score",
            "score_mean",
            "score_std",
            "n_trials",
            "n_failed",
        ]
    ].reset_index(drop=True)
    by_question = (
        by_assertion.groupby([*GROUP, "question"], dropna=False)["score"]
        .agg(success="sum", total="count")
        .reset_index()
    )
    by_question["fail"] = by_question["total"] - by_question["success"]
    by_question["pass_rate"] = by_question["success"] / by_question["total"]
    by_question = by_question[[*GROUP, "question", "success", "fail", "pass_rate"]]
    overall = (
        by_question.groupby(GROUP, dropna=False)
        .agg(
            passed_assertions=("success", "sum"),
            failed_assertions=("fail", "sum"),
            num_questions=("question", "count"),
            avg_question_pass_rate=("pass_rate", "mean"),
        )
        .reset_index()
    )
    overall["total_assertions"] = overall["passed_assertions"] + overall["failed_assertions"]
    overall["overall_accuracy"] = overall["passed_assertions"] / overall["total_assertions"]
    overall = overall.merge(unscored.reset_index(), on=GROUP, how="left")
    overall["n_unscored"] = overall["n_unscored"].fillna(0).astype(int)
    overall = overall[
        [
            *GROUP,
            "total_assertions",
            "passed_assertions",
            "failed_assertions",
            "overall_accuracy",
            "num_questions",
            "avg_question_pass_rate",
            "n_unscored",
        ]
    ]
    return AssertionSummary(by_assertion, by_question, overall, pass_threshold, notes)


def _merge_repeated(frame: pd.DataFrame) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """One assertion id per (task, arm, judge, question, statement): a statement repeated
    within a question keeps its first id and pools the trials of every occurrence."""
    has = frame["assertion"].notna()
    if not has.any():
        return frame, ()
    key = [*GROUP, "question", "assertion"]
    named = frame[has]
    first = named.groupby(key, dropna=False, sort=False)["assertion_id"].transform("first")
    merged = (named.groupby(key, dropna=False)["assertion_id"].nunique() - 1).groupby("judge").sum()
    frame = frame.copy()
    frame.loc[has, "assertion_id"] = first
    notes = tuple(f"{judge}: {int(n)} repeated assertion(s) within a question merged into one "
                  "(trials pooled, as BenchmarkQED groups by question and statement)"
                  for judge, n in merged.items() if n > 0)
    return frame, notes


@dataclass(frozen=True)
class HierarchicalSummary:
    """Hierarchical assertion scoring: per global assertion, per question, and overall."""

    aggregated: pd.DataFrame
    """task, arm, judge, question, assertion_id, global_score, global_score_mean,
    global_score_overridden, n_supporting, n_supporting_passed, support_level, has_discovery."""
    by_question: pd.DataFrame
    """task, arm, judge, question, assertions_passed, assertions_failed, assertions_total,
    global_pass_rate, avg_support_level, n_with_discovery, n_with_support, n_with_both,
    n_support_only, pct_with_discovery, pct_with_support, pct_with_both (percentages as the
    seed's CSV has them), n_supporting_unique, n_supporting_passed_unique, supporting_pass_rate."""
    overall: pd.DataFrame
    """task, arm, judge, total_assertions, passed_assertions, overall_accuracy (micro),
    num_questions, avg_question_pass_rate (macro), avg_support_level, supporting_pass_rate
    (over unique supporting assertions pooled), discovery_rate, n_overridden, then
    BenchmarkQED's metrics of the passed globals only: support_level_passed,
    supporting_pass_rate_passed, discovery_rate_passed (means over questions of the
    per-question means; empty when no global passed)."""
    pass_threshold: float

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """assay's own files: ``hierarchical_scores_by_assertion.csv``,
        ``hierarchical_scores_by_question.csv``, ``hierarchical_summary.csv`` (BenchmarkQED's
        files of the same rows: :func:`~assay.analysis.assertions._qed_hierarchical.qed_hierarchical`)."""
        return write_files(self, out_dir)


def hierarchical_summary(
    data: Judgments | pd.DataFrame, *, pass_threshold: float = 0.5
) -> HierarchicalSummary:
    """Aggregate hierarchical rows over trials and apply the no-support-no-discovery rule.

    Examples
    --------
    One global assertion passing both trials, its one supporting assertion failing both,
    no discovery: the pass is overridden to a fail.

    >>> base = {"cluster": "q1", "arm": "rag", "judge": "j"}
    >>> rows = pd.DataFrame([
    ...     {**base, "item": "q1#a1", "criterion": "global_assertion", "run": r, "score": 1.0} for r in (1, 2)
    ... ] + [{**base, "item": "q1#a1/s1", "criterion": "supporting_assertion", "run": r, "score": 0.0,
    ...       "attributes": '{"supporting_id": "s1"}'} for r in (1, 2)
    ... ] + [{**base, "item": "q1#a1", "criterion": "discovery", "run": r, "score": 0.0} for r in (1, 2)])
    >>> agg = hierarchical_summary(rows).aggregated
    >>> int(agg.global_score.iloc[0]), bool(agg.global_score_overridden.iloc[0])
    (0, True)
    """
    if not 0.0 <= pass_threshold < 1.0:
        raise ValueError(f"pass_threshold: expected a number in [0, 1), got {pass_threshold}")
    frame = assertion_rows(data, ["global_assertion", "supporting_assertion", "discovery"])
    frame["assertion_id"] = [str(i).split("#", 1)[-1].split("/", 1)[0] for i in frame["item"]]
    keys = [*GROUP, "question", "assertion_id"]
    scored = frame[frame["scored"]]
    glob = scored[scored["criterion"] == "global_assertion"]
    glob_stats = glob.groupby(keys, dropna=False).agg(
        global_score_mean=("score", "mean"), n_trials=("run", "nunique")
    )
    # supporting: pass rate over the global's trials (a missing trial counts as not passed)
    sup = scored[scored["criterion"] == "supporting_assertion"]
    all_sup = frame[frame["criterion"] == "supporting_assertion"]
    sup_ids = (
        all_sup.groupby([*keys, "supporting_id"], dropna=False).size().reset_index()[[*keys, "supporting_id"]]
    )
    sup_sum = (
        sup.groupby([*keys, "supporting_id"], dropna=False)["score"].sum().rename("passes").reset_index()
    )
    sup_table = sup_ids.merge(sup_sum, on=[*keys, "supporting_id"], how="left").merge(
        glob_stats["n_trials"].reset_index(), on=keys, how="left"
    )
    sup_table["passes"] = sup_table["passes"].fillna(0.0)
    sup_table["pass_rate"] = sup_table["passes"] / sup_table["n_trials"]
    sup_table["passed"] = sup_table["pass_rate"] > pass_threshold
    sup_agg = sup_table.groupby(keys, dropna=False)["passed"].agg(
        n_supporting="count", n_supporting_passed="sum"
    )
    disc = (
        scored[scored["criterion"] == "discovery"].groupby(keys, dropna=False)["score"].sum().rename("n_disc")
    )
    agg = glob_stats.join(sup_agg, how="left").join(disc, how="left").reset_index()
    agg["n_supporting"] = agg["n_supporting"].fillna(0).astype(int)
    agg["n_supporting_passed"] = agg["n_supporting_passed"].fillna(0).astype(int)
    agg["support_level"] = np.where(
        agg["n_supporting"] > 0, agg["n_supporting_passed"] / agg["n_supporting"].clip(lower=1), 0.0
    )
    raw_pass = agg["global_score_mean"] > pass_threshold
    # a majority of the trials, whether the global passed or not: BenchmarkQED's
    # aggregate_hierarchical_scores (its docstring says "only when global_score=1", its code
    # does not restrict it; JOINT records discovery on failing globals, STAGED asks none there)
    agg["has_discovery"] = agg["n_disc"].fillna(0.0) > agg["n_trials"] / 2
    agg["global_score_overridden"] = raw_pass & (agg["support_level"] == 0.0) & ~agg["has_discovery"]
    agg["global_score"] = (raw_pass & ~agg["global_score_overridden"]).astype(int)
    aggregated = agg[
        [
            *keys,
            "global_score",
            "global_score_mean",
            "global_score_overridden",
            "n_supporting",
            "n_supporting_passed",
            "support_level",
            "has_discovery",
        ]
    ]

    qkeys = [*GROUP, "question"]
    with_support = aggregated["n_supporting_passed"] > 0
    by_q = (
        aggregated.assign(
            _pass=aggregated["global_score"],
            _sup=with_support,
            _both=with_support & aggregated["has_discovery"],
            _only=with_support & ~aggregated["has_discovery"],
        )
        .groupby(qkeys, dropna=False)
        .agg(
            assertions_passed=("_pass", "sum"),
            assertions_total=("_pass", "count"),
            avg_support_level=("support_level", "mean"),
            n_with_discovery=("has_discovery", "sum"),
            n_with_support=("_sup", "sum"),
            n_with_both=("_both", "sum"),
            n_support_only=("_only", "sum"),
        )
    )
    by_q["assertions_failed"] = by_q["assertions_total"] - by_q["assertions_passed"]
    by_q["global_pass_rate"] = by_q["assertions_passed"] / by_q["assertions_total"]
    for name in ("discovery", "support", "both"):
        by_q[f"pct_with_{name}"] = by_q[f"n_with_{name}"] / by_q["assertions_total"] * 100
    # unique supporting assertions per question (one id under several globals counts once:
    # it passes when it passed under any of them)
    uniq = (
        sup_table.merge(aggregated[keys], on=keys)
        .groupby([*qkeys, "supporting_id"], dropna=False)["passed"]
        .max()
        .groupby(qkeys, dropna=False)
        .agg(n_supporting_unique="count", n_supporting_passed_unique="sum")
    )
    by_q = by_q.join(uniq, how="left")
    by_q["n_supporting_unique"] = by_q["n_supporting_unique"].fillna(0).astype(int)
    by_q["n_supporting_passed_unique"] = by_q["n_supporting_passed_unique"].fillna(0).astype(int)
    by_q["supporting_pass_rate"] = np.where(
        by_q["n_supporting_unique"] > 0,
        by_q["n_supporting_passed_unique"] / by_q["n_supporting_unique"].clip(lower=1),
        0.0,
    )
    by_question = by_q.reset_index()[
        [
            *qkeys,
            "assertions_passed",
            "assertions_failed",
            "assertions_total",
            "global_pass_rate",
            "avg_support_level",
            "n_supporting_unique",
            "n_supporting_passed_unique",
            "supporting_pass_rate",
            "n_with_discovery",
            "n_with_support",
            "n_with_both",
            "n_support_only",
            "pct_with_discovery",
            "pct_with_support",
            "pct_with_both",
        ]
    ]
    overall = (
        by_question.groupby(GROUP, dropna=False)
        .agg(
            passed_assertions=("assertions_passed", "sum"),
            total_assertions=("assertions_total", "sum"),
            num_questions=("question", "count"),
            avg_question_pass_rate=("global_pass_rate", "mean"),
            n_sup=("n_supporting_unique", "sum"),
            n_sup_passed=("n_supporting_passed_unique", "sum"),
            n_disc=("n_with_discovery", "sum"),
        )
        .reset_index()
    )
    per = aggregated.groupby(GROUP, dropna=False).agg(
        avg_support_level=("support_level", "mean"), n_overridden=("global_score_overridden", "sum")
    )
    overall = overall.merge(per.reset_index(), on=GROUP, how="left")
    overall["overall_accuracy"] = overall["passed_assertions"] / overall["total_assertions"]
    overall["supporting_pass_rate"] = overall["n_sup_passed"] / overall["n_sup"].where(overall["n_sup"] > 0)
    overall["discovery_rate"] = overall["n_disc"] / overall["total_assertions"]
    overall = overall[
        [
            *GROUP,
            "total_assertions",
            "passed_assertions",
            "overall_accuracy",
            "num_questions",
            "avg_question_pass_rate",
            "avg_support_level",
            "supporting_pass_rate",
            "discovery_rate",
            "n_overridden",
        ]
    ]
    overall = overall.merge(_passed_metrics(aggregated), on=GROUP, how="left")
    return HierarchicalSummary(aggregated, by_question, overall, pass_threshold)


def _passed_metrics(aggregated: pd.DataFrame) -> pd.DataFrame:
    """BenchmarkQED's conditional metrics (``aggregation.py``, passed globals only), per
    (task, arm, judge): the mean over questions of each question's mean support level, its
    pooled supporting pass rate (passed / supporting, questions with supporting assertions)
    and its share of globals with discovery."""
    passed = aggregated[aggregated["global_score"] == 1]
    per_q = passed.groupby([*GROUP, "question"], dropna=False).agg(
        support=("support_level", "mean"), discovery=("has_discovery", "mean"),
        n_sup=("n_supporting", "sum"), n_sup_passed=("n_supporting_passed", "sum"))
    per_q["rate"] = per_q["n_sup_passed"] / per_q["n_sup"].where(per_q["n_sup"] > 0)
    out = per_q.groupby(level=GROUP, dropna=False).agg(
        support_level_passed=("support", "mean"), supporting_pass_rate_passed=("rate", "mean"),
        discovery_rate_passed=("discovery", "mean"))
    groups = aggregated[GROUP].drop_duplicates()
    return groups.merge(out.reset_index(), on=GROUP, how="left")
