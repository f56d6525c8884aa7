"""Which way verdicts flip when the order is swapped: the direction of position bias.

The flip rate counts trial pairs whose verdict changes when the two answers swap places, in
either direction, so it mixes a judge's noise with its position bias: with a wide tie band, a
moderate bias can move verdicts without changing how many flip. The direction separates the
two. For a trial pair (the arm shown first, then shown second) with verdicts v1 and v2 for the
arm (win 1, tie 0, loss -1), d = sign(v1 - v2) is +1 when the verdict moved towards whichever
answer was shown first, -1 when it moved towards the second, 0 when it did not move. Without a
position effect the two directions are equally likely, so the mean of d is 0; it is tested
with the report's paired test over trial pairs, clustered by the table's ``cluster``.

Trial pairs are formed as in the judges report's flip rate: the k-th trial of a comparison
with the arm in position 1 is paired with the k-th with it in position 2, in run order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from assay.analysis.winrates._stats import NAN, Test, paired_outcome


@dataclass(frozen=True)
class PositionDirection:
    """Direction of the verdict changes of one judge on one criterion when the order swaps."""

    judge: str
    criterion: str
    n: int
    """Trial pairs (a comparison scored once in each order)."""
    n_toward_first: int
    """Pairs whose verdict moved towards the answer shown first (better for the arm when it
    was first)."""
    n_toward_second: int
    """Pairs whose verdict moved towards the answer shown second."""
    net_toward_first: float
    """(n_toward_first - n_toward_second) / n: 0 for a judge without position bias."""
    lower: float
    """Cluster-robust bounds of ``net_toward_first``; NaN when undefined."""
    upper: float
    n_clusters: int
    test: str
    p_value: float
    """Paired test of net_toward_first = 0 (not adjusted: one per judge and criterion)."""


def position_directions(trials: pd.DataFrame, *, test: Test, alpha: float, conf: float,
                        notes: list[str]) -> list[PositionDirection]:
    """One record per (judge, criterion) with trial pairs in both orders."""
    t = trials[trials["score"].notna() & trials["position"].isin([1.0, 2.0])]
    comparison = ["judge", "criterion", "item", "arm", "opponent"]
    t = t.sort_values([*comparison, "position", "run"], kind="stable")
    t = t.assign(k=t.groupby([*comparison, "position"], sort=False).cumcount())
    first = t[t["position"] == 1.0]
    second = t[t["position"] == 2.0]
    pairs = first.merge(second[[*comparison, "k", "score"]], on=[*comparison, "k"],
                        suffixes=("_1", "_2"))
    out: list[PositionDirection] = []
    for (judge, criterion), group in pairs.groupby(["judge", "criterion"], sort=False):
        v1 = np.sign(group["score_1"].to_numpy(dtype=np.float64) - 0.5)
        v2 = np.sign(group["score_2"].to_numpy(dtype=np.float64) - 0.5)
        d = np.sign(v1 - v2)

        def note(text: str, judge: object = judge, criterion: object = criterion) -> None:
            notes.append(f"position direction {judge} / {criterion}: {text}.")

        res = paired_outcome(d, group["cluster"].to_numpy(dtype=object), null=0.0,
                             bounds=(-1.0, 1.0), test=test, alpha=alpha, conf=conf,
                             fallback_kg=False, note=note)
        out.append(PositionDirection(
            judge=str(judge), criterion=str(criterion), n=int(d.size),
            n_toward_first=int(np.sum(d > 0)), n_toward_second=int(np.sum(d < 0)),
            net_toward_first=res.estimate if d.size else NAN, lower=res.lower, upper=res.upper,
            n_clusters=res.n_clusters, test=res.test, p_value=res.p_value))
    return out


def one_order_notes(trials: pd.DataFrame) -> list[str]:
    """A note per (judge, criterion) whose comparisons were all judged in one order.

    When every scored trial of a (judge, criterion) shows its arm in the same position, the
    win rate is confounded with position: a judge that favours the first answer (or the
    second) moves every win rate of the block the same way, and nothing in the data can
    separate that from the answers' quality. Comparisons judged in one order each, but in
    different orders across questions, are not confounded (position then adds noise only).
    """
    t = trials[trials["score"].notna() & trials["position"].isin([1.0, 2.0])
               & (trials["arm"] != trials["opponent"])]
    notes = []
    for (judge, criterion), group in t.groupby(["judge", "criterion"], sort=False):
        positions = pd.unique(group["position"])
        if positions.size != 1:
            continue
        where = "first" if positions[0] == 1.0 else "second"
        notes.append(f"Judge {judge} on {criterion}: every comparison was judged in one order "
                     f"only, each arm's answer shown {where}, so its win rates are confounded "
                     "with position: a judge that favours one place moves all of them alike, "
                     "and the data cannot tell that from the answers' quality. Judge each "
                     "question in both orders (counterbalanced) to separate the two.")
    return notes
