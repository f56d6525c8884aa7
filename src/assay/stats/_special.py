"""Student's t quantile, logit and expit in pure Python, for reports that start fast.

Importing :mod:`scipy.special` costs about half a second on our machines (scipy 1.17 loads
every numpy submodule through its array-API layer, ``numpy.f2py`` included), more than a
small score summary takes to compute. The score summary needs only a t quantile, a logit
and an expit, so they are computed here with :mod:`math` alone; every other distribution
function still comes from scipy (:mod:`assay.stats._distributions`).

``logit`` and ``expit`` are the formulas scipy's ufuncs evaluate (bit for bit: checked in
``tests/stats/test_special.py``); ``t_quantile`` agrees with ``scipy.special.stdtrit`` to
about 1e-13 relative (checked there over df in [0.3, 1e15] and q in [1e-12, 1 - 1e-12]).
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["expit", "logit", "t_quantile", "t_tail"]

_TINY = 1e-300
_HALF_LOG_PI = 0.5 * math.log(math.pi)
_CORNISH_FISHER_DF = 5e3
"""From this df on the quantile is the Cornish-Fisher series (A&S 26.7.5): its first
omitted term is below 1e-14 relative there, and the continued fraction converges slowly."""


def logit(p: float) -> float:
    """log(p / (1 - p)), as scipy.special.logit computes it.

    Near p = 1/2 it is log1p(2(p - 1/2)) - log1p(-2(p - 1/2)), which keeps the digits the
    division loses; elsewhere the plain formula (scipy's ``_logit.h``).

    Examples
    --------
    >>> logit(0.5)
    0.0
    >>> round(logit(0.75), 6)
    1.098612
    """
    if p < 0.3 or p > 0.65:
        return math.log(p / (1.0 - p)) if 0.0 < p < 1.0 else _logit_edge(p)
    s = 2.0 * (p - 0.5)
    return math.log1p(s) - math.log1p(-s)


def _logit_edge(p: float) -> float:
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return math.nan


def expit(x: float) -> float:
    """1 / (1 + exp(-x)), the logistic function (scipy.special.expit's formula).

    Examples
    --------
    >>> expit(0.0)
    0.5
    """
    try:
        return 1.0 / (1.0 + math.exp(-x))
    except OverflowError:
        return 0.0


def t_quantile(q: float, df: float) -> float:
    """Quantile of Student's t with `df` degrees of freedom (any df > 0).

    Parameters
    ----------
    q : float
        Lower-tail probability in [0, 1].
    df : float
        Degrees of freedom, positive (not necessarily whole).

    Returns
    -------
    float
        t such that P(T <= t) = q; NaN for q outside [0, 1] or df <= 0.

    Notes
    -----
    df = 1 and 2 have closed forms (cot(pi p) and (1 - 2p) / sqrt(2p(1 - p)), p the upper
    tail). From df = 5000 on, the Cornish-Fisher expansion of t in the normal quantile z
    to the fourth power of 1/df (Abramowitz & Stegun 1964, 26.7.5). Otherwise Newton's
    method, kept inside a bisection bracket, on the upper tail P(T > t) =
    I_x(df/2, 1/2) / 2 with x = df / (df + t^2) (A&S 26.7.1), the regularised incomplete
    beta function by its continued fraction (modified Lentz; Press et al. 2007,
    Numerical Recipes 3rd ed., 6.4).

    Examples
    --------
    >>> round(t_quantile(0.975, 10), 4)
    2.2281
    >>> round(t_quantile(0.975, 2), 6)
    4.302653
    """
    if math.isnan(q) or math.isnan(df) or df <= 0 or not 0.0 <= q <= 1.0:
        return math.nan
    if q == 0.5:
        return 0.0
    if q in (0.0, 1.0):
        return math.copysign(math.inf, q - 0.5)
    sign = 1.0 if q > 0.5 else -1.0
    p = 1.0 - q if q > 0.5 else q
    if df == 1.0:
        return sign / math.tan(math.pi * p)
    if df == 2.0:
        return sign * (1.0 - 2.0 * p) / math.sqrt(2.0 * p * (1.0 - p))
    if df >= _CORNISH_FISHER_DF:
        return _cornish_fisher(NormalDist().inv_cdf(q), df)
    # Newton from the Cornish-Fisher value (a few digits right from df = 3 on: 3 or 4 steps
    # instead of a dozen or more from the middle of a doubling bracket)
    t = abs(_cornish_fisher(NormalDist().inv_cdf(1.0 - p), df))
    if not 0.0 < t < 1e300:
        t = 1.0
    lo, hi = 0.0, t
    while _t_upper(hi, df) > p:
        lo, hi = hi, hi * 2.0
        if hi > 1e300:
            return sign * math.inf
    t = lo if lo > 0.0 else t  # Newton from the guess, an end of the bracket
    for _ in range(200):
        gap = _t_upper(t, df) - p
        if gap > 0:
            lo = t
        else:
            hi = t
        newton = t + gap / _t_pdf(t, df)
        if abs(newton - t) <= 4e-16 * abs(newton):  # converged (a step below an ulp or two),
            t = newton  # before a step that lands on the bracket's end is taken for a miss
            break
        new = newton if lo < newton < hi else 0.5 * (lo + hi)
        if hi - lo <= 4e-16 * hi:
            t = new
            break
        t = new
    return sign * t


def t_tail(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom, 0 < df < 5000.

    Parameters
    ----------
    t : float
    df : float
        Degrees of freedom, positive and below 5000 (there the continued fraction converges
        slowly: :func:`assay.stats._distributions.t_sf` asks scipy instead).

    Returns
    -------
    float
        The upper tail; NaN for a NaN argument or df outside (0, 5000).

    Notes
    -----
    For t > 0, I_x(df/2, 1/2) / 2 with x = df / (df + t^2) (A&S 26.7.1) by the continued
    fraction of :func:`t_quantile`; for t < 0, 1 - P(T > -t). A far tail keeps its digits:
    nothing is subtracted from 1 for t > 0. Agrees with ``scipy.special.stdtr(df, -t)`` to
    about 1e-13 relative (``tests/stats/test_special.py``).

    Examples
    --------
    >>> round(t_tail(2.2281388519649385, 10), 6)
    0.025
    >>> t_tail(0.0, 3.0)
    0.5
    """
    if math.isnan(t) or math.isnan(df) or not 0 < df < _CORNISH_FISHER_DF:
        return math.nan
    if t == 0.0:
        return 0.5
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if df == 1.0:  # Cauchy: atan(1/t) / pi keeps a far tail's digits
        upper = math.atan(1.0 / abs(t)) / math.pi
        return upper if t > 0 else 1.0 - upper
    return _t_upper(t, df) if t > 0 else 1.0 - _t_upper(-t, df)


def _log_gamma_ratio(a: float) -> float:
    """log(Gamma(a + 1/2) / Gamma(a)); from a = 10 on by Stirling's series, whose
    difference keeps the digits that subtracting two large lgamma values loses."""
    if a < 10.0:
        return math.lgamma(a + 0.5) - math.lgamma(a)

    def correction(z: float) -> float:  # lgamma(z) - Stirling's leading terms
        z2 = z * z
        return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680) / z2) / z2) / z2) / z

    return (a * math.log1p(0.5 / a) - 0.5) + 0.5 * math.log(a) + correction(a + 0.5) \
        - correction(a)


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (Numerical Recipes' betacf)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > _TINY else _TINY
            h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    return h


def _t_upper(t: float, df: float) -> float:
    """P(T > t) for t > 0 (A&S 26.7.1), x and 1 - x formed without cancellation."""
    a = df / 2.0
    t2 = t * t
    x = df / (df + t2)
    y = t2 / (df + t2)
    front = math.exp(_log_gamma_ratio(a) - _HALF_LOG_PI - a * math.log1p(t2 / df)
                     + 0.5 * (math.log(t2) - math.log(df + t2)))
    if x < (a + 1.0) / (a + 2.5):
        return 0.5 * front * _continued_fraction(a, 0.5, x) / a
    return 0.5 - front * _continued_fraction(0.5, a, y)


def _t_pdf(t: float, df: float) -> float:
    return math.exp(_log_gamma_ratio(df / 2.0) - _HALF_LOG_PI - 0.5 * math.log(df)
                    - (df + 1.0) / 2.0 * math.log1p(t * t / df))


def _cornish_fisher(z: float, df: float) -> float:
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
