"""Reliability weights of a judge ensemble: each judge weighted by its agreement with the rest."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["reliability_weights"]


@dataclass(frozen=True)
class EnsembleWeights:
    """One weight per judge (summing to 1) and the correlation it came from."""

    weights: list[float]
    rest_correlations: list[float]
    """r_j: Pearson correlation of judge j with the mean of the other judges (NaN when
    undefined: fewer than 3 shared units, or no variance)."""
    n_shared: list[int]
    """Units judge j shares with at least one other judge."""
    equal_fallback: bool
    """True when no judge had a positive correlation and the weights are equal."""


def reliability_weights(scores: npt.ArrayLike) -> EnsembleWeights:
    r"""Weights of a judge ensemble from each judge's item-rest correlation.

    Notes
    -----
    ``scores`` is a (units x judges) matrix with NaN where a judge did not score a unit.
    For judge j, :math:`r_j` is the Pearson correlation, over the units j scored together
    with at least one other judge, between j's score and the mean of the other judges'
    scores of that unit (the corrected item-total, or item-rest, correlation of
    psychometrics: Nunnally and Bernstein 1994, *Psychometric Theory*, 3rd ed., 8.3). Then

    .. math:: w_j = \frac{\max(r_j, 0)}{\sum_k \max(r_k, 0)},

    so a judge that disagrees with the rest (or is undefined) gets no weight. When no judge
    has a positive r the weights are equal, and ``equal_fallback`` says so. One judge alone
    gets weight 1. CoEval names "robust ensemble weights" without a formula; this is
    assay's reading: judges weighted by their agreement with the ensemble.

    Examples
    --------
    >>> w = reliability_weights([[0, 0, 1], [1, 1, 0], [1, 1, 1], [0, 0, 0]])
    >>> [round(x, 3) for x in w.weights]
    [0.5, 0.5, 0.0]
    """
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or m.shape[1] < 1:
        raise ValueError("scores: expected a (units x judges) matrix with at least one judge")
    n_judges = m.shape[1]
    if n_judges == 1:
        return EnsembleWeights([1.0], [math.nan], [0], False)
    present = ~np.isnan(m)
    filled = np.where(present, m, 0.0)
    correlations: list[float] = []
    shared: list[int] = []
    for j in range(n_judges):
        others = present.sum(axis=1) - present[:, j]
        rows = present[:, j] & (others > 0)
        rest = (filled.sum(axis=1) - filled[:, j])[rows] / others[rows]
        own = m[rows, j]
        shared.append(int(rows.sum()))
        if rows.sum() < 3 or np.std(own) == 0 or np.std(rest) == 0:
            correlations.append(math.nan)
        else:
            correlations.append(float(np.corrcoef(own, rest)[0, 1]))
    positive = np.array([max(r, 0.0) if math.isfinite(r) else 0.0 for r in correlations])
    if positive.sum() <= 0:
        return EnsembleWeights([1.0 / n_judges] * n_judges, correlations, shared, True)
    return EnsembleWeights((positive / positive.sum()).tolist(), correlations, shared, False)
