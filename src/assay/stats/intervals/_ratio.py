"""Ratio estimator residuals shared by the cluster-robust interval functions."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

_SNAP = 8.0 * float(np.finfo(np.float64).eps)


def _linearised_residuals(
    sums: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    ratio: npt.NDArray[np.float64] | float,
) -> npt.NDArray[np.float64]:
    """Return e_c = S_c - r n_c, with residuals within rounding error set to exactly 0.

    A residual is rounding noise when |e_c| <= 8 eps (max_c n_c + 1) (|S_c| + |r| n_c): the
    sums S_c are themselves sums of up to max n_c rounded item values, so a benchmark in which
    every cluster has the same mean gets V = 0 exactly instead of a variance of order 1e-33.
    `ratio` may be a scalar or a column of shape (B, 1) for B resamples.
    """
    resid = sums - ratio * sizes
    tol = _SNAP * (float(np.max(sizes)) + 1.0) * (np.abs(sums) + np.abs(ratio) * sizes)
    out: npt.NDArray[np.float64] = np.where(np.abs(resid) <= tol, 0.0, resid)
    return out
