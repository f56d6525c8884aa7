"""Cost per item and per correct item, and the cost-accuracy frontier (Kapoor et al. 2024)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.analysis.benchmark._data import BenchData
from assay.analysis.benchmark._measure import MeasureSums
from assay.analysis.benchmark._resample import ClusterResampler

FloatArray = npt.NDArray[np.float64]
Record = dict[str, Any]

ESTIMATED_LIMIT = 0.05
"""Share of an arm's dollars resting on estimated token counts above which it is flagged."""

FRONTIER_NOTE = ("The frontier share (how often an arm is on the cost-accuracy frontier over "
                 "resamples) is an extension, not a published standard.")


@dataclass(frozen=True)
class CostSection:
    cost: list[Record] | None
    frontier: list[Record] | None
    notes: list[str]


def cost_section(data: BenchData, resampler: ClusterResampler | None,
                 accuracy: FloatArray, accuracy_boot: FloatArray | None, *,
                 conf: float) -> CostSection:
    """Cost table and frontier; both None when the bench has neither dollars nor tokens."""
    if data.usd is None and data.tokens is None:
        return CostSection(None, None, [])
    notes: list[str] = []
    records: list[Record] = [{"arm": arm} for arm in data.arms]
    usd, tokens = data.usd, data.tokens
    usd_boot = None
    for name, measure in (("usd", usd), ("tokens", tokens)):
        for record in records:
            for kind in ("per_item", "per_correct"):
                record.update({f"{name}_{kind}": None, f"{name}_{kind}_lower": None,
                               f"{name}_{kind}_upper": None})
        if measure is None:
            continue
        boot = _fill(records, name, measure, resampler, conf=conf)
        if name == "usd":
            usd_boot = boot
        for a, arm in enumerate(data.arms):
            if measure.n_unknown[a]:
                notes.append(f"{int(measure.n_unknown[a])} run(s) of {arm} have no {name}: its "
                             f"{name} figures use the other runs.")

    for a, record in enumerate(records):
        share, flag = None, None
        if usd is not None and usd.estimated is not None:
            spend = usd.total[:, a].sum()
            if spend > 0:
                share = float(usd.estimated[a] / spend)
                flag = share > ESTIMATED_LIMIT
                if flag:
                    notes.append(f"{100 * share:.0f}% of the dollars of {data.arms[a]} rest on "
                                 f"estimated token counts, above {100 * ESTIMATED_LIMIT:.0f}%.")
        record.update(usd_estimated_share=share, estimated_flag=flag)

    frontier = None
    if usd is not None:
        cost = usd.per_item()
        if np.all(np.isfinite(cost)):
            frontier = _frontier(data, cost, accuracy, usd_boot, accuracy_boot)
            if usd_boot is not None and accuracy_boot is not None:
                notes.append(FRONTIER_NOTE)
    return CostSection(records, frontier, notes)


def _fill(records: list[Record], name: str, measure: MeasureSums,
          resampler: ClusterResampler | None, *, conf: float) -> FloatArray | None:
    """Fill the per-item and per-correct figures of one measure for every arm.

    Returns the resampled per-item ratios, shape (B, A), for the frontier share.
    """
    n_arms = measure.total.shape[1]
    estimates = np.concatenate([measure.per_item(), measure.per_correct()])
    keys = [f"{name}_per_item"] * n_arms + [f"{name}_per_correct"] * n_arms
    for index, key in enumerate(keys):
        if np.isfinite(estimates[index]):
            records[index % n_arms][key] = float(estimates[index])
    if resampler is None:
        return None
    replicates = resampler.replicates(
        np.column_stack([measure.total, measure.total]),
        np.column_stack([measure.known_runs, measure.correct_runs]))
    for index, (key, replicate) in enumerate(zip(keys, replicates, strict=True)):
        if np.isfinite(estimates[index]):
            interval = replicate.interval(conf=conf)
            record = records[index % n_arms]
            record[f"{key}_lower"], record[f"{key}_upper"] = interval.lower, interval.upper
    return np.column_stack([r.boot for r in replicates[:n_arms]])


def _frontier(data: BenchData, cost: FloatArray, accuracy: FloatArray,
              cost_boot: FloatArray | None, accuracy_boot: FloatArray | None) -> list[Record]:
    on = pareto_front(cost, accuracy)
    share = None
    if cost_boot is not None and accuracy_boot is not None:
        share = pareto_front(cost_boot, accuracy_boot).mean(axis=0)
    return [{"arm": arm, "usd_per_item": float(cost[a]), "accuracy": float(accuracy[a]),
             "on_frontier": bool(on[a]),
             "frontier_share": None if share is None else float(share[a])}
            for a, arm in enumerate(data.arms)]


def pareto_front(cost: FloatArray, accuracy: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether each arm is on the Pareto front of low cost and high accuracy.

    Works on the last axis, so (A,) or (B, A) inputs; an arm is off the front when
    another costs no more and is no less accurate, and is better in one of the two.

    >>> pareto_front(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.7, 0.6])).tolist()
    [True, True, False]
    """
    c_other, c_self = cost[..., None, :], cost[..., :, None]
    a_other, a_self = accuracy[..., None, :], accuracy[..., :, None]
    dominated = ((c_other <= c_self) & (a_other >= a_self)
                 & ((c_other < c_self) | (a_other > a_self)))
    return np.asarray(~dominated.any(axis=-1))
