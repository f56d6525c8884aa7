"""The tables BenchmarkQED's notebook prints, from the frames the notebook functions return.

Each function returns a data frame (print it, or ``display`` it); none prints. The statistics
are assay's: :func:`winrate_summary` is ``winrates_sig_tests.csv`` of
:func:`assay.analysis.winrates.win_rates`, BenchmarkQED's ``analyze_criteria`` computed as it
computes it (Shapiro-Wilk, then the paired t test or Wilcoxon's; Holm within one question set,
criterion and judge).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

PAIR_KEYS = ["question_set", "criteria", "base_name", "other_name"]
"""The keys a win-rate summary row is merged on (BenchmarkQED's notebook)."""
_PAIRWISE = ("question", "criteria", "trial", "base_name", "other_name")


def _need(frame: pd.DataFrame, columns: tuple[str, ...] | list[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(what, "missing: expected the frame a notebook function returns (it has "
                         f"{', '.join(map(str, frame.columns))})", column=missing[0])


def pairwise_judgments(frame: pd.DataFrame) -> pd.DataFrame:
    """A BenchmarkQED pairwise frame (``win_rates.csv``'s columns) as judgments-table rows: a row
    per trial with item = the question's text, arm = base_name, opponent = other_name, score =
    the base's score, run = trial, task = question_set, criterion = criteria."""
    import pandas as pd

    _need(frame, _PAIRWISE, "pairwise scores")
    base = frame["base_name"].astype(str)
    score = pd.Series([frame.at[i, f"{b}_score"] if f"{b}_score" in frame.columns else math.nan
                       for i, b in zip(frame.index, base, strict=True)], index=frame.index, dtype=float)
    task = frame["question_set"].astype(str) if "question_set" in frame.columns else "all"
    return pd.DataFrame({
        "item": frame["question"].astype(str), "arm": base, "opponent": frame["other_name"].astype(str),
        "run": frame["trial"].astype(int) + 1, "criterion": frame["criteria"].astype(str),
        "judge": frame["judge"].astype(str) if "judge" in frame.columns else "judge",
        "task": task, "score": score,
    }).dropna(subset=["score"])


def winrate_summary(frame: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """The win-rate summary of pairwise scores, one row per (question set, criterion, pair,
    judge), in ``winrates_sig_tests.csv``'s columns (BenchmarkQED's ``analyze_criteria``:
    base_mean, other_mean, p_value, test, statistic, corrected_p_value, ..., then judge, n).

    ``frame``: what :func:`~assay.notebook.judges.judge_pairwise` or
    :func:`~assay.notebook.judges.judge_differential` returns (frames of several calls may be
    concatenated). Questions are told apart by their text within a question set.
    """
    import pandas as pd

    from assay._display import write_files
    from assay.analysis.winrates import win_rates

    report = win_rates(pairwise_judgments(frame), test="auto", correction="holm-per-group", alpha=alpha)
    with tempfile.TemporaryDirectory(prefix="assay-summary-") as folder:
        write_files(report, folder)
        return pd.read_csv(Path(folder) / "winrates_sig_tests.csv", keep_default_na=False, na_values=[""])


def reference_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and SD (ddof 0, as BenchmarkQED's ``np.std``) of the reference scores per (question
    set, criterion, reference, generated, judge): ``reference_scores_summary.csv`` and the table
    BenchmarkQED's notebook prints ("Reference Scores Summary")."""
    import pandas as pd

    from assay.judge.qed_files import reference_summary_records

    _need(frame, ("criteria", "score", "reference", "generated"), "reference scores")
    records = frame.assign(question_set=frame.get("question_set", ""), judge=frame.get("judge", "judge"))
    rows = reference_summary_records(records.to_dict("records"))
    return pd.DataFrame(rows, columns=["question_set", "criteria", "reference", "generated", "judge",
                                       "mean", "std"])


def _short(a: str, b: str) -> tuple[str, str]:
    """The parts of two method names that differ (BenchmarkQED's ``_distinguishing_labels``).

    >>> _short("vector_rag_short_context", "vector_rag_long_context")
    ('short', 'long')
    """
    prefix = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        prefix += 1
    suffix = 0
    for x, y in zip(a[prefix:][::-1], b[prefix:][::-1], strict=False):
        if x != y:
            break
        suffix += 1
    return (a[prefix:len(a) - suffix].strip("_") or a, b[prefix:len(b) - suffix].strip("_") or b)


def original_vs_differential(original: pd.DataFrame, differential: pd.DataFrame, *,
                             alpha: float = 0.05) -> pd.DataFrame:
    """The original and the differential judge side by side, per (question set, criterion,
    pair): both methods' win rates and the corrected p-value under each judge, and the shift of
    the other method's win rate (differential - original), as BenchmarkQED's notebook prints
    them. Only the (set, criterion, pair) both judges scored."""
    import pandas as pd

    both = winrate_summary(original, alpha=alpha).merge(
        winrate_summary(differential, alpha=alpha), on=PAIR_KEYS, suffixes=("_original", "_differential"))
    rows = []
    for _, r in both.iterrows():
        base, other = _short(str(r["base_name"]), str(r["other_name"]))
        rows.append({"question set": r["question_set"], "criteria": r["criteria"],
                     "base": r["base_name"], "other": r["other_name"],
                     f"{base} WR (orig)": r["base_mean_original"],
                     f"{other} WR (orig)": r["other_mean_original"],
                     "p (orig)": r["formatted_corrected_p_value_original"],
                     f"{base} WR (diff)": r["base_mean_differential"],
                     f"{other} WR (diff)": r["other_mean_differential"],
                     "p (diff)": r["formatted_corrected_p_value_differential"],
                     f"{other} WR Δ (diff-orig)": r["other_mean_differential"] - r["other_mean_original"]})
    return pd.DataFrame(rows)


def _paired_verdicts(joint: pd.DataFrame, separate: pd.DataFrame) -> pd.DataFrame:
    """The trials both variants scored, with each one's base score and reasoning."""
    keys = ["question_set", "question", "criteria", "trial", "base_name", "other_name"]
    for frame, what in ((joint, "joint scores"), (separate, "separate scores")):
        _need(frame, [*keys, "reasoning"], what)

    def slim(frame: pd.DataFrame, tag: str) -> pd.DataFrame:
        rows = pairwise_judgments(frame)
        out = frame.loc[rows.index, keys].copy()
        out[f"{tag}_score"] = rows["score"]
        out[f"{tag}_reasoning"] = frame.loc[rows.index, "reasoning"]
        return out

    return slim(joint, "joint").merge(slim(separate, "separate"), on=keys)


def joint_vs_separate(joint: pd.DataFrame, separate: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Joint against separate differential judging, per criterion and over all (``ALL``), as
    BenchmarkQED's notebook: verdict agreement (share of the trials both scored with the same
    verdict), the mean base win rate of each (question-level: the trials' mean per question),
    their mean difference (separate - joint) and Wilcoxon's signed-rank test of the paired
    question-level win rates (scipy's default method; p = 1 when no pair differs).

    Columns: criteria, n_trials, agreement_rate, n, joint_mean_wr, separate_mean_wr, mean_diff,
    wilcoxon_stat, p_value, significant (p_value < alpha).
    """
    import numpy as np
    import pandas as pd
    from scipy import stats

    paired = _paired_verdicts(joint, separate)
    per_question = (paired.groupby(["question_set", "question", "criteria"], sort=False)
                    [["joint_score", "separate_score"]].mean().reset_index())

    def row(name: str, trials: pd.DataFrame, questions: pd.DataFrame) -> dict[str, Any]:
        a, b = questions["joint_score"].to_numpy(float), questions["separate_score"].to_numpy(float)
        stat, p = 0.0, 1.0
        if len(a) and not np.allclose(b - a, 0.0):
            try:
                result = stats.wilcoxon(a, b)
                stat, p = float(result.statistic), float(result.pvalue)
            except ValueError:
                stat, p = 0.0, 1.0
        return {"criteria": name, "n_trials": len(trials),
                "agreement_rate": float((trials["joint_score"] == trials["separate_score"]).mean())
                if len(trials) else math.nan,
                "n": len(a), "joint_mean_wr": float(a.mean()) if len(a) else math.nan,
                "separate_mean_wr": float(b.mean()) if len(b) else math.nan,
                "mean_diff": float((b - a).mean()) if len(a) else math.nan,
                "wilcoxon_stat": stat, "p_value": p, "significant": p < alpha}

    rows = [row(str(c), paired[paired["criteria"] == c], per_question[per_question["criteria"] == c])
            for c in dict.fromkeys(paired["criteria"])]
    rows.append(row("ALL", paired, per_question))
    return pd.DataFrame(rows)


def disagreements(joint: pd.DataFrame, separate: pd.DataFrame, n: int | None = 3) -> pd.DataFrame:
    """The trials where joint and separate judging gave different verdicts, with both rationales
    (BenchmarkQED's "verdicts disagree" examples): question_set, question, criteria, trial,
    base_name, other_name, joint_verdict, joint_reasoning, separate_verdict, separate_reasoning;
    the first ``n`` (None: all). ``verdict`` names the winner (the base, the other, or tie)."""
    paired = _paired_verdicts(joint, separate)
    differ = paired[paired["joint_score"] != paired["separate_score"]].reset_index(drop=True)

    def verdict(score: float, base: str, other: str) -> str:
        return "tie" if score == 0.5 else (f"{base} wins" if score == 1.0 else f"{other} wins")

    for tag in ("joint", "separate"):
        differ[f"{tag}_verdict"] = [verdict(s, b, o) for s, b, o in
                                    zip(differ[f"{tag}_score"], differ["base_name"], differ["other_name"],
                                        strict=True)]
    columns = ["question_set", "question", "criteria", "trial", "base_name", "other_name",
               "joint_verdict", "joint_reasoning", "separate_verdict", "separate_reasoning"]
    out = differ[columns]
    return out if n is None else out.head(n)


def chunk_coverage_by_k(frame: pd.DataFrame) -> pd.DataFrame:
    """Chunk-level coverage at each k (BenchmarkQED's "Chunk-level Assertion Scoring Results"):
    k, coverage, strict_coverage, coverage_strength, mean_chunks, with the grouping columns
    (judge, arm, task) first; k in numeric order, ``all`` last. ``frame``: ``chunk_coverage.csv``
    of a run with a ``chunk_assertion`` judge."""
    _need(frame, ("k", "coverage", "strict_coverage", "coverage_strength", "mean_chunks"), "chunk coverage")
    groups = [c for c in ("judge", "arm", "task") if c in frame.columns]

    def order(label: Any) -> tuple[int, int]:
        text = str(label)
        return (0, int(text[1:])) if text.startswith("k") and text[1:].isdigit() else (1, 0)

    ranked = frame.assign(_order=[order(k) for k in frame["k"]])
    ranked = ranked.sort_values([*groups, "_order"], kind="stable")
    columns = [*groups, "k", "coverage", "strict_coverage", "coverage_strength", "mean_chunks"]
    return ranked[columns].reset_index(drop=True)
