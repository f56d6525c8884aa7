"""Quantiles and tail areas of the t, normal, beta and F distributions from
:mod:`scipy.special` alone (the t quantile from :mod:`assay.stats._special`, without scipy).

``scipy.stats`` takes several times as long to import as ``scipy.special`` (it loads
every distribution, scipy.sparse and scipy.spatial): a report that only needs a t
quantile reads it here and starts in a fraction of the time. Each function is the
special function scipy.stats itself evaluates, so the values agree to rounding (checked
in ``tests/stats/test_distributions.py`` against scipy.stats).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.stats._special import t_quantile

__all__ = ["beta_ppf", "f_sf", "norm_cdf", "norm_ppf", "t_cdf", "t_ppf", "t_sf"]


def t_ppf(q: Any, df: Any) -> Any:
    """Quantile of Student's t with `df` degrees of freedom.

    Parameters
    ----------
    q : float or array
        Lower-tail probability in (0, 1).
    df : float or array
        Degrees of freedom, positive (not necessarily whole).

    Returns
    -------
    float or array
        t such that P(T <= t) = q.

    Notes
    -----
    The inverse of P(T <= t) = 1 - I_x(df/2, 1/2)/2 with x = df/(df + t^2) for t > 0
    (Abramowitz & Stegun 1964, 26.7.1), by :func:`assay.stats._special.t_quantile` in pure
    Python (no scipy import: the score summary starts fast); it agrees with
    ``scipy.special.stdtrit(df, q)`` to about 1e-13 relative.

    Examples
    --------
    >>> round(float(t_ppf(0.975, 10)), 4)
    2.2281
    """
    values = np.vectorize(t_quantile, otypes=[np.float64])(q, df)
    return float(values) if values.ndim == 0 else values


def t_cdf(t: Any, df: Any) -> Any:
    """P(T <= t) for Student's t with `df` degrees of freedom.

    Notes
    -----
    ``scipy.special.stdtr(df, t)`` (Abramowitz & Stegun 1964, 26.7.1).

    Examples
    --------
    >>> round(float(t_cdf(0.0, 5)), 3)
    0.5
    """
    from scipy import special

    return special.stdtr(df, t)


def t_sf(t: Any, df: Any) -> Any:
    """P(T > t) for Student's t with `df` degrees of freedom.

    Notes
    -----
    P(T > t) = P(T <= -t) by symmetry, computed as ``stdtr(df, -t)`` so a far tail keeps
    its digits (1 - cdf would cancel).

    Examples
    --------
    >>> round(float(t_sf(2.2281388519649385, 10)), 4)
    0.025
    """
    from scipy import special

    return special.stdtr(df, -t)


def norm_ppf(q: Any) -> Any:
    """Standard normal quantile.

    Notes
    -----
    ``scipy.special.ndtri(q)``, the inverse of Phi(z) = (1 + erf(z / sqrt 2)) / 2.

    Examples
    --------
    >>> round(float(norm_ppf(0.975)), 4)
    1.96
    """
    from scipy import special

    return special.ndtri(q)


def norm_cdf(z: Any) -> Any:
    """Standard normal P(Z <= z).

    Notes
    -----
    ``scipy.special.ndtr(z)`` = (1 + erf(z / sqrt 2)) / 2.

    Examples
    --------
    >>> round(float(norm_cdf(1.959963984540054)), 4)
    0.975
    """
    from scipy import special

    return special.ndtr(z)


def beta_ppf(q: Any, a: Any, b: Any) -> Any:
    """Quantile of the Beta(a, b) distribution.

    Notes
    -----
    ``scipy.special.betaincinv(a, b, q)``, the inverse of the regularised incomplete beta
    function I_x(a, b) (Abramowitz & Stegun 1964, 26.5.1), as in Clopper-Pearson bounds.

    Examples
    --------
    >>> round(float(beta_ppf(0.5, 1.0, 1.0)), 3)
    0.5
    """
    from scipy import special

    return special.betaincinv(a, b, q)


def f_sf(x: Any, dfn: Any, dfd: Any) -> Any:
    """P(F > x) for the F distribution with (dfn, dfd) degrees of freedom.

    Notes
    -----
    ``scipy.special.fdtrc(dfn, dfd, x)`` = I_{dfd/(dfd + dfn x)}(dfd/2, dfn/2)
    (Abramowitz & Stegun 1964, 26.6.2).

    Examples
    --------
    >>> round(float(f_sf(1.0, 2, 2)), 3)
    0.5
    """
    from scipy import special

    return special.fdtrc(dfn, dfd, x)
