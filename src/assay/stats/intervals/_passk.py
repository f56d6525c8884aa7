"""pass^k: the chance that k runs of an item, drawn without replacement, are all correct."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._validate import _check_1d, _check_int

__all__ = ["pass_hat_k", "pass_hat_k_per_item"]


def _check_passk(
    correct_counts: ArrayLike, runs: int, k: int
) -> tuple[npt.NDArray[np.int64], int, int]:
    """Validate pass^k inputs: integer counts in [0, R], 1 <= k <= R."""
    r = _check_int(runs, "runs", minimum=1)
    kk = _check_int(k, "k", minimum=1)
    if kk > r:
        raise ValueError(f"k must be at most runs ({r}), got {k!r}")
    c = _check_1d(correct_counts, "correct_counts")
    if np.any(c != np.round(c)):
        raise ValueError("correct_counts must be integer counts")
    if np.any(c < 0) or np.any(c > r):
        raise ValueError(f"correct_counts must lie between 0 and runs ({r})")
    return c.astype(np.int64), r, kk


def pass_hat_k_per_item(correct_counts: ArrayLike, runs: int, k: int) -> npt.NDArray[np.float64]:
    r"""Per-item unbiased estimates of pass^k.

    Parameters
    ----------
    correct_counts : array_like of int, shape (I,)
        c_i, the correct runs of item i, each in [0, R].
    runs : int
        R, the runs of every item; at least 1.
    k : int
        Number of runs that must all be correct; 1 <= k <= R.

    Returns
    -------
    numpy.ndarray, shape (I,)
        C(c_i, k) / C(R, k) for each item, each the correctly rounded value of the exact
        rational number.

    Raises
    ------
    ValueError
        Non-integer counts, a count outside [0, R], `runs` below 1, or `k` outside [1, R].

    Notes
    -----
    See :func:`pass_hat_k`. The R + 1 possible values are computed once with exact integer
    binomial coefficients (``math.comb``) and looked up, so the cost is O(I + R). Summing
    these per cluster gives the cluster sums for a cluster bootstrap of pass^k.

    Examples
    --------
    With R = 5 and k = 3: C(5, 3) = 10, C(4, 3) = 4, C(3, 3) = 1, C(2, 3) = 0:

    >>> pass_hat_k_per_item([5, 4, 3, 2], 5, 3).tolist()
    [1.0, 0.4, 0.1, 0.0]
    """
    c, r, kk = _check_passk(correct_counts, runs, k)
    denominator = comb(r, kk)
    table = np.array([float(Fraction(comb(j, kk), denominator)) for j in range(r + 1)])
    values: npt.NDArray[np.float64] = table[c]
    return values


def pass_hat_k(correct_counts: ArrayLike, runs: int, k: int) -> float:
    r"""Unbiased estimate of pass^k, averaged over items.

    Parameters
    ----------
    correct_counts : array_like of int, shape (I,)
        c_i, the correct runs of item i, each in [0, R].
    runs : int
        R, the runs of every item (the same for every item); at least 1.
    k : int
        Number of runs that must all be correct; 1 <= k <= R.

    Returns
    -------
    float
        The mean over items of C(c_i, k) / C(R, k), correctly rounded from the exact rational
        value.

    Raises
    ------
    ValueError
        Non-integer counts, a count outside [0, R], `runs` below 1, or `k` outside [1, R]
        (a k above the number of runs has no unbiased estimate).

    Notes
    -----
    For one item with success probability p, drawing k of its R runs without replacement,

    .. math:: \widehat{\text{pass}^k} = \frac{1}{I} \sum_i
              \frac{\binom{c_i}{k}}{\binom{R}{k}}

    is unbiased for the mean over items of p_i^k [1]_ (the hypergeometric chance that all k
    drawn runs are among the c_i correct ones). The sum is done in exact integers and
    divided once. Validated by brute-force enumeration of all k-subsets of runs.

    References
    ----------
    .. [1] Yao, S., Shinn, N., Razavi, P. and Narasimhan, K. (2024). tau-bench: a benchmark
           for tool-agent-user interaction in real-world domains. arXiv:2406.12045.

    Examples
    --------
    (C(5, 3) + C(4, 3) + C(3, 3) + C(2, 3)) / (4 C(5, 3)) = (10 + 4 + 1 + 0) / 40 = 0.375:

    >>> pass_hat_k([5, 4, 3, 2], 5, 3)
    0.375
    """
    c, r, kk = _check_passk(correct_counts, runs, k)
    tally = np.bincount(c, minlength=r + 1)
    numerator = sum(int(tally[j]) * comb(j, kk) for j in range(kk, r + 1))
    return float(Fraction(numerator, c.size * comb(r, kk)))
