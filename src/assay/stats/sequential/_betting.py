r"""The hedged-capital betting confidence sequence for a mean in [0, 1] (and a paired difference).

Waudby-Smith and Ramdas (2024, Sec. 4, eq. 24-27; their "hedged capital" CS with the
predictable plug-in bets): for each candidate mean m, two gamblers bet against m, one
that the mean is above it, one below; their capital processes

.. math:: K_t^+(m) = \prod_{i \le t} (1 + \lambda_i^+(m) (X_i - m)), \qquad
          K_t^-(m) = \prod_{i \le t} (1 - \lambda_i^-(m) (X_i - m))

are nonnegative martingales when the mean is m, so by Ville's inequality
max(K_t^+/2, K_t^-/2) (their hedge, theta = 1/2) exceeds 1/alpha at some t with
probability at most alpha. The CS is {m : max(K_t^+(m), K_t^-(m)) / 2 < 1/alpha}. It
adapts to the variance like the empirical-Bernstein CS but wastes less of the bound
(it is the product itself, not a quadratic bound on its logarithm), and is much narrower
at small n. No closed form: the set is found on a grid of m, as in ``confseq``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from assay.stats._validate import _check_conf
from assay.stats.sequential._bernstein import (
    ConfidenceSequenceResult,
    FloatArray,
    _check_truncation,
    _check_unit_scores,
    _plug_in_bets,
    _sequence_result,
)

__all__ = ["betting_cs"]


def _check_breaks(breaks: int) -> int:
    if isinstance(breaks, bool) or not isinstance(breaks, (int, np.integer)) or breaks < 2:
        raise ValueError(f"breaks must be an integer >= 2, got {breaks!r}")
    return int(breaks)


def betting_cs(x: ArrayLike, *, conf: float = 0.95, truncation: float = 0.5, breaks: int = 1000,
               running_intersection: bool = True) -> ConfidenceSequenceResult:
    r"""Hedged-capital betting confidence sequence for a mean in [0, 1], on a grid of means.

    Parameters
    ----------
    x : array_like, shape (n,)
        Observations X_1..X_n in [0, 1], in the order they were observed (i.i.d., or with
        conditional mean mu given the past).
    conf : float, default 0.95
        Level 1 - alpha: every interval covers mu at once with this probability.
    truncation : float, default 0.5
        c: the bets are truncated at c/m (for K^+) and c/(1 - m) (for K^-), so that no
        factor of the capital falls below 1 - c.
    breaks : int, default 1000
        The grid of candidate means is 0, 1/breaks, ..., 1; each bound is widened by one
        step outward (a bound is never inside the set's true edge by more than a step).
    running_intersection : bool, default True
        Report the intersection of the intervals so far (still a (1 - alpha) CS).

    Returns
    -------
    ConfidenceSequenceResult
        ``estimate`` the running mean, ``lower`` and ``upper`` after each observation,
        ``method`` ``"hedged_betting_cs"``.

    Raises
    ------
    ValueError
        ``x`` is empty, not finite or outside [0, 1]; ``conf`` or ``truncation`` outside
        (0, 1); ``breaks`` not an integer >= 2.

    Notes
    -----
    The predictable plug-in bet is that of the empirical-Bernstein CS at level alpha/2
    (:func:`empirical_bernstein_cs`, without its truncation):
    lambda_t = sqrt(2 log(2/alpha) / (sigma2_{t-1} t log(1 + t))), and
    lambda_t^+(m) = min(lambda_t, c/m), lambda_t^-(m) = min(lambda_t, c/(1 - m)). With
    theta = 1/2, m is in C_t when

    .. math:: \max\big(\tfrac12 K_t^+(m), \tfrac12 K_t^-(m)\big) \le 1/\alpha,

    C_t = [min of those m - 1/breaks, max + 1/breaks] clipped to [0, 1] ([0, 1] when none
    is). The capitals of all grid points and times are computed at once on the log scale
    (an array of (breaks + 1) x n), so the cost of a look is a few milliseconds for a few
    hundred observations.

    Validated against ``confseq`` 0.0.11 (``confseq.betting.betting_cs`` with its defaults
    theta = 1/2, trunc_scale = 1/2, m_trunc, breaks = 1000) to 1e-12
    (tests/stats/sequential/).

    References
    ----------
    .. [1] Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
       variables by betting. JRSS-B 86(1), 1-27. Sec. 4 (hedged capital process,
       Theorem 3) and Sec. 5 (predictable plug-in bets).

    Examples
    --------
    >>> cs = betting_cs([0.5] * 100, conf=0.95)
    >>> round(float(cs.lower[-1]), 3), round(float(cs.upper[-1]), 3)
    (0.465, 0.535)
    """
    xs = _check_unit_scores(x)
    level = _check_conf(conf)
    c = _check_truncation(truncation)
    grid_n = _check_breaks(breaks)
    alpha = 1.0 - level
    lam = _plug_in_bets(xs, math.log(2.0 / alpha))
    m = np.arange(0, 1 + 1 / grid_n, step=1 / grid_n)[:, None]  # confseq's grid
    with np.errstate(divide="ignore"):
        cap_pos = np.where(m > 0.0, c / m, np.inf)
        cap_neg = np.where(m < 1.0, c / (1.0 - m), np.inf)
    centred = xs[None, :] - m
    log_pos = np.cumsum(np.log1p(np.minimum(lam[None, :], cap_pos) * centred), axis=1)
    log_neg = np.cumsum(np.log1p(-np.minimum(lam[None, :], cap_neg) * centred), axis=1)
    inside = np.maximum(log_pos, log_neg) <= math.log(2.0 / alpha)  # max(K+/2, K-/2) <= 1/alpha
    grid = m[:, 0]
    any_in = inside.any(axis=0)
    first = np.argmax(inside, axis=0)
    last = grid.size - 1 - np.argmax(inside[::-1], axis=0)
    step = 1.0 / grid_n
    lower: FloatArray = np.where(any_in, np.maximum(0.0, grid[first] - step), 0.0)
    upper: FloatArray = np.where(any_in, np.minimum(1.0, grid[last] + step), 1.0)
    return _sequence_result(xs, lower, upper, level, running_intersection=running_intersection,
                            method="hedged_betting_cs")
