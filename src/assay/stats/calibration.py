"""Linear calibration of judge scores against a reference: OLS fit and clipped application."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._validate import _check_1d

__all__ = ["apply_calibration", "ols_calibration"]

CalibrationMethod = Literal["ols", "ols_constant_reference", "identity_zero_variance"]


@dataclass(frozen=True)
class CalibrationFit:
    """Intercept and slope of a linear calibration, and how they were obtained."""

    alpha: float
    """Intercept: the additive correction."""
    beta: float
    """Slope: the multiplicative correction."""
    n: int
    """Number of (raw, reference) pairs fitted."""
    n_distinct: int
    """Number of distinct raw values: an OLS line through 2 or 3 values rests on little."""
    method: CalibrationMethod
    """``"ols"``; ``"ols_constant_reference"`` when every reference value is the same (the
    flat OLS line alpha = that value, beta = 0, which maps every score to it and so cannot
    calibrate); or ``"identity_zero_variance"`` (alpha = 0, beta = 1) when every raw value
    is the same and no line is defined."""


def ols_calibration(raw: ArrayLike, reference: ArrayLike) -> CalibrationFit:
    r"""Ordinary least squares line from raw judge scores to reference scores.

    Parameters
    ----------
    raw : array_like, shape (n,)
        x_i, the judge's scores (normalised to [0, 1] by the caller).
    reference : array_like, shape (n,)
        y_i, the reference (benchmark-native) scores of the same units.

    Returns
    -------
    CalibrationFit
        ``alpha``, ``beta`` of y = alpha + beta x; the identity (0, 1) with
        ``method = "identity_zero_variance"`` when the raw scores do not vary; the flat line
        with ``method = "ols_constant_reference"`` when the reference does not vary.

    Raises
    ------
    ValueError
        Empty, non-finite or unequal-length inputs.

    Notes
    -----
    .. math:: \hat\beta = \frac{\sum_i (x_i - \bar x)(y_i - \bar y)}{\sum_i (x_i - \bar x)^2},
              \qquad \hat\alpha = \bar y - \hat\beta \bar x

    (e.g. [1]_, ch. 2). With every x_i equal the denominator is 0 and no slope is defined;
    CoEval then falls back to the identity, which leaves scores as they are. A constant
    reference gives beta = 0 and alpha = y, the OLS answer, but a degenerate one: the line
    sends every score to y, so its error on data with the same reference is 0 by
    construction and says nothing of the judge; ``method`` names the case so that the
    caller can refuse it. Validated against
    ``numpy.linalg.lstsq`` and statsmodels OLS with a constant. CoEval warns that a judge
    with 3 ordinal levels gives OLS at most 3 distinct x values to fit: ``n_distinct``
    says how many there were.

    References
    ----------
    .. [1] Weisberg, S. (2014). Applied Linear Regression, 4th ed. Wiley.

    Examples
    --------
    Levels 0, 0.5, 1 against 0.1, 0.4, 0.9: beta = 0.4 / 0.5 = 0.8 and
    alpha = 1.4/3 - 0.8 * 0.5 = 1/15.

    >>> fit = ols_calibration([0.0, 0.5, 1.0], [0.1, 0.4, 0.9])
    >>> round(fit.alpha, 6), round(fit.beta, 6), fit.n_distinct, fit.method
    (0.066667, 0.8, 3, 'ols')
    >>> ols_calibration([0.5, 0.5], [0.2, 0.9]).method
    'identity_zero_variance'
    >>> ols_calibration([0.2, 0.9], [0.0, 0.0]).method
    'ols_constant_reference'
    """
    x = _check_1d(raw, "raw")
    y = _check_1d(reference, "reference")
    if x.shape != y.shape:
        raise ValueError(f"raw and reference must have the same length, got {x.size} and {y.size}")
    distinct = int(np.unique(x).size)
    if distinct < 2:
        return CalibrationFit(0.0, 1.0, int(x.size), distinct, "identity_zero_variance")
    if np.ptp(y) == 0:
        return CalibrationFit(float(y[0]), 0.0, int(x.size), distinct, "ols_constant_reference")
    dx = x - x.mean()
    beta = float(np.dot(dx, y - y.mean()) / np.dot(dx, dx))
    alpha = float(y.mean() - beta * x.mean())
    return CalibrationFit(alpha, beta, int(x.size), distinct, "ols")


def apply_calibration(raw: ArrayLike, intercept: float, slope: float, *,
                      clip: bool = True) -> npt.NDArray[np.float64]:
    r"""Calibrated scores: clip(alpha + beta x, 0, 1).

    Parameters
    ----------
    raw : array_like
        x, raw scores on [0, 1]; NaN stays NaN.
    intercept, slope : float
        alpha and beta, e.g. from :func:`ols_calibration` (CoEval passes them positionally:
        ``apply_calibration(raw_scores, params["_overall"]["alpha"], ...["beta"])``).
    clip : bool, default True
        Clip the result to [0, 1] (CoEval's ``calibrated_score``).

    Returns
    -------
    numpy.ndarray of float64
        A new array; `raw` is not modified.

    Notes
    -----
    .. math:: \tilde x = \min(1, \max(0, \alpha + \beta x))

    Clipping keeps calibrated scores on the normalised scale; it ties scores pushed past an
    end, so a Spearman rho after calibration can differ from the raw one even for beta > 0.

    Examples
    --------
    >>> apply_calibration([0.0, 0.5, 1.0], -0.2, 1.5).tolist()
    [0.0, 0.55, 1.0]
    """
    x = np.array(raw, dtype=np.float64)
    out = float(intercept) + float(slope) * x
    return np.clip(out, 0.0, 1.0) if clip else out
