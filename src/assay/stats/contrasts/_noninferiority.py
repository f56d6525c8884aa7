"""Non-inferiority helpers: the minimum detectable difference and the bisection p-value."""

from __future__ import annotations

import math
from collections.abc import Callable

from scipy import stats

from assay.stats._validate import _check_conf, _check_int, _check_positive

__all__ = ["bisect_p_value", "mdd"]

_TOP = 0.5  # the largest one-sided level searched


def mdd(standard_error: float, df: float, *, alpha: float, power: float = 0.8) -> float:
    r"""Minimum detectable difference of a one-sided t test.

    Parameters
    ----------
    standard_error : float
        SE of the difference, for example sqrt(V_d); non-negative.
    df : float
        Degrees of freedom of the t distribution (C - 1); positive.
    alpha : float
        One-sided level in (0, 1).
    power : float, default 0.8
        Power in (0, 1).

    Returns
    -------
    float
        (t_{df,1-alpha} + t_{df,power}) SE, or NaN when SE = 0 (the data then give no
        variance to base it on).

    Raises
    ------
    ValueError
        A negative or non-finite `standard_error`, a non-positive `df`, or `alpha` or `power`
        outside (0, 1).

    Notes
    -----
    .. math:: MDD = (t_{df,1-\alpha} + t_{df,\text{power}})\, SE

    is the true difference a one-sided level-alpha t test detects with the given power [1]_.
    Validated against ``scipy.stats.nct``: at a true difference of MDD the noncentral-t
    power is close to `power`.

    References
    ----------
    .. [1] Cohen, J. (1988). Statistical Power Analysis for the Behavioral Sciences, 2nd ed.
           Lawrence Erlbaum.

    Examples
    --------
    (t_{11,0.975} + t_{11,0.8}) x 0.04 = (2.200985 + 0.875530) x 0.04 = 0.123061:

    >>> round(mdd(0.04, 11, alpha=0.025), 6)
    0.123061
    """
    se = _check_positive(standard_error, "standard_error", allow_zero=True)
    nu = _check_positive(df, "df")
    a = _check_conf(alpha, "alpha")
    pw = _check_conf(power, "power")
    if se == 0.0:
        return math.nan
    return (float(stats.t.ppf(1.0 - a, nu)) + float(stats.t.ppf(pw, nu))) * se


def bisect_p_value(
    passes: Callable[[float], bool],
    *,
    floor: float = 1e-6,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> float:
    r"""Smallest one-sided level at which a monotone test passes, by bisection.

    Parameters
    ----------
    passes : callable float -> bool
        ``passes(level)`` says whether the test passes at one-sided level `level`. It must be
        monotone: passing at a level implies passing at every larger level.
    floor : float, default 1e-6
        Smallest level searched, in (0, 0.5); for a bootstrap bound 1 / (B + 1), the
        smallest level B resamples resolve.
    tol : float, default 1e-9
        Absolute width of the final bracket; positive.
    max_iter : int, default 200
        Bound on the number of bisection steps (at least 1).

    Returns
    -------
    float
        `floor` when the test passes at the floor (read: p <= floor); 1.0 when it does not
        pass at level 0.5 (read: never passes); otherwise the smallest level within `tol` at
        which it was seen to pass (the upper end of the final bracket).

    Raises
    ------
    ValueError
        `floor` outside (0, 0.5), a non-positive `tol`, or `max_iter` below 1.

    Notes
    -----
    The search runs over [floor, 0.5]. 0.5 is the top because a one-sided bound at level 0.5
    is the point estimate itself; a contrast that fails there has its estimate on the wrong
    side of the margin, and its p-value is reported as 1. Between the ends it keeps a bracket
    [lo, hi] with ``passes(lo)`` False and ``passes(hi)`` True and halves it until
    hi - lo <= `tol` or `max_iter` steps, calling `passes` about log2(0.5 / tol) times.

    Examples
    --------
    A test that passes from level 0.0125 on:

    >>> p = bisect_p_value(lambda level: level >= 0.0125)
    >>> abs(p - 0.0125) <= 1e-9
    True
    >>> bisect_p_value(lambda level: True), bisect_p_value(lambda level: False)
    (1e-06, 1.0)
    """
    lo = float(floor)
    if not (0.0 < lo < _TOP):
        raise ValueError(f"floor must be in (0, {_TOP}), got {floor!r}")
    step = _check_positive(tol, "tol")
    iterations = _check_int(max_iter, "max_iter", minimum=1)
    if passes(lo):
        return lo
    hi = _TOP
    if not passes(hi):
        return 1.0
    for _ in range(iterations):
        if hi - lo <= step:
            break
        mid = (lo + hi) / 2.0
        if passes(mid):
            hi = mid
        else:
            lo = mid
    return hi
