"""Intervals for a proportion estimated from clustered items.

Every function takes the cluster sums S_c (summed item accuracy, runs averaged within each
item first) and the cluster sizes n_c (items per cluster); clusters, not items, are the
sampling units. The Bayesian beta-binomial interval lives in ``_bayes`` (not imported here:
it needs scipy.special, which the score summary does without); the studentised cluster
bootstrap in :mod:`assay.stats.intervals._bootstrap`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._distributions import beta_ppf, norm_ppf, t_ppf
from assay.stats._results import Alternative, IntervalResult, RatioEstimate, SmallSample
from assay.stats._special import expit, logit
from assay.stats._validate import (
    _check_alternative,
    _check_clusters,
    _check_conf,
    _check_in_range,
)
from assay.stats.intervals._cr2 import cr2_ratio_estimate
from assay.stats.intervals._ratio import _linearised_residuals

__all__ = [
    "cluster_t_interval",
    "korn_graubard_interval",
    "ratio_estimate",
]



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


def cluster_t_interval(sums: ArrayLike, sizes: ArrayLike, *, conf: float = 0.95,
                       variance: SmallSample = "CR1",
                       sumsq: ArrayLike | None = None) -> IntervalResult:
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
    variance : {"CR1", "CR2"}, default "CR1"
        ``"CR1"``: V of :func:`ratio_estimate` with C - 1 df. ``"CR2"``: V2 of
        :func:`~assay.stats.intervals.cr2_ratio_estimate` with its Bell-McCaffrey df; the
        same numbers when every cluster has the same size.
    sumsq : array_like, shape (C,), optional
        Sums of squared item values per cluster, for the working ICC of the CR2 df; only
        with ``variance="CR2"``.

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` sqrt(V) (probability scale),
        ``df`` (C - 1, or nu for CR2), ``critical_value`` t_{df,(1+conf)/2}, ``n`` = N,
        ``n_clusters`` = C, ``method = "logit_cluster_robust_t"`` (``"logit_cr2_t"`` for
        CR2). Both bounds are NaN when r is 0 or 1 or V = 0, where the logit interval is not
        defined (the report then uses :func:`korn_graubard_interval`).

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

    with C - 1 degrees of freedom for few clusters [1]_ [2]_ (CR2: V2 and nu in place of V
    and C - 1, see :func:`~assay.stats.intervals.cr2_ratio_estimate`). Assumes clusters are
    independent draws; items within a cluster may correlate arbitrarily, so C, not N,
    governs precision. sqrt(V) is validated against statsmodels OLS on a constant with
    ``cov_type="cluster"``; the bounds against hr_report's printed example (short arm
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
    r, var, se, df = _small_sample_variance(s, n, variance, sumsq)
    c = s.size
    t_crit = float(t_ppf((1.0 + conf) / 2.0, df))
    if var > 0.0 and 0.0 < r < 1.0:
        centre = logit(float(r))
        half = t_crit * se / (r * (1.0 - r))
        lower, upper = expit(centre - half), expit(centre + half)
    else:
        lower = upper = math.nan
    return IntervalResult(
        estimate=r,
        lower=lower,
        upper=upper,
        standard_error=se,
        method="logit_cluster_robust_t" if variance == "CR1" else "logit_cr2_t",
        conf=conf,
        df=df,
        n=float(n.sum()),
        n_clusters=c,
        critical_value=t_crit,
    )



def korn_graubard_interval(
    sums: ArrayLike,
    sizes: ArrayLike,
    *,
    conf: float = 0.95,
    alternative: Alternative = "two-sided",
    design_df: float | None = None,
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
    design_df : float, optional
        Degrees of freedom of the design in the df adjustment, C - 1 by default; at least 1
        (with a few large clusters among many small ones, G* - 1 of the effective number of
        clusters says more than C - 1).

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` sqrt(V), ``df`` = C - 1
        (or `design_df`),
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

    with q = (1 + conf) / 2 for a two-sided interval and q = conf for a one-sided bound
    (C - 1 is `design_df` when given). The
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
    est, df = _kg_design(sums, sizes, design_df)
    r, variance, total, c = est.estimate, est.variance, est.n, est.n_clusters
    if side == "two-sided" and r <= 0.0:
        side = "less"
    elif side == "two-sided" and r >= 1.0:
        side = "greater"
    tail = (1.0 - conf) / 2.0 if side == "two-sided" else 1.0 - conf
    q = 1.0 - tail
    n_eff = _kg_effective_n(r, variance, total, df, q)
    x = r * n_eff
    lower, upper = 0.0, 1.0
    if side != "less" and r > 0.0:
        lower = float(beta_ppf(tail, x, n_eff - x + 1.0))
    if side != "greater" and r < 1.0:
        upper = float(beta_ppf(1.0 - tail, x + 1.0, n_eff - x))
    return IntervalResult(
        estimate=r,
        lower=lower,
        upper=upper,
        standard_error=est.standard_error,
        method="korn_graubard_clopper_pearson",
        conf=conf,
        df=df,
        n=n_eff,
        n_clusters=c,
        alternative=side,  # type: ignore[arg-type]
    )


def korn_graubard_wilson_interval(
    sums: ArrayLike,
    sizes: ArrayLike,
    *,
    conf: float = 0.95,
    design_df: float | None = None,
) -> IntervalResult:
    r"""Wilson score interval on the Korn-Graubard effective number of items (two-sided).

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, summed item accuracy of cluster c; 0 <= S_c <= n_c.
    sizes : array_like, shape (C,)
        n_c, number of items in cluster c; positive.
    conf : float, default 0.95
        Two-sided confidence level in (0, 1).
    design_df : float, optional
        Degrees of freedom of the design in the df adjustment, C - 1 by default; at least 1.

    Returns
    -------
    IntervalResult
        ``estimate`` r, ``lower``, ``upper``, ``standard_error`` sqrt(V), ``df`` = C - 1
        (or `design_df`), ``n`` = n*, ``n_clusters`` = C and
        ``method = "korn_graubard_wilson"``.

    Raises
    ------
    ValueError
        As :func:`korn_graubard_interval`.

    Notes
    -----
    n* is that of :func:`korn_graubard_interval` at q = (1 + conf) / 2 [1]_,

    .. math:: n^* = \min\left(N,\; \frac{r(1-r)}{V}
              \left(\frac{t_{N-1,q}}{t_{C-1,q}}\right)^2\right)

    (r(1 - r)/V replaced by N when V = 0, so also at r = 0 and r = 1), and the interval is
    Wilson's score interval [2]_ for the proportion r of n* trials with z = Phi^{-1}(q):

    .. math:: \frac{r + z^2/(2n^*) \mp z\sqrt{r(1-r)/n^* + z^2/(4n^{*2})}}{1 + z^2/n^*}.

    It stays two-sided at r = 0 and r = 1 ([0, z^2/(n* + z^2)] and its mirror). Dean and
    Pagano [3]_ compare Wilson, Clopper-Pearson and other intervals on an effective sample
    size in cluster surveys; Clopper-Pearson (:func:`korn_graubard_interval`) is the
    conservative one. With one item per cluster n* = N - 1; when n* reaches the cap N and
    r N is a count, the interval is statsmodels' ``proportion_confint(method="wilson")``
    (the tests check both).

    References
    ----------
    .. [1] Korn, E. L. and Graubard, B. I. (1998). Confidence intervals for proportions with
           small expected number of positive counts estimated from survey data. Survey
           Methodology 24(2), 193-201.
    .. [2] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
           inference. Journal of the American Statistical Association 22(158), 209-212.
    .. [3] Dean, N. and Pagano, M. (2015). Evaluating confidence interval methods for
           binomial proportions in clustered surveys. Journal of Survey Statistics and
           Methodology 3(4), 484-503.

    Examples
    --------
    Every one of 3 clusters of 4 items is half right: V = 0 and n* = 3.140096 (as in
    :func:`korn_graubard_interval`); z^2/n* = 3.841459/3.140096 = 1.223358, so the bounds are
    0.5 -/+ 1.959964 sqrt(0.25/n* + z^2/(4 n*^2)) / 2.223358 = 0.5 -/+ 0.370887:

    >>> res = korn_graubard_wilson_interval([2, 2, 2], [4, 4, 4])
    >>> round(res.n, 4), round(res.lower, 4), round(res.upper, 4)
    (3.1401, 0.1291, 0.8709)
    """
    design = kg_two_sided(sums, sizes, conf, design_df)
    r, n_eff = design.estimate.estimate, design.n_eff
    z = float(norm_ppf(design.q))
    z2n = z * z / n_eff
    centre = (r + z2n / 2.0) / (1.0 + z2n)
    half = z * math.sqrt(r * (1.0 - r) / n_eff + z2n / (4.0 * n_eff)) / (1.0 + z2n)
    return design.result(max(centre - half, 0.0), min(centre + half, 1.0), "korn_graubard_wilson")


@dataclass(frozen=True)
class KGTwoSided:
    """What a two-sided interval on the Korn-Graubard effective n needs: the checked ratio
    estimate, the design df, q = (1 + conf) / 2, n* at q and x = r n*
    (:func:`kg_two_sided`)."""

    estimate: RatioEstimate
    df: float
    conf: float
    q: float
    n_eff: float
    x: float

    def result(self, lower: float, upper: float, method: str) -> IntervalResult:
        """The interval [lower, upper], widened to hold r, with the design's fields."""
        r = self.estimate.estimate
        return IntervalResult(
            estimate=r,
            lower=min(lower, r),
            upper=max(upper, r),
            standard_error=self.estimate.standard_error,
            method=method,
            conf=self.conf,
            df=self.df,
            n=self.n_eff,
            n_clusters=self.estimate.n_clusters,
        )


def kg_two_sided(sums: ArrayLike, sizes: ArrayLike, conf: float,
                 design_df: float | None) -> KGTwoSided:
    """The checked level, design and effective n* of a two-sided interval on n* (Wilson,
    mid-p, Jeffreys: only the binomial interval on (x, n*) differs)."""
    conf = _check_conf(conf)
    est, df = _kg_design(sums, sizes, design_df)
    q = (1.0 + conf) / 2.0
    n_eff = _kg_effective_n(est.estimate, est.variance, est.n, df, q)
    return KGTwoSided(est, df, conf, q, n_eff, est.estimate * n_eff)


def _kg_design(sums: ArrayLike, sizes: ArrayLike,
               design_df: float | None) -> tuple[RatioEstimate, float]:
    """The checked clusters' ratio estimate and the design df (C - 1 unless `design_df`),
    shared by the two Korn-Graubard intervals."""
    s, n = _check_clusters(sums, sizes)
    _check_in_range(s, n, 0.0, "sums")
    est = ratio_estimate(s, n)
    df = float(est.n_clusters - 1) if design_df is None else float(design_df)
    if not (math.isfinite(df) and df >= 1.0):
        raise ValueError(f"design_df must be a number of at least 1, got {design_df!r}")
    return est, df


def _kg_effective_n(r: float, variance: float, total: float, df: float, q: float) -> float:
    """Korn-Graubard's n* = min(r (1 - r) / V (t_{q, n - 1} / t_{q, df})^2, n).

    n* is n when V = 0 or r is 0 or 1 (with sums in [0, sizes], r = 0 or 1 makes every
    linearised residual, so V, exactly 0: the two cases are one)."""
    raw = r * (1.0 - r) / variance if variance > 0.0 and 0.0 < r < 1.0 else total
    return min(raw * (float(t_ppf(q, total - 1.0)) / float(t_ppf(q, df))) ** 2, total)


def _small_sample_variance(s: npt.NDArray[np.float64], n: npt.NDArray[np.float64],
                           variance: str, sumsq: ArrayLike | None) -> tuple[float, float, float, float]:
    """(r, V, sqrt(V), df) of CR1 (C - 1 df) or CR2 (Bell-McCaffrey df), for the intervals."""
    if variance == "CR1":
        if sumsq is not None:
            raise ValueError('sumsq is used only with variance="CR2"')
        est = ratio_estimate(s, n)
        return est.estimate, est.variance, est.standard_error, float(s.size - 1)
    if variance != "CR2":
        raise ValueError(f'variance must be "CR1" or "CR2", got {variance!r}')
    cr2 = cr2_ratio_estimate(s, n, sumsq=sumsq)
    return cr2.estimate, cr2.variance, cr2.standard_error, cr2.df
