"""Per-category breakdowns (task, question set, category): each category's mean with its own
interval, simultaneous intervals over the categories, and Holm-adjusted paired contrasts.

``category_breakdown`` takes item-level rows (``cluster``, ``item``, ``arm``, ``run``, a
``value`` on [0, 1] or a raw scale, the category column, and the group columns) and gives,
per group and arm:

* per category: the mean (runs averaged within an item, items summed within clusters: the
  ratio estimator; rows weighted by their ``weight`` where the table has one), its
  cluster-robust standard error (CR2, as the main rows of ``--kind scores``: C_k / (C_k - 1)
  with C_k - 1 df when the category's clusters have one size) and the t interval on its
  Bell-McCaffrey df;
* simultaneous intervals over the arm's categories: the max-t critical value of the joint
  covariance of the category means (clusters that hold items of several categories make them
  correlated; their correlation with each category's CR2 standard error), on the smallest
  Bell-McCaffrey df, so that all of an arm's category intervals hold together;
* per category and pair of arms: the paired mean difference on the items both arms have, its
  cluster-robust t test, and the p-value adjusted by Holm over every (category, pair) of the
  group, so that reading the table for "where do the arms differ" keeps its error rate.

A category whose estimate has no variance between clusters (every item the same, or one
cluster) gets NaN bounds and a note, never a zero-width interval.
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from assay.stats.contrasts import holm_adjust, max_t_critical_value
from assay.stats.intervals import cr2_ratio_estimate

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


def _cr2(items: pd.DataFrame, categories: list[str],
         clusters: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Per category: the CR2 standard error of its ratio estimator and its Bell-McCaffrey df
    at the working ICC (:func:`assay.stats.intervals.cr2_ratio_estimate`, the variance of the
    main rows of ``--kind scores``), over the clusters holding the category; NaN below 2."""
    weight = items["weight"].to_numpy(np.float64)
    value = items["value"].to_numpy(np.float64)
    frame = pd.DataFrame({"cluster": items["cluster"].astype(str).to_numpy(),
                          "category": items["category"].astype(str).to_numpy(),
                          "s": weight * value, "n": weight, "q": weight * value * value})
    sums = frame.groupby(["category", "cluster"], sort=False)[["s", "n", "q"]].sum()
    se = np.full(len(categories), np.nan)
    dfs = np.full(len(categories), np.nan)
    for k, name in enumerate(categories):
        if name not in sums.index.get_level_values(0):
            continue
        part = sums.loc[name]
        if len(part) < 2:
            continue
        est = cr2_ratio_estimate(part["s"].to_numpy(np.float64), part["n"].to_numpy(np.float64),
                                 sumsq=part["q"].to_numpy(np.float64))
        se[k], dfs[k] = est.standard_error, est.df
    return se, dfs


def _t_interval(estimate: float, se: float, df: float, crit: float) -> tuple[float, float]:
    if not (se > 0 and df > 0 and math.isfinite(crit)):
        return math.nan, math.nan
    return estimate - crit * se, estimate + crit * se


def _arm_rows(items: pd.DataFrame, key: dict[str, Any], arm: str, *, conf: float,
              seed: int, notes: list[str]) -> list[Record]:
    categories = sorted(map(str, items["category"].unique()))
    clusters = sorted(map(str, items["cluster"].unique()))
    r, u, Ck, N = _linearised(items, categories, clusters)
    se, dfs = _cr2(items, categories, clusters)
    ok = np.isfinite(se) & (se > 0)
    crit_sim = math.nan
    if ok.sum() >= 1:
        # the correlations of the category means from the clusters' joint influence values,
        # scaled by each category's CR2 standard error
        joint = u.T @ u
        scale = np.sqrt(np.clip(np.diag(joint), 0, None))
        sub = (joint[np.ix_(ok, ok)] / np.outer(scale[ok], scale[ok])
               * np.outer(se[ok], se[ok]))
        df = float(dfs[ok].min())
        crit_sim = max_t_critical_value(sub, df, conf=conf, rng=seed) if df > 0 else math.nan
    out = []
    for k, name in enumerate(categories):
        df_k = float(dfs[k])
        crit = float(sps.t.ppf(0.5 + conf / 2, df_k)) if df_k > 0 else math.nan
        lower, upper = _t_interval(float(r[k]), float(se[k]), df_k, crit)
        lower_s, upper_s = _t_interval(float(r[k]), float(se[k]), df_k,
                                       crit_sim if ok[k] else math.nan)
        if not ok[k]:
            notes.append(f"{', '.join(f'{v}' for v in key.values())} {arm} / {name}: no variance "
                         "between clusters (or one cluster); no interval.")
        out.append({**key, "arm": arm, "category": name, "n_items": int(N[k]),
                    "n_clusters": int(Ck[k]), "estimate": float(r[k]),
                    "standard_error": float(se[k]), "lower": lower, "upper": upper,
                    "df": df_k, "lower_simultaneous": lower_s, "upper_simultaneous": upper_s,
                    "critical_value_simultaneous": crit_sim,
                    "method": "cluster_robust_t; simultaneous: max_t over categories"})
    return out


def _contrast(a: pd.DataFrame, b: pd.DataFrame, *, conf: float) -> Record | None:
    """The paired difference r_a - r_b of the weighted means on the items both arms have.

    Each side is a ratio estimator r = sum_c S_c / sum_c W_c (S_c the weighted item values,
    W_c the item weights of cluster c); the difference's cluster-robust variance is
    C / (C - 1) sum_c u_c^2 with u_c = (S_ac - r_a W_ac) / W_a - (S_bc - r_b W_bc) / W_b.
    With every weight 1 this is the paired t on the item differences.
    """
    # The items of `a` that `b` has, in `a`'s order (an inner merge on the item, which is
    # unique per arm), then the four cluster sums in one grouping: the same sums as summing
    # each column on its own, without a merge per pair.
    at = pd.Index(b["item"]).get_indexer(a["item"])
    both = at >= 0
    if not both.any():
        return None
    at = at[both]
    weight_a, weight_b = a["weight"].to_numpy()[both], b["weight"].to_numpy()[at]
    sums = pd.DataFrame({"sa": weight_a * a["value"].to_numpy()[both],
                         "sb": weight_b * b["value"].to_numpy()[at],
                         "wa": weight_a, "wb": weight_b}).groupby(
        a["cluster"].to_numpy()[both]).sum()
    sa, sb, wa, wb = (sums[column].to_numpy(np.float64) for column in ("sa", "sb", "wa", "wb"))
    C = sa.size
    ra, rb = sa.sum() / wa.sum(), sb.sum() / wb.sum()
    est = float(ra - rb)
    n_items = int(both.sum())
    nan = math.nan
    if C < 2:
        return dict(estimate=est, standard_error=nan, lower=nan, upper=nan, df=nan,
                    p_value=nan, n_items=n_items, n_clusters=C)
    u = (sa - ra * wa) / wa.sum() - (sb - rb * wb) / wb.sum()
    se = float(math.sqrt(C / (C - 1) * np.sum(u**2)))
    df = float(C - 1)
    crit = float(sps.t.ppf(0.5 + conf / 2, df))
    lower, upper = _t_interval(est, se, df, crit)
    p = float(2 * sps.t.sf(abs(est) / se, df)) if se > 0 else nan
    return dict(estimate=est, standard_error=se, lower=lower, upper=upper, df=df, p_value=p,
                n_items=n_items, n_clusters=C)


def category_breakdown(rows: pd.DataFrame, *, group: list[str], category: str = "task",
                       conf: float = 0.95, seed: int = 1) -> tuple[list[Record], list[Record],
                                                                  list[str]]:
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
        items = _item_values(g, category)
        for arm, a in items.groupby("arm", sort=False):
            cats += _arm_rows(a, key, str(arm), conf=conf, seed=seed, notes=notes)
        family: list[Record] = []
        arms = list(dict.fromkeys(map(str, items["arm"])))
        for name, c in items.groupby("category", sort=True):
            for first, second in combinations(arms, 2):
                rec = _contrast(c[c["arm"] == first], c[c["arm"] == second], conf=conf)
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
            f["method"] = "paired cluster_robust_t; Holm over the categories and pairs"
        contrasts += family
    return cats, contrasts, notes
