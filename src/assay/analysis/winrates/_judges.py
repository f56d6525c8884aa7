"""Two judges (or two judging modes, e.g. joint and separate criteria) on the same comparisons.

BenchmarkQED's "joint vs separate" experiment and its sweep over judge models ask two things of
each pair of judges: how often their verdicts agree on the same trial (question, arm, opponent,
trial), and whether their win rates differ systematically (a paired test over questions of
the question-level win rates). Modes of one model are told apart by the ``judge`` column
(``gpt-4.1/joint``, ``gpt-4.1/separate``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.analysis.winrates._data import TRIAL
from assay.analysis.winrates._stats import NAN, Test, paired_outcome
from assay.stats.agreement import agreement_rate


@dataclass(frozen=True)
class JudgeComparison:
    """Two judges on the same comparisons of one pair of arms, on one criterion."""

    criterion: str
    judge_a: str
    judge_b: str
    arm: str
    opponent: str
    n_trials: int
    """Trials (item, run, position) both judges scored."""
    n_agree: int
    agreement_rate: float
    """Share of those trials with the same verdict (win, tie or loss for the arm; a graded
    score by its side of 1/2)."""
    n: int
    """Questions with a question-level win rate from both judges."""
    n_clusters: int
    win_rate_a: float
    """Mean question-level win rate of the arm under judge_a, over the shared questions."""
    win_rate_b: float
    difference: float
    """win_rate_a - win_rate_b."""
    lower: float
    """Cluster-robust paired interval of the difference; NaN when undefined."""
    upper: float
    standard_error_clustered: float
    interval_method: str
    test: str
    statistic: float
    p_value: float
    """Paired test of difference = 0 (the win-rate report's ``test``)."""
    p_adjusted: float
    """Holm-adjusted over the judge comparisons shown (or per criterion)."""
    significant: bool | None


def judge_comparisons(trials: pd.DataFrame, values: pd.DataFrame, *, test: Test, alpha: float,
                      conf: float, notes: list[str]) -> list[JudgeComparison]:
    """Every pair of judges (table order) sharing scored trials, per criterion and pair of arms."""
    out: list[JudgeComparison] = []
    scored = trials[trials["score"].notna()].assign(
        position=trials["position"].fillna(0.0))
    where = [k for k in TRIAL if k != "judge"]
    for criterion, rows in scored.groupby("criterion", sort=False):
        judges = list(pd.unique(rows["judge"]))
        for i, ja in enumerate(judges):
            for jb in judges[i + 1:]:
                a = rows[rows["judge"] == ja][[*where, "score"]]
                b = rows[rows["judge"] == jb][[*where, "score"]]
                both = a.merge(b, on=where, suffixes=("_a", "_b"))
                if both.empty:
                    continue
                for (arm, opp), pair in both.groupby(["arm", "opponent"], sort=False):
                    out.append(_compare(str(criterion), str(ja), str(jb), str(arm), str(opp), pair,
                                        values, test=test, alpha=alpha, conf=conf, notes=notes))
    return out


def _verdict(score: pd.Series) -> npt.NDArray[np.float64]:
    verdict: npt.NDArray[np.float64] = np.sign(score.to_numpy(dtype=np.float64) - 0.5)
    return verdict


def _compare(criterion: str, ja: str, jb: str, arm: str, opp: str, pair: pd.DataFrame,
             values: pd.DataFrame, *, test: Test, alpha: float, conf: float,
             notes: list[str]) -> JudgeComparison:
    agree = agreement_rate(_verdict(pair["score_a"]), _verdict(pair["score_b"]))
    sel = (values["criterion"] == criterion) & (values["arm"] == arm) & (values["opponent"] == opp)
    va = values[sel & (values["judge"] == ja)][["item", "cluster", "value"]]
    vb = values[sel & (values["judge"] == jb)][["item", "value"]]
    q = va.merge(vb, on="item", suffixes=("_a", "_b"))

    def note(text: str) -> None:
        notes.append(f"judges {ja} vs {jb} / {criterion} / {arm} vs {opp}: {text}.")

    d = (q["value_a"] - q["value_b"]).to_numpy(dtype=np.float64)
    outcome = paired_outcome(d, q["cluster"].to_numpy(dtype=object), null=0.0, bounds=(-1.0, 1.0),
                             test=test, alpha=alpha, conf=conf, fallback_kg=False, note=note)
    return JudgeComparison(
        criterion=criterion, judge_a=ja, judge_b=jb, arm=arm, opponent=opp,
        n_trials=agree.n, n_agree=agree.n_agree, agreement_rate=agree.estimate, n=len(q),
        n_clusters=outcome.n_clusters,
        win_rate_a=float(q["value_a"].mean()) if len(q) else NAN,
        win_rate_b=float(q["value_b"].mean()) if len(q) else NAN,
        difference=outcome.estimate, lower=outcome.lower, upper=outcome.upper,
        standard_error_clustered=outcome.standard_error_clustered,
        interval_method=outcome.interval_method, test=outcome.test, statistic=outcome.statistic,
        p_value=outcome.p_value, p_adjusted=NAN, significant=None)

