"""The confidence sequence of a paired difference of two systems, by either method."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from assay.stats._validate import _check_1d
from assay.stats.sequential._bernstein import ConfidenceSequenceResult, empirical_bernstein_cs
from assay.stats.sequential._betting import betting_cs

__all__ = ["METHODS", "paired_difference_cs"]

METHODS = ("empirical_bernstein", "betting")
"""The confidence sequences :func:`paired_difference_cs` can use, by name."""


def paired_difference_cs(differences: ArrayLike, *, conf: float = 0.95, truncation: float = 0.5,
                         running_intersection: bool = True,
                         method: str = "empirical_bernstein") -> ConfidenceSequenceResult:
    r"""Confidence sequence for the mean paired difference of two systems, d in [-1, 1].

    Parameters
    ----------
    differences : array_like, shape (n,)
        D_t = (score of A) - (score of B) on the same unit, scores normalised to [0, 1]
        (for a pairwise preference, 2 x (A's win score) - 1); with clusters, the cluster
        mean of the per-item differences. In the order observed.
    conf, truncation, running_intersection
        As :func:`empirical_bernstein_cs`.
    method : {"empirical_bernstein", "betting"}, default "empirical_bernstein"
        The sequence for E[X]: :func:`empirical_bernstein_cs` (closed form) or the
        hedged-capital :func:`assay.stats.sequential.betting_cs` (on its default grid of
        1001 means; narrower, most of all at small n).

    Returns
    -------
    ConfidenceSequenceResult
        The sequence for delta = E[D] on the difference scale [-1, 1].

    Notes
    -----
    X_t = (D_t + 1)/2 lies in [0, 1]; with (L_t, U_t) the CS for E[X] from
    the chosen method, the CS for delta is (2 L_t - 1, 2 U_t - 1). A
    comparison is *decided* at time t when the interval excludes 0.

    Examples
    --------
    >>> cs = paired_difference_cs([0.0] * 100, conf=0.95)
    >>> round(float(cs.lower[-1]), 6), round(float(cs.upper[-1]), 6)
    (-0.149487, 0.149487)
    """
    d = _check_1d(differences, "differences")
    if np.any(d < -1.0) or np.any(d > 1.0):
        raise ValueError("differences must be in [-1, 1] (differences of scores in [0, 1])")
    if method == "empirical_bernstein":
        half = empirical_bernstein_cs((d + 1.0) / 2.0, conf=conf, truncation=truncation,
                                      running_intersection=running_intersection)
    elif method == "betting":
        half = betting_cs((d + 1.0) / 2.0, conf=conf, truncation=truncation,
                          running_intersection=running_intersection)
    else:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    return ConfidenceSequenceResult(estimate=2.0 * half.estimate - 1.0, lower=2.0 * half.lower - 1.0,
                                    upper=2.0 * half.upper - 1.0, conf=half.conf, n=half.n,
                                    method=half.method)
