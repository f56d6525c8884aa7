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

For pairwise rows (``estimand="win_rate"``) a unit is a *counterbalanced judgment*: the
arm's preference score (1 win, 1/2 tie, 0 loss, read from the arm's side as the win-rate
report reads it, :mod:`assay.analysis.winrates._data`) averaged over the two orders, as the
win-rate report's question-level value averages them. Where every run of a question holds
both orders (BenchmarkQED's import: run = trial // 2 + 1), a unit is an (item, run) cell and
the components are read as above. Where every run holds one order (assay's pairwise judge
writes run = trial, odd trials showing the arm first), the k-th trial showing the arm first
and the k-th showing it second form the k-th counterbalanced judgment of the question: these
are re-judgments of the same answers, so they estimate the within-question (trial) variance
and no run shift (0, with a note). Elsewhere (positions unknown or mixed) a run's mean over
its trials is one unit, with a note.
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
from assay.analysis.winrates._data import oriented_trials, pairwise_rows
from assay.errors import DesignError
from assay.stats.intervals import run_variance_component, working_icc
from assay.stats.power import VarianceComponents

if TYPE_CHECKING:
    from assay.data.table import Judgments

__all__ = ["CallCost", "PilotEstimate", "pilot_call_cost", "pilot_components",
           "pilot_estimand"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PilotEstimate:
    """What a pilot says about one score (or one paired difference)."""

    components: VarianceComponents
    judge: str
    criterion: str
    arms: tuple[str, ...]
    """One arm (a mean) or two (arm - opponent, or arm against opponent for a win rate)."""
    binary: bool
    """Every value is 0 or 1 (0, +-1 for a difference)."""
    mean: float
    """The pilot's mean value (mean difference for a pair, the win rate for a pairwise one)."""
    n_items: int
    n_clusters: int
    n_runs: int
    """Replicates per question: runs, or counterbalanced judgments (``replicates``)."""
    cluster_size: float
    """Mean questions per cluster."""
    size_cv: float
    """Population SD of the cluster sizes over their mean."""
    icc: float
    """The working ICC of the run-averaged item values."""
    notes: tuple[str, ...]
    estimand: str = "difference"
    """``difference``, ``mean`` or ``win_rate`` (a pairwise pilot)."""
    replicates: str = "runs"
    """What ``n_runs`` counts: ``runs``, or ``trials`` (a pairwise pilot whose runs each hold
    one order: its counterbalanced judgments re-judge the same answers)."""


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



def _one_judge_criterion(rows: pd.DataFrame, judge: str | None, criterion: str | None,
                         kind: str) -> tuple[str, str]:
    """The one (judge, criterion) of ``rows`` that ``judge`` and ``criterion`` (None: any)
    select; refused when none or more than one does (``kind``: "" or "pairwise ")."""
    keys = list(dict.fromkeys(map(tuple, rows[["judge", "criterion"]].to_numpy())))
    chosen = [k for k in keys if (judge is None or k[0] == judge)
              and (criterion is None or k[1] == criterion)]
    if len(chosen) != 1:
        listed = ", ".join(f"{j}/{c}" for j, c in keys)
        what = "no" if not chosen else "more than one"
        raise DesignError(f"{what} {kind}(judge, criterion) of the table matches: name one "
                          f"with --judge and --criterion (the table has {listed})")
    return chosen[0]

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
        pairwise = "opponent" in frame and bool(frame["opponent"].notna().any())
        raise DesignError("the table has no reportable pointwise scores to plan from"
                          + (": its rows are pairwise preferences, plan their win rate with "
                             "--estimand win_rate" if pairwise else ""))
    j, c = _one_judge_criterion(out, judge, criterion, "")
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


def _components(y: pd.DataFrame, replicates: str = "runs"
                ) -> tuple[VarianceComponents, float, FloatArray, list[str]]:
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
    if replicates == "trials":
        notes.append("the pilot's counterbalanced judgments re-judge the same answers (each run "
                     "holds one order, run = trial): they estimate the within-question "
                     "variance a trial averages, and no run shift, planned as 0 (give --run-sd "
                     "to plan for new answers' shift)." if runs >= 2 else
                     "the pilot has one counterbalanced judgment a question: its within-question "
                     "(trial) variance is not estimable and is taken as 0, so the plan credits "
                     "trials and runs with nothing (give --within-share and --run-sd to say "
                     "more).")
    elif runs >= 2 and items >= 2:
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


def _pairwise_trials(judgments: Judgments, judge: str | None, criterion: str | None
                     ) -> tuple[pd.DataFrame, str, str, list[str]]:
    """The scored trials of the one pairwise (judge, criterion) chosen, read as the win-rate
    report reads them."""
    notes: list[str] = []
    rows = pairwise_rows(judgments.frame, notes)
    trials = oriented_trials(rows, notes)
    trials = trials[trials["score"].notna()]
    if trials.empty:
        raise DesignError("the table's pairwise rows have no scored trial to plan from")
    j, c = _one_judge_criterion(trials, judge, criterion, "pairwise ")
    return trials[(trials["judge"] == j) & (trials["criterion"] == c)], j, c, notes


def _preferences(trials: pd.DataFrame, pair: tuple[str, str]
                 ) -> tuple[pd.DataFrame, str, list[str]]:
    """Items x counterbalanced judgments of ``pair[0]``'s preference over ``pair[1]``, complete
    items only, and what the columns are (``runs`` or ``trials``; module docstring)."""
    notes: list[str] = []
    mine = trials[(trials["arm"] == pair[0]) & (trials["opponent"] == pair[1])]
    if mine.empty:  # stored from the other side: read from pair[0]'s
        mine = trials[(trials["arm"] == pair[1]) & (trials["opponent"] == pair[0])].assign(
            score=lambda t: 1.0 - t["score"], position=lambda t: 3.0 - t["position"])
    mine = mine[["cluster", "item", "run", "position", "score"]]
    known = mine["position"].isin([1.0, 2.0])
    orders = mine[known].groupby(["item", "run"])["position"].nunique()
    replicates = "runs"
    if bool(known.all()) and bool((orders == 1).all()):
        replicates = "trials"
        mine = mine.sort_values(["item", "position", "run"], kind="stable")
        mine = mine.assign(run=mine.groupby(["item", "position"]).cumcount() + 1)
        partners = mine.groupby(["item", "run"])["position"].transform("size")
        if bool((partners < 2).any()):
            notes.append(f"{int((partners < 2).sum())} trial(s) of {pair[0]} vs {pair[1]} have no "
                         "partner in the other order: left out of the pilot's estimates.")
        mine = mine[partners == 2]
    elif not (bool(known.all()) and bool((orders == 2).all())):
        notes.append(f"the pilot's runs of {pair[0]} vs {pair[1]} do not each hold both orders "
                     "(positions unknown or mixed): a run's mean over its trials is one "
                     "replicate, and a position bias of the judge stays in it.")
    y = mine.pivot_table(index=["cluster", "item"], columns="run", values="score",
                         aggfunc="mean")
    complete = y.dropna()
    if len(complete) < len(y):
        notes.append(f"{len(y) - len(complete)} item(s) lack a scored judgment of {pair[0]} vs "
                     f"{pair[1]} in some {'run' if replicates == 'runs' else 'order'}: left out "
                     "of the pilot's estimates.")
    return complete, replicates, notes


def _pairwise_candidates(trials: pd.DataFrame, arms: tuple[str, ...] | None, where: str
                         ) -> list[tuple[str, str]]:
    pairs = list(dict.fromkeys(map(tuple, trials[["arm", "opponent"]].to_numpy())))
    listed = ", ".join(f"{a} vs {b}" for a, b in pairs)
    if arms is not None:
        if len(arms) != 2 or not ({tuple(arms), tuple(arms[::-1])} & set(pairs)):
            raise DesignError(f"--arms {','.join(arms)}: expected two arms judged against each "
                              f"other on {where} ({listed})")
        if arms[0] == arms[1]:
            raise DesignError(f"--arms {','.join(arms)}: an arm judged against itself (an A/A "
                              "test of the judge) has a win rate of 1/2 by design, nothing to "
                              "plan for; name two different arms")
        return [(arms[0], arms[1])]
    candidates = [(str(a), str(b)) for a, b in pairs if a != b]
    if not candidates:
        raise DesignError(f"{where} judges only arms against themselves ({listed}): an A/A "
                          "win rate is 1/2 by design, nothing to plan for")
    return candidates


def _has_pointwise(judgments: Judgments, judge: str | None, criterion: str | None) -> bool:
    frame = judgments.frame
    keep = frame["reportable"].astype(bool) & frame["score"].notna()
    if "opponent" in frame:
        keep &= frame["opponent"].isna()
    if judge is not None:
        keep &= frame["judge"].astype(str) == judge
    if criterion is not None:
        keep &= frame["criterion"].astype(str) == criterion
    return bool(keep.any())


def pilot_estimand(judgments: Judgments, *, judge: str | None = None,
                   criterion: str | None = None) -> str:
    """``win_rate`` when the (judge, criterion) asked for has pairwise rows and no pointwise
    scores, else ``difference``: what a pilot is planned for when no estimand is named."""
    frame = judgments.frame
    if "opponent" in frame and not _has_pointwise(judgments, judge, criterion):
        pairwise = frame["opponent"].notna()
        if judge is not None:
            pairwise &= frame["judge"].astype(str) == judge
        if criterion is not None:
            pairwise &= frame["criterion"].astype(str) == criterion
        if bool(pairwise.any()):
            return "win_rate"
    return "difference"


def pilot_components(judgments: Judgments, *, arms: Sequence[str] | None = None,
                     estimand: str | None = None, judge: str | None = None,
                     criterion: str | None = None) -> PilotEstimate:
    """The variance components of the pilot's scores (module docstring).

    ``estimand="difference"`` takes the pair ``arms`` (two names), or, without it, the pair
    whose difference varies most (the hardest to plan for; a note names it);
    ``estimand="mean"`` takes the one arm of ``arms``, or the arm whose score varies most;
    ``estimand="win_rate"`` takes the pairwise preference of ``arms[0]`` over ``arms[1]``,
    or of the pair (A/A pairs aside) whose preference varies most. None (the default): the
    win rate when the (judge, criterion) has only pairwise rows, else the difference.

    Raises
    ------
    DesignError
        No pointwise scores (pairwise rows for a win rate), an ambiguous or unknown judge or
        criterion or arm, fewer than two arms for a difference, only A/A pairs for a win
        rate, or items from one cluster.
    """
    if estimand is None:
        estimand = pilot_estimand(judgments, judge=judge, criterion=criterion)
    wanted = 2 if estimand in ("difference", "win_rate") else 1
    if arms is not None:
        arms = tuple(str(a) for a in arms)
    lead: list[str] = []
    if estimand == "win_rate":
        trials, j, c, lead = _pairwise_trials(judgments, judge, criterion)
        candidates: list[tuple[str, ...]] = list(_pairwise_candidates(trials, arms, f"{j}/{c}"))
        binary = False
    else:
        units, j, c, binary = _units(judgments, judge, criterion)
        present = list(dict.fromkeys(units["arm"]))
        if arms is not None:
            unknown = [a for a in arms if a not in present]
            if unknown or len(arms) != wanted:
                raise DesignError(f"--arms {','.join(arms)}: expected {wanted} of the arms "
                                  f"scored on {j}/{c} ({', '.join(present)})")
            candidates = [arms]
        else:
            candidates = (list(combinations(present, 2)) if wanted == 2
                          else [(a,) for a in present])
            if not candidates:
                raise DesignError(f"a difference needs two arms; {j}/{c} scores only "
                                  f"{', '.join(present)} (plan its mean with --estimand mean)")
    best: tuple[float, Any] | None = None
    for pair in candidates:
        if estimand == "win_rate":
            y, replicates, notes = _preferences(trials, pair)  # type: ignore[arg-type]
        else:
            (y, notes), replicates = _matrix(units, pair), "runs"
        if len(y) < 2:
            continue
        comp, rho, sizes, more = _components(y, replicates)
        if best is None or comp.total > best[0]:
            best = (comp.total, (pair, y, comp, rho, sizes, notes + more, replicates))
    if best is None:
        raise DesignError(f"fewer than two items have every score of {j}/{c} for the arms asked"
                          + (" (a counterbalanced judgment needs both orders)"
                             if estimand == "win_rate" else ""))
    pair, y, comp, rho, sizes, notes, replicates = best[1]
    if arms is None and len(candidates) > 1:
        what = (" vs " if estimand == "win_rate" else " - ").join(pair)
        kind = ("pair whose preferences" if estimand == "win_rate" else
                "pair whose scores" if wanted == 2 else "arm whose scores")
        notes.insert(0, f"planned for {what}, the {kind} vary most of {len(candidates)} (name "
                        "others with --arms).")
    values = y.to_numpy(dtype=np.float64)
    if estimand == "win_rate":
        binary = bool(np.isin(values, (0.0, 1.0)).all())
    mean_size = float(sizes.mean())
    return PilotEstimate(
        components=comp, judge=j, criterion=c, arms=tuple(pair), binary=binary,
        mean=float(values.mean()), n_items=len(y), n_clusters=int(sizes.size),
        n_runs=int(y.shape[1]), cluster_size=mean_size,
        size_cv=float(sizes.std() / mean_size), icc=rho, notes=tuple(lead + notes),
        estimand=estimand, replicates=replicates)


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
