"""BenchmarkQED's CSV layout of assay's results (formatting only, no statistics).

``win_rates.csv`` has one row per trial in the columns of BenchmarkQED's ``get_pairwise_scores``
output (``score_id``, ``question``, ``answer_1_name``, ``answer_1``, ``answer_2_name``,
``answer_2``, ``criteria``, a ``<method>_score`` column per arm, ``reasoning``, ``trial``,
``base_name``, ``other_name``, ``question_set``), then ``judge``, ``cluster``, ``run``,
``position`` and ``failure_kind``. ``question`` is the item id (the table keeps no question
text) and ``answer_1``/``answer_2`` are empty (nor answer texts); ``trial`` numbers a
comparison's trials from 0 in (run, position) order; a failed trial has empty scores, a
trial without a position empty answer names.

``winrates_sig_tests.csv`` is BenchmarkQED's ``analyze_criteria`` output, computed as it
computes it (:attr:`WinRateReport.criteria <assay.analysis.winrates.WinRateReport.criteria>`):
one row per (question set, criterion, base, other) in its columns (``question_set``,
``criteria``, ``base_name``, ``other_name``, ``base_mean``, ``shapiro_base``,
``base_normal``, ``other_mean``, ``shapiro_other``, ``other_normal``, ``p_value``, ``test``
(``paired t-test`` or ``wilcoxon``), ``statistic`` (t, or Wilcoxon's z as scipy reports it),
``uncorrected_significance``, ``formatted_p_value``, ``corrected_p_value`` (Holm, or the
configured correction, within each question set and criterion),
``corrected_significance``, ``formatted_corrected_p_value``), then ``judge`` and ``n``
(questions). ``winrates_cluster_tests.csv`` is assay's own: one row per record of the report
(cluster-robust test by default, ``question_set`` ``ALL`` for all question sets together,
Holm over every comparison shown), the same columns with ``standard_error``, ``lower``,
``upper``, then ``method`` naming the test and ``correction`` naming the family.

The hierarchical files under BenchmarkQED's names (``hierarchical_assertion_scores.csv`` per
trial, ``hierarchical_assertion_summary.csv``, ``hierarchical_summary_by_question.csv``,
``eval_summary.json``) are BenchmarkQED's single-RAG outputs computed as it computes them
(:mod:`assay.analysis.assertions._qed_hierarchical`); assay's own hierarchical summary goes to
``hierarchical_scores_by_assertion.csv``, ``hierarchical_scores_by_question.csv`` and
``hierarchical_summary.csv``. The other assertion summaries are written as
``assertion_scores_*.csv``, ``chunk_coverage*.csv`` and ``significance_summary.csv``. Every
CSV goes through :mod:`assay.data.cells` (no cell a spreadsheet would run as a formula).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from assay.data.cells import write_csv_frame

if TYPE_CHECKING:
    from assay.analysis.assertions import (
        AssertionSummary,
        ChunkCoverage,
        HierarchicalSummary,
        QedHierarchical,
    )
    from assay.analysis.assertions._significance import AssertionSignificance
    from assay.analysis.winrates import WinRateReport

__all__ = [
    "CRITERIA_COLUMNS",
    "PAIR_KEYS",
    "criteria_rows",
    "sig_test_rows",
    "trial_rows",
    "write_assertion_tables",
    "write_chunk_coverage",
    "write_hierarchical_tables",
    "write_qed_hierarchical",
    "write_significance_summary",
    "write_tables",
    "write_winrate_comparison",
    "write_winrate_csvs",
]

PAIR_KEYS = ["question_set", "criteria", "base_name", "other_name"]
"""The keys a comparison of two win-rate summaries is merged on."""


def _qed_p(x: float) -> str:
    if math.isnan(x):
        return ""
    return f"{x:.3f}" if x > 0.001 else "< 0.001"


def _text(column: pd.Series) -> pd.Series:
    """A column as text for an id, a missing value (None, NaN) as the empty string."""
    return column.astype(object).where(column.notna(), "").map(str)


def trial_rows(trials: pd.DataFrame) -> pd.DataFrame:
    """``win_rates.csv``: one row per trial in BenchmarkQED's columns.

    ``score_id`` is the first 32 hex digits of the SHA-256 of (judge, criterion, item, arm,
    opponent, run, position) joined by U+001F, a missing value (a table without positions)
    as the empty string.
    """
    t = trials.sort_values(["judge", "criterion", "item", "arm", "opponent", "run", "position"],
                           kind="stable")
    pos = t["position"]
    arm, opp, score = t["arm"], t["opponent"], t["score"]
    parts = [_text(t[c]) for c in ("judge", "criterion", "item", "arm", "opponent", "run",
                                    "position")]
    ident = ["\x1f".join(values) for values in zip(*parts, strict=True)]
    out = pd.DataFrame({
        "score_id": [hashlib.sha256(s.encode("utf-8")).hexdigest()[:32] for s in ident],
        "question": t["item"],
        "answer_1_name": np.where(pos == 1, arm, np.where(pos == 2, opp, None)),
        "answer_1": None,
        "answer_2_name": np.where(pos == 1, opp, np.where(pos == 2, arm, None)),
        "answer_2": None,
        "criteria": t["criterion"],
    }, index=t.index)
    for name in pd.unique(pd.concat([arm, opp])):
        if pd.isna(name):
            continue
        out[f"{name}_score"] = np.where(arm == name, score, np.where(opp == name, 1.0 - score, np.nan))
    out["reasoning"] = t["reasoning"]
    keys = ["judge", "criterion", "item", "arm", "opponent"]
    out["trial"] = t.groupby(keys, sort=False, dropna=False).cumcount()
    out["base_name"], out["other_name"] = arm, opp
    out["question_set"] = t["task"]
    for column in ("judge", "cluster", "run", "position", "failure_kind"):
        out[column] = t[column]
    return out.reset_index(drop=True)


CRITERIA_COLUMNS = ["question_set", "criteria", "base_name", "other_name", "base_mean",
                    "shapiro_base", "base_normal", "other_mean", "shapiro_other", "other_normal",
                    "p_value", "test", "statistic", "uncorrected_significance",
                    "formatted_p_value", "corrected_p_value", "corrected_significance",
                    "formatted_corrected_p_value", "judge", "n"]
"""``winrates_sig_tests.csv``: BenchmarkQED's ``analyze_criteria`` columns, then judge and n."""


def _below(p: float, alpha: float) -> bool | None:
    return None if math.isnan(p) else bool(p < alpha)


def _above(p: float, alpha: float) -> bool:
    return bool(p > alpha)  # NaN (fewer than 3 questions) is not normal, as BenchmarkQED


def criteria_rows(report: WinRateReport) -> pd.DataFrame:
    """``winrates_sig_tests.csv``: BenchmarkQED's tests, one row per (question set, criterion,
    base, other, judge) in :data:`CRITERIA_COLUMNS`."""
    a = report.alpha
    rows = [dict(zip(CRITERIA_COLUMNS, (
        "" if r.question_set is None else r.question_set, r.criterion, r.base, r.other,
        r.base_mean, r.shapiro_base, _above(r.shapiro_base, a), r.other_mean, r.shapiro_other,
        _above(r.shapiro_other, a), r.p_value, r.test, r.statistic, _below(r.p_value, a),
        _qed_p(r.p_value), r.p_adjusted, _below(r.p_adjusted, a), _qed_p(r.p_adjusted),
        r.judge, r.n), strict=True)) for r in report.criteria]
    return pd.DataFrame(rows, columns=CRITERIA_COLUMNS)


def _family(report: WinRateReport) -> str:
    n = sum(1 for r in report.records if not r.is_aa and math.isfinite(r.p_value))
    if report.correction == "holm-per-group":
        return "holm within judge, criterion and question set"
    return f"holm over all {n} comparisons shown (A/A apart)"


def sig_test_rows(report: WinRateReport) -> pd.DataFrame:
    """``winrates_cluster_tests.csv`` (assay's tests) and the summaries of
    ``original_vs_differential_comparison.csv``: one row per record."""
    rows = []
    for r in report.records:
        normal = None if math.isnan(r.normality_p_value) else r.normality_p_value > report.alpha
        rows.append({
            "question_set": r.task if r.task is not None else "ALL", "criteria": r.criterion,
            "base_name": r.arm, "other_name": r.opponent, "base_mean": r.win_rate,
            "shapiro_base": r.normality_p_value, "base_normal": normal,
            "other_mean": 1.0 - r.win_rate, "shapiro_other": r.normality_p_value,
            "other_normal": normal, "p_value": r.p_value, "test": r.test,
            "statistic": r.statistic,
            "uncorrected_significance": None if math.isnan(r.p_value) else r.p_value < report.alpha,
            "formatted_p_value": _qed_p(r.p_value), "corrected_p_value": r.p_adjusted,
            "corrected_significance": r.significant,
            "formatted_corrected_p_value": _qed_p(r.p_adjusted),
            "judge": r.judge, "n": r.n, "standard_error": r.standard_error, "lower": r.lower,
            "upper": r.upper, "method": r.test, "correction": _family(report),
        })
    return pd.DataFrame(rows)


def write_winrate_csvs(report: WinRateReport, out_dir: Path) -> list[Path]:
    """Write ``win_rates.csv``, ``winrates_sig_tests.csv`` (BenchmarkQED's tests) and
    ``winrates_cluster_tests.csv`` (assay's); return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_csv_frame(trial_rows(report.trials), out_dir / "win_rates.csv"),
            write_csv_frame(criteria_rows(report), out_dir / "winrates_sig_tests.csv"),
            write_csv_frame(sig_test_rows(report), out_dir / "winrates_cluster_tests.csv")]


def write_winrate_comparison(report: WinRateReport, out_dir: Path, *,
                             judge_kinds: dict[str, str], name: str) -> list[Path]:
    """``name``: the win-rate summaries of the ``pairwise`` judges merged with those of the
    ``differential`` judges (``judge_kinds`` maps a judge to its kind) on :data:`PAIR_KEYS`,
    suffixes ``_original`` and ``_differential``, and ``winrate_delta`` =
    other_mean_differential - other_mean_original."""
    summary = sig_test_rows(report)
    kind = summary["judge"].map(judge_kinds)
    comparison = summary[kind == "pairwise"].merge(summary[kind == "differential"], on=PAIR_KEYS,
                                                   suffixes=("_original", "_differential"))
    comparison["winrate_delta"] = (comparison["other_mean_differential"]
                                   - comparison["other_mean_original"])
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_csv_frame(comparison, out_dir / name)]


def write_tables(out_dir: str | Path, tables: dict[str, pd.DataFrame]) -> list[Path]:
    """Write each table as ``out_dir/NAME`` (CSV, no index); return the paths in order."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [write_csv_frame(table, out / name) for name, table in tables.items()]


def write_assertion_tables(summary: AssertionSummary, out_dir: Path) -> list[Path]:
    """``assertion_scores_by_assertion.csv``, ``assertion_scores_by_question.csv``,
    ``assertion_scores_summary.csv``."""
    return write_tables(out_dir, {"assertion_scores_by_assertion.csv": summary.by_assertion,
                                  "assertion_scores_by_question.csv": summary.by_question,
                                  "assertion_scores_summary.csv": summary.overall})


def write_hierarchical_tables(summary: HierarchicalSummary, out_dir: Path) -> list[Path]:
    """assay's own hierarchical summary: ``hierarchical_scores_by_assertion.csv`` (one row per
    global assertion id), ``hierarchical_scores_by_question.csv`` (supporting assertions
    deduplicated on their ids), ``hierarchical_summary.csv``."""
    return write_tables(out_dir, {"hierarchical_scores_by_assertion.csv": summary.aggregated,
                                  "hierarchical_scores_by_question.csv": summary.by_question,
                                  "hierarchical_summary.csv": summary.overall})


def eval_summary_text(summaries: tuple[dict[str, object], ...]) -> str:
    """``eval_summary.json`` as BenchmarkQED writes it (``json.dumps``, no indent): the one
    group's dict without assay's keys (task, arm, judge), or the list of the groups' dicts,
    their keys kept, when there are several.

    >>> eval_summary_text(({"total_assertions": 2, "task": "t", "arm": "a", "judge": "j"},))
    '{"total_assertions": 2}'
    """
    if len(summaries) == 1:
        return json.dumps({k: v for k, v in summaries[0].items() if k not in ("task", "arm", "judge")})
    return json.dumps(list(summaries))


def write_qed_hierarchical(result: QedHierarchical, out_dir: Path) -> list[Path]:
    """BenchmarkQED's single-RAG hierarchical files: ``hierarchical_assertion_scores.csv`` (per
    trial), ``hierarchical_assertion_summary.csv``, ``hierarchical_summary_by_question.csv``
    and ``eval_summary.json`` (when a global was scored)."""
    paths = write_tables(out_dir, {"hierarchical_assertion_scores.csv": result.trials,
                                   "hierarchical_assertion_summary.csv": result.aggregated,
                                   "hierarchical_summary_by_question.csv": result.by_question})
    if result.eval_summary:
        path = Path(out_dir) / "eval_summary.json"
        path.write_text(eval_summary_text(result.eval_summary), encoding="utf-8")
        paths.append(path)
    return paths


def write_chunk_coverage(coverage: ChunkCoverage, out_dir: Path) -> list[Path]:
    """``chunk_coverage.csv`` and ``chunk_coverage_by_question.csv``."""
    return write_tables(out_dir, {"chunk_coverage.csv": coverage.table,
                                  "chunk_coverage_by_question.csv": coverage.per_question})


def write_significance_summary(significance: AssertionSignificance, out_dir: Path) -> list[Path]:
    """``significance_summary.csv`` when there is a test; return the paths written."""
    if not significance.tests:
        return []
    return write_tables(out_dir, {"significance_summary.csv": significance.summary_frame()})
