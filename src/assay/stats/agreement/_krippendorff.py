"""Krippendorff's alpha for any number of raters, missing ratings allowed.

Public through :mod:`assay.stats.agreement._rates`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats.agreement._kappa import Undefined

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]
"""Level of measurement, which fixes the difference function delta^2 of Krippendorff's alpha."""

_LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha with the disagreements it compares."""

    estimate: float
    """alpha = 1 - D_o / D_e; NaN when ``undefined`` says why."""
    observed_disagreement: float
    """D_o, the mean difference delta^2 between values paired within units."""
    expected_disagreement: float
    """D_e, the mean difference delta^2 between all pairable values regardless of unit."""
    n: int
    """n.., the number of pairable values (ratings in units that have at least two)."""
    n_units: int
    """Pairable units: units with at least two ratings."""
    level: AlphaLevel
    """Level of measurement used."""
    method: str = "krippendorff_alpha"
    """Always ``"krippendorff_alpha"``."""
    undefined: Undefined | None = None
    """Why ``estimate`` is NaN, or None when it is defined."""


def _check_ratings(ratings: ArrayLike, name: str = "ratings") -> npt.NDArray[np.float64]:
    """A 2-D float array (units x raters) of finite values or NaN."""
    try:
        x = np.asarray(ratings, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 2-D array of numbers (NaN for a missing rating)") from None
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-D (units x raters), got shape {x.shape}")
    if np.any(np.isinf(x)):
        raise ValueError(f"{name} must not contain inf (use NaN for a missing rating)")
    return x


def krippendorff_alpha(ratings: ArrayLike, *, level: AlphaLevel = "interval") -> AlphaResult:
    r"""Krippendorff's alpha reliability of several raters, missing ratings allowed.

    Parameters
    ----------
    ratings : array_like, shape (U, m)
        Units in rows, raters in columns; NaN marks a rating not given. (This is the
        transpose of the ``reliability_data`` of the ``krippendorff`` package.) Units with
        fewer than two ratings are not pairable and are left out.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "interval"
        Level of measurement: which differences count as large (see Notes). Ordinal and
        nominal scores are the level codes 0..k-1; ratio needs non-negative values.

    Returns
    -------
    AlphaResult
        ``estimate`` alpha, ``observed_disagreement`` D_o, ``expected_disagreement`` D_e,
        ``n`` the pairable values, ``n_units`` the pairable units. NaN with
        ``undefined = "no_pairable_units"`` when no unit has two ratings, and with
        ``undefined = "no_variation"`` when every pairable value is the same (D_e = 0;
        Krippendorff: the data then cannot show reliability).

    Raises
    ------
    ValueError
        `ratings` not 2-D, inf values, an unknown `level`, or negative values at the ratio
        level.

    Notes
    -----
    Following Krippendorff (2011) [1]_: the coincidence matrix counts, for every pair of
    values c, k, the ordered pairs of ratings within a unit, each unit u weighted by
    1 / (m_u - 1) where m_u is its number of ratings,

    .. math:: o_{ck} = \sum_u \frac{n_{uc} n_{uk} - [c = k] n_{uc}}{m_u - 1}, \quad
              n_c = \sum_k o_{ck}, \quad n_{..} = \sum_c n_c,

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n_{..} - 1)
              \frac{\sum_{c,k} o_{ck} \delta^2_{ck}}{\sum_{c,k} n_c n_k \delta^2_{ck}}

    with delta^2_ck = [c != k] (nominal), (c - k)^2 (interval),
    ((c - k) / (c + k))^2 (ratio), and (sum_{g=c}^{k} n_g - (n_c + n_k) / 2)^2 (ordinal,
    for c <= k in value order: the differences are ranks of the pooled pairable values).
    alpha = 1 is perfect agreement, 0 agreement at chance, negative systematic
    disagreement. Cost O(U V + V^2) for V distinct values. Validated against the
    ``krippendorff`` package (0.9) and Krippendorff's worked example (tests/agreement/).

    References
    ----------
    .. [1] Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg
           School for Communication, University of Pennsylvania.
    .. [2] Hayes, A. F. and Krippendorff, K. (2007). Answering the call for a standard
           reliability measure for coding data. Communication Methods and Measures 1(1),
           77-89.

    Examples
    --------
    Two raters, three units rated (1, 1), (2, 2), (3, 1), nominal. The coincidences are
    o_11 = 2, o_22 = 2, o_13 = o_31 = 1, so n_1 = 3, n_2 = 2, n_3 = 1, n = 6;
    D_o = 2/6 and D_e = (36 - 9 - 4 - 1) / 30 = 22/30, alpha = 1 - (1/3) / (11/15) = 6/11:

    >>> res = krippendorff_alpha([[1, 1], [2, 2], [3, 1]], level="nominal")
    >>> round(res.estimate, 12) == round(6 / 11, 12), res.n, res.n_units
    (True, 6, 3)
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    x = _check_ratings(ratings)
    nan = float("nan")
    present = ~np.isnan(x)
    m_u = present.sum(axis=1)
    pairable = m_u >= 2
    if not np.any(pairable):
        return AlphaResult(nan, nan, nan, 0, 0, level, undefined="no_pairable_units")
    x, present, m_u = x[pairable], present[pairable], m_u[pairable]
    values, codes = np.unique(x[present], return_inverse=True)
    if level == "ratio" and values[0] < 0:
        raise ValueError("ratio-level alpha needs non-negative values")
    units, v = x.shape[0], values.size
    rows = np.repeat(np.arange(units), m_u)
    counts = np.zeros((units, v))
    np.add.at(counts, (rows, codes.ravel()), 1.0)
    inv = 1.0 / (m_u - 1.0)
    coincidence = (counts * inv[:, None]).T @ counts
    coincidence[np.diag_indices(v)] -= (counts * inv[:, None]).sum(axis=0)
    n_c = coincidence.sum(axis=1)
    n = float(n_c.sum())
    delta2 = _difference(values, n_c, level)
    observed = float(np.sum(coincidence * delta2)) / n
    expected = float(n_c @ delta2 @ n_c) / (n * (n - 1.0))
    if not expected > 0:
        return AlphaResult(nan, observed, expected, round(n), units, level,
                           undefined="no_variation")
    return AlphaResult(1.0 - observed / expected, observed, expected, round(n), units, level)


def _difference(
    values: npt.NDArray[np.float64], n_c: npt.NDArray[np.float64], level: AlphaLevel
) -> npt.NDArray[np.float64]:
    """delta^2_ck for the sorted distinct values at a level of measurement."""
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        different: npt.NDArray[np.float64] = (c != k).astype(np.float64)
        return different
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        total = c + k
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(total > 0, (c - k) / np.where(total > 0, total, 1.0), 0.0)
        return ratio**2
    cumulative = np.cumsum(n_c)
    low = np.minimum.outer(np.arange(values.size), np.arange(values.size))
    high = np.maximum.outer(np.arange(values.size), np.arange(values.size))
    spread: npt.NDArray[np.float64] = cumulative[high] - cumulative[low] + (n_c[low] - n_c[high]) / 2.0
    return spread**2
