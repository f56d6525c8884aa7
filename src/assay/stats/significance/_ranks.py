"""Tests of k arms scored on the same questions: Friedman's test and the pairwise Wilcoxon
follow-ups with Holm's adjustment (BenchmarkQED's assertion statistics).

Every function takes a questions x arms matrix and returns a frozen result; the result
classes (:class:`FriedmanResult`, :class:`PairwiseTest`) are public through ``assay.stats``;
``__all__`` lists the functions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy import stats

from assay.stats.contrasts import holm_adjust
from assay.stats.significance._paired import (
    PairedTestResult,
    WilcoxonMethod,
    ZeroMethod,
    wilcoxon_signed_rank,
)

__all__ = [
    "friedman_test",
    "pairwise_wilcoxon",
]


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's rank test that k arms scored on the same n blocks (questions) do not differ."""

    statistic: float
    """Friedman's chi-square, corrected for ties; NaN when every block is all ties."""
    p_value: float
    """Upper tail of chi-square with k - 1 df; NaN when the statistic is."""
    df: int
    """k - 1."""
    n: int
    """Number of blocks (rows)."""
    k: int
    """Number of arms (columns)."""
    method: str = "friedman"
    """Always ``"friedman"``."""


@dataclass(frozen=True)
class PairwiseTest:
    """One pair of columns of a questions x arms matrix, tested with Wilcoxon's test."""

    first: int
    """Column index of the first arm (the difference is first minus second)."""
    second: int
    """Column index of the second arm."""
    result: PairedTestResult
    """The signed-rank test of the column differences."""
    p_adjusted: float
    """Holm-adjusted p-value over all pairs (NaN where the test is undefined, which then
    stays out of the family)."""


def _check_matrix(data: ArrayLike, name: str, *, min_cols: int) -> npt.NDArray[np.float64]:
    try:
        m = np.asarray(data, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 2-D array of numbers") from None
    if m.ndim != 2:
        raise ValueError(f"{name} must be 2-D (questions x arms), got shape {m.shape}")
    if m.shape[1] < min_cols:
        raise ValueError(f"{name} must have at least {min_cols} columns (arms), got {m.shape[1]}")
    if m.shape[0] < 2:
        raise ValueError(f"{name} must have at least 2 rows (questions), got {m.shape[0]}")
    if not np.all(np.isfinite(m)):
        raise ValueError(f"{name} must be finite (no NaN or inf): use complete questions only")
    return m


def friedman_test(data: ArrayLike) -> FriedmanResult:
    r"""Friedman's test that k arms scored on the same questions come from one distribution.

    Parameters
    ----------
    data : array_like, shape (n, k)
        One row per question (block), one column per arm; complete (no missing values);
        n >= 2, k >= 3.

    Returns
    -------
    FriedmanResult
        ``statistic`` the tie-corrected chi-square, ``p_value``, ``df`` = k - 1, ``n``,
        ``k``. Both are NaN when every question gives all arms the same value (the
        statistic is 0 / 0).

    Raises
    ------
    ValueError
        Not 2-D, fewer than 2 rows or 3 columns, or a non-finite value.

    Notes
    -----
    Ranking each row (average ranks for ties), with R_j the rank sum of arm j and t_g the
    sizes of the tie groups within rows,

    .. math:: Q = \frac{12 \sum_j R_j^2 / (n k (k+1)) - 3 n (k+1)}
                       {1 - \sum_g (t_g^3 - t_g) / (n (k^3 - k))},

    referred to chi-square with k - 1 df [1]_ (``scipy.stats.friedmanchisquare``; validated
    against pingouin's own implementation and this formula). BenchmarkQED uses it as the
    omnibus test across RAG methods on per-question assertion pass rates when they are not
    normal. Questions are taken as independent blocks.

    References
    ----------
    .. [1] Friedman, M. (1937). The use of ranks to avoid the assumption of normality
           implicit in the analysis of variance. JASA 32(200), 675-701.

    Examples
    --------
    Four questions, three arms, no ties: the third arm always ranks 3 and the others split
    ranks 1 and 2, so R = (6, 6, 12) and Q = 12 (36 + 36 + 144) / (4 x 3 x 4) - 3 x 4 x 4
    = 54 - 48 = 6 on 2 df, p = exp(-3) = 0.049787:

    >>> res = friedman_test([[0.1, 0.2, 0.9], [0.2, 0.1, 0.8], [0.3, 0.4, 0.7], [0.5, 0.4, 0.6]])
    >>> round(res.statistic, 10), round(res.p_value, 6), res.df
    (6.0, 0.049787, 2)
    """
    m = _check_matrix(data, "data", min_cols=3)
    n, k = m.shape
    if bool(np.all(np.ptp(m, axis=1) == 0.0)):
        return FriedmanResult(math.nan, math.nan, k - 1, n, k)
    res = stats.friedmanchisquare(*m.T)
    return FriedmanResult(float(res.statistic), float(res.pvalue), k - 1, n, k)


def pairwise_wilcoxon(
    data: ArrayLike,
    *,
    zero_method: ZeroMethod = "wilcox",
    correction: bool = False,
    method: WilcoxonMethod = "approx",
) -> list[PairwiseTest]:
    r"""Wilcoxon's signed-rank test for every pair of arms, with Holm's adjustment.

    Parameters
    ----------
    data : array_like, shape (n, k)
        One row per question, one column per arm; complete; n >= 2, k >= 2.
    zero_method, correction, method
        As in :func:`wilcoxon_signed_rank` (defaults: BenchmarkQED's).

    Returns
    -------
    list of PairwiseTest
        One per pair (i, j), i < j, in the order (0, 1), (0, 2), ..., (k-2, k-1): the
        two-sided test of column i minus column j and its Holm-adjusted p-value over the
        pairs whose test is defined (a pair with no non-zero difference has NaN p-values and
        stays out of the family).

    Raises
    ------
    ValueError
        Not 2-D, fewer than 2 rows or columns, a non-finite value, or an unknown option.

    Notes
    -----
    BenchmarkQED's post-hoc comparison of RAG methods on per-question assertion pass rates:
    paired Wilcoxon tests with Holm's step-down adjustment [1]_ (validated against
    ``statsmodels.stats.multitest.multipletests(method="holm")``).

    References
    ----------
    .. [1] Holm, S. (1979). A simple sequentially rejective multiple test procedure.
           Scandinavian Journal of Statistics 6(2), 65-70.

    Examples
    --------
    Two arms: one test, so Holm leaves its p-value alone. Differences 0.5, 0.5, 0.5, -0.25
    rank 3, 3, 3 and 1, W+ = 9 of 10, z = (9 - 5) / sqrt(7.5 - 0.5) = 1.511858 and
    p = 0.130570:

    >>> [(t.first, t.second, t.result.statistic, round(t.p_adjusted, 6))
    ...  for t in pairwise_wilcoxon([[1, 0.5], [1, 0.5], [0.5, 0], [0.25, 0.5]])]
    [(0, 1, 9.0, 0.13057)]
    """
    m = _check_matrix(data, "data", min_cols=2)
    k = m.shape[1]
    results = [((i, j), wilcoxon_signed_rank(m[:, i] - m[:, j], zero_method=zero_method,
                                             correction=correction, method=method))
               for i in range(k) for j in range(i + 1, k)]
    p = np.array([r.p_value for _, r in results])
    adjusted = np.full(p.size, math.nan)
    ok = np.isfinite(p)
    if ok.any():
        adjusted[ok] = holm_adjust(p[ok])
    return [PairwiseTest(i, j, r, float(a)) for ((i, j), r), a in zip(results, adjusted, strict=True)]
