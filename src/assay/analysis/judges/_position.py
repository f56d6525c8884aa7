"""Positional flip rate of each pairwise judge from counterbalanced trials.

A comparison is an (item, unordered pair of arms) judged by one judge on one criterion. Rows
are read from the point of view of the first arm of the pair in sorted order ("the arm"):
its score (1 - score when the row is the opponent's) and its position (3 - position). A row
stored from both points of view is averaged into one. The k-th trial with the arm shown
first is paired with the k-th with it shown second, in run order, which pairs positions 1
and 2 of one run when each run has both, and runs 1-2, 3-4, ... when the position alternates
with the run (BenchmarkQED's counterbalanced trials). A trial pair with a failed trial (no
score), or a trial without a partner, is left out and counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from assay.stats._results import Alternative
from assay.stats.agreement import position_flip_rate
from assay.stats.intervals import cluster_t_interval, korn_graubard_interval

NAN = float("nan")


@dataclass(frozen=True)
class PositionRecord:
    """Positional flip rate (PFR) of one judge on one criterion."""

    judge: str
    criterion: str
    n: int
    """Complete trial pairs (a comparison judged once in each order)."""
    n_incomplete: int
    """Trials without a usable partner (a failed trial or an unpaired order), left out."""
    n_flips: int
    flip_rate: float
    """PFR before mitigation: share of trial pairs whose verdict (win, tie, loss) changes when
    the order is swapped."""
    lower: float
    """Cluster-robust bounds of ``flip_rate`` (trial pairs within a cluster of items are not
    independent); NaN with fewer than 2 clusters."""
    upper: float
    method: str
    """Interval method: ``logit_cluster_robust_t``, or Korn-Graubard when that is undefined."""
    reversal_rate: float
    """Share of trial pairs whose verdict reverses outright (win <-> loss)."""
    first_shown_preference: float
    """Share of decisive trials won by the answer shown first (0.5: no position preference)."""
    flip_rate_after: float
    """PFR after swap-and-average: share of pairs of trial pairs of one comparison whose
    averaged verdicts differ; null without repeated trial pairs."""
    n_after: int
    """Pairs of trial pairs behind ``flip_rate_after``."""


def _pairwise_groups(frame: pd.DataFrame) -> pd.api.typing.DataFrameGroupBy:
    """The rows with a position 1 or 2 and an opponent, by (judge, criterion)."""
    rows = frame[frame["position"].notna() & frame["opponent"].notna()
                 & frame["position"].isin([1, 2])]
    return rows.groupby(["judge", "criterion"], sort=False)


def _outside_unit(values: pd.Series) -> bool:
    """Whether some score is not a pairwise verdict (1 win, 0.5 tie, 0 loss on [0, 1])."""
    return bool(((values < 0) | (values > 1)).any())


def flipped(first: np.ndarray | pd.Series, second: np.ndarray | pd.Series) -> np.ndarray:
    """Whether each trial pair flips: its verdicts sign(s - 1/2) (win, tie, loss) differ
    between the two orders (the flip of :func:`assay.stats.agreement.position_flip_rate`)."""
    return np.asarray(np.sign(np.asarray(first, dtype=np.float64) - 0.5)
                      != np.sign(np.asarray(second, dtype=np.float64) - 0.5))


def position_records(frame: pd.DataFrame, *, conf: float, notes: list[str]) -> list[PositionRecord]:
    """PFR per (judge, criterion) of the rows with a position; `frame` has a ``pair_value``
    column (the score on [0, 1], NaN for a failed trial)."""
    records: list[PositionRecord] = []
    for (judge, criterion), group in _pairwise_groups(frame):
        if _outside_unit(group["pair_value"]):
            notes.append(f"position: judge {judge!r} on {criterion!r} has scores outside [0, 1], "
                         "so they are not pairwise verdicts (1 win, 0.5 tie, 0 loss) and no flip "
                         "rate is computed.")
            continue
        pairs, incomplete = _trial_pairs(group)
        if pairs.empty:
            notes.append(f"position: judge {judge!r} on {criterion!r} has no comparison judged in "
                         "both orders, so its flip rate cannot be measured.")
            continue
        result = position_flip_rate(pairs["first"].to_numpy(), pairs["second"].to_numpy(),
                                    comparison=pairs["comparison"].to_numpy())
        lower, upper, method = _interval(pairs, result.estimate, conf)
        if result.after_undefined:
            notes.append(f"position: judge {judge!r} on {criterion!r} judged each comparison in one "
                         "trial pair only, so the flip rate after swap-and-average (which "
                         "compares repeated trial pairs) is not measured.")
        if incomplete:
            notes.append(f"position: judge {judge!r} on {criterion!r}: {incomplete} trial(s) without "
                         "a scored partner in the other order are left out of the flip rate.")
        records.append(PositionRecord(
            judge=str(judge), criterion=str(criterion), n=result.n, n_incomplete=incomplete,
            n_flips=result.n_flips, flip_rate=result.estimate, lower=lower, upper=upper,
            method=method, reversal_rate=result.reversal_rate,
            first_shown_preference=result.first_shown_preference,
            flip_rate_after=result.after_swap_average, n_after=result.n_after))
    return records


def trial_pair_flips(frame: pd.DataFrame) -> pd.Series:
    """Per row of ``frame`` (the columns of :func:`position_records`): 1.0 when it belongs to
    a trial pair that flips, 0.0 to one that does not, NaN when it is in no trial pair that
    :func:`position_records` counts (no position, a failed or unpaired trial, or a judge
    whose scores are not pairwise verdicts). The rows behind ``n_flips``."""
    out = pd.Series(np.nan, index=frame.index, dtype=np.float64)
    for _, group in _pairwise_groups(frame):
        if _outside_unit(group["pair_value"]):
            continue
        g, trials, merged, usable = _pairing(group)
        pairs = merged[usable]
        keys = ["cluster", "item", "lo", "hi", "pos", "k"]
        flips = pd.concat([
            pairs[[*keys[:4], "k"]].assign(pos=pos, flip=flipped(pairs["value_1"], pairs["value_2"]))
            for pos in (1, 2)])
        rows = g.reset_index(names="row").merge(trials[[*keys[:4], "run", "pos", "k"]],
                                                on=[*keys[:4], "run", "pos"])
        rows = rows.merge(flips, on=keys)
        out.loc[rows["row"].to_numpy()] = rows["flip"].to_numpy(dtype=np.float64)
    return out


def _pairing(group: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.Series]:
    """(each row from the arm's point of view, the trials numbered ``k`` per order, the
    k-th trials of the two orders side by side, which of those are complete)."""
    arm, opp = group["arm"].astype(str), group["opponent"].astype(str)
    forward = arm <= opp
    g = pd.DataFrame({
        "cluster": group["cluster"].astype(str), "item": group["item"].astype(str),
        "lo": np.where(forward, arm, opp), "hi": np.where(forward, opp, arm),
        "run": group["run"].astype(int),
        "pos": np.where(forward, group["position"], 3 - group["position"]).astype(int),
        "value": np.where(forward, group["pair_value"], 1.0 - group["pair_value"]),
    }, index=group.index)
    keys = ["cluster", "item", "lo", "hi"]
    # both points of view of one trial become one row (NaN if either failed)
    stats = g.groupby([*keys, "run", "pos"], sort=True)["value"].agg(["mean", "count", "size"])
    trials = stats["mean"].where(stats["count"] == stats["size"]).rename("value").reset_index()
    trials["k"] = trials.groupby([*keys, "pos"]).cumcount()
    first = trials[trials["pos"] == 1].drop(columns=["pos", "run"])
    second = trials[trials["pos"] == 2].drop(columns=["pos", "run"])
    merged = first.merge(second, on=[*keys, "k"], how="outer", suffixes=("_1", "_2"))
    usable = merged["value_1"].notna() & merged["value_2"].notna()
    return g, trials, merged, usable


def _trial_pairs(group: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    _, trials, merged, usable = _pairing(group)
    incomplete = len(trials) - 2 * int(usable.sum())
    pairs = merged[usable]
    out = pd.DataFrame({
        "cluster": pairs["cluster"], "first": pairs["value_1"].astype(float),
        "second": pairs["value_2"].astype(float),
        "comparison": pairs["item"] + "\x1f" + pairs["lo"] + "\x1f" + pairs["hi"],
    })
    return out.reset_index(drop=True), incomplete


def _interval(pairs: pd.DataFrame, estimate: float, conf: float) -> tuple[float, float, str]:
    flips = pd.Series(flipped(pairs["first"], pairs["second"]), index=pairs.index).astype(float)
    by_cluster = flips.groupby(pairs["cluster"])
    sums = by_cluster.sum().to_numpy(dtype=np.float64)
    sizes = by_cluster.size().to_numpy(dtype=np.float64)
    if sums.size < 2:
        return NAN, NAN, "too_few_clusters"
    # CR2 with Bell-McCaffrey df, as every cluster-sum interval (C - 1 df when the clusters
    # have one size); a flip is 0 or 1, so each cluster's sum of squares is its sum
    result = cluster_t_interval(sums, sizes, conf=conf, variance="CR2", sumsq=sums)
    if not (math.isnan(result.lower) or math.isnan(result.upper)):
        return result.lower, result.upper, result.method
    alternative: Alternative = ("greater" if estimate >= 1 else "less" if estimate <= 0
                                else "two-sided")
    kg = korn_graubard_interval(sums, sizes, conf=conf, alternative=alternative)
    return kg.lower, kg.upper, kg.method
