"""Diversity of one attribute's values: normalised Shannon entropy and distinct share."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["attribute_diversity"]


@dataclass(frozen=True)
class Diversity:
    """How evenly a set of items spreads over the values of one attribute."""

    n: int
    """Items counted."""
    n_levels: int
    """K, the values the attribute can take (declared, or observed over all sources)."""
    n_distinct: int
    """Values that occur at least once."""
    entropy: float
    """H = -sum_k p_k ln p_k, in nats."""
    normalised_entropy: float
    """H / ln K in [0, 1] (Pielou's evenness); NaN when K < 2 or n = 0."""
    distinct_share: float
    """n_distinct / K; NaN when K = 0."""


def attribute_diversity(counts: Sequence[int] | np.ndarray, *, n_levels: int | None = None
                        ) -> Diversity:
    r"""Normalised Shannon entropy and distinct share of counts over an attribute's values.

    Parameters
    ----------
    counts : sequence of int
        Items per observed value (zeros allowed).
    n_levels : int, optional
        K; default ``len(counts)``. Must be at least the number of non-zero counts.

    Notes
    -----
    With :math:`p_k = c_k / n` over the K values of the attribute (a value never seen has
    :math:`c_k = 0` and adds nothing),

    .. math:: H = -\sum_{k: c_k > 0} p_k \ln p_k, \qquad J = H / \ln K, \qquad
              D = |\{k : c_k > 0\}| / K.

    J is Pielou's evenness (Pielou 1966, J. Theor. Biol. 13, 131-144): 1 when the items are
    spread evenly over all K values, 0 when they all share one value. D is the share of the
    values used at all. CoEval's teacher report shows a "diversity score across nuanced
    attribute dimensions" without a formula; assay reports J (and D beside it).

    References
    ----------
    Pielou, E. C. (1966). The measurement of diversity in different types of biological
    collections. Journal of Theoretical Biology 13, 131-144.

    Examples
    --------
    >>> d = attribute_diversity([2, 2], n_levels=4)
    >>> round(d.normalised_entropy, 6), d.distinct_share
    (0.5, 0.5)
    """
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts: expected a 1-D sequence of non-negative counts")
    k = len(c) if n_levels is None else int(n_levels)
    distinct = int(np.count_nonzero(c))
    if k < distinct:
        raise ValueError(f"n_levels: {k} is fewer than the {distinct} values observed")
    n = float(c.sum())
    if n == 0:
        return Diversity(0, k, 0, math.nan, math.nan, 0.0 if k else math.nan)
    p = c[c > 0] / n
    entropy = float(-(p * np.log(p)).sum()) + 0.0
    normalised = entropy / math.log(k) if k >= 2 else math.nan
    return Diversity(int(n), k, distinct, entropy, normalised, distinct / k)
