"""The ingredients of a plan read from a pilot table: the variance components of one score
(or of two systems' paired difference), the clusters' sizes, and what a judge call cost.

For one (judge, criterion) of pointwise rows, a unit is an (item, run) cell: the arm's value
(or arm minus opponent on the same item and run), mapped to [0, 1] where the scale has a map.
From the I x R matrix y_ir of those values:

* **run shift** sigma_run^2 = R V_run, V_run the ANOVA run component of the cluster x run cell
  sums (:func:`assay.stats.run_variance_component`), when the benchmark report's F test of
  runs on the cluster means (``analysis.benchmark._accuracy.run_effect_p``) gives p below its
  ``RUN_ALPHA`` (0.01), the reports' rule for a material run component; else 0, with a note
  (and 0 with one run);
* **within** sigma_w^2, the residual mean square of the items x runs ANOVA,
  sum (y_ir - ybar_i. - ybar_.r + ybar_..)^2 / ((I - 1)(R - 1)) (0 with one run, noted);
* **cluster** tau^2 = rho s^2 and **question** sigma_q^2 = s^2 - tau^2 - sigma_w^2 / R, with
  s^2 the variance (ddof = 0) of the run-averaged item values and rho their working ICC
  (:func:`assay.stats.working_icc`, the estimator of the reports' degrees of freedom).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.analysis.benchmark._accuracy import RUN_ALPHA, run_effect_p
from assay.errors import DesignError
from assay.stats.intervals import run_variance_component, working_icc
from assay.stats.power import VarianceComponents

if TYPE_CHECKING:
    from assay.data.table import Judgments

__all__ = ["CallCost", "PilotEstimate", "pilot_call_cost", "pilot_components"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PilotEstimate:
    """What a pilot says about one score (or one paired difference)."""

    components: VarianceComponents
    judge: str
    criterion: str
    arms: tuple[str, ...]
    """One arm (a mean) or two (arm - opponent)."""
    binary: bool
    """Every value is 0 or 1 (0, +-1 for a difference)."""
    mean: float
    """The pilot's mean value (mean difference for a pair)."""
    n_items: int
    n_clusters: int
    n_runs: int
    cluster_size: float
    """Mean questions per cluster."""
    size_cv: float
    """Population SD of the cluster sizes over their mean."""
    icc: float
    """The working ICC of the run-averaged item values."""
    notes: tuple[str, ...]


@dataclass(frozen=True)
class CallCost:
    """What the pilot's judge calls of one (judge, criterion) cost."""

    calls_per_score: float
    """LLM calls per table row (a joint call scoring four criteria is 1/4 a row)."""
    usd_per_call: float | None
    """Mean USD of a priced call; None when no call had a price."""
    tokens_in: float
    tokens_out: float
    """Mean tokens per call."""


def _units(judgments: Judgments, judge: str | None, criterion: str | None
           ) -> tuple[pd.DataFrame, str, str, bool]:
    frame = judgments.frame
    keep = frame["reportable"].astype(bool).to_numpy() & frame["score"].notna().to_numpy()
    if "opponent" in frame:
        keep = keep & frame["opponent"].isna().to_numpy()
    if "failure_kind" in frame:
        keep = keep & frame["failure_kind"].isna().to_numpy()
    values = judgments.normalised_scores()
    raw = frame["score"].to_numpy(dtype=np.float64)
    out = frame.loc[keep, ["judge", "criterion", "item", "cluster", "arm", "run"]].copy()
    out["value"] = np.where(np.isnan(values), raw, values)[keep]
    for column in ("judge", "criterion", "item", "cluster", "arm"):
        out[column] = out[column].astype(str)
    if out.empty:
        raise DesignError("the table has no reportable pointwise scores to plan from (pairwise "
                          "preferences are not planned yet)")
    keys = list(dict.fromkeys(map(tuple, out[["judge", "criterion"]].to_numpy())))
    chosen = [k for k in keys if (judge is None or k[0] == judge)
              and (criterion is None or k[1] == criterion)]
    if len(chosen) != 1:
        listed = ", ".join(f"{j}/{c}" for j, c in keys)
        what = "no" if not chosen else "more than one"
        raise DesignError(f"{what} (judge, criterion) of the table matches: name one with "
                          f"--judge and --criterion (the table has {listed})")
    j, c = chosen[0]
    units = out[(out["judge"] == j) & (out["criterion"] == c)]
    scale = judgments.scale(c)
    return units, j, c, scale.kind == "binary" or bool(np.isin(units["value"], (0.0, 1.0)).all())


def _matrix(units: pd.DataFrame, arms: tuple[str, ...]) -> tuple[pd.DataFrame, list[str]]:
    """Items x runs of the value (one arm) or the difference (two), complete items only."""
    notes: list[str] = []
    wide = units[units["arm"].isin(arms)].pivot_table(index=["cluster", "item"],
                                                      columns=["arm", "run"], values="value",
                                                      aggfunc="mean")
    y = wide[arms[0]] if len(arms) == 1 else wide[arms[0]] - wide[arms[1]]
    complete = y.dropna()
    if len(complete) < len(y):
        notes.append(f"{len(y) - len(complete)} item(s) lack a score of "
                     f"{' or '.join(arms)} in some run: left out of the pilot's estimates.")
    return complete, notes


def _components(y: pd.DataFrame) -> tuple[VarianceComponents, float, FloatArray, list[str]]:
    notes: list[str] = []
    values = y.to_numpy(dtype=np.float64)
    items, runs = values.shape
    clusters = y.index.get_level_values("cluster").to_numpy()
    item_mean = values.mean(axis=1)
    frame = pd.DataFrame({"cluster": clusters, "y": item_mean, "y2": item_mean**2})
    grouped = frame.groupby("cluster", sort=False).agg(sum=("y", "sum"), sumsq=("y2", "sum"),
                                                       size=("y", "size"))
    sizes = grouped["size"].to_numpy(np.float64)
    if sizes.size < 2:
        raise DesignError("the pilot's items come from one cluster: its variance between "
                          "clusters is not estimable (need at least 2 clusters)")
    rho = working_icc(grouped["sum"].to_numpy(), grouped["sumsq"].to_numpy(), sizes)
    spread = float(np.var(item_mean))
    within = run = 0.0
    if runs >= 2 and items >= 2:
        resid = (values - item_mean[:, None] - values.mean(axis=0)[None, :] + values.mean())
        within = float(np.sum(resid**2)) / ((items - 1) * (runs - 1))
        cells = pd.DataFrame(values).groupby(clusters, sort=False).sum().to_numpy()
        p_value = run_effect_p(cells, sizes)
        estimate = runs * run_variance_component(cells, sizes).variance
        if p_value < RUN_ALPHA:
            run = estimate
            notes.append(f"the pilot's runs shift every question together (F test of runs "
                         f"p = {p_value:.2g}): a run's shift (SD {math.sqrt(run):.3g}) is "
                         "planned for, which only more runs average away.")
        elif estimate > 0.0:
            notes.append(f"the pilot's run shift (SD {math.sqrt(estimate):.3g}) is not "
                         f"material (F test of runs p = {p_value:.2g} >= {RUN_ALPHA:g}, "
                         "the reports' rule): planned as 0 (give --run-sd to plan for one).")
    else:
        notes.append("the pilot has one run: its within-question (trial) variance and run "
                     "shift are not estimable and are taken as 0, so the plan credits trials "
                     "and runs with nothing (give --within-share and --run-sd to say more).")
    cluster = rho * spread
    question = max(spread - cluster - within / runs, 0.0)
    return (VarianceComponents(cluster=cluster, question=question, within=within, run=run),
            rho, sizes, notes)


def pilot_components(judgments: Judgments, *, arms: Sequence[str] | None = None,
                     estimand: str = "difference", judge: str | None = None,
                     criterion: str | None = None) -> PilotEstimate:
    """The variance components of the pilot's scores (module docstring).

    ``estimand="difference"`` takes the pair ``arms`` (two names), or, without it, the pair
    whose difference varies most (the hardest to plan for; a note names it);
    ``estimand="mean"`` takes the one arm of ``arms``, or the arm whose score varies most.

    Raises
    ------
    DesignError
        No pointwise scores, an ambiguous or unknown judge or criterion or arm, fewer than
        two arms for a difference, or items from one cluster.
    """
    units, j, c, binary = _units(judgments, judge, criterion)
    present = list(dict.fromkeys(units["arm"]))
    wanted = 2 if estimand == "difference" else 1
    if arms is not None:
        arms = tuple(str(a) for a in arms)
        unknown = [a for a in arms if a not in present]
        if unknown or len(arms) != wanted:
            raise DesignError(f"--arms {','.join(arms)}: expected {wanted} of the arms scored "
                              f"on {j}/{c} ({', '.join(present)})")
        candidates = [arms]
    else:
        candidates = (list(combinations(present, 2)) if wanted == 2
                      else [(a,) for a in present])
        if not candidates:
            raise DesignError(f"a difference needs two arms; {j}/{c} scores only "
                              f"{', '.join(present)} (plan its mean with --estimand mean)")
    best: tuple[float, Any] | None = None
    for pair in candidates:
        y, notes = _matrix(units, pair)
        if len(y) < 2:
            continue
        comp, rho, sizes, more = _components(y)
        if best is None or comp.total > best[0]:
            best = (comp.total, (pair, y, comp, rho, sizes, notes + more))
    if best is None:
        raise DesignError(f"fewer than two items have every score of {j}/{c} for the arms asked")
    pair, y, comp, rho, sizes, notes = best[1]
    if arms is None and len(candidates) > 1:
        what = " - ".join(pair)
        notes.insert(0, f"planned for {what}, the {'pair' if wanted == 2 else 'arm'} whose "
                        f"scores vary most of {len(candidates)} (name others with --arms).")
    mean_size = float(sizes.mean())
    return PilotEstimate(
        components=comp, judge=j, criterion=c, arms=tuple(pair), binary=binary,
        mean=float(y.to_numpy().mean()), n_items=len(y), n_clusters=int(sizes.size),
        n_runs=int(y.shape[1]), cluster_size=mean_size,
        size_cv=float(sizes.std() / mean_size), icc=rho, notes=tuple(notes))


def pilot_call_cost(judgments: Judgments, calls: Sequence[Mapping[str, Any]], *, judge: str,
                    criterion: str) -> CallCost | None:
    """The calls per row and USD per call of ``judge`` on ``criterion`` in a run store's
    records (:func:`assay.data.run_store.judge_calls`); None when the store has none."""
    mine = [c for c in calls if str(c.get("judge")) == judge
            and str(c.get("criterion")) == criterion]
    rows = int(((judgments.frame["judge"].astype(str) == judge)
                & (judgments.frame["criterion"].astype(str) == criterion)).sum())
    if not mine or rows == 0:
        return None
    shares = np.array([float(c["share"]) for c in mine])
    total = float(shares.sum())
    priced = [(float(c["share"]), float(c["usd"])) for c in mine if c.get("usd") is not None]
    usd = (sum(s * u for s, u in priced) / sum(s for s, _ in priced)
           if priced and sum(s for s, _ in priced) > 0 else None)

    def mean_of(key: str) -> float:
        known = [(float(c["share"]), float(c[key])) for c in mine if c.get(key) is not None]
        weight = sum(s for s, _ in known)
        return sum(s * v for s, v in known) / weight if weight > 0 else math.nan

    return CallCost(calls_per_score=total / rows, usd_per_call=usd,
                    tokens_in=mean_of("tokens_in"), tokens_out=mean_of("tokens_out"))
