"""Stability of a ranking over repeated samples: mean pairwise Kendall tau-b."""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import numpy.typing as npt

__all__ = ["kendall_tau_b", "ranking_stability"]


@dataclass(frozen=True)
class RankingStability:
    """Agreement between the rankings of the same systems over R repeated samples."""

    mean_tau: float
    """Mean Kendall tau-b over the pairs of samples where it is defined."""
    min_tau: float
    n_samples: int
    n_pairs: int
    """Pairs of samples averaged."""
    n_undefined: int
    """Pairs left out: a sample whose scores are all tied gives no tau."""


def kendall_tau_b(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    r"""Kendall's tau-b between two score vectors (NaN when either is constant).

    Notes
    -----
    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    with :math:`n_0 = n(n-1)/2`, :math:`n_1`, :math:`n_2` the pairs tied in x and in y
    (Kendall 1945, Biometrika 33, 239-251).

    Examples
    --------
    >>> kendall_tau_b([1, 2, 3], [1, 3, 2])
    0.3333333333333333
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    i, j = np.triu_indices(a.size, k=1)
    da = np.sign(a[i] - a[j])
    db = np.sign(b[i] - b[j])
    n0 = i.size
    n1 = int(np.sum(da == 0))
    n2 = int(np.sum(db == 0))
    denominator = math.sqrt((n0 - n1) * (n0 - n2))
    if denominator == 0:
        return math.nan
    return float(np.sum(da * db)) / denominator


def ranking_stability(scores: npt.ArrayLike) -> RankingStability:
    r"""Mean Kendall tau-b between the systems' scores over every pair of repeated samples.

    Notes
    -----
    ``scores`` is an (R samples x A systems) matrix; row r holds each system's score on
    sample r. The stability is

    .. math:: \bar\tau = \binom{R}{2}^{-1} \sum_{r < s} \tau_b(x_r, x_s),

    the mean over the pairs where tau-b is defined (a row whose scores are all tied is left
    out of its pairs, counted in ``n_undefined``). 1: every sample ranks the systems alike.
    This is the "ranking's stability" of CoEval's sampling ablation (Table 7), read as the
    agreement between the rankings of repeated samples of one design.

    Examples
    --------
    >>> ranking_stability([[1, 2, 3], [1, 2, 3], [1, 3, 2]]).mean_tau
    0.5555555555555555
    """
    m = np.asarray(scores, dtype=np.float64)
    if m.ndim != 2 or not np.all(np.isfinite(m)):
        raise ValueError("scores: expected an (R samples x A systems) matrix of finite numbers")
    taus = [kendall_tau_b(m[r], m[s]) for r, s in combinations(range(m.shape[0]), 2)]
    defined = [t for t in taus if math.isfinite(t)]
    return RankingStability(
        float(np.mean(defined)) if defined else math.nan,
        float(min(defined)) if defined else math.nan,
        int(m.shape[0]), len(defined), len(taus) - len(defined))
