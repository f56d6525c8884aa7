"""Per-category breakdowns (task, question set, category): each category's mean with its own
interval, simultaneous intervals over the categories, and Holm-adjusted paired contrasts.

``category_breakdown`` takes item-level rows (``cluster``, ``item``, ``arm``, ``run``, a
``value`` on [0, 1] or a raw scale, the category column, and the group columns) and gives,
per group and arm:

* per category: the mean (runs averaged within an item, items summed within clusters: the
  ratio estimator; rows weighted by their ``weight`` where the table has one) with the
  interval every report gives a mean over clusters
  (:func:`assay.analysis._mean_rule.mean_interval`): for a bounded value (``bounded``) the
  logit CR2 t of the main rows of ``--kind scores``, falling back to Korn-Graubard where it
  is undefined, else the CR2 t on the raw scale, both on Bell-McCaffrey df; and the
  benchmark's design flag (G*, the effective number of clusters, and a note for few
  effective clusters of unequal size), so a category is flagged as its own main row is;
* simultaneous intervals over the arm's categories: the max-t critical value of the joint
  covariance of the category means (clusters that hold items of several categories make them
  correlated; their correlation with each category's CR2 standard error), on the smallest
  Bell-McCaffrey df, on the scale of each category's own interval, so that all of an arm's
  category intervals hold together; Korn-Graubard categories take Bonferroni's share of the
  error rate and the max-t part the rest, as the benchmark's Tango pairs do;
* per category and pair of arms: the paired mean difference on the items both arms have, its
  CR2 t test with Bell-McCaffrey df (the compare and systems reports' paired difference;
  CR1 on C - 1 df, named, only where the two arms weight a shared item differently), and
  the p-value adjusted by Holm over every (category, pair) of the group, so that reading
  the table for "where do the arms differ" keeps its error rate.

A raw-scale category whose estimate has no variance between clusters (every item the same,
or one cluster) gets NaN bounds and a note, never a zero-width interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.special import expit

from assay.analysis._mean_rule import KORN_GRAUBARD, LOGIT_T, RAW_T, MeanInterval, mean_interval
from assay.stats.contrasts import holm_adjust, max_t_critical_value
from assay.stats.intervals import cr2_ratio_estimate, korn_graubard_interval

__all__ = ["category_breakdown"]

Record = dict[str, Any]


def _item_values(rows: pd.DataFrame, category: str) -> pd.DataFrame:
    """One value per (arm, item): the weighted mean over its rows (runs), with the item's
    weight, its cluster and category.

    As in ``--kind scores``, the item value is sum(w v) / sum(w) and the item weight sum(w)
    over its rows, so the ratio of cluster sums sum(w_i v_i) / sum(w_i) is the weighted
    mean of the rows; without a ``weight`` column the item weight is 1 and the value is the
    plain mean over runs.
    """
    w = (pd.to_numeric(rows["weight"], errors="coerce").fillna(1.0) if "weight" in rows
         else pd.Series(1.0, index=rows.index))
    frame = pd.DataFrame({"arm": rows["arm"], "item": rows["item"], "wv": w * rows["value"],
                          "w": w, "cluster": rows["cluster"], "category": rows[category]})
    items = (frame.groupby(["arm", "item"], sort=False)
             .agg(wv=("wv", "sum"), w=("w", "sum"), n=("w", "size"),
                  cluster=("cluster", "first"), category=("category", "first"))
             .reset_index())
    items["value"] = items["wv"] / items["w"]
    items["weight"] = items["w"] if "weight" in rows else items["w"] / items["n"]
    return items.drop(columns=["wv", "w", "n"])


def _linearised(items: pd.DataFrame, categories: list[str],
                clusters: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Estimates r_k, influence values u_ck = (S_ck - r_k n_ck) / N_k, C_k, and the items per
    category; S_ck sums weight x value and n_ck the item weights (the items when unweighted)."""
    c_index = {c: i for i, c in enumerate(clusters)}
    k_index = {k: i for i, k in enumerate(categories)}
    S = np.zeros((len(clusters), len(categories)))
    n = np.zeros_like(S)
    ci = items["cluster"].map(c_index).to_numpy()
    ki = items["category"].map(k_index).to_numpy()
    weight = items["weight"].to_numpy(np.float64)
    np.add.at(S, (ci, ki), weight * items["value"].to_numpy(np.float64))
    np.add.at(n, (ci, ki), weight)
    count = np.zeros(len(categories))
    np.add.at(count, ki, 1.0)
    N = n.sum(axis=0)
    r = S.sum(axis=0) / N
    u = (S - r * n) / N
    return r, u, (n > 0).sum(axis=0), count


def _intervals(items: pd.DataFrame, categories: list[str], *, conf: float, bounded: bool,
               label: str) -> tuple[list[MeanInterval], list[tuple[np.ndarray, np.ndarray]]]:
    """Per category: the interval of its mean under the shared rule of every report
    (:func:`assay.analysis._mean_rule.mean_interval`: the main rows of ``--kind scores``,
    the win rates), with the benchmark's design flag, over the clusters holding it; and its
    cluster sums S_c and weights n_c (for the simultaneous Korn-Graubard bounds)."""
    weight = items["weight"].to_numpy(np.float64)
    value = items["value"].to_numpy(np.float64)
    frame = pd.DataFrame({"cluster": items["cluster"].astype(str).to_numpy(),
                          "category": items["category"].astype(str).to_numpy(),
                          "s": weight * value, "n": weight, "q": weight * value * value})
    sums = frame.groupby(["category", "cluster"], sort=False)[["s", "n", "q"]].sum()
    out, parts = [], []
    for name in categories:
        part = sums.loc[name]
        s, n = part["s"].to_numpy(np.float64), part["n"].to_numpy(np.float64)
        out.append(mean_interval(s, n, part["q"].to_numpy(np.float64), conf=conf,
                                 bounded=bounded, what=f"{label} / {name}"))
        parts.append((s, n))
    return out, parts


def _t_interval(estimate: float, se: float, df: float, crit: float) -> tuple[float, float]:
    if not (se > 0 and df > 0 and math.isfinite(crit)):
        return math.nan, math.nan
    return estimate - crit * se, estimate + crit * se


def _simultaneous(res: MeanInterval, crit: float) -> tuple[float, float]:
    """The max-t bounds of one category on the scale of its own interval: the raw scale, or
    the logit scale (delta method, the logit t's half-width with the max-t critical value)."""
    if res.method.startswith(LOGIT_T):  # also its _independent_df form
        r = res.estimate
        lower, upper = _t_interval(math.log(r / (1.0 - r)), res.standard_error / (r * (1.0 - r)),
                                   res.df, crit)
        return float(expit(lower)), float(expit(upper))
    return _t_interval(res.estimate, res.standard_error, res.df, crit)


def _arm_rows(items: pd.DataFrame, key: dict[str, Any], arm: str, *, conf: float,
              seed: int, bounded: bool, notes: list[str]) -> list[Record]:
    categories = sorted(map(str, items["category"].unique()))
    clusters = sorted(map(str, items["cluster"].unique()))
    r, u, Ck, N = _linearised(items, categories, clusters)
    label = f"{', '.join(f'{v}' for v in key.values())} {arm}".strip()
    res, parts = _intervals(items, categories, conf=conf, bounded=bounded, label=label)
    se = np.array([x.standard_error for x in res])
    ok = np.array([x.method.startswith((LOGIT_T, RAW_T)) for x in res])
    kg = np.array([x.method == KORN_GRAUBARD for x in res])
    # The family's error rate 1 - conf is split as the benchmark splits its Tango pairs:
    # Korn-Graubard categories at Bonferroni's level, the max-t part at the rest.
    claims = int(ok.sum() + kg.sum())
    conf_kg = 1.0 - (1.0 - conf) / claims if claims else conf
    conf_t = 1.0 - (1.0 - conf) * ok.sum() / claims if kg.any() else conf
    crit_sim = math.nan
    if ok.sum() >= 1:
        # the correlations of the category means from the clusters' joint influence values,
        # scaled by each category's CR2 standard error
        joint = u.T @ u
        scale = np.sqrt(np.clip(np.diag(joint), 0, None))
        sub = (joint[np.ix_(ok, ok)] / np.outer(scale[ok], scale[ok])
               * np.outer(se[ok], se[ok]))
        df = float(min(x.df for x, good in zip(res, ok, strict=True) if good))
        crit_sim = max_t_critical_value(sub, df, conf=conf_t, rng=seed) if df > 0 else math.nan
    out = []
    for k, name in enumerate(categories):
        one = res[k]
        if ok[k]:
            lower_s, upper_s = _simultaneous(one, crit_sim)
            method = f"{one.method}; simultaneous: max_t over categories"
        elif kg[k]:
            wide = korn_graubard_interval(*parts[k], conf=conf_kg)  # one-sided at 0 or 1
            lower_s, upper_s = wide.lower, wide.upper
            method = f"{one.method}; simultaneous: Bonferroni over categories"
            notes.append(f"{label} / {name}: the mean is {one.estimate:.3f} with no variance "
                         "between clusters (or at 0 or 1), where the logit t is undefined; its "
                         "interval is Korn-Graubard's, the benchmark report's fallback.")
        else:
            lower_s = upper_s = math.nan
            method = f"{one.method}; simultaneous: max_t over categories"
            notes.append(f"{label} / {name}: no variance between clusters (or one cluster); "
                         "no interval.")
        if one.flag_note is not None:
            notes.append(one.flag_note)
        out.append({**key, "arm": arm, "category": name, "n_items": int(N[k]),
                    "n_clusters": int(Ck[k]), "effective_clusters": one.effective_clusters,
                    "design_flagged": one.design_flagged, "estimate": float(r[k]),
                    "standard_error": float(one.standard_error), "lower": one.lower,
                    "upper": one.upper, "df": float(one.df), "lower_simultaneous": lower_s,
                    "upper_simultaneous": upper_s, "critical_value_simultaneous": crit_sim,
                    "method": method})
    return out


def _contrast(a: pd.DataFrame, b: pd.DataFrame, *, conf: float, bounded: bool) -> Record | None:
    """The paired difference r_a - r_b of the weighted means on the items both arms have.

    Each side is a ratio estimator r = sum_c S_c / sum_c W_c (S_c the weighted item values,
    W_c the item weights of cluster c). When every shared item has the same weight in both
    arms (always, without a ``weight`` column) the difference is one ratio estimator of the
    item differences, sum_c D_c / sum_c W_c, and gets the CR2 t and its test with
    Bell-McCaffrey df, as the compare and systems reports' paired differences do (cut to
    [-1, 1] on a bounded scale); with each item its own cluster that is the paired t.
    Otherwise its variance is the linearised C / (C - 1) sum_c u_c^2 with
    u_c = (S_ac - r_a W_ac) / W_a - (S_bc - r_b W_bc) / W_b on C - 1 df (CR1), and the method
    says so.
    """
    # The items of `a` that `b` has, in `a`'s order (an inner merge on the item, which is
    # unique per arm), then the cluster sums in one grouping: the same sums as summing
    # each column on its own, without a merge per pair.
    at = pd.Index(b["item"]).get_indexer(a["item"])
    both = at >= 0
    if not both.any():
        return None
    at = at[both]
    weight_a, weight_b = a["weight"].to_numpy()[both], b["weight"].to_numpy()[at]
    value_a, value_b = a["value"].to_numpy()[both], b["value"].to_numpy()[at]
    same = bool(np.allclose(weight_a, weight_b, rtol=1e-12, atol=0.0))
    sums = pd.DataFrame({"sa": weight_a * value_a, "sb": weight_b * value_b,
                         "wa": weight_a, "wb": weight_b,
                         "qd": weight_a * (value_a - value_b) ** 2}).groupby(
        a["cluster"].to_numpy()[both]).sum()
    sa, sb, wa, wb, qd = (sums[column].to_numpy(np.float64)
                          for column in ("sa", "sb", "wa", "wb", "qd"))
    C = sa.size
    ra, rb = sa.sum() / wa.sum(), sb.sum() / wb.sum()
    est = float(ra - rb)
    n_items = int(both.sum())
    nan = math.nan
    if C < 2:
        return dict(estimate=est, standard_error=nan, lower=nan, upper=nan, df=nan,
                    p_value=nan, n_items=n_items, n_clusters=C, variance="none")
    if same:
        cr2 = cr2_ratio_estimate(sa - sb, wa, sumsq=qd)
        se, df, variance = float(cr2.standard_error), float(cr2.df), "CR2"
    else:
        u = (sa - ra * wa) / wa.sum() - (sb - rb * wb) / wb.sum()
        se, df, variance = float(math.sqrt(C / (C - 1) * np.sum(u**2))), float(C - 1), "CR1"
    crit = float(sps.t.ppf(0.5 + conf / 2, df))
    lower, upper = _t_interval(est, se, df, crit)
    if bounded and not math.isnan(lower):
        lower, upper = max(lower, -1.0), min(upper, 1.0)
    p = float(2 * sps.t.sf(abs(est) / se, df)) if se > 0 else nan
    return dict(estimate=est, standard_error=se, lower=lower, upper=upper, df=df, p_value=p,
                n_items=n_items, n_clusters=C, variance=variance)


def category_breakdown(rows: pd.DataFrame, *, group: list[str], category: str = "task",
                       conf: float = 0.95, seed: int = 1,
                       bounded: bool | Callable[[dict[str, str]], bool] = False,
                       ) -> tuple[list[Record], list[Record], list[str]]:
    """Per-category means, simultaneous intervals and Holm-adjusted contrasts (module doc).

    Parameters
    ----------
    rows : pandas.DataFrame
        ``cluster``, ``item``, ``arm``, ``value`` (NaN rows are left out), the ``category``
        column and the ``group`` columns; an optional ``weight`` column weights the rows
        (the weighted means of ``--kind scores``).
    group : list of str
        Columns that make separate tables (for example criterion and judge).
    category : str, default "task"
    conf : float, default 0.95
    seed : int, default 1
        Seed of the max-t critical value's simulation.
    bounded : bool or callable, default False
        Whether ``value`` is a share in [0, 1] (or, called with a group's key, whether that
        group's is): a bounded mean gets the logit CR2 t and Korn-Graubard fallback of the
        main rows of ``--kind scores``, an unbounded one the CR2 t on the raw scale.

    Returns
    -------
    (categories, contrasts, notes)
        Records per (group, arm, category) and per (group, category, arm1, arm2), and notes.
        Empty when no group has two or more categories.
    """
    notes: list[str] = []
    cats: list[Record] = []
    contrasts: list[Record] = []
    rows = rows[rows["value"].notna() & rows[category].notna()]
    grouped = rows.groupby(group, sort=False) if group else [((), rows)]
    for values, g in grouped:
        values = values if isinstance(values, tuple) else (values,)
        if g[category].nunique() < 2:
            continue
        key = dict(zip(group, map(str, values), strict=True))
        share = bool(bounded(key)) if callable(bounded) else bool(bounded)
        items = _item_values(g, category)
        for arm, a in items.groupby("arm", sort=False):
            cats += _arm_rows(a, key, str(arm), conf=conf, seed=seed, bounded=share,
                              notes=notes)
        family: list[Record] = []
        arms = list(dict.fromkeys(map(str, items["arm"])))
        for name, c in items.groupby("category", sort=True):
            for first, second in combinations(arms, 2):
                rec = _contrast(c[c["arm"] == first], c[c["arm"] == second], conf=conf,
                                bounded=share)
                if rec is not None:
                    family.append({**key, "category": str(name), "arm1": first, "arm2": second,
                                   **rec})
        p = np.array([f["p_value"] for f in family], dtype=np.float64)
        finite = np.isfinite(p)
        adjusted = np.full(p.shape, np.nan)
        if finite.any():
            adjusted[finite] = holm_adjust(p[finite])
        for f, adj in zip(family, adjusted, strict=True):
            f["p_adjusted"] = float(adj)
            f["method"] = (f"paired cluster_robust_t ({f.pop('variance')}); Holm over the "
                           "categories and pairs")
        contrasts += family
    return cats, contrasts, notes
