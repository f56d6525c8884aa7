"""The human metric of each system and each pair, from judge scores on every item and human
labels on a subset: PPI++ with power tuning, cluster-robust (``assay.stats.ppi``), beside the
judge-only and the humans-only estimates.

Human labels are the rows whose judge is ``human`` or ``human:<id>`` (the convention of
:mod:`assay.analysis.judges._human`). For each criterion and each other judge of it:

* a unit is an (item, arm) of a pointwise criterion on a scale with a map to [0, 1]
  (binary, ordinal, range); its judge score is the judge's mean over runs, its human label
  the mean over the humans (and runs) that labelled it;
* an item is *labelled* for an arm when the judge scored it and a human labelled it;
  *unlabelled* when only the judge scored it. Labels on units the judge never scored are
  left out (noted);
* per arm: the PPI++ estimate of the mean human label (:func:`assay.stats.ppi_mean_clustered`,
  clusters from the table's ``cluster``), the judge-only mean over every item the judge scored
  (:func:`assay.stats.cluster_mean_interval`) and the humans-only mean over the labelled
  items (PPI++ at lambda = 0, the CR2 t on the labelled clusters);
* per pair of arms: the same three for the paired difference arm - opponent on the items both
  were judged on (:func:`assay.stats.ppi_paired_difference`); an item is labelled for the pair
  when both arms' answers are;
* per pair of a pairwise criterion (rows with an ``opponent``, preferences 1 / 0.5 / 0): the
  human win rate of the first over the second, the same three ways
  (:mod:`assay.analysis.human._pairwise`, ``HumanReport.win_rates``).

The estimand is the mean *human* label; the judge-only estimate is of the judge's mean and is
biased for it whenever the judge is. The labelled items must be a random subset of the items
(or of the clusters) — labels chosen for being hard, or by the judge's score, void the
interval; the report says so in a note.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import clean_record
from assay.analysis.human._pairwise import (
    preference_criteria,
    preference_units,
    win_rate_estimates,
)
from assay.analysis.judges._human import human_mask

if TYPE_CHECKING:
    from assay.data.table import Judgments
    from assay.stats import PPIResult

__all__ = ["HumanEstimate", "HumanReport", "human_calibrated", "human_calibrated_units",
           "human_support", "pointwise_units"]

_UNSCALED = ("interval", "nominal")


@dataclass(frozen=True)
class HumanEstimate:
    """One arm (``opponent`` None) or one pair (arm - opponent): the human metric three ways."""

    criterion: str
    judge: str
    arm: str
    opponent: str | None
    estimate: float
    """PPI++ estimate of the mean human label (of the difference for a pair), on [0, 1]."""
    lower: float
    upper: float
    standard_error: float
    df: float
    """Degrees of freedom of its cluster-robust t."""
    lam: float
    """Power-tuning weight of the judge: 0 ignores it, 1 is plain PPI."""
    method: str
    effective_n: float
    """n * V(humans only) / V(PPI++): the human labels the judge's scores are worth, with
    the n actual ones."""
    judge_estimate: float
    """The judge's own mean over every item it scored (biased for the human metric)."""
    judge_lower: float
    judge_upper: float
    human_estimate: float
    """The humans' mean over the labelled items alone."""
    human_lower: float
    human_upper: float
    n: int
    """Labelled items."""
    n_unlabelled: int
    """Items with a judge score only."""
    n_clusters: int
    n_labelled_clusters: int
    conf: float


@dataclass(frozen=True)
class HumanReport(Rendered):
    """Human-calibrated estimates per criterion, judge, arm and pair."""

    arms: list[HumanEstimate]
    pairs: list[HumanEstimate]
    conf: float
    notes: list[str] = field(default_factory=list)
    win_rates: list[HumanEstimate] = field(default_factory=list)
    """Pairwise criteria: per pair, the human win rate of ``arm`` over ``opponent`` (ties
    half) from the judge's verdicts and human preferences (:mod:`._pairwise`)."""

    def to_dict(self) -> dict[str, Any]:
        """``human.json``: numbers as numbers, NaN as null."""
        return clean_record({"arms": [asdict(r) for r in self.arms],
                             "pairs": [asdict(r) for r in self.pairs],
                             "win_rates": [asdict(r) for r in self.win_rates],
                             "conf": self.conf, "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def pointwise_units(judgments: Judgments) -> pd.DataFrame:
    """Reportable pointwise rows with a [0, 1] value: criterion, judge, item, cluster, arm,
    value."""
    frame = judgments.frame
    keep = frame["reportable"].astype(bool).to_numpy()
    if "opponent" in frame:
        keep = keep & frame["opponent"].isna().to_numpy()
    out = frame.loc[keep, ["criterion", "judge", "item", "cluster", "arm"]].copy()
    out["value"] = judgments.normalised_scores()[keep]
    out = out[out["value"].notna()]
    for column in ("criterion", "judge", "item", "cluster", "arm"):
        out[column] = out[column].astype(str)
    return out


def _human_criteria(units: pd.DataFrame) -> list[str]:
    both = units.groupby("criterion", sort=False)["judge"].agg(
        lambda j: bool(human_mask(j).any() and (~human_mask(j)).any()))
    return [str(c) for c, ok in both.items() if ok]


def human_support(judgments: Judgments) -> str | None:
    """Why the human report cannot be made (no criterion with both human labels and a judge's
    scores on a scale with a map to [0, 1], pointwise or pairwise), or None."""
    return _support(pointwise_units(judgments), preference_units(judgments))


def _support(units: pd.DataFrame, preferences: pd.DataFrame) -> str | None:
    """:func:`human_support` of the pointwise and the pairwise units."""
    if not (human_mask(units["judge"]).any() or human_mask(preferences["judge"]).any()):
        return ("no human labels: rows with judge `human` or `human:<id>` on a subset of "
                "the items give the human-calibrated estimates")
    if not (_human_criteria(units) or preference_criteria(preferences)):
        return ("the human labels share no criterion with a judge's scores on a scale with a "
                "map to [0, 1]")
    return None


def human_calibrated(judgments: Judgments, *, conf: float = 0.95) -> HumanReport:
    """PPI++ estimates of the human metric per system and per pair (module docstring).

    Parameters
    ----------
    judgments : Judgments
        A table holding a judge's scores and human labels (judge ``human`` or
        ``human:<id>``) of the same criterion on a subset of the items.
    conf : float, default 0.95

    Returns
    -------
    HumanReport

    Raises
    ------
    DesignError
        The table has no such criterion (:func:`human_support`).
    """
    return human_calibrated_units(pointwise_units(judgments), preference_units(judgments),
                                  conf=conf)


def human_calibrated_units(units: pd.DataFrame, preferences: pd.DataFrame, *,
                           conf: float = 0.95) -> HumanReport:
    """:func:`human_calibrated` of the table's :func:`pointwise_units` and
    :func:`~assay.analysis.human._pairwise.preference_units`.

    Only means of their ``value`` per (criterion, judge, arm, item) (pointwise) and per
    (criterion, judge, first, second, item) (pairwise), over every human judge together,
    and their order of first appearance enter the estimates, so the frames may hold one row
    per such unit instead of the rows (the engine paths send that,
    :mod:`assay.analysis.pushdown._humans`).

    Raises
    ------
    DesignError
        The frames have no criterion with both human labels and a judge's scores.
    """
    from assay.errors import DesignError
    from assay.stats.ppi import ppi_mean_clustered, ppi_paired_difference

    if not 0 < conf < 1:
        raise ValueError(f"conf must be in (0, 1), got {conf!r}")
    reason = _support(units, preferences)
    if reason is not None:
        raise DesignError(reason)
    notes = ["The labelled items must be a random subset of the items (or of the clusters): "
             "labels chosen by difficulty or by the judge's score void the PPI++ interval."]
    arms: list[HumanEstimate] = []
    pairs: list[HumanEstimate] = []
    for criterion in _human_criteria(units):
        rows = units[units["criterion"] == criterion]
        human = human_mask(rows["judge"])
        labels = rows[human].groupby(["arm", "item"], sort=False)["value"].mean()
        clusters = rows.drop_duplicates("item").set_index("item")["cluster"]
        for judge, mine in rows[~human].groupby("judge", sort=False):
            scores = mine.groupby(["arm", "item"], sort=False)["value"].mean()
            orphan = labels.index.difference(scores.index)
            if len(orphan):
                notes.append(f"criterion {criterion}, judge {judge}: {len(orphan)} human labels "
                             "on units the judge did not score are left out.")
            wide = scores.unstack("arm")
            human_wide = labels.reindex(scores.index).unstack("arm").reindex(
                index=wide.index, columns=wide.columns)
            order = list(dict.fromkeys(mine["arm"]))
            for arm in order:
                f = wide[arm].dropna()
                y = human_wide[arm].reindex(f.index)
                lab = y.notna().to_numpy()
                cl = clusters[f.index].to_numpy()
                fv, yv = f.to_numpy(), y.to_numpy()
                record = _estimate(
                    criterion, str(judge), arm, None, lab, fv, cl, conf, notes,
                    lambda lam, yv=yv, fv=fv, lab=lab, cl=cl, fu=None: ppi_mean_clustered(
                        yv[lab], fv[lab], fv[~lab] if fu is None else fu,
                        clusters_labelled=cl[lab],
                        clusters_unlabelled=cl[~lab] if fu is None else cl[lab][:1],
                        lam=lam, conf=conf))
                if record is not None:
                    arms.append(record)
            for a, b in combinations(order, 2):
                both = wide[[a, b]].dropna()
                ya = human_wide[a].reindex(both.index).to_numpy()
                yb = human_wide[b].reindex(both.index).to_numpy()
                lab = ~(np.isnan(ya) | np.isnan(yb))
                fa, fb = both[a].to_numpy(), both[b].to_numpy()
                cl = clusters[both.index].to_numpy()
                record = _estimate(
                    criterion, str(judge), a, b, lab, fa - fb, cl, conf, notes,
                    lambda lam, ya=ya, yb=yb, fa=fa, fb=fb, lab=lab, cl=cl, fu=None:
                    ppi_paired_difference(
                        ya[lab], yb[lab], fa[lab], fb[lab],
                        fa[~lab] if fu is None else fu, fb[~lab] if fu is None else fu,
                        clusters_labelled=cl[lab],
                        clusters_unlabelled=cl[~lab] if fu is None else cl[lab][:1],
                        lam=lam, conf=conf))
                if record is not None:
                    pairs.append(record)
    win_rates = win_rate_estimates(preferences, conf=conf, notes=notes, estimate=_estimate)
    return HumanReport(arms, pairs, conf, notes, win_rates)


def _estimate(criterion: str, judge: str, arm: str, opponent: str | None,
              labelled: npt.NDArray[np.bool_], f_all: npt.NDArray[np.float64],
              c_all: npt.NDArray[Any], conf: float, notes: list[str],
              ppi: Callable[..., PPIResult]) -> HumanEstimate | None:
    """One record: ``ppi(lam)`` is the PPI++ call at a weight (None tunes it; ``fu=`` gives a
    stand-in unlabelled set when every item is labelled, which lam = 0 ignores)."""
    from assay.stats.ppi import cluster_mean_interval

    what = f"{arm} - {opponent}" if opponent is not None else arm
    where = f"criterion {criterion}, judge {judge}, {what}"
    n = int(labelled.sum())
    if n < 2:
        notes.append(f"{where}: {n} labelled items; at least 2 are needed.")
        return None
    nan = math.nan
    if np.unique(c_all).size >= 2:
        jo = cluster_mean_interval(f_all, c_all, conf=conf)
        judge_only = (jo.estimate, jo.lower, jo.upper)
    else:
        judge_only = (float(np.mean(f_all)), nan, nan)
    n_unlabelled = int((~labelled).sum())
    if n_unlabelled == 0:
        notes.append(f"{where}: every item is labelled; the estimate is the humans' mean.")
        res = classical = ppi(0.0, fu=f_all[:1])
    else:
        res, classical = ppi(None), ppi(0.0)
    if (res.n_labelled_clusters or 0) < 2:
        notes.append(f"{where}: the labels fall in one cluster; no interval.")
    return HumanEstimate(
        criterion, judge, arm, opponent, res.estimate, res.lower, res.upper,
        res.standard_error, res.df if res.df is not None else nan, res.lam, res.method,
        res.effective_n, *judge_only, classical.estimate, classical.lower, classical.upper,
        n, n_unlabelled, int(np.unique(c_all).size), int(res.n_labelled_clusters or 0), conf)
