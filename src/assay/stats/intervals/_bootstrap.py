"""The studentised cluster bootstrap of a proportion estimated from clustered items: the ratio
and linearised standard error of each resample, and the bootstrap-t interval.

Takes, as :mod:`assay.stats.intervals._analytic` does, the cluster sums S_c and sizes n_c; clusters
are the resampling units (weights from
:func:`~assay.stats.intervals._resampling.cluster_bootstrap_weights`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from assay.stats._results import BootstrapRatios, IntervalResult
from assay.stats._validate import (
    _check_1d,
    _check_clusters,
    _check_conf,
)
from assay.stats.intervals._ratio import _SNAP, _linearised_residuals

__all__ = ["cluster_bootstrap_ratios", "studentised_bootstrap_interval"]

_BLOCK_ELEMENTS = 1 << 20  # rows of the (B, C) weight matrix are recomputed in blocks this big
_EXPANSION_TOLERANCE = 2.0**30 * float(np.finfo(np.float64).eps)
"""Times C: the least ss / scale^2 at which the expanded resample variance is trusted."""


def cluster_bootstrap_ratios(sums: ArrayLike, sizes: ArrayLike, weights: Any) -> BootstrapRatios:
    r"""Ratio estimates and linearised standard errors of cluster-bootstrap resamples.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, the per-cluster sums of the per-item value.
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive.
    weights : array_like, shape (B, C)
        w_bc, how many times resample b drew cluster c (for example from
        :func:`~assay.stats.intervals._resampling.cluster_bootstrap_weights`); non-negative, each row
        with a positive total.

    Returns
    -------
    BootstrapRatios
        ``estimates`` r* and ``standard_errors`` se*, each of shape (B,); unpacks as a pair.

    Raises
    ------
    ValueError
        Invalid cluster data, or `weights` not 2-D with C columns, negative, non-finite,
        or with a row of zeros.

    Notes
    -----
    For resample b, with N*_b = sum_c w_bc n_c,

    .. math:: r^*_b = \frac{\sum_c w_{bc} S_c}{N^*_b}, \qquad
              V^*_b = \frac{C}{C-1} \sum_c w_{bc} \frac{(S_c - r^*_b n_c)^2}{(N^*_b)^2},

    which is :func:`ratio_estimate` applied to the resampled clusters (a cluster drawn w
    times enters w times), and se*_b = sqrt(V*_b). Cost O(B C), one pass over the weights:
    with the full-sample residuals e_c = S_c - r n_c and delta_b = r*_b - r =
    sum_c w_bc e_c / N*_b, the sum of squares expands as

    .. math:: \sum_c w_{bc} (S_c - r^*_b n_c)^2 = \sum_c w_{bc} e_c^2
              - 2 \delta_b \sum_c w_{bc} e_c n_c + \delta_b^2 \sum_c w_{bc} n_c^2,

    so every resample comes from one matrix product of the weights with per-cluster columns.
    Centring on r keeps the cancellation small; a resample whose expanded value is not
    accurate to about 2^-30 relative (by a bound on its rounding error) is recomputed from
    its residuals, which covers every resample whose clusters share one mean. There,
    residuals within rounding error are zeroed as in :func:`ratio_estimate`, so such a
    resample has se* = 0 exactly.

    References
    ----------
    .. [1] Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and their
           Application, ch. 2 and 3.8. Cambridge University Press.

    Examples
    --------
    Resample 1 keeps the three clusters (r* = 5/9, V* = 97/2187 as in
    :func:`ratio_estimate`); resample 2 draws cluster 1 twice and cluster 3 once:
    r* = (2 + 2 + 1) / (3 + 3 + 4) = 0.5, and V* = 3/2 (2 (2 - 1.5)^2 + (1 - 2)^2) / 10^2
    = 0.0225.

    >>> est, se = cluster_bootstrap_ratios([2, 2, 1], [3, 2, 4], [[1, 1, 1], [2, 0, 1]])
    >>> est.round(6).tolist(), (se**2).round(6).tolist()
    ([0.555556, 0.5], [0.044353, 0.0225])
    """
    s, n = _check_clusters(sums, sizes)
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("weights must be a 2-D array of numbers") from None
    c = s.size
    if w.ndim != 2 or w.shape[1] != c:
        raise ValueError(f"weights must have shape (B, {c}), got {w.shape}")
    if w.shape[0] == 0:
        raise ValueError("weights must have at least one row")
    if not float(w.min()) >= 0.0:  # also catches NaN, which min propagates
        raise ValueError("weights must be finite and non-negative")
    # Full-sample residuals e_c = S_c - r n_c: a resample's residual is e_c - delta n_c with
    # delta = r* - r = (w . e) / (w . n), so its sum of squares expands into products of
    # the weights with per-cluster columns, read in one matrix product.
    r = float(np.sum(s)) / float(np.sum(n))
    e = s - r * n
    noise = _SNAP * (float(np.max(n)) + 1.0) * (np.abs(s) + abs(r) * n)
    columns = np.column_stack([np.ones(c), n, s, e, e * e, e * n, n * n, noise * noise])
    totals = w @ columns
    row_sums, n_star, s_star, e_star, ee_star, en_star, nn_star, noise_star = totals.T
    if not np.all(np.isfinite(row_sums)):
        raise ValueError("weights must be finite and non-negative")
    if np.any(row_sums <= 0):
        raise ValueError("every row of weights must draw at least one cluster")
    ratios = s_star / n_star
    delta = e_star / n_star
    ss = ee_star - 2.0 * delta * en_star + delta * delta * nn_star
    # Rounding error of the expansion is at most about C eps times
    # (sqrt(w . e^2) + |delta| sqrt(w . n^2))^2 (Cauchy-Schwarz bounds the cross term).
    # Rows where that could exceed 2^-30 of ss, and rows whose ss could be made of
    # residuals within rounding error of zero (w . noise^2, noise being the tolerance of
    # _linearised_residuals), are recomputed directly from their residuals, which zeroes
    # such residuals as ratio_estimate does: a resample whose clusters share one mean
    # gets ss = 0 exactly.
    scale = np.sqrt(ee_star) + np.abs(delta) * np.sqrt(nn_star)
    doubtful = _EXPANSION_TOLERANCE * c * scale * scale + 4.0 * noise_star
    inexact = np.flatnonzero(ss <= doubtful)
    block = max(1, _BLOCK_ELEMENTS // c)
    for start in range(0, inexact.size, block):
        rows = inexact[start:start + block]
        resid = _linearised_residuals(s[None, :], n[None, :], ratios[rows, None])
        ss[rows] = np.sum(w[rows] * resid * resid, axis=1)
    variances = c / (c - 1) * ss / n_star**2
    return BootstrapRatios(estimates=ratios, standard_errors=np.sqrt(variances))


def studentised_bootstrap_interval(
    estimate: float,
    standard_error: float,
    boot_estimates: ArrayLike,
    boot_standard_errors: ArrayLike,
    *,
    conf: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> IntervalResult:
    r"""Studentised (bootstrap-t) interval from cluster-bootstrap replicates.

    Parameters
    ----------
    estimate : float
        r, the estimate on the original sample.
    standard_error : float
        se = sqrt(V), its linearised standard error; non-negative.
    boot_estimates : array_like, shape (B,)
        r*, the estimate on each resample.
    boot_standard_errors : array_like, shape (B,)
        se*, the linearised standard error on each resample; non-negative.
    conf : float, default 0.95
        Two-sided confidence level in (0, 1).
    bounds : (float, float) or None, default (0.0, 1.0)
        The interval is cut to this range; None leaves it uncut.

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` se, ``n_resamples`` = the
        number of resamples used, ``method = "studentised_cluster_bootstrap"``. Both bounds
        are NaN when se = 0, when fewer than 2 resamples have se* > 0, or when the cut
        interval would have zero width.

    Raises
    ------
    ValueError
        Non-finite inputs, a negative standard error, arrays of different lengths, or `conf`
        outside (0, 1).

    Notes
    -----
    Each resample gives t*_b = (r*_b - r) / se*_b. Resamples with se*_b = 0 (all their clusters
    share one mean) have no t* and are dropped; ``n_resamples`` counts the ones kept. With
    q_lo and q_hi the (1 - conf)/2 and (1 + conf)/2 quantiles of t* (linear interpolation,
    numpy's default and R's type 7),

    .. math:: [\, r - q_{hi}\, se,\; r - q_{lo}\, se \,]

    cut to `bounds` [1]_ [2]_. Studentising corrects the skew of a proportion near a bound.

    References
    ----------
    .. [1] Efron, B. and Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 12.
           Chapman and Hall.
    .. [2] Davison, A. C. and Hinkley, D. V. (1997). Bootstrap Methods and their
           Application, ch. 2 and 5. Cambridge University Press.

    Examples
    --------
    Five resamples give t* = (-2, -1, 0, 1, 3) (the last two resamples below); at conf = 0.5
    the quartiles are q_lo = -1 and q_hi = 1, so the interval is [0.6 - 0.1, 0.6 + 0.1]:

    >>> res = studentised_bootstrap_interval(
    ...     0.6, 0.1, [0.4, 0.5, 0.6, 0.7, 0.9, 0.6], [0.1, 0.1, 0.2, 0.1, 0.1, 0.0], conf=0.5
    ... )
    >>> round(res.lower, 10), round(res.upper, 10), res.n_resamples
    (0.5, 0.7, 5)
    """
    conf = _check_conf(conf)
    r = float(estimate)
    se = float(standard_error)
    if not math.isfinite(r):
        raise ValueError("estimate must be finite")
    if not math.isfinite(se) or se < 0:
        raise ValueError("standard_error must be finite and non-negative")
    est_b = _check_1d(boot_estimates, "boot_estimates")
    se_b = _check_1d(boot_standard_errors, "boot_standard_errors")
    if est_b.shape != se_b.shape:
        raise ValueError("boot_estimates and boot_standard_errors must have the same length")
    if np.any(se_b < 0):
        raise ValueError("boot_standard_errors must be non-negative")
    if bounds is not None:
        lo_bound, hi_bound = float(bounds[0]), float(bounds[1])
        if not lo_bound < hi_bound:
            raise ValueError(f"bounds must be an increasing pair, got {bounds!r}")
    keep = se_b > 0
    used = int(np.sum(keep))
    lower = upper = math.nan
    if se > 0 and used >= 2:
        t_star = (est_b[keep] - r) / se_b[keep]
        q_lo, q_hi = np.quantile(t_star, [(1.0 - conf) / 2.0, (1.0 + conf) / 2.0])
        lower, upper = r - float(q_hi) * se, r - float(q_lo) * se
        if bounds is not None:
            lower = min(max(lower, lo_bound), hi_bound)
            upper = min(max(upper, lo_bound), hi_bound)
        if not upper > lower:
            lower = upper = math.nan
    return IntervalResult(
        estimate=r,
        lower=lower,
        upper=upper,
        standard_error=se,
        method="studentised_cluster_bootstrap",
        conf=conf,
        n_resamples=used,
    )
