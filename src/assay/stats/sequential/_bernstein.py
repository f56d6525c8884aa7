r"""Anytime-valid confidence sequences for a bounded mean and a paired difference.

A confidence sequence (CS) at level 1 - alpha is a sequence of intervals C_1, C_2, ...
such that P(for every t: mu in C_t) >= 1 - alpha: the guarantee holds *at all times at
once*, so a run may look at C_t after every observation (or batch) and stop whenever it
likes, at a time chosen from the data, without the error rate growing with the number of
looks (as it does for fixed-n intervals recomputed after each batch).

The sequence here is the predictable plug-in empirical-Bernstein CS (PrPl-EB) of
Waudby-Smith and Ramdas (2024, Theorem 2 and eq. 13-15), in the form their own package
``confseq`` computes (``confseq.predmix.predmix_empbern_twosided_cs``), against which it
is checked to 1e-12 (tests/stats/sequential/).

Sampling unit. The observations must be independent draws (or, more generally, have
conditional mean mu given the past) with values in [0, 1]. Items inside a cluster (a
question group, a document) are not independent: when items are clustered, the
*cluster* is the sampling unit. The caller orders the clusters at random, judges all of a
cluster's items together, and gives the cluster's mean as one observation; the estimand is
then the mean over clusters of the cluster means (the population clusters are drawn from).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._validate import _check_1d, _check_conf

__all__ = ["ConfidenceSequenceResult", "cluster_means", "empirical_bernstein_cs"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ConfidenceSequenceResult:
    """A confidence sequence: one interval after each observation, all valid at once."""

    estimate: FloatArray
    """The running sample mean after each observation, shape (n,)."""
    lower: FloatArray
    """Lower bound after each observation, shape (n,)."""
    upper: FloatArray
    """Upper bound after each observation, shape (n,)."""
    conf: float
    """The level: P(the estimand is inside every interval) >= conf."""
    n: int
    """Observations."""
    method: str
    """``"prpl_empirical_bernstein_cs"`` or ``"hedged_betting_cs"``."""


def _check_unit_scores(x: ArrayLike) -> FloatArray:
    """``x`` as a 1-d float array, every value in [0, 1] (both sequences need bounded scores)."""
    xs = _check_1d(x, "x")
    if np.any(xs < 0.0) or np.any(xs > 1.0):
        raise ValueError("x must be in [0, 1] (rescale bounded scores first)")
    return xs


def _sequence_result(xs: FloatArray, lower: FloatArray, upper: FloatArray, level: float, *,
                     running_intersection: bool, method: str) -> ConfidenceSequenceResult:
    """The result of a sequence's bounds at every n, intersected over time if asked
    (the running max of the lowers and min of the uppers stays valid: each time's interval
    covers with the same joint probability)."""
    if running_intersection:
        lower = np.maximum.accumulate(lower)
        upper = np.minimum.accumulate(upper)
    estimate = np.cumsum(xs) / np.arange(1, xs.size + 1)
    return ConfidenceSequenceResult(estimate=estimate, lower=lower, upper=upper, conf=level,
                                    n=int(xs.size), method=method)


def _check_truncation(truncation: float) -> float:
    try:
        value = float(truncation)
    except (TypeError, ValueError):
        raise ValueError(f"truncation must be a number in (0, 1), got {truncation!r}") from None
    if not 0.0 < value < 1.0:
        raise ValueError(f"truncation must be in (0, 1), got {truncation!r}")
    return value


def _plug_in_bets(x: FloatArray, log_alpha: float) -> FloatArray:
    """The predictable plug-in bets lambda_t, untruncated (confseq's ``lambda_predmix_eb``):
    sqrt(2 log(1/a) / (sigma2_{t-1} t log(1 + t))), ``log_alpha`` = log(1/a)."""
    t = np.arange(1, x.size + 1, dtype=np.float64)
    cum = np.cumsum(x)
    regular = np.minimum((0.5 + cum) / (t + 1.0), 1.0)
    sigma2 = (0.25 + np.cumsum((x - regular) ** 2)) / (t + 1.0)
    sigma2_before = np.concatenate(([0.25], sigma2[:-1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.sqrt(2.0 * log_alpha / (t * np.log1p(t) * sigma2_before))
    out: FloatArray = np.nan_to_num(lam, nan=0.0)
    return out


def _lower_sequence(x: FloatArray, alpha: float, truncation: float) -> FloatArray:
    """The one-sided PrPl-EB lower bounds at level 1 - alpha (``predmix_empbern_lower_cs``)."""
    t = np.arange(1, x.size + 1, dtype=np.float64)
    cum = np.cumsum(x)
    mean_before = np.concatenate(([0.0], (cum / t)[:-1]))
    v = (x - mean_before) ** 2
    log_alpha = math.log(1.0 / alpha)
    lam = np.minimum(truncation, _plug_in_bets(x, log_alpha))
    psi = -np.log1p(-lam) - lam
    weights = np.cumsum(lam)
    centre = np.cumsum(lam * x) / weights
    margin = (log_alpha + np.cumsum(v * psi)) / weights
    out: FloatArray = np.maximum(centre - margin, 0.0)
    return out


def empirical_bernstein_cs(x: ArrayLike, *, conf: float = 0.95, truncation: float = 0.5,
                           running_intersection: bool = True) -> ConfidenceSequenceResult:
    r"""Predictable plug-in empirical-Bernstein confidence sequence for a mean in [0, 1].

    Parameters
    ----------
    x : array_like, shape (n,)
        Observations X_1..X_n in [0, 1], in the order they were observed (i.i.d., or with
        conditional mean mu given the past).
    conf : float, default 0.95
        Level 1 - alpha of the sequence: every interval covers mu at once with this
        probability. Each side is built at level 1 - alpha/2.
    truncation : float, default 0.5
        c, the largest bet lambda_t (Waudby-Smith and Ramdas suggest 1/2 or 3/4).
    running_intersection : bool, default True
        Report the intersection of the intervals so far (max of the lower bounds, min of
        the upper ones): still a (1 - alpha) CS, and never wider than at an earlier look.

    Returns
    -------
    ConfidenceSequenceResult
        ``estimate`` the running mean, ``lower`` and ``upper`` after each observation.

    Raises
    ------
    ValueError
        ``x`` is empty, not finite or outside [0, 1]; ``conf`` or ``truncation`` outside (0, 1).

    Notes
    -----
    With a = alpha/2, mu_hat_t = (1/2 + sum_{i<=t} X_i) / (t + 1) and
    sigma2_t = (1/4 + sum_{i<=t} (X_i - mu_hat_i)^2) / (t + 1) (sigma2_0 = 1/4), the bets are

    .. math:: \lambda_t = \min\Big(c, \sqrt{2\log(1/a) / (\hat\sigma^2_{t-1}\, t \log(1+t))}\Big),

    and with psi(l) = -log(1 - l) - l and v_i = (X_i - m_{i-1})^2 (m_{i-1} the mean of
    the first i - 1 observations, m_0 = 0) the lower bound is

    .. math:: L_t = \max\Big(0, \frac{\sum_i \lambda_i X_i}{\sum_i \lambda_i}
              - \frac{\log(1/a) + \sum_i v_i \psi(\lambda_i)}{\sum_i \lambda_i}\Big).

    The upper bound is 1 - L_t computed on 1 - X. (The paper's psi_E/4 with 4 v_i is the
    same product; any predictable centre m_{i-1} keeps the guarantee, and this one is the
    authors' ``confseq``'s.) Validity rests on a nonnegative supermartingale and Ville's
    inequality: no normal approximation, valid at every n.

    Validated against ``confseq`` 0.0.11 (``predmix_empbern_twosided_cs``) to 1e-12.

    References
    ----------
    .. [1] Waudby-Smith, I. and Ramdas, A. (2024). Estimating means of bounded random
       variables by betting. JRSS-B 86(1), 1-27. Theorem 2, eq. (13)-(15).
    .. [2] Howard, S. R., Ramdas, A., McAuliffe, J. and Sekhon, J. (2021). Time-uniform,
       nonparametric, nonasymptotic confidence sequences. Ann. Statist. 49(2), 1055-1080.

    Examples
    --------
    >>> cs = empirical_bernstein_cs([0.5] * 100, conf=0.95)
    >>> round(float(cs.lower[-1]), 6), round(float(cs.upper[-1]), 6)
    (0.425257, 0.574743)
    """
    xs = _check_unit_scores(x)
    level = _check_conf(conf)
    c = _check_truncation(truncation)
    alpha = 1.0 - level
    lower = _lower_sequence(xs, alpha / 2.0, c)
    upper = 1.0 - _lower_sequence(1.0 - xs, alpha / 2.0, c)
    return _sequence_result(xs, lower, upper, level, running_intersection=running_intersection,
                            method="prpl_empirical_bernstein_cs")


def cluster_means(values: ArrayLike, clusters: Sequence[Hashable]) -> FloatArray:
    """The mean of ``values`` in each cluster, clusters in the order they first appear.

    The observations of a confidence sequence when items are clustered: one per cluster.

    >>> cluster_means([1.0, 0.0, 0.5, 1.0], ["a", "a", "b", "c"]).tolist()
    [0.5, 0.5, 1.0]
    """
    v = _check_1d(values, "values")
    if len(clusters) != v.size:
        raise ValueError(f"clusters must have one label per value, got {len(clusters)} and {v.size}")
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(c, len(index)) for c in clusters], dtype=np.int64)
    sums = np.bincount(codes, weights=v, minlength=len(index))
    counts = np.bincount(codes, minlength=len(index))
    out: FloatArray = sums / counts
    return out
