"""Equal-count bins that keep tied values together."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["equal_count_bins"]


def equal_count_bins(values: npt.ArrayLike, n_bins: int) -> npt.NDArray[np.int64]:
    r"""Bin index (0, 1, ...) of each value: bins of about n / n_bins values, ties kept whole.

    Notes
    -----
    The values are sorted and bin b nominally takes the ranks
    :math:`\lfloor b n / B \rfloor, \dots, \lfloor (b + 1) n / B \rfloor - 1` (equal-count,
    or quantile, binning as in reliability diagrams: Naeini, Cooper and Hauskrecht 2015,
    AAAI, "equal-frequency" bins). A run of equal values that straddles a nominal boundary
    goes whole into the bin where the run starts, so a value never sits in two bins; bins
    left empty are dropped and the indices renumbered 0..m-1 in increasing value. With an
    ordinal score of three levels and B >= 3 the bins are the levels.

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite values.
    n_bins : int
        B >= 1, the bins asked for; fewer come back when ties or n < B leave some empty.

    Examples
    --------
    >>> equal_count_bins([5, 1, 2, 2, 3, 4], 3).tolist()
    [2, 0, 0, 0, 1, 2]
    """
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError("values: expected a 1-D array of finite numbers")
    if int(n_bins) < 1:
        raise ValueError(f"n_bins: expected at least 1, got {n_bins}")
    n = x.size
    order = np.argsort(x, kind="stable")
    ranks = np.arange(n)
    nominal = (ranks * int(n_bins)) // max(n, 1)
    sorted_x = x[order]
    # a tie run takes the bin of its first member
    first = np.searchsorted(sorted_x, sorted_x, side="left")
    assigned = nominal[first]
    _, dense = np.unique(assigned, return_inverse=True)
    out = np.empty(n, dtype=np.int64)
    out[order] = dense
    return out
