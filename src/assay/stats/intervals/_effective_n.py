"""Binomial intervals on the Korn-Graubard effective number of items, less conservative than
Clopper-Pearson: the mid-p interval and Jeffreys' interval (issue 26, for sparse arms).

Both take the df-adjusted effective n* of :func:`assay.stats.korn_graubard_interval` and
x = r n* (non-integer counts allowed); only the binomial interval on (x, n*) differs.
"""

from __future__ import annotations

from numpy.typing import ArrayLike

from assay.stats._distributions import beta_ppf
from assay.stats._results import IntervalResult
from assay.stats.intervals._analytic import kg_two_sided

__all__ = ["korn_graubard_jeffreys_interval", "korn_graubard_midp_interval"]


def korn_graubard_midp_interval(
    sums: ArrayLike,
    sizes: ArrayLike,
    *,
    conf: float = 0.95,
    design_df: float | None = None,
) -> IntervalResult:
    r"""Mid-p Clopper-Pearson interval on the Korn-Graubard effective number of items.

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
        ``method = "korn_graubard_midp"``.

    Raises
    ------
    ValueError
        As :func:`assay.stats.korn_graubard_interval`.

    Notes
    -----
    n* is Korn and Graubard's [1]_ df-adjusted effective number of items at
    q = (1 + conf) / 2, as in :func:`assay.stats.korn_graubard_interval`,

    .. math:: n^* = \min\left(N,\; \frac{r(1-r)}{V}
              \left(\frac{t_{N-1,q}}{t_{C-1,q}}\right)^2\right)

    (r(1 - r)/V replaced by N when V = 0), and x = r n*. The mid-p interval [2]_ [3]_ counts
    half the probability of the observed count: with integer x its bounds solve
    P_L(X > x) + P_L(X = x) / 2 = a and P_U(X < x) + P_U(X = x) / 2 = a, a = (1 - conf) / 2,
    X ~ Binomial(n*, p). Written with the regularised incomplete beta function,
    P_p(X >= x) = I_p(x, n - x + 1) and P_p(X > x) = I_p(x + 1, n - x), so both bounds are
    the roots of one increasing function of p, defined for non-integer x and n* too:

    .. math:: g(p) = \tfrac12\left[I_p(x, n^* - x + 1) + I_p(x + 1, n^* - x)\right],
              \qquad g(L) = a, \quad g(U) = 1 - a.

    Clopper-Pearson's bounds are the roots of its two terms alone (I_p(x, n* - x + 1) = a,
    I_p(x + 1, n* - x) = 1 - a), so the mid-p interval lies inside it. At x = 0,
    g(p) = 1 - (1 - p)^{n*}/2, so L = 0 and U = 1 - (1 - conf)^{1/n*} (Clopper-Pearson's
    one-sided bound at level conf); x = n* mirrors it.

    References
    ----------
    .. [1] Korn, E. L. and Graubard, B. I. (1998). Confidence intervals for proportions with
           small expected number of positive counts estimated from survey data. Survey
           Methodology 24(2), 193-201.
    .. [2] Lancaster, H. O. (1961). Significance tests in discrete distributions. Journal of
           the American Statistical Association 56(294), 223-234.
    .. [3] Agresti, A. and Gottard, A. (2007). Nonconservative exact small-sample inference
           for discrete data. Computational Statistics & Data Analysis 51(12), 6447-6458.

    Examples
    --------
    Every one of 3 clusters of 4 items is half right: V = 0, n* = 3.140096 (as in
    :func:`assay.stats.korn_graubard_interval`, whose bounds are 0.0428 and 0.9572), x = n*/2;
    the interval is symmetric about 1/2:

    >>> res = korn_graubard_midp_interval([2, 2, 2], [4, 4, 4])
    >>> round(res.n, 4), round(res.lower, 4), round(res.upper, 4)
    (3.1401, 0.0658, 0.9342)
    """
    from scipy import optimize, special

    design = kg_two_sided(sums, sizes, conf, design_df)
    conf, q, n_eff, x = design.conf, design.q, design.n_eff, design.x
    r = design.estimate.estimate
    tail = 1.0 - q

    def g(p: float) -> float:
        return 0.5 * (float(special.betainc(x, n_eff - x + 1.0, p))
                      + float(special.betainc(x + 1.0, n_eff - x, p)))

    if r <= 0.0:
        lower, upper = 0.0, 1.0 - (1.0 - conf) ** (1.0 / n_eff)
    elif r >= 1.0:
        lower, upper = (1.0 - conf) ** (1.0 / n_eff), 1.0
    else:
        # g runs from 0 at p = 0 to 1 at p = 1, and increases: one root each.
        lower = float(optimize.brentq(lambda p: g(p) - tail, 0.0, 1.0, xtol=1e-14, rtol=1e-14))
        upper = float(optimize.brentq(lambda p: g(p) - q, 0.0, 1.0, xtol=1e-14, rtol=1e-14))
    return design.result(lower, upper, "korn_graubard_midp")


def korn_graubard_jeffreys_interval(
    sums: ArrayLike,
    sizes: ArrayLike,
    *,
    conf: float = 0.95,
    design_df: float | None = None,
) -> IntervalResult:
    r"""Jeffreys interval on the Korn-Graubard effective number of items (two-sided).

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
        ``method = "korn_graubard_jeffreys"``.

    Raises
    ------
    ValueError
        As :func:`assay.stats.korn_graubard_interval`.

    Notes
    -----
    n* and x = r n* as in :func:`korn_graubard_midp_interval` (Korn and Graubard's [1]_
    df-adjusted effective number of items at q = (1 + conf) / 2). The interval is the
    equal-tailed interval of the posterior Beta(x + 1/2, n* - x + 1/2) under Jeffreys' prior
    [2]_:

    .. math:: L = B^{-1}(a;\, x + \tfrac12,\, n^* - x + \tfrac12), \qquad
              U = B^{-1}(1 - a;\, x + \tfrac12,\, n^* - x + \tfrac12),
              \qquad a = (1 - conf) / 2,

    with Brown, Cai and DasGupta's [2]_ convention L = 0 at x = 0 and U = 1 at x = n*.
    Dean and Pagano [3]_ and Franco, Little, Louis and Slud [4]_ compare it with Wilson,
    Clopper-Pearson and others on an effective sample size in complex surveys. With one item
    per cluster n* = N - 1; when n* reaches the cap N and r N is a count it is statsmodels'
    ``proportion_confint(method="jeffreys")`` (the tests check it).

    References
    ----------
    .. [1] Korn, E. L. and Graubard, B. I. (1998). Confidence intervals for proportions with
           small expected number of positive counts estimated from survey data. Survey
           Methodology 24(2), 193-201.
    .. [2] Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval estimation for a
           binomial proportion. Statistical Science 16(2), 101-133.
    .. [3] Dean, N. and Pagano, M. (2015). Evaluating confidence interval methods for
           binomial proportions in clustered surveys. Journal of Survey Statistics and
           Methodology 3(4), 484-503.
    .. [4] Franco, C., Little, R. J. A., Louis, T. A. and Slud, E. V. (2019). Comparative
           study of confidence intervals for proportions in complex sample surveys. Journal
           of Survey Statistics and Methodology 7(3), 334-364.

    Examples
    --------
    Every one of 3 clusters of 4 items is half right: V = 0, n* = 3.140096, x = n*/2, so the
    bounds are the 2.5% and 97.5% quantiles of Beta(2.070048, 2.070048):

    >>> res = korn_graubard_jeffreys_interval([2, 2, 2], [4, 4, 4])
    >>> round(res.n, 4), round(res.lower, 4), round(res.upper, 4)
    (3.1401, 0.0986, 0.9014)
    """
    design = kg_two_sided(sums, sizes, conf, design_df)
    r, q, n_eff, x = design.estimate.estimate, design.q, design.n_eff, design.x
    a, b = x + 0.5, n_eff - x + 0.5
    lower = 0.0 if r <= 0.0 else float(beta_ppf(1.0 - q, a, b))
    upper = 1.0 if r >= 1.0 else float(beta_ppf(q, a, b))
    return design.result(lower, upper, "korn_graubard_jeffreys")

