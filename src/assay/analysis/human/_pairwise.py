"""The human win rate of each pair of systems from a judge's pairwise verdicts on every item
and human preferences on a subset: PPI++ on the per-item preference, clustered.

A pairwise row (one with an ``opponent``) scores its ``arm`` against the opponent: 1 a win
(A preferred), 0.5 a tie, 0 a loss (B preferred), on the criterion's scale mapped to [0, 1].
For a criterion with both human rows (judge ``human`` or ``human:<id>``) and a judge's rows,
and each unordered pair {a, b} (a the system seen first):

* the unit is an (item, pair); its judge preference ``f`` is the mean over the judge's rows
  of a's score (a row of b against a counts as 1 - its score), over trials and positions,
  so a position bias the counterbalanced design cancels stays cancelled; its human
  preference ``y`` is the same mean over the human rows;
* the estimand is the human win rate of a over b, the mean of ``y`` over the items
  (ties half); PPI++ with power tuning, cluster-robust (:func:`assay.stats.ppi_mean_clustered`),
  beside the judge-only win rate over every item the judge compared
  (:func:`assay.stats.cluster_mean_interval`) and the humans-only win rate over the labelled
  items (lambda = 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from assay.analysis.judges._human import human_mask

if TYPE_CHECKING:
    from assay.analysis.human._report import HumanEstimate
    from assay.data.table import Judgments

__all__ = ["preference_criteria", "preference_units", "win_rate_estimates"]


def preference_units(judgments: Judgments) -> pd.DataFrame:
    """Reportable pairwise rows with a [0, 1] value, oriented to the pair's first system:
    criterion, judge, item, cluster, first, second, value (first's preference)."""
    frame = judgments.frame
    columns = ["criterion", "judge", "item", "cluster", "first", "second", "value"]
    if "opponent" not in frame:
        return pd.DataFrame(columns=columns)
    keep = (frame["reportable"].astype(bool) & frame["opponent"].notna()).to_numpy()
    out = frame.loc[keep, ["criterion", "judge", "item", "cluster", "arm", "opponent"]].copy()
    out["value"] = judgments.normalised_scores()[keep]
    out = out[out["value"].notna()]
    for column in ("criterion", "judge", "item", "cluster", "arm", "opponent"):
        out[column] = out[column].astype(str)
    order = {name: k for k, name in enumerate(dict.fromkeys(
        [*judgments.arms, *pd.unique(frame["opponent"].dropna().astype(str))]))}
    swap = (out["arm"].map(order) > out["opponent"].map(order)).to_numpy()
    out["first"] = np.where(swap, out["opponent"], out["arm"])
    out["second"] = np.where(swap, out["arm"], out["opponent"])
    out["value"] = np.where(swap, 1.0 - out["value"], out["value"])
    return out[columns]


def preference_criteria(units: pd.DataFrame) -> list[str]:
    """Pairwise criteria with both human preferences and a judge's verdicts."""
    if units.empty:
        return []
    both = units.groupby("criterion", sort=False)["judge"].agg(
        lambda j: bool(human_mask(j).any() and (~human_mask(j)).any()))
    return [str(c) for c, ok in both.items() if ok]


def win_rate_estimates(units: pd.DataFrame, *, conf: float, notes: list[str],
                       estimate: Callable[..., HumanEstimate | None]) -> list[HumanEstimate]:
    """One record per (criterion, judge, pair) of the :func:`preference_units`: the human
    win rate of ``arm`` over ``opponent`` three ways. ``estimate`` is the human report's
    record maker."""
    from assay.stats.ppi import ppi_mean_clustered

    out: list[HumanEstimate] = []
    for criterion in preference_criteria(units):
        rows = units[units["criterion"] == criterion]
        human = human_mask(rows["judge"])
        keys = ["first", "second", "item"]
        labels = rows[human].groupby(keys, sort=False)["value"].mean()
        clusters = rows.drop_duplicates("item").set_index("item")["cluster"]
        for judge, mine in rows[~human].groupby("judge", sort=False):
            verdicts = mine.groupby(keys, sort=False)["value"].mean()
            orphan = labels.index.difference(verdicts.index)
            if len(orphan):
                notes.append(f"criterion {criterion}, judge {judge}: {len(orphan)} human "
                             "preferences on comparisons the judge did not make are left out.")
            y_all = labels.reindex(verdicts.index)
            for (a, b), f in verdicts.groupby(level=["first", "second"], sort=False):
                items = f.index.get_level_values("item")
                fv = f.to_numpy()
                yv = y_all.loc[f.index].to_numpy()
                lab = ~np.isnan(yv)
                cl = clusters[items].to_numpy()
                record = estimate(
                    criterion, str(judge), str(a), str(b), lab, fv, cl, conf, notes,
                    _ppi(ppi_mean_clustered, yv, fv, lab, cl, conf))
                if record is not None:
                    out.append(record)
    return out


def _ppi(ppi_mean_clustered: Callable[..., Any], yv: Any, fv: Any, lab: Any, cl: Any,
         conf: float) -> Callable[..., Any]:
    def call(lam: float | None, fu: Any = None) -> Any:
        return ppi_mean_clustered(
            yv[lab], fv[lab], fv[~lab] if fu is None else fu, clusters_labelled=cl[lab],
            clusters_unlabelled=cl[~lab] if fu is None else cl[lab][:1], lam=lam, conf=conf)
    return call
