"""Intervals for a proportion estimated from clustered items.

Every function takes the cluster sums S_c (summed item accuracy, runs averaged within each
item first) and the cluster sizes n_c (items per cluster); clusters, not items, are the
sampling units. The Bayesian beta-binomial interval lives in ``_bayes`` and is re-exported
here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special, stats

from assay.stats._bayes import beta_binomial_bayes_interval
from assay.stats._ratio import _SNAP, _linearised_residuals
from assay.stats._results import Alternative, BootstrapRatios, IntervalResult, RatioEstimate
from assay.stats._validate import (
    _check_1d,
    _check_alternative,
    _check_clusters,
    _check_conf,
    _check_in_range,
)

__all__ = [
    "beta_binomial_bayes_interval",
    "cluster_bootstrap_ratios",
    "cluster_t_interval",
    "korn_graubard_interval",
    "ratio_estimate",
    "studentised_bootstrap_interval",
]

_BLOCK_ELEMENTS = 1 << 20  # rows of the (B, C) weight matrix are recomputed in blocks this big
_EXPANSION_TOLERANCE = 2.0**30 * float(np.finfo(np.float64).eps)
"""Times C: the least ss / scale^2 at which the expanded resample variance is trusted."""


def ratio_estimate(sums: ArrayLike, sizes: ArrayLike) -> RatioEstimate:
    r"""Ratio estimator of a per-item mean over clusters, with its linearised variance.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, the sum over the items of cluster c of the per-item value (for accuracy: the
        item's mean correctness over runs; for a paired contrast: the item's difference).
    sizes : array_like, shape (C,)
        n_c, the number of items in cluster c; positive.

    Returns
    -------
    RatioEstimate
        ``estimate`` r, ``variance`` V, ``standard_error`` sqrt(V), ``n`` = N,
        ``n_clusters`` = C.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, arrays of different lengths, non-finite values or a
        non-positive size.

    Notes
    -----
    With N = sum_c n_c and C clusters [1]_ [2]_,

    .. math:: r = \frac{\sum_c S_c}{N}, \qquad
              V = \frac{C}{C-1} \sum_c \frac{(S_c - r n_c)^2}{N^2}.

    V is the cluster-robust (sandwich) variance of the mean, the one statsmodels gives for an
    OLS regression on a constant with ``cov_type="cluster"``: its small-sample factor
    C/(C-1) (N-1)/(N-K) reduces to C/(C-1) with K = 1 regressor. That is the oracle in
    ``tests/stats``. Residuals S_c - r n_c within rounding error of zero are set to exactly
    zero (see ``_linearised_residuals``), so V is exactly 0 when every cluster has the same
    mean.

    References
    ----------
    .. [1] Cochran, W. G. (1977). Sampling Techniques, 3rd ed., ch. 6. Wiley.
    .. [2] Cameron, A. C. and Miller, D. L. (2015). A practitioner's guide to cluster-robust
           inference. Journal of Human Resources 50(2), 317-372.

    Examples
    --------
    Nine questions from three documents with item accuracies summing to 2, 2 and 1:
    r = 5/9 and V = 3/2 ((2 - 15/9)^2 + (2 - 10/9)^2 + (1 - 20/9)^2) / 81 = 97/2187.

    >>> res = ratio_estimate([2, 2, 1], [3, 2, 4])
    >>> round(res.estimate, 12), round(res.variance, 12), res.n, res.n_clusters
    (0.555555555556, 0.04435299497, 9.0, 3)
    """
    s, n = _check_clusters(sums, sizes)
    total = float(np.sum(n))
    r = float(np.sum(s)) / total
    resid = _linearised_residuals(s, n, r)
    c = s.size
    variance = c / (c - 1) * float(np.sum(resid * resid)) / total**2
    return RatioEstimate(
        estimate=r,
        variance=variance,
        standard_error=math.sqrt(variance),
        n=total,
        n_clusters=c,
    )


def cluster_t_interval(sums: ArrayLike, sizes: ArrayLike, *, conf: float = 0.95) -> IntervalResult:
    r"""Cluster-robust t interval for a proportion, on the logit scale.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, summed item accuracy of cluster c (runs averaged within item first);
        0 <= S_c <= n_c.
    sizes : array_like, shape (C,)
        n_c, number of items in cluster c; positive.
    conf : float, default 0.95
        Two-sided confidence level in (0, 1).

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` sqrt(V) (probability scale),
        ``df`` = C - 1, ``critical_value`` t_{C-1,(1+conf)/2}, ``n`` = N,
        ``n_clusters`` = C, ``method = "logit_cluster_robust_t"``. Both bounds are NaN when
        r is 0 or 1 or V = 0, where the logit interval is not defined (the report then uses
        :func:`korn_graubard_interval`).

    Raises
    ------
    ValueError
        Fewer than 2 clusters, a non-positive size, a sum outside [0, n_c], or `conf`
        outside (0, 1).

    Notes
    -----
    With r and V from :func:`ratio_estimate`, the delta method on the logit scale [3]_ gives
    se(logit r) = sqrt(V) / (r (1 - r)), and the interval is

    .. math:: \operatorname{expit}\left(\operatorname{logit} r \pm
              t_{C-1,(1+conf)/2} \frac{\sqrt{V}}{r(1-r)}\right)

    with C - 1 degrees of freedom for few clusters [1]_ [2]_. Assumes clusters are
    independent draws; items within a cluster may correlate arbitrarily, so C, not N,
    governs precision. sqrt(V) is validated against statsmodels OLS on a constant with
    ``cov_type="cluster"``; the bounds against the seed's printed example (short arm
    0.6444444 in [0.5845116, 0.7001668]).

    References
    ----------
    .. [1] Cochran, W. G. (1977). Sampling Techniques, 3rd ed., ch. 6. Wiley.
    .. [2] Cameron, A. C. and Miller, D. L. (2015). A practitioner's guide to cluster-robust
           inference. Journal of Human Resources 50(2), 317-372.
    .. [3] Agresti, A. (2013). Categorical Data Analysis, 3rd ed. Wiley.

    Examples
    --------
    Nine questions from three documents: r = 5/9, V = 97/2187, t_{2,0.975} = 4.302653, so
    logit r = log(5/4) = 0.223144 and the half-width on the logit scale is
    4.302653 x 0.210602 / (20/81) = 3.669888; expit(0.223144 -+ 3.669888):

    >>> res = cluster_t_interval([2, 2, 1], [3, 2, 4])
    >>> round(res.estimate, 4), round(res.lower, 4), round(res.upper, 4)
    (0.5556, 0.0309, 0.98)

    The interval is wide because there are only 3 clusters.
    """
    conf = _check_conf(conf)
    s, n = _check_clusters(sums, sizes)
    _check_in_range(s, n, 0.0, "sums")
    est = ratio_estimate(s, n)
    r, c = est.estimate, est.n_clusters
    t_crit = float(stats.t.ppf((1.0 + conf) / 2.0, c - 1))
    if est.variance > 0.0 and 0.0 < r < 1.0:
        centre = float(special.logit(r))
        half = t_crit * est.standard_error / (r * (1.0 - r))
        lower, upper = float(special.expit(centre - half)), float(special.expit(centre + half))
    else:
        lower = upper = math.nan
    return IntervalResult(
        estimate=r,
        lower=lower,
        upper=upper,
        standard_error=est.standard_error,
        method="logit_cluster_robust_t",
        conf=conf,
        df=float(c - 1),
        n=est.n,
        n_clusters=c,
        critical_value=t_crit,
    )


def korn_graubard_interval(
    sums: ArrayLike,
    sizes: ArrayLike,
    *,
    conf: float = 0.95,
    alternative: Alternative = "two-sided",
) -> IntervalResult:
    r"""Clopper-Pearson interval on the Korn-Graubard effective number of items.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, summed item accuracy of cluster c; 0 <= S_c <= n_c.
    sizes : array_like, shape (C,)
        n_c, number of items in cluster c; positive.
    conf : float, default 0.95
        Confidence level in (0, 1): two-sided, or of the one bound for a one-sided
        `alternative`.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` gives the one-sided lower bound (``upper`` = 1), ``"less"`` the
        one-sided upper bound (``lower`` = 0), each at level `conf`.

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` sqrt(V), ``df`` = C - 1,
        ``n`` = the df-adjusted effective number of items n*, ``n_clusters`` = C,
        ``alternative`` = the sidedness actually used, and
        ``method = "korn_graubard_clopper_pearson"``.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, a non-positive size, a sum outside [0, n_c], `conf` outside
        (0, 1), or an unknown `alternative`.

    Notes
    -----
    With r, V, N and C from :func:`ratio_estimate`, the effective number of items and its
    degrees-of-freedom adjustment [1]_ are

    .. math:: n^* = \min\left(N,\; \frac{r(1-r)}{V}
              \left(\frac{t_{N-1,q}}{t_{C-1,q}}\right)^2\right),

    with q = (1 + conf) / 2 for a two-sided interval and q = conf for a one-sided bound. The
    interval is Clopper-Pearson [2]_ with x = r n* successes of n* trials (non-integer counts
    allowed): lower = Beta^{-1}(a; x, n* - x + 1), upper = Beta^{-1}(1 - a; x + 1, n* - x),
    a = (1 - q). This is the construction of R survey's ``svyciprop(method = "beta")``,
    with the cap at N added because runs of one item mostly agree and items are the trials.

    Degenerate cases, where r(1 - r) / V is not defined:

    * V = 0 with 0 < r < 1 (every cluster has the same accuracy): r(1 - r)/V is replaced by
      N before the df adjustment, so n* = N (t_{N-1,q} / t_{C-1,q})^2.
    * r = 0 (then V = 0): n* as in the previous case, and a two-sided request becomes the
      one-sided upper bound at level `conf`: [0, 1 - (1 - conf)^{1/n*}]; ``alternative`` of
      the result is ``"less"``.
    * r = 1: likewise the one-sided lower bound [(1 - conf)^{1/n*}, 1]; ``alternative`` of
      the result is ``"greater"``.
    * A one-sided request that points away from the observed bound (``"greater"`` at r = 0,
      ``"less"`` at r = 1) gives the whole range [0, 1].

    With one item per cluster (C = N), V = r(1 - r)/(N - 1), so n* = N - 1 and the interval is
    Clopper-Pearson on N - 1 trials. The tests check the interval against scipy's
    ``binomtest(...).proportion_ci(method="exact")`` in a design where n* reaches the cap N
    (so the counts are integers), and against the svyciprop formula written out with
    scipy.stats.t and scipy.stats.beta.

    References
    ----------
    .. [1] Korn, E. L. and Graubard, B. I. (1998). Confidence intervals for proportions with
           small expected number of positive counts estimated from survey data. Survey
           Methodology 24(2), 193-201.
    .. [2] Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial limits
           illustrated in the case of the binomial. Biometrika 26(4), 404-413.

    Examples
    --------
    Every one of 3 clusters of 4 items is half right, so V = 0 and
    n* = 12 (t_{11,0.975} / t_{2,0.975})^2 = 12 (2.200985 / 4.302653)^2 = 3.140096; with
    x = n*/2 the bounds are Beta^{-1}(0.025; x, x + 1) and Beta^{-1}(0.975; x + 1, x):

    >>> res = korn_graubard_interval([2, 2, 2], [4, 4, 4])
    >>> round(res.n, 4), round(res.lower, 4), round(res.upper, 4)
    (3.1401, 0.0428, 0.9572)

    All wrong: the one-sided 95% upper bound 1 - 0.05^(1/n*), with
    n* = 12 (1.795885 / 2.919986)^2 = 4.539174:

    >>> res = korn_graubard_interval([0, 0, 0], [4, 4, 4])
    >>> res.alternative, res.lower, round(res.upper, 4)
    ('less', 0.0, 0.4831)
    """
    conf = _check_conf(conf)
    side = _check_alternative(alternative)
    s, n = _check_clusters(sums, sizes)
    _check_in_range(s, n, 0.0, "sums")
    est = ratio_estimate(s, n)
    r, variance, total, c = est.estimate, est.variance, est.n, est.n_clusters
    if side == "two-sided" and r <= 0.0:
        side = "less"
    elif side == "two-sided" and r >= 1.0:
        side = "greater"
    tail = (1.0 - conf) / 2.0 if side == "two-sided" else 1.0 - conf
    q = 1.0 - tail
    raw = r * (1.0 - r) / variance if variance > 0.0 else total
    factor = (float(stats.t.ppf(q, total - 1.0)) / float(stats.t.ppf(q, c - 1))) ** 2
    n_eff = min(raw * factor, total)
    x = r * n_eff
    lower, upper = 0.0, 1.0
    if side != "less" and r > 0.0:
        lower = float(stats.beta.ppf(tail, x, n_eff - x + 1.0))
    if side != "greater" and r < 1.0:
        upper = float(stats.beta.ppf(1.0 - tail, x + 1.0, n_eff - x))
    return IntervalResult(
        estimate=r,
        lower=lower,
        upper=upper,
        standard_error=est.standard_error,
        method="korn_graubard_clopper_pearson",
        conf=conf,
        df=float(c - 1),
        n=n_eff,
        n_clusters=c,
        alternative=side,  # type: ignore[arg-type]
    )


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
        :func:`~assay.stats.resampling.cluster_bootstrap_weights`); non-negative, each row
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
