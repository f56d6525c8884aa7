r"""Agreement between raters who scored the same units: ICC(A,1), mean absolute difference, Spearman.

Every function takes a complete ``(n_units, n_raters)`` matrix of scores on the criterion's
own scale (a rater is a judge, a unit is what each of them scored). Units a rater did not
score must be dropped before the call: the two-way ANOVA behind the ICC needs a complete,
balanced design. Results are frozen dataclasses with full-precision floats; a statistic the
data cannot define (no variance to partition, a constant rater) is NaN and ``reason`` says why,
so the analysis can write a note instead of NaN noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats as sps

from assay.stats._validate import _check_conf

__all__ = ["icc_agreement", "mean_absolute_difference", "mean_spearman"]
# The result classes ReliabilityResult and PairwiseAgreement are public through assay.stats,
# as the classes of assay.stats._results are; they are not in this list so that every name
# here is a function with a doctested example (tests/stats/test_public_api.py).

_RELATIVE_ZERO = 1e-12
"""A sum of squares below this share of the total sum of squares is taken as exactly zero."""

MIN_SATTERTHWAITE_DF = 0.1
"""Satterthwaite degrees of freedom below which :func:`icc_agreement` gives no interval. In a
simulation of the two-way random model (3-6 units, 2-3 raters, seven variance settings,
36 000 matrices) the interval covered 0-1% of the time at v < 0.02, 50-54% at 0.02-0.05,
88-95% at 0.05-0.1 and 96-99% at 0.1-1: as v goes to 0 the F quantiles run to their limits
and the bounds close around the estimate (0.01 df gave [-0.351, -0.307] from 3 units)."""


@dataclass(frozen=True)
class ReliabilityResult:
    """An intraclass correlation with its F-based confidence interval and the ANOVA behind it."""

    estimate: float
    """ICC(A,1); NaN when ``reason`` says it is undefined."""
    lower: float
    """Lower confidence bound; NaN when the F-based interval is undefined (see ``reason``)."""
    upper: float
    """Upper confidence bound; NaN when the F-based interval is undefined (see ``reason``)."""
    conf: float
    """Two-sided confidence level of the interval."""
    n: int
    """Number of units (rows of the ratings matrix)."""
    n_raters: int
    """Number of raters (columns of the ratings matrix)."""
    method: str
    """Always ``"icc_a1_mcgraw_wong"``: ICC(A,1) = Shrout-Fleiss ICC(2,1), F-based interval."""
    mean_square_units: float
    """MS_R, the mean square between units (rows), n - 1 df."""
    mean_square_raters: float
    """MS_C, the mean square between raters (columns), k - 1 df."""
    mean_square_error: float
    """MS_E, the residual mean square, (n - 1)(k - 1) df."""
    f_statistic: float
    """F = MS_R / MS_E for H0: ICC = 0; NaN when MS_E = 0."""
    p_value: float
    """One-sided p-value of F on (n - 1, (n - 1)(k - 1)) df; NaN when F is."""
    df: float
    """Satterthwaite degrees of freedom v of the interval; NaN when the interval is undefined."""
    reason: str | None = None
    """Why the estimate or the bounds are NaN (or the estimate is exactly 1); None otherwise."""


@dataclass(frozen=True, eq=False)
class PairwiseAgreement:
    """A statistic of every pair of raters and its mean over the pairs."""

    estimate: float
    """Mean of the statistic over the k(k - 1)/2 rater pairs; NaN when ``reason`` says so."""
    matrix: npt.NDArray[np.float64]
    """Shape (k, k), symmetric: the statistic of raters i and j (NaN where undefined)."""
    n: int
    """Number of units each pair is compared on."""
    n_raters: int
    """k, the number of raters."""
    method: str
    """``"mean_absolute_difference"`` or ``"mean_spearman"``."""
    reason: str | None = None
    """Why ``estimate`` is NaN; None when it is defined."""


def _check_ratings(ratings: Any, *, min_units: int = 2) -> npt.NDArray[np.float64]:
    """Return `ratings` as a finite (n, k) float matrix with n >= min_units and k >= 2."""
    try:
        x = np.asarray(ratings, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("ratings must be a 2-D array of numbers (units x raters)") from None
    if x.ndim != 2:
        raise ValueError(f"ratings must be 2-D (units x raters), got shape {x.shape}")
    if x.shape[1] < 2:
        raise ValueError(f"ratings must have at least 2 raters (columns), got {x.shape[1]}")
    if x.shape[0] < min_units:
        raise ValueError(f"ratings must have at least {min_units} units (rows), got {x.shape[0]}")
    if not np.all(np.isfinite(x)):
        raise ValueError("ratings must be complete and finite: drop the units a rater did not "
                         "score (no NaN or inf)")
    return x


def _icc_bounds(f_stat: float, c: float, n: int, k: int, f_l: float,
                f_u: float) -> tuple[float, float]:
    """McGraw and Wong's bounds divided through by MS_E and by the F quantile.

    L = n (F - F_L) / (F_L (k c + kn - k - n) + n F) = n (F / F_L - 1) / (k c + kn - k - n
    + n F / F_L), and U likewise with 1 / F_U, so an F quantile near the largest double
    (Satterthwaite v near 0) gives the limit instead of inf / inf.
    """
    rest = k * c + (k * n - k - n)
    lower = n * (f_stat / f_l - 1.0) / (rest + n * f_stat / f_l) if f_l > 0 else float("nan")
    upper = (n * (f_stat - 1.0 / f_u) / (rest / f_u + n * f_stat)) if f_u > 0 else float("nan")
    return float(lower), float(upper)


def icc_agreement(ratings: Any, *, conf: float = 0.95,
                  min_df: float = MIN_SATTERTHWAITE_DF) -> ReliabilityResult:
    r"""Intraclass correlation for absolute agreement of single ratings, ICC(A,1) = ICC(2,1).

    Two-way model, absolute agreement, single rater: Shrout and Fleiss's (1979) ICC(2,1),
    which McGraw and Wong (1996) call ICC(A,1). The point formula is the same whether raters
    are random (MW case 2A) or fixed (case 3A); the interval is McGraw and Wong's F-based one
    with Satterthwaite degrees of freedom.

    Parameters
    ----------
    ratings : array_like, shape (n, k)
        x_ij, the score rater j gave unit i; complete (no NaN), n >= 2 units, k >= 2 raters.
    conf : float, default 0.95
        Two-sided confidence level in (0, 1).
    min_df : float, default 0.1
        Satterthwaite degrees of freedom v below which the bounds are NaN with ``reason``
        (:data:`MIN_SATTERTHWAITE_DF`: the interval collapses there); 0 gives McGraw and
        Wong's bounds at any positive v, as pingouin does.

    Returns
    -------
    ReliabilityResult
        ``estimate`` ICC(A,1), ``lower``, ``upper``, the three mean squares, ``f_statistic``
        and ``p_value`` of H0: ICC = 0, ``df`` = v. Degenerate data give NaN with ``reason``:
        every rating equal (estimate and bounds NaN: 0/0); no residual variance, so ratings
        differ only by a constant per rater (bounds NaN; estimate 1 when the raters agree
        exactly); v below `min_df` (bounds NaN, ``df`` = v).

    Raises
    ------
    ValueError
        `ratings` not a finite 2-D matrix with at least 2 rows and 2 columns, or `conf`
        outside (0, 1).

    Notes
    -----
    With grand mean :math:`\bar x`, unit means :math:`\bar x_{i\cdot}` and rater means
    :math:`\bar x_{\cdot j}`, the two-way ANOVA without replication gives
    MS_R = k sum_i (x̄_i. - x̄)^2 / (n - 1), MS_C = n sum_j (x̄_.j - x̄)^2 / (k - 1) and
    MS_E = SS_E / ((n - 1)(k - 1)) with SS_E = SS_total - SS_R - SS_C, and

    .. math:: \rho = \frac{MS_R - MS_E}{MS_R + (k-1) MS_E + \frac{k}{n}(MS_C - MS_E)}.

    The interval (McGraw and Wong 1996, Table 7, ICC(A,1)) uses
    a = k rho / (n (1 - rho)), b = 1 + k rho (n - 1) / (n (1 - rho)),

    .. math:: v = \frac{(a MS_C + b MS_E)^2}{(a MS_C)^2/(k-1) + (b MS_E)^2/((n-1)(k-1))},

    F_L = F_{(1+conf)/2}(n - 1, v), F_U = F_{(1+conf)/2}(v, n - 1) and

    .. math::
        L = \frac{n (MS_R - F_L MS_E)}{F_L (k MS_C + (kn - k - n) MS_E) + n MS_R}, \quad
        U = \frac{n (F_U MS_R - MS_E)}{k MS_C + (kn - k - n) MS_E + n F_U MS_R}.

    Assumes the two-way additive model with normal unit effects and errors; the interval
    is approximate (Satterthwaite), and not given below `min_df` degrees of freedom.
    Validated against pingouin's ``intraclass_corr`` row ``ICC(A,1)`` (its ``ICC2`` before
    0.7) with its CI unrounded, against an independent
    transcription of McGraw and Wong's formulas, and against the published example of
    Shrout and Fleiss (ICC(2,1) = 0.29; R psych's ``ICC`` gives the bounds 0.019 and 0.76);
    see tests/reliability/.

    References
    ----------
    .. [1] Shrout, P. E. and Fleiss, J. L. (1979). Intraclass correlations: uses in
           assessing rater reliability. Psychological Bulletin 86(2), 420-428.
    .. [2] McGraw, K. O. and Wong, S. P. (1996). Forming inferences about some intraclass
           correlation coefficients. Psychological Methods 1(1), 30-46 (correction p. 390).

    Examples
    --------
    Shrout and Fleiss's six targets rated by four judges:

    >>> ratings = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8],
    ...            [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> res = icc_agreement(ratings)
    >>> round(res.estimate, 4), round(res.lower, 4), round(res.upper, 4)
    (0.2898, 0.0188, 0.7611)
    """
    x = _check_ratings(ratings)
    level = _check_conf(conf)
    if not (isinstance(min_df, (int, float)) and 0.0 <= min_df < float("inf")):
        raise ValueError(f"min_df must be a finite number >= 0, got {min_df!r}")
    n, k = x.shape
    grand = float(x.mean())
    ss_total = float(((x - grand) ** 2).sum())
    ss_units = k * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_raters = n * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_error = max(ss_total - ss_units - ss_raters, 0.0)
    df_units, df_raters, df_error = n - 1, k - 1, (n - 1) * (k - 1)
    msr, msc = ss_units / df_units, ss_raters / df_raters
    nan = float("nan")
    common = dict(conf=level, n=n, n_raters=k, method="icc_a1_mcgraw_wong")
    if np.ptp(x) == 0:
        return ReliabilityResult(
            estimate=nan, lower=nan, upper=nan, mean_square_units=0.0, mean_square_raters=0.0,
            mean_square_error=0.0, f_statistic=nan, p_value=nan, df=nan,
            reason="every rating is the same value, so there is no variance to partition and "
                   "the ICC is 0/0 (the raters agree exactly)", **common)
    if ss_error <= _RELATIVE_ZERO * ss_total:
        ss_error = 0.0
    mse = ss_error / df_error
    denominator = msr + (k - 1) * mse + k * (msc - mse) / n
    base = dict(mean_square_units=msr, mean_square_raters=msc, mean_square_error=mse, **common)
    if not denominator > 0:
        return ReliabilityResult(
            estimate=nan, lower=nan, upper=nan, f_statistic=nan, p_value=nan, df=nan,
            reason="neither the units nor the raters differ on average (MS_R = MS_C = 0) and "
                   "the design is 2 x 2, so the ICC's denominator is 0", **base)
    estimate = (msr - mse) / denominator
    if mse == 0.0:
        if ss_raters <= _RELATIVE_ZERO * ss_total:
            degenerate = ("the raters agree exactly on every unit: ICC = 1 and the F-based interval "
                      "degenerates (no residual variance)")
            estimate = 1.0
        else:
            degenerate = ("no residual variance: the ratings differ only by a constant offset per "
                      "rater, so the F-based interval is undefined")
        return ReliabilityResult(estimate=estimate, lower=nan, upper=nan, f_statistic=nan,
                                 p_value=nan, df=nan, reason=degenerate, **base)
    f_stat = msr / mse
    p_value = float(sps.f.sf(f_stat, df_units, df_error))
    if not estimate < 1:  # only by rounding, with a residual mean square next to nothing
        return ReliabilityResult(estimate=1.0, lower=nan, upper=nan, f_statistic=f_stat,
                                 p_value=p_value, df=nan, reason="the raters agree exactly on "
                                 "every unit up to rounding: ICC = 1 and the F-based interval "
                                 "degenerates", **base)
    # Scale-free: every mean square enters as a ratio to MS_E (F = MS_R / MS_E, c = MS_C /
    # MS_E), so multiplying the ratings by a constant changes nothing, and no product of an
    # F quantile with a mean square can overflow.
    c = msc / mse
    a = k * estimate / (n * (1 - estimate))
    b = 1 + k * estimate * (n - 1) / (n * (1 - estimate))
    v_num = a * c + b
    if abs(v_num) <= 1e-12 * (abs(a * c) + abs(b)):
        v_num = 0.0  # zero but for rounding, which would make v a tiny positive number or not
    v_den = (a * c) ** 2 / df_raters + b**2 / df_error
    v = v_num**2 / v_den if v_num != 0.0 and v_den > 0 else nan
    q = (1 + level) / 2
    lower = upper = nan
    reason: str | None = None
    if np.isfinite(v) and v > 0:
        lower, upper = _icc_bounds(f_stat, c, n, k, float(sps.f.ppf(q, df_units, v)),
                                   float(sps.f.ppf(q, v, df_units)))
    if not (np.isfinite(v) and v > 0):
        lower = upper = nan
        v = nan
        reason = ("the Satterthwaite degrees of freedom of the F-based interval are 0 for these "
                  "mean squares (a MS_C + b MS_E = 0), so the interval is undefined")
    elif v < min_df:
        reason = (f"the F-based interval rests on {v:.2g} Satterthwaite degrees of freedom, "
                  f"below {min_df:g}, where its bounds close around the estimate whatever the "
                  "data (it covered 0-54% below 0.05 df in assay's simulation), so no interval "
                  "is given")
        lower = upper = nan
    elif not (np.isfinite(lower) and np.isfinite(upper)):
        reason = (f"an F quantile of the interval is not finite at v = {v:.3g} Satterthwaite "
                  "degrees of freedom, so the interval is undefined")
        lower = upper = nan
    elif not lower - 1e-12 <= estimate <= upper + 1e-12:
        # With a Satterthwaite v far below 1 the F quantiles put both bounds on one side of
        # the estimate: the approximation has broken down, and no interval is given.
        reason = (f"the Satterthwaite approximation breaks down at v = {v:.3g} degrees of "
                  "freedom (the F-based bounds do not enclose the estimate), so the interval "
                  "is undefined")
        lower = upper = nan
    return ReliabilityResult(estimate=float(estimate), lower=float(lower), upper=float(upper),
                             f_statistic=float(f_stat), p_value=p_value, df=float(v),
                             reason=reason, **base)


def mean_absolute_difference(ratings: Any) -> PairwiseAgreement:
    r"""Mean absolute difference between raters, on the score scale, averaged over rater pairs.

    Parameters
    ----------
    ratings : array_like, shape (n, k)
        x_ij, the score rater j gave unit i; complete (no NaN), n >= 1, k >= 2.

    Returns
    -------
    PairwiseAgreement
        ``estimate`` MAD, ``matrix`` the MAD of each pair (zeros on the diagonal),
        ``method = "mean_absolute_difference"``. Always defined: 0 means exact agreement.

    Raises
    ------
    ValueError
        `ratings` not a finite 2-D matrix with at least 1 row and 2 columns.

    Notes
    -----
    .. math:: \mathrm{MAD} = \binom{k}{2}^{-1} \sum_{j < l} \frac{1}{n} \sum_i |x_{ij} - x_{il}|

    The results aggregator calls this the "mean absolute deviation"; it is a mean absolute *difference*
    between raters (no deviation from a centre), in the units of the score. Unlike the ICC
    and Spearman's rho it sees a constant offset between raters. Validated against a direct
    double loop with ``numpy.mean(numpy.abs(a - b))`` and hand-worked values in
    tests/reliability/.

    References
    ----------
    .. [1] The results aggregator, "Inter-Rater Reliability: Mean Absolute Deviation (MAD)" (its bands:
           < 3 excellent, 3-5 good, 5-10 moderate, >= 10 poor on a 0-100 scale).

    Examples
    --------
    Three raters on two units; pair MADs 0.5, 1.5 and 1.0:

    >>> res = mean_absolute_difference([[1, 2, 4], [2, 2, 2]])
    >>> float(res.estimate)
    1.0
    """
    x = _check_ratings(ratings, min_units=1)
    n, k = x.shape
    matrix = np.zeros((k, k))
    for j, m in combinations(range(k), 2):
        matrix[j, m] = matrix[m, j] = float(np.abs(x[:, j] - x[:, m]).mean())
    upper = matrix[np.triu_indices(k, 1)]
    return PairwiseAgreement(estimate=float(upper.mean()), matrix=matrix, n=n, n_raters=k,
                             method="mean_absolute_difference")


def mean_spearman(ratings: Any) -> PairwiseAgreement:
    r"""Spearman's rank correlation of every pair of raters and its mean over the pairs.

    Parameters
    ----------
    ratings : array_like, shape (n, k)
        x_ij, the score rater j gave unit i; complete (no NaN), n >= 2, k >= 2.

    Returns
    -------
    PairwiseAgreement
        ``estimate`` the mean of rho over the k(k - 1)/2 pairs, ``matrix`` rho of each pair
        (1 on the diagonal), ``method = "mean_spearman"``. A constant rater has no ranks:
        its row and column are NaN, and the mean is NaN with ``reason`` naming the rater.

    Raises
    ------
    ValueError
        `ratings` not a finite 2-D matrix with at least 2 rows and 2 columns.

    Notes
    -----
    rho_jl is Pearson's correlation of the mid-ranks (ties get the mean of their ranks) of
    raters j and l over the n units [1]_; without ties it equals
    1 - 6 sum d_i^2 / (n (n^2 - 1)). The mean is the plain arithmetic mean over pairs, as
    the results aggregator reports it (no Fisher z). Rho sees the order only: a rater who scores every
    unit 10 points higher has rho = 1 with the other. Validated against
    ``scipy.stats.spearmanr`` and pandas' ``DataFrame.corr(method="spearman")``.

    References
    ----------
    .. [1] Spearman, C. (1904). The proof and measurement of association between two
           things. American Journal of Psychology 15(1), 72-101.

    Examples
    --------
    Rater 2 swaps neighbours: d = (1, -1, 1, -1), rho = 1 - 6 * 4 / (4 * 15) = 0.6:

    >>> res = mean_spearman([[1, 2], [2, 1], [3, 4], [4, 3]])
    >>> round(float(res.estimate), 4)
    0.6
    """
    x = _check_ratings(ratings)
    n, k = x.shape
    ranks = sps.rankdata(x, axis=0)
    centred = ranks - ranks.mean(axis=0)
    ss = (centred**2).sum(axis=0)
    constant = ss == 0
    scale = np.sqrt(np.where(constant, 1.0, ss))
    matrix = (centred.T @ centred) / np.outer(scale, scale)
    matrix = np.clip(matrix, -1.0, 1.0)
    matrix[constant, :] = np.nan
    matrix[:, constant] = np.nan
    reason: str | None = None
    estimate = float("nan")
    if constant.any():
        which = ", ".join(str(j) for j in np.flatnonzero(constant))
        reason = (f"rater column(s) {which} gave every unit the same score, so their ranks "
                  "carry no order and Spearman's rho with them is undefined")
    else:
        estimate = float(matrix[np.triu_indices(k, 1)].mean())
    return PairwiseAgreement(estimate=estimate, matrix=matrix, n=n, n_raters=k,
                             method="mean_spearman", reason=reason)
