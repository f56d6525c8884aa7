"""Chance-corrected agreement on categories: Cohen's kappa (plain and weighted) and Fleiss' kappa.

Public through :mod:`assay.stats.agreement._rates`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

KappaWeights = Literal["linear", "quadratic"]
"""Disagreement weights of a weighted kappa: |i - j| / (k - 1) or ((i - j) / (k - 1))^2."""

Undefined = Literal["no_units", "no_variation", "no_pairable_units"]
"""Why a statistic is NaN: no units to compute it on; every rating is the same (the expected
disagreement is 0), so chance-corrected agreement is 0 / 0; no unit has two ratings."""


@dataclass(frozen=True)
class KappaResult:
    """A kappa statistic with the agreement it corrects for chance."""

    estimate: float
    """kappa = (p_o - p_e) / (1 - p_e); NaN when ``undefined`` says why."""
    observed_agreement: float
    """p_o: the (weighted) share of agreement observed; for a weighted kappa 1 minus the mean
    disagreement weight of the observed pairs."""
    expected_agreement: float
    """p_e: the (weighted) agreement expected by chance from the marginal shares."""
    n: int
    """Units the statistic rests on (pairs of ratings for Cohen, rated units for Fleiss)."""
    n_categories: int
    """k, the number of categories of the scale (declared or observed)."""
    weights: Literal["none", "linear", "quadratic"]
    """Disagreement weights: ``"none"`` for plain kappa."""
    method: str
    """``"cohen_kappa"``, ``"cohen_kappa_linear"``, ``"cohen_kappa_quadratic"`` or
    ``"fleiss_kappa"``."""
    n_raters: int | None = None
    """Ratings per unit (Fleiss' kappa); None for Cohen's kappa (always two raters)."""
    undefined: Undefined | None = None
    """Why ``estimate`` is NaN, or None when it is defined."""


def _categories(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], categories: ArrayLike | None
) -> npt.NDArray[np.float64]:
    observed = np.unique(np.concatenate([a, b]))
    if categories is None:
        return observed
    try:
        cats = np.asarray(categories, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("categories must be a 1-D array of numbers") from None
    if cats.ndim != 1 or cats.size < 1 or not np.all(np.isfinite(cats)):
        raise ValueError("categories must be a non-empty 1-D array of finite numbers")
    if np.unique(cats).size != cats.size:
        raise ValueError("categories must be distinct")
    missing = np.setdiff1d(observed, cats)
    if missing.size:
        raise ValueError(f"ratings {missing.tolist()} are not among the categories")
    return cats


def _pair(a: ArrayLike, b: ArrayLike) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Two equally long 1-D rating arrays with the pairs that miss either rating (NaN) dropped."""
    try:
        x = np.asarray(a, dtype=np.float64)
        y = np.asarray(b, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("a and b must be 1-D arrays of numbers (NaN for a missing rating)") from None
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"a and b must be 1-D, got shapes {x.shape} and {y.shape}")
    if x.shape != y.shape:
        raise ValueError(f"a and b must have the same length, got {x.size} and {y.size}")
    if np.any(np.isinf(x)) or np.any(np.isinf(y)):
        raise ValueError("a and b must not contain inf (use NaN for a missing rating)")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def cohen_kappa(
    a: ArrayLike,
    b: ArrayLike,
    *,
    weights: KappaWeights | None = None,
    categories: ArrayLike | None = None,
) -> KappaResult:
    r"""Cohen's kappa between two raters, plain or weighted.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        The two raters' category codes for the same n units; NaN marks a missing rating, and
        a unit missing either rating is left out.
    weights : {None, "linear", "quadratic"}, default None
        None for plain (unweighted) kappa; ``"linear"`` or ``"quadratic"`` for weighted kappa
        on an ordered scale.
    categories : array_like, optional
        All categories of the scale in order, lowest first (for example the level codes
        ``[0, 1, 2]`` of Low/Medium/High). Needed for weighted kappa whenever a level may go
        unused, since the weights depend on the number of levels. Default: the values
        observed in `a` and `b`, sorted.

    Returns
    -------
    KappaResult
        ``estimate`` kappa, ``observed_agreement`` p_o, ``expected_agreement`` p_e, ``n``
        the pairs used. NaN with ``undefined = "no_units"`` when no pair is complete, and
        with ``undefined = "no_variation"`` when the expected disagreement is 0 (both
        raters gave one and the same category throughout: kappa is 0 / 0).

    Raises
    ------
    ValueError
        Inputs of different lengths or not 1-D, inf values, a rating not among
        `categories`, or an unknown `weights`.

    Notes
    -----
    With p_ij the share of units rated i by `a` and j by `b`, p_i. and p_.j the marginal
    shares and w_ij a disagreement weight (1 - [i = j] unweighted; |i - j| / (k - 1)
    linear; ((i - j) / (k - 1))^2 quadratic, i and j the positions of the categories in
    the ordered list),

    .. math:: \kappa_w = 1 - \frac{\sum_{ij} w_{ij} p_{ij}}{\sum_{ij} w_{ij} p_{i.} p_{.j}}
              = \frac{p_o - p_e}{1 - p_e}

    with p_o = 1 - sum w_ij p_ij and p_e = 1 - sum w_ij p_i. p_.j [1]_ [2]_. The weights use
    category positions, not the codes' numeric values, so the levels are taken as equally
    spaced. Kappa is 1 for perfect agreement, 0 for agreement at chance level given each
    rater's own marginal shares, and negative below chance. Quadratic-weighted kappa equals
    the ICC(3,1) of the two raters' codes up to a term of order 1/n [3]_. Validated against
    ``statsmodels.stats.inter_rater.cohens_kappa`` and hand-worked tables (tests/agreement/).

    References
    ----------
    .. [1] Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
           Psychological Measurement 20(1), 37-46.
    .. [2] Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for
           scaled disagreement or partial credit. Psychological Bulletin 70(4), 213-220.
    .. [3] Fleiss, J. L. and Cohen, J. (1973). The equivalence of weighted kappa and the
           intraclass correlation coefficient as measures of reliability. Educational and
           Psychological Measurement 33(3), 613-619.

    Examples
    --------
    Fifty units, both raters "yes" on 20, both "no" on 15, a "yes" where b says "no" on 5
    and the reverse on 10: p_o = 35/50 = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, so
    kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4:

    >>> a = [1] * 25 + [0] * 25
    >>> b = [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15
    >>> res = cohen_kappa(a, b)
    >>> round(res.estimate, 12), res.observed_agreement, res.n
    (0.4, 0.7, 50)
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    x, y = _pair(a, b)
    cats = _categories(x, y, categories)
    k = cats.size
    kind: Literal["none", "linear", "quadratic"] = "none" if weights is None else weights
    method = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
    nan = float("nan")
    if x.size == 0:
        return KappaResult(nan, nan, nan, 0, k, kind, method, undefined="no_units")
    order = np.argsort(cats)
    position = np.empty(k, dtype=np.int64)
    position[order] = np.arange(k)
    i = position[np.searchsorted(cats[order], x)]
    j = position[np.searchsorted(cats[order], y)]
    table = np.zeros((k, k))
    np.add.at(table, (i, j), 1.0)
    table /= x.size
    w = _disagreement_weights(k, weights)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0))
    observed_disagreement = float(np.sum(w * table))
    expected_disagreement = float(np.sum(w * expected))
    p_o, p_e = 1.0 - observed_disagreement, 1.0 - expected_disagreement
    if not expected_disagreement > 0:
        return KappaResult(nan, p_o, p_e, int(x.size), k, kind, method, undefined="no_variation")
    estimate = 1.0 - observed_disagreement / expected_disagreement
    return KappaResult(estimate, p_o, p_e, int(x.size), k, kind, method)


def _disagreement_weights(k: int, weights: KappaWeights | None) -> npt.NDArray[np.float64]:
    if k < 2:
        return np.zeros((k, k))
    idx = np.arange(k, dtype=np.float64)
    distance = np.abs(idx[:, None] - idx[None, :]) / (k - 1)
    if weights is None:
        return (distance > 0).astype(np.float64)
    return distance if weights == "linear" else distance**2


def fleiss_kappa(counts: ArrayLike) -> KappaResult:
    r"""Fleiss' kappa for several raters assigning each unit to one of k categories.

    Parameters
    ----------
    counts : array_like of int, shape (N, k)
        n_ij, the number of raters who put unit i in category j. Every row must sum to the
        same number of ratings n >= 2 (the raters need not be the same people across
        units). Columns are the categories of the scale; an unused one may be all zero.

    Returns
    -------
    KappaResult
        ``estimate`` kappa, ``observed_agreement`` the mean pairwise agreement P-bar,
        ``expected_agreement`` P-bar_e, ``n`` = N, ``n_raters`` = n. NaN with
        ``undefined = "no_variation"`` when every rating falls in one category
        (P-bar_e = 1: kappa is 0 / 0).

    Raises
    ------
    ValueError
        Not a 2-D array of non-negative integers, no rows, rows that do not all sum to the
        same n, or n below 2.

    Notes
    -----
    With p_j = sum_i n_ij / (N n) the share of all ratings in category j,

    .. math:: P_i = \frac{\sum_j n_{ij}^2 - n}{n (n - 1)}, \quad
              \bar P = \frac{1}{N} \sum_i P_i, \quad \bar P_e = \sum_j p_j^2, \quad
              \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}

    [1]_. P_i is the share of agreeing pairs among the n(n - 1) ordered pairs of ratings of
    unit i, so P-bar is the mean pairwise agreement. Chance agreement uses the pooled
    shares p_j (Fleiss' kappa is not a generalisation of Cohen's, which uses each rater's
    own margins). Nominal: the order of categories does not matter. Validated against
    ``statsmodels.stats.inter_rater.fleiss_kappa`` and Fleiss' published example
    (tests/agreement/).

    References
    ----------
    .. [1] Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
           Psychological Bulletin 76(5), 378-382.

    Examples
    --------
    Three units, three raters, two categories: rows (3, 0), (0, 3), (2, 1) give P_i = 1, 1,
    1/3, P-bar = 7/9; p = (5/9, 4/9), P-bar_e = 41/81; kappa = (63/81 - 41/81) /
    (40/81) = 22/40 = 0.55:

    >>> res = fleiss_kappa([[3, 0], [0, 3], [2, 1]])
    >>> round(res.estimate, 12), res.n, res.n_raters
    (0.55, 3, 3)
    """
    try:
        table = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("counts must be a 2-D array of non-negative integer counts") from None
    if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
        raise ValueError(f"counts must be a non-empty 2-D array (units x categories), got shape "
                         f"{table.shape}")
    if not np.all(np.isfinite(table)) or np.any(table < 0) or np.any(table != np.round(table)):
        raise ValueError("counts must be non-negative integer counts")
    totals = table.sum(axis=1)
    n = totals[0]
    if np.any(totals != n):
        raise ValueError("every row of counts must sum to the same number of ratings "
                         f"(got row totals from {totals.min():g} to {totals.max():g})")
    if n < 2:
        raise ValueError(f"each unit needs at least 2 ratings, got {n:g}")
    units, k = table.shape
    p_j = table.sum(axis=0) / (units * n)
    p_i = (np.sum(table**2, axis=1) - n) / (n * (n - 1))
    p_bar = float(p_i.mean())
    p_e = float(np.sum(p_j**2))
    if not p_e < 1.0:
        return KappaResult(float("nan"), p_bar, p_e, units, k, "none", "fleiss_kappa",
                           n_raters=int(n), undefined="no_variation")
    return KappaResult((p_bar - p_e) / (1.0 - p_e), p_bar, p_e, units, k, "none", "fleiss_kappa",
                       n_raters=int(n))
