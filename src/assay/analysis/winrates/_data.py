"""Pairwise rows of a judgments table as trials and question-level win rates.

A *trial* is one judgment of an ordered presentation: (judge, criterion, item, arm, opponent,
run, position). Each unordered pair of arms is read from one side, the side of its first row
in table order ("the arm"): a row stored from the other side has its score replaced by
1 - score and its position by 3 - position. A trial stored from both sides (some judges write
a row per arm) becomes one trial: the mean of the two scores, failed if either is. A trial
without a score is failed; a trial with a score counts even if it carries a failure kind.

The *question-level* win rate of (judge, criterion, arm, opponent, item) averages the scored
trials over positions within each run, then over runs, so a question judged in both orders
(counterbalanced trials) counts once, whatever the number of trials: the question is the unit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from assay.analysis._weights import refuse_weights
from assay.errors import DesignError

KEYS = ["judge", "criterion", "arm", "opponent"]
"""A comparison: one judge's verdicts on one criterion for one ordered pair of arms."""
TRIAL = [*KEYS, "item", "run", "position"]
"""A trial: one judgment of one presentation order."""
_SEP = "\x1f"


def pairwise_rows(frame: pd.DataFrame, notes: list[str], *,
                  weights: bool = False) -> pd.DataFrame:
    """The reportable rows with an opponent, with every optional column the analysis reads.

    With ``weights`` the rows keep a ``weight`` column (1 where the table has none) for an
    analysis that weights rows; without, a table with row weights other than 1 is refused.
    """
    if "opponent" not in frame or not frame["opponent"].notna().any():
        raise DesignError("the table has no pairwise rows (rows with an 'opponent'): win rates "
                          "need judgments of one arm against another")
    defaults = {"cluster": None, "run": 1, "judge": "unspecified", "criterion": "score",
                "reportable": True, "position": np.nan, "task": None, "failure_kind": None,
                "reasoning": None}
    rows = frame[frame["opponent"].notna()].copy()
    if weights:
        rows["weight"] = (pd.to_numeric(rows["weight"], errors="coerce").fillna(1.0)
                          if "weight" in rows else 1.0)
    else:
        refuse_weights(rows, "win rates")
    for column, value in defaults.items():
        if column not in rows:
            rows[column] = value
    rows["cluster"] = rows["cluster"].where(rows["cluster"].notna(), rows["item"])
    held_back = int((~rows["reportable"].astype(bool)).sum())
    if held_back:
        rows = rows[rows["reportable"].astype(bool)]
        notes.append(f"{held_back} pairwise rows of the dev or calibration split are not "
                     "reportable and are left out.")
    score = pd.to_numeric(rows["score"], errors="coerce")
    bad = score.notna() & ((score < 0) | (score > 1))
    if bad.any():
        criteria = sorted(map(str, rows.loc[bad, "criterion"].unique()))
        raise DesignError(f"pairwise scores must lie in [0, 1] (1 win, 0.5 tie, 0 loss for the "
                          f"arm); criterion {', '.join(map(repr, criteria))} has "
                          f"{int(bad.sum())} score(s) outside")
    for column in ("item", "cluster", "arm", "opponent", "judge", "criterion"):
        rows[column] = rows[column].astype(str)
    rows["score"] = score.astype(np.float64)
    rows["run"] = pd.to_numeric(rows["run"]).astype(np.int64)
    rows["position"] = pd.to_numeric(rows["position"], errors="coerce").astype(np.float64)
    return rows.reset_index(drop=True)


def oriented_trials(rows: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """One row per trial, every pair read from the side of its first row in table order."""
    arm, opp = rows["arm"], rows["opponent"]
    key = np.where(arm <= opp, arm + _SEP + opp, opp + _SEP + arm)
    first_arm = pd.Series(arm.to_numpy(), index=key).groupby(level=0, sort=False).first()
    forward = arm.to_numpy() == first_arm.reindex(key).to_numpy()
    extra = ["weight"] if "weight" in rows else []
    trials = rows[[*TRIAL, "cluster", "task", "score", "failure_kind", "reasoning",
                   *extra]].copy()
    trials["arm"] = np.where(forward, arm, opp)
    trials["opponent"] = np.where(forward, opp, arm)
    trials["score"] = np.where(forward, rows["score"], 1.0 - rows["score"])
    trials["position"] = np.where(forward, rows["position"], 3.0 - rows["position"])
    n_flipped = int((~forward).sum())
    if n_flipped:
        notes.append(f"{n_flipped} pairwise rows were stored from the opponent's side and are read "
                     "from the arm's side (score 1 - s, position 3 - p): each pair of arms is "
                     "reported once, from the side of its first row in the table.")
    duplicated = trials.duplicated(TRIAL, keep=False)
    if duplicated.any():
        both = trials[duplicated]
        merged = both.groupby(TRIAL, sort=False, dropna=False).agg(
            score=("score", "mean"), scored=("score", "count"), size=("score", "size"),
            cluster=("cluster", "first"), task=("task", "first"),
            failure_kind=("failure_kind", "first"), reasoning=("reasoning", "first"),
            **({"weight": ("weight", "mean")} if extra else {}),
        ).reset_index()
        merged["score"] = merged["score"].where(merged["scored"] == merged["size"])
        merged = merged.drop(columns=["scored", "size"])
        trials = pd.concat([trials[~duplicated], merged], ignore_index=True)
        notes.append(f"{int(duplicated.sum())} rows judged the same trial from both sides and are "
                     f"merged into {len(merged)} trials (the mean of the two readings; failed if "
                     "either failed).")
    return trials.reset_index(drop=True)


def question_values(trials: pd.DataFrame) -> pd.DataFrame:
    """Question-level win rates: mean over positions within a run, then over runs.

    Columns: judge, criterion, arm, opponent, item, cluster, task, value. Questions whose every
    trial failed are absent.
    """
    scored = trials[trials["score"].notna()]
    q = [*KEYS, "item"]
    per_run = scored.groupby([*q, "run"], sort=False)["score"].mean()
    values = per_run.groupby(level=q, sort=False).mean().rename("value").reset_index()
    where = scored.groupby(q, sort=False)[["cluster", "task"]].first().reset_index()
    return values.merge(where, on=q, how="left")

