"""Crossed runs: the two-way (cluster x run) variance of a mean, the run component and its
degrees of freedom, and the F test of a run effect.

A run is one pass over every item with one seed or model snapshot; a shift shared by all
items of a run is invisible to the cluster-robust variance over items.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._distributions import f_sf
from assay.stats._results import RunComponent, TwoWayVariance
from assay.stats.intervals._cr2 import _check_sizes

__all__ = [
    "run_effect_p_value",
    "run_inclusive_df",
    "run_variance_component",
    "two_way_cluster_variance",
]

FloatArray = npt.NDArray[np.float64]


def _check_cells(cell_sums: ArrayLike, sizes: ArrayLike) -> tuple[FloatArray, FloatArray]:
    try:
        t = np.asarray(cell_sums, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("cell_sums must be a 2-D array of numbers") from None
    if t.ndim != 2 or t.shape[0] < 2 or t.shape[1] < 2:
        raise ValueError(f"cell_sums must be 2-D with at least 2 clusters and 2 runs, got "
                         f"shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("cell_sums must be finite")
    n = _check_sizes(sizes)
    if n.size != t.shape[0]:
        raise ValueError("sizes must have one entry per row of cell_sums")
    return t, n


def two_way_cluster_variance(cell_sums: ArrayLike, sizes: ArrayLike) -> TwoWayVariance:
    r"""Cluster x run robust variance of a mean over items and crossed runs.

    Parameters
    ----------
    cell_sums : array_like, shape (C, R)
        T_cr, the sum over the items of cluster c of their score in run r.
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive. Every item is scored in every run.

    Returns
    -------
    TwoWayVariance
        ``estimate`` r, the one-way ``variance_clusters`` V_C, ``variance_runs`` V_R, the
        intersection ``variance_cells`` V_CR, the two-way ``variance`` and its ``df`` =
        min(C, R) - 1.

    Raises
    ------
    ValueError
        Fewer than 2 clusters or 2 runs, a non-finite value, or a non-positive size.

    Notes
    -----
    With N = sum n_c and r = sum T_cr / (N R), each dimension's cluster-robust variance of
    the mean of the N R scores is [1]_

    .. math:: V_C = \frac{C}{C-1} \sum_c \frac{(T_{c\cdot} - r n_c R)^2}{(NR)^2}, \;
              V_R = \frac{R}{R-1} \sum_r \frac{(T_{\cdot r} - r N)^2}{(NR)^2}, \;
              V_{CR} = \frac{CR}{CR-1} \sum_{c,r} \frac{(T_{cr} - r n_c)^2}{(NR)^2},

    and the two-way variance is V_C + V_R - V_CR, or V_C where that is smaller (the
    one-way variance is a floor: a negative run component is noise). V_C equals the
    variance of :func:`~assay.stats.intervals.ratio_estimate` on the run-averaged cluster
    sums. A shift shared by every item of a run (one seed, one model snapshot) enters V_R
    and not V_C: the one-way interval then speaks about these R runs, the two-way one
    about runs in general, with min(C, R) - 1 degrees of freedom.

    References
    ----------
    .. [1] Cameron, A. C., Gelbach, J. B. and Miller, D. L. (2011). Robust inference with
           multiway clustering. Journal of Business and Economic Statistics 29(2), 238-249.

    Examples
    --------
    Two clusters of one item, two runs, scores [[1, 0], [1, 1]]: r = 3/4; V_C = 2 (1/4 +
    1/4) / 16 = 1/16, V_R = 2 (1/4 + 1/4) / 16 = 1/16, and the cell residuals 1/4, -3/4,
    1/4, 1/4 give V_CR = 4/3 (12/16) / 16 = 1/16, so V = 1/16 + 1/16 - 1/16 = 1/16:

    >>> res = two_way_cluster_variance([[1, 0], [1, 1]], [1, 1])
    >>> round(res.variance * 16, 10), round(res.variance_runs * 16, 10), res.df
    (1.0, 1.0, 1.0)
    """
    t, n = _check_cells(cell_sums, sizes)
    c, runs = t.shape
    total = float(n.sum()) * runs
    r = float(t.sum()) / total
    by_cluster = t.sum(axis=1) - r * n * runs
    by_run = t.sum(axis=0) - r * float(n.sum())
    cells = t - r * n[:, None]
    v_c = c / (c - 1.0) * float(np.sum(by_cluster**2)) / total**2
    v_r = runs / (runs - 1.0) * float(np.sum(by_run**2)) / total**2
    g = c * runs
    v_cr = g / (g - 1.0) * float(np.sum(cells**2)) / total**2
    return TwoWayVariance(estimate=r, variance=max(v_c + v_r - v_cr, v_c),
                          variance_clusters=v_c, variance_runs=v_r, variance_cells=v_cr,
                          df=float(min(c, runs) - 1))


def run_variance_component(cell_sums: ArrayLike, sizes: ArrayLike) -> RunComponent:
    r"""Run component of the variance of a mean over items and crossed runs.

    Parameters
    ----------
    cell_sums : array_like, shape (C, R)
        T_cr, the sum over the items of cluster c of their score in run r.
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive. Every item is scored in every run.

    Returns
    -------
    RunComponent
        ``variance`` V_run = max(V_R - V_E, 0), with ``variance_runs`` V_R,
        ``variance_noise`` V_E, ``df_runs`` R - 1 and ``df_noise`` (C - 1)(R - 1).

    Raises
    ------
    ValueError
        Fewer than 2 clusters or 2 runs, a non-finite value, or a non-positive size.

    Notes
    -----
    With N = sum n_c, r = sum T_cr / (N R), the run totals' residuals T_.r - r N, the
    within-cluster run deviations u_cr = T_cr - T_c. / R and the interaction residuals
    e_cr = u_cr - (n_c / N) sum_c' u_c'r,

    .. math:: V_R = \frac{R}{R-1} \sum_r \frac{(T_{\cdot r} - rN)^2}{(NR)^2}, \quad
              V_E = \frac{R\,C}{(C-1)(R-1)} \sum_{c,r} \frac{e_{cr}^2}{(NR)^2},

    V_R holds the run shifts and the per-run noise of the run totals; V_E estimates the
    noise part from the cluster x run interaction, so V_R - V_E is the method-of-moments
    (ANOVA) estimate [1]_ of Var(mean of the R run shifts) = sigma_run^2 / R. With equal
    sizes it is (MS_R - MS_E) / (C R) of the clusters x runs ANOVA of the cluster means.
    Unlike the intersection term of the two-way cluster-robust variance
    (:func:`two_way_cluster_variance`, whose V_R - V_CR also subtracts V_C / R of cluster
    variance, a large share with 5 runs), V_E holds no cluster variance. Assumes additive
    run shifts and independent clusters.

    References
    ----------
    .. [1] Searle, S. R., Casella, G. and McCulloch, C. E. (1992). Variance Components.
           Wiley, ch. 4 (ANOVA estimation in the two-way crossed classification).

    Examples
    --------
    Three clusters of one item, two runs, scores [[1, 0], [1, 0], [1, 1]]: r = 2/3, run
    totals 3 and 1, so V_R = 2 (1 + 1) / 36 = 1/9; u = (1/2, -1/2), (1/2, -1/2), (0, 0),
    e = (1/6, -1/6), (1/6, -1/6), (-1/3, 1/3), sum e^2 = 1/3, V_E = 3 (1/3) / 36 = 1/36,
    V_run = 1/9 - 1/36 = 1/12 (the ANOVA's (MS_R - MS_E) / (I R) = (2/3 - 1/6) / 6):

    >>> res = run_variance_component([[1, 0], [1, 0], [1, 1]], [1, 1, 1])
    >>> round(res.variance * 12, 10), round(res.variance_noise * 36, 10), res.df_noise
    (1.0, 1.0, 2.0)
    """
    t, n = _check_cells(cell_sums, sizes)
    c, runs = t.shape
    items = float(n.sum())
    total = items * runs
    r = float(t.sum()) / total
    by_run = t.sum(axis=0) - r * items
    v_r = runs / (runs - 1.0) * float(np.sum(by_run**2)) / total**2
    u = t - t.sum(axis=1, keepdims=True) / runs
    e = u - np.outer(n / items, u.sum(axis=0))
    v_e = runs * c / ((c - 1.0) * (runs - 1.0)) * float(np.sum(e**2)) / total**2
    return RunComponent(estimate=r, variance=max(v_r - v_e, 0.0), variance_runs=v_r,
                        variance_noise=v_e, df_runs=float(runs - 1),
                        df_noise=float((c - 1) * (runs - 1)))


def run_inclusive_df(variance: float, df: float, run_variance: float, runs: int) -> float:
    r"""Satterthwaite degrees of freedom of a one-way variance plus a run component.

    Parameters
    ----------
    variance : float
        V_1 >= 0, the one-way (cluster-robust) variance of the mean, e.g. CR2.
    df : float
        nu_1 > 0, its degrees of freedom (Bell-McCaffrey for CR2).
    run_variance : float
        V_run >= 0, the run component, ``variance`` of :func:`run_variance_component`.
    runs : int
        R >= 2, the crossed runs V_run is estimated from.

    Returns
    -------
    float
        nu between min(nu_1, R - 1) and nu_1 + R - 1; exactly nu_1 when V_run = 0, and
        R - 1 when V_1 = 0 < V_run.

    Raises
    ------
    ValueError
        A negative or non-finite variance, a non-positive df, or fewer than 2 runs.

    Notes
    -----
    The interval r -/+ t_nu sqrt(V_1 + V_run) includes the run component whatever its
    size, so no pre-test decides whether runs count. Treating V_1 as nu_1 and V_run as
    R - 1 chi-square degrees of freedom, Satterthwaite's approximation [1]_ gives

    .. math:: \nu = \frac{(V_1 + V_{run})^2}{V_1^2 / \nu_1 + V_{run}^2 / (R - 1)},

    which moves continuously from nu_1 (no run component) towards R - 1 (runs dominate).
    V_run is the ANOVA estimate of :func:`run_variance_component` (the run dimension of
    the two-way clustering of Cameron, Gelbach and Miller [2]_); its R - 1 df are those of
    the run totals. Taking V_run, not V_R, in the denominator keeps nu continuous at
    V_run = 0.

    References
    ----------
    .. [1] Satterthwaite, F. E. (1946). An approximate distribution of estimates of
           variance components. Biometrics Bulletin 2(6), 110-114.
    .. [2] Cameron, A. C., Gelbach, J. B. and Miller, D. L. (2011). Robust inference with
           multiway clustering. Journal of Business and Economic Statistics 29(2), 238-249.

    Examples
    --------
    V_1 = 1, nu_1 = 38, V_run = 1 over 5 runs: nu = 4 / (1/38 + 1/4) = 152/10.5 = 14.476:

    >>> round(run_inclusive_df(1.0, 38.0, 1.0, 5), 3)
    14.476
    >>> run_inclusive_df(2.0, 38.0, 0.0, 5)
    38.0
    """
    values = (float(variance), float(run_variance))
    if not all(math.isfinite(v) and v >= 0.0 for v in values):
        raise ValueError(f"variance and run_variance must be finite and >= 0, got {values}")
    nu_1 = float(df)
    if not (math.isfinite(nu_1) and nu_1 > 0.0):
        raise ValueError(f"df must be positive and finite, got {df!r}")
    if int(runs) < 2:
        raise ValueError(f"runs must be at least 2, got {runs!r}")
    v_1, v_run = values
    if v_run == 0.0:
        return nu_1
    total = v_1 + v_run
    return total * total / (v_1 * v_1 / nu_1 + v_run * v_run / (int(runs) - 1.0))


def run_effect_p_value(run_totals: ArrayLike, n_items: int, *, score_sumsq: float,
                       item_mean_sumsq: float) -> float:
    r"""p-value of the run effect in the units x runs ANOVA without replication.

    Parameters
    ----------
    run_totals : array_like, shape (R,)
        T_r, the sum of the I item scores in run r (R >= 2).
    n_items : int
        I, the items, each scored once in every run (I >= 2).
    score_sumsq : float
        sum over items and runs of y_ir^2 (for 0/1 scores, the number of ones).
    item_mean_sumsq : float
        sum over items of ybar_i^2, the squared item means over runs.

    Returns
    -------
    float
        P(F_{R-1, (I-1)(R-1)} >= F); 1.0 when the residual mean square is 0.

    Raises
    ------
    ValueError
        Fewer than 2 runs or 2 items, or a non-finite input.

    Notes
    -----
    With g the grand mean, the sums of squares of the additive model y_ir = mu + a_i +
    b_r + e_ir [1]_ come from the sufficient statistics alone:

    .. math:: SS_T = \sum y^2 - I R g^2, \; SS_I = R \sum_i \bar y_i^2 - I R g^2, \;
              SS_R = \sum_r T_r^2 / I - I R g^2,

    SS_E = SS_T - SS_I - SS_R, and F = (SS_R / (R - 1)) / (SS_E / ((I - 1)(R - 1))). A
    shift shared by all items of a run (one seed or model snapshot per run) shows as a
    small p-value. assay's benchmark report applies it to the clusters' mean scores per run
    (clusters are its units) and reads it with the two-way variance
    (:func:`two_way_cluster_variance`) to decide whether the run component is material.

    References
    ----------
    .. [1] Tukey, J. W. (1949). One degree of freedom for non-additivity. Biometrics 5(3),
           232-242 (the additive two-way layout with one observation per cell).

    Examples
    --------
    Three items, two runs, scores [[1, 0], [1, 0], [1, 1]]: g = 4/6, SS_T = 4 - 8/3 = 4/3,
    SS_I = 2 (1/4 + 1/4 + 1) - 8/3 = 1/3, SS_R = (9 + 1) / 3 - 8/3 = 2/3, SS_E = 1/3 on 2
    df, F = (2/3) / (1/6) = 4 on (1, 2) df, p = 1 - sqrt(2/3) = 0.1835:

    >>> round(run_effect_p_value([3, 1], 3, score_sumsq=4, item_mean_sumsq=1.5), 4)
    0.1835
    """
    totals = np.asarray(run_totals, dtype=np.float64)
    values = (*totals.tolist(), float(score_sumsq), float(item_mean_sumsq))
    if totals.ndim != 1 or totals.size < 2 or not all(math.isfinite(v) for v in values):
        raise ValueError("run_totals must be 1-D with at least 2 finite entries, and the sums "
                         "of squares finite")
    items = int(n_items)
    if items < 2:
        raise ValueError(f"n_items must be at least 2, got {n_items!r}")
    runs = totals.size
    correction = float(totals.sum()) ** 2 / (items * runs)
    ss_total = float(score_sumsq) - correction
    ss_items = runs * float(item_mean_sumsq) - correction
    ss_runs = float(np.sum(totals**2)) / items - correction
    df_error = (items - 1) * (runs - 1)
    ms_error = (ss_total - ss_items - ss_runs) / df_error
    scale = max(abs(ss_total), 1e-300)
    if not ms_error * df_error > 1e-12 * scale:
        return 1.0
    f_value = max(ss_runs, 0.0) / (runs - 1) / ms_error
    return float(f_sf(f_value, runs - 1, df_error))
