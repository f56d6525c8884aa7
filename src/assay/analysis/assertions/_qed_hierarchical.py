"""BenchmarkQED's four single-RAG hierarchical files, computed as BenchmarkQED 0.4.0 computes them.

``hierarchical-assertion-scores`` (single RAG) writes ``hierarchical_assertion_scores.csv``
(one row per global assertion and trial), ``hierarchical_assertion_summary.csv`` (one row per
global assertion), ``hierarchical_summary_by_question.csv`` and ``eval_summary.json``.
:func:`qed_hierarchical` rebuilds the per-trial table from assay's rows (the texts from the
inputs) and aggregates it by BenchmarkQED's rules, quirks included; assay's own summary, with
its supporting assertions deduplicated on their real ids, is
:func:`~assay.analysis.assertions._summaries.hierarchical_summary` (files
``hierarchical_scores_by_assertion.csv``, ``hierarchical_scores_by_question.csv``,
``hierarchical_summary.csv``). Pure pandas: no I/O (``write_csvs`` hands the tables to
:mod:`assay.report.files`).

BenchmarkQED's rules reproduced here (``docs/coming-from/benchmarkqed.md`` lists them with
assay's own counting beside each):

* rows and keys are texts: a global assertion is (question text, statement); two ids with one
  statement in a question are one global, their trials pooled, and the tables are sorted by
  question text, then statement;
* a supporting assertion is named by its position, ``SA1``, ``SA2``, ..., within its global;
  the per-question "unique" counts deduplicate on that name, so the SA1 of every global of a
  question is one supporting assertion (the global sorted last decides whether it passed);
* STAGED: every trial row of a global carries the global's aggregated stage-1 pass (so
  ``global_score_mean`` is 0 or 1), a failed global lists its supporting assertions as failed
  (``n_supporting`` counts them), the supporting list is that of the first global in the file
  with the same statement, and the trials of a pooled statement are numbered 0, 1, ... over
  the pool (a trial past the first stage-2 call's count has no stage-2 result and is listed
  as failed); when no global passes, the rows list no supporting results and the table has
  no ``supporting_assertions`` column;
* the overall ``supporting_pass_rate`` is the mean over questions of each question's pooled
  rate over every global's supporting results (no deduplication), 0 when none;
* ``n_supporting_unique`` and ``n_supporting_passed_unique`` are floats (pandas makes them so).

A failed assay judgment (``failure_kind`` set) leaves its trial out (BenchmarkQED stops on it).
``trial`` counts from 0, as BenchmarkQED's. Every table ends with assay's ``task``, ``arm`` and
``judge`` after BenchmarkQED's columns; ``eval_summary`` has one dict per (task, arm, judge).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from assay._display import write_files
from assay.analysis.assertions._rows import GROUP, assertion_rows
from assay.data.table import Judgments

__all__ = ["QedHierarchical", "QedTexts", "qed_hierarchical"]

TRIAL_COLUMNS = {
    "joint": ["score_id", "reasoning", "global_passed", "global_score", "supporting_passed",
              "supporting_scores", "supporting_reasoning", "supporting_results", "has_discovery",
              "discovery_reasoning", "question", "answer", "assertion", "supporting_assertions",
              "trial", "support_count", "support_total"],
    "staged": ["question", "assertion", "global_passed", "global_score", "reasoning",
               "supporting_passed", "supporting_scores", "supporting_results", "support_count",
               "support_total", "has_discovery", "discovery_reasoning", "supporting_assertions",
               "trial"],
}
"""``hierarchical_assertion_scores.csv``: BenchmarkQED's columns per mode, in its order."""

SUMMARY_COLUMNS = ["question", "assertion", "global_score", "global_score_mean",
                   "global_score_overridden", "reasoning", "supporting_assertions", "n_supporting",
                   "n_supporting_passed", "support_level", "support_results", "has_discovery",
                   "discovery_reasoning"]
"""``hierarchical_assertion_summary.csv``: BenchmarkQED's ``aggregate_hierarchical_scores``."""

BY_QUESTION_COLUMNS = ["question", "assertions_passed", "assertions_failed", "assertions_total",
                       "avg_support_level", "n_with_discovery", "n_with_support",
                       "global_pass_rate", "n_with_both", "n_support_only", "pct_with_discovery",
                       "pct_with_support", "pct_with_both", "n_supporting_unique",
                       "n_supporting_passed_unique", "supporting_pass_rate"]
"""``hierarchical_summary_by_question.csv``: BenchmarkQED's ``summarize_hierarchical_by_question``."""


@dataclass(frozen=True)
class QedTexts:
    """The texts BenchmarkQED's files show, read from the inputs (ids stand in when missing)."""

    questions: Mapping[str, str] = field(default_factory=dict)
    """question id -> question text."""
    answers: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(arm, question id) -> answer text."""
    assertions: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    """question id -> its assertion records as read, in file order (``statement``, supporting list)."""
    supporting_key: str = "supporting_assertions"
    """The records' key of the supporting assertions."""


@dataclass(frozen=True)
class QedHierarchical:
    """BenchmarkQED's single-RAG hierarchical outputs of assay's rows (see the module docstring)."""

    trials: pd.DataFrame
    """``hierarchical_assertion_scores.csv``: :data:`TRIAL_COLUMNS`, then task, arm, judge."""
    aggregated: pd.DataFrame
    """``hierarchical_assertion_summary.csv``: :data:`SUMMARY_COLUMNS`, then task, arm, judge."""
    by_question: pd.DataFrame
    """``hierarchical_summary_by_question.csv``: :data:`BY_QUESTION_COLUMNS`, then task, arm, judge."""
    eval_summary: tuple[dict[str, Any], ...]
    """``eval_summary.json``: BenchmarkQED's ``compute_hierarchical_eval_summary`` per (task,
    arm, judge), the group's keys last."""
    pass_threshold: float

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """The three CSVs and ``eval_summary.json`` (one dict, or a list for several groups)."""
        return write_files(self, out_dir)


def _statement(record: Mapping[str, Any] | str) -> str:
    if isinstance(record, str):
        return record
    return str(record.get("statement", record.get("assertion", "")))


def _supporting(record: Mapping[str, Any] | str, key: str) -> list[Any]:
    return [] if isinstance(record, str) else list(record.get(key) or [])


def _supporting_ids(record: Mapping[str, Any] | str, key: str) -> list[str]:
    """assay's supporting ids of a record, in order (``assertion_specs``' rule)."""
    return [f"s{i}" if isinstance(s, str) else str(s.get("id", f"s{i}"))
            for i, s in enumerate(_supporting(record, key), start=1)]


def _score_id(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).hexdigest()[:32]


class _Globals:
    """One group's global assertions, in file order, with their scored rows."""

    def __init__(self, frame: pd.DataFrame, texts: QedTexts) -> None:
        self.texts = texts
        self.frame = frame
        self.order: list[tuple[str, str]] = []  # (question id, assertion id) in file order
        self.records: dict[tuple[str, str], Mapping[str, Any] | str] = {}
        for qid, records in texts.assertions.items():
            for n, record in enumerate(records, start=1):
                aid = str(record.get("id", f"a{n}")) if not isinstance(record, str) else f"a{n}"
                self.order.append((qid, aid))
                self.records[(qid, aid)] = record
        seen = set(self.order)
        for key in frame[["question", "assertion_id"]].drop_duplicates().itertuples(index=False):
            if tuple(key) not in seen:  # no record (inputs not given): rows alone
                self.order.append((str(key[0]), str(key[1])))
                seen.add((str(key[0]), str(key[1])))
        scored = frame[frame["scored"]]
        self.rows = {k: g for k, g in scored.groupby(["question", "assertion_id", "criterion"])}

    def question(self, qid: str) -> str:
        return self.texts.questions.get(qid, qid)

    def statement(self, key: tuple[str, str]) -> str:
        if key in self.records:
            return _statement(self.records[key])
        got = self.frame[(self.frame["question"] == key[0]) & (self.frame["assertion_id"] == key[1])]
        text = got["assertion"].dropna()
        return str(text.iloc[0]) if len(text) else key[1]

    def supporting_list(self, key: tuple[str, str]) -> list[Any]:
        return _supporting(self.records[key], self.texts.supporting_key) if key in self.records else []

    def positions(self, key: tuple[str, str]) -> dict[str, int]:
        if key in self.records:
            return {s: i for i, s in enumerate(_supporting_ids(self.records[key], self.texts.supporting_key))}
        got = self.rows.get((*key, "supporting_assertion"))
        ids = [] if got is None else list(dict.fromkeys(got["supporting_id"]))
        return {s: i for i, s in enumerate(ids)}

    def trial_rows(self, key: tuple[str, str], criterion: str) -> pd.DataFrame:
        got = self.rows.get((*key, criterion))
        return got.sort_values("run", kind="stable") if got is not None else self.frame.iloc[:0]

    def stage_two(self, key: tuple[str, str], run: Any) -> dict[str, Any] | None:
        """The supporting results and discovery of one trial, or None (not judged or failed)."""
        n = len(self.positions(key))
        sup = self.trial_rows(key, "supporting_assertion")
        sup = sup[sup["run"] == run]
        disc = self.trial_rows(key, "discovery")
        disc = disc[disc["run"] == run]
        if disc.empty and sup.empty:
            return None
        passed, reasoning = [False] * n, ["No evaluation provided"] * n
        for row in sup.itertuples():
            i = self.positions(key).get(str(row.supporting_id))
            if i is not None:
                passed[i], reasoning[i] = bool(row.score == 1), _text(row.reasoning)
        found = not disc.empty and bool(disc["score"].iloc[0] == 1)
        return {"supporting_passed": passed, "supporting_scores": [int(p) for p in passed],
                "supporting_reasoning": reasoning,
                "supporting_results": [{"id": f"SA{i + 1}", "passed": p, "reasoning": r}
                                       for i, (p, r) in enumerate(zip(passed, reasoning, strict=True))],
                "has_discovery": found,
                "discovery_reasoning": _text(disc["reasoning"].iloc[0]) if not disc.empty else ""}


def _text(value: Any) -> str:
    return "" if value is None or (isinstance(value, float) and np.isnan(value)) else str(value)


def _joint_trials(g: _Globals, arm: str) -> list[dict[str, Any]]:
    """JOINT: the (answer, global) pairs in file order, each trial one row."""
    out = []
    for key in g.order:
        for row in g.trial_rows(key, "global_assertion").itertuples():
            two = g.stage_two(key, row.run)
            if two is None:
                continue
            passed = bool(row.score == 1)
            out.append({
                "score_id": _score_id(row.judge, row.item, arm, row.run), "reasoning": _text(row.reasoning),
                "global_passed": passed, "global_score": int(passed),
                "supporting_passed": two["supporting_passed"], "supporting_scores": two["supporting_scores"],
                "supporting_reasoning": two["supporting_reasoning"],
                "supporting_results": two["supporting_results"], "has_discovery": two["has_discovery"],
                "discovery_reasoning": two["discovery_reasoning"], "question": g.question(key[0]),
                "answer": g.texts.answers.get((arm, key[0])), "assertion": g.statement(key),
                "supporting_assertions": g.supporting_list(key), "trial": int(row.run) - 1,
                "support_count": sum(two["supporting_scores"]),
                "support_total": len(two["supporting_scores"])})
    return out


def _staged_trials(g: _Globals, pass_threshold: float) -> list[dict[str, Any]]:
    """STAGED: stage 1 grouped by (question id, question text, statement), sorted; each pooled
    trial one row, its stage-2 result looked up by (question, statement, trial number)."""
    pooled: dict[tuple[str, str, str], list[tuple[str, Any, float, str]]] = {}
    first_of_text: dict[str, tuple[str, str]] = {}
    lookup: dict[tuple[str, str, int], dict[str, Any]] = {}
    for key in g.order:
        statement = g.statement(key)
        if key in g.records and g.supporting_list(key):
            first_of_text.setdefault(statement, key)
        rows = g.trial_rows(key, "global_assertion")
        if rows.empty:
            continue
        pooled.setdefault((key[0], g.question(key[0]), statement), []).extend(
            (key[1], r.run, float(r.score), _text(r.reasoning)) for r in rows.itertuples())
    groups = sorted(pooled.items(), key=lambda item: item[0])
    passed_any = False
    for (qid, _, statement), trials in groups:
        if np.mean([s for _, _, s, _ in trials]) > pass_threshold:
            passed_any = True
            for aid, run, _, _ in trials:  # a later global of the same text wins, as a dict keeps it
                two = g.stage_two((qid, aid), run)
                if two is not None:
                    lookup[(qid, statement, int(run) - 1)] = two
    out = []
    for (qid, question, statement), trials in groups:
        passed = bool(np.mean([s for _, _, s, _ in trials]) > pass_threshold)
        match = first_of_text.get(statement)
        supporting = g.supporting_list(match) if match else []
        n = len(supporting)
        for index, (_, _, _, reasoning) in enumerate(trials):
            row: dict[str, Any] = {"question": question, "assertion": statement}
            two = lookup.get((qid, statement, index)) if passed else None
            if two is not None:
                row |= {"global_passed": True, "global_score": 1, "reasoning": reasoning,
                        "supporting_passed": two["supporting_passed"],
                        "supporting_scores": two["supporting_scores"],
                        "supporting_results": two["supporting_results"],
                        "support_count": sum(two["supporting_scores"]), "support_total": n,
                        "has_discovery": two["has_discovery"],
                        "discovery_reasoning": two["discovery_reasoning"]}
            else:
                failed = [{"id": f"SA{i + 1}", "passed": False, "reasoning": "Global assertion failed"}
                          for i in range(n)] if passed_any else []
                row |= {"global_passed": False, "global_score": 0, "reasoning": reasoning,
                        "supporting_passed": [False] * n, "supporting_scores": [0] * n,
                        "supporting_results": failed, "support_count": 0, "support_total": n,
                        "has_discovery": False, "discovery_reasoning": ""}
            if passed_any:
                row["supporting_assertions"] = supporting
            row["trial"] = index
            out.append(row)
    return out


def _aggregate(trials: pd.DataFrame, pass_threshold: float) -> pd.DataFrame:
    """Per (question text, statement), sorted: BenchmarkQED's trial aggregation."""
    records = []
    for (question, assertion), group in trials.groupby(["question", "assertion"], sort=True):
        mean = group["global_passed"].mean()
        score = 1 if mean > pass_threshold else 0
        results = list(group["supporting_results"])
        n_trials = len(results)
        support: list[dict[str, Any]] = []
        if results and results[0]:
            for i, first in enumerate(results[0]):
                hits = sum(1 for r in results if i < len(r) and r[i]["passed"])
                rate = hits / n_trials
                ok = rate > pass_threshold
                why = next((r[i]["reasoning"] for r in results if i < len(r) and r[i]["passed"] == ok), "")
                support.append({"id": first["id"], "passed": ok, "pass_rate": rate, "reasoning": why})
        n_passed = sum(1 for s in support if s["passed"])
        level = n_passed / len(support) if support else 0.0
        votes = list(group["has_discovery"])
        discovery = sum(votes) > len(votes) / 2
        why_disc = ""
        if discovery:
            reasons = zip(votes, group["discovery_reasoning"], strict=True)
            why_disc = next((r for v, r in reasons if v and r), "")
        overridden = score == 1 and level == 0.0 and not discovery
        records.append({
            "question": question, "assertion": assertion, "global_score": 0 if overridden else score,
            "global_score_mean": mean, "global_score_overridden": overridden,
            "reasoning": group["reasoning"].iloc[0],
            "supporting_assertions": (group["supporting_assertions"].iloc[0]
                                      if "supporting_assertions" in group.columns else []),
            "n_supporting": len(support), "n_supporting_passed": n_passed, "support_level": level,
            "support_results": support, "has_discovery": discovery, "discovery_reasoning": why_disc})
    return pd.DataFrame(records, columns=SUMMARY_COLUMNS)


def _by_question(agg: pd.DataFrame) -> pd.DataFrame:
    """Per question text, sorted: BenchmarkQED's summary, positional-id deduplication included."""
    records = []
    for question, group in agg.groupby("question", sort=True):
        support = group["n_supporting_passed"] > 0
        discovery = group["has_discovery"].astype(bool)
        total = len(group)
        unique: dict[str, bool] = {}
        for results in group["support_results"]:
            for result in results or ():
                unique[result["id"]] = result["passed"]
        n_unique, n_passed = len(unique), sum(unique.values())
        passed = int((group["global_score"] == 1).sum())
        both, only = int((discovery & support).sum()), int((~discovery & support).sum())
        records.append({
            "question": question, "assertions_passed": passed,
            "assertions_failed": int((group["global_score"] == 0).sum()), "assertions_total": total,
            "avg_support_level": group["support_level"].mean(), "n_with_discovery": int(discovery.sum()),
            "n_with_support": int(support.sum()), "global_pass_rate": passed / total,
            "n_with_both": both, "n_support_only": only,
            "pct_with_discovery": int(discovery.sum()) / total * 100,
            "pct_with_support": int(support.sum()) / total * 100, "pct_with_both": both / total * 100,
            "n_supporting_unique": float(n_unique), "n_supporting_passed_unique": float(n_passed),
            "supporting_pass_rate": n_passed / n_unique if n_unique else 0.0})
    return pd.DataFrame(records, columns=BY_QUESTION_COLUMNS)


def _pooled_rate(groups: Any) -> float:
    rates = []
    for _, group in groups:
        results = [r for rs in group["support_results"] for r in (rs or ())]
        if results:
            rates.append(sum(1 for r in results if r["passed"]) / len(results))
    return float(np.mean(rates) if rates else 0.0)


def _eval_summary(agg: pd.DataFrame) -> dict[str, Any]:
    """BenchmarkQED's ``eval_summary.json`` of one group."""
    total = len(agg)
    passed = int((agg["global_score"] == 1).sum())
    per_q = agg.assign(has_discovery=agg["has_discovery"].astype(bool)).groupby("question")
    ok = agg[agg["global_score"] == 1].assign(
        has_discovery=lambda f: f["has_discovery"].astype(bool))
    conditional: dict[str, float | None] = dict.fromkeys(
        ["support_level_passed", "supporting_pass_rate_passed", "discovery_rate_passed"])
    if not ok.empty:
        per_ok = ok.groupby("question")
        conditional = {"support_level_passed": float(per_ok["support_level"].mean().mean()),
                       "supporting_pass_rate_passed": _pooled_rate(per_ok),
                       "discovery_rate_passed": float(per_ok["has_discovery"].mean().mean())}
    return {
        "total_assertions": total, "passed_assertions": passed, "failed_assertions": total - passed,
        "global_pass_rate": float(passed / total) if total else 0.0,
        "avg_global_pass_rate": float(per_q["global_score"].mean().mean()),
        "avg_support_level": float(per_q["support_level"].mean().mean()),
        "supporting_pass_rate": _pooled_rate(per_q),
        "discovery_rate": float(per_q["has_discovery"].mean().mean()),
        **conditional,
        "discovery_count": int(agg["has_discovery"].astype(bool).sum()),
        "overridden_count": int(agg["global_score_overridden"].sum()),
        "num_questions": int(agg["question"].nunique()),
    }


def qed_hierarchical(data: Judgments | pd.DataFrame, *, mode: Literal["joint", "staged"],
                     texts: QedTexts | None = None, pass_threshold: float = 0.5) -> QedHierarchical:
    """BenchmarkQED's four hierarchical outputs of assay's hierarchical rows, per (task, arm, judge).

    Parameters
    ----------
    data : Judgments or DataFrame
        Rows of one or more ``assertion_hierarchical`` judges (criteria ``global_assertion``,
        ``supporting_assertion``, ``discovery``).
    mode : {"joint", "staged"}
        The judges' mode: it decides the per-trial layout and STAGED's rules.
    texts : QedTexts, optional
        Question, answer and assertion texts; without them ids stand in for texts.
    pass_threshold : float, default 0.5
        A mean over trials above it passes (strictly), as BenchmarkQED's.

    Examples
    --------
    One JOINT global, two trials, both passing, its one supporting assertion passing once:

    >>> rows = pd.DataFrame([
    ...     {"cluster": "q1", "arm": "rag", "judge": "j", "item": "q1#a1" + sfx, "criterion": c,
    ...      "run": r, "score": s, "reasoning": "", "attributes": attrs}
    ...     for r, sup in ((1, 1.0), (2, 0.0))
    ...     for sfx, c, s, attrs in (("", "global_assertion", 1.0, ""),
    ...                              ("/s1", "supporting_assertion", sup, '{"supporting_id": "s1"}'),
    ...                              ("", "discovery", 0.0, ""))])
    >>> out = qed_hierarchical(rows, mode="joint")
    >>> agg = out.aggregated.iloc[0]
    >>> (int(agg.global_score), int(agg.n_supporting), float(agg.support_level),
    ...  bool(agg.global_score_overridden))
    (0, 1, 0.0, True)
    >>> summary = out.eval_summary[0]
    >>> summary["overridden_count"], summary["supporting_pass_rate"]
    (1, 0.0)
    """
    if not 0.0 <= pass_threshold < 1.0:
        raise ValueError(f"pass_threshold: expected a number in [0, 1), got {pass_threshold}")
    if mode not in TRIAL_COLUMNS:
        raise ValueError(f"mode: expected 'joint' or 'staged', got {mode!r}")
    texts = texts or QedTexts()
    frame = assertion_rows(data, ["global_assertion", "supporting_assertion", "discovery"])
    frame["assertion_id"] = [str(i).split("#", 1)[-1].split("/", 1)[0] for i in frame["item"]]
    tables: dict[str, list[pd.DataFrame]] = {"trials": [], "aggregated": [], "by_question": []}
    summaries = []
    for group, rows in frame.groupby(GROUP, sort=False, dropna=False):
        keys = dict(zip(GROUP, group, strict=True))
        g = _Globals(rows, texts)
        found = _joint_trials(g, keys["arm"]) if mode == "joint" else _staged_trials(g, pass_threshold)
        columns = [c for c in TRIAL_COLUMNS[mode] if any(c in r for r in found) or not found]
        trials = pd.DataFrame(found, columns=columns)
        agg = _aggregate(trials, pass_threshold)
        by_q = _by_question(agg)
        for name, table in (("trials", trials), ("aggregated", agg), ("by_question", by_q)):
            tables[name].append(table.assign(**keys))
        if len(agg):
            summaries.append({**_eval_summary(agg), **keys})

    def stack(name: str) -> pd.DataFrame:
        got = tables[name]
        return pd.concat(got, ignore_index=True) if got else pd.DataFrame()

    return QedHierarchical(stack("trials"), stack("aggregated"), stack("by_question"),
                           tuple(summaries), pass_threshold)

