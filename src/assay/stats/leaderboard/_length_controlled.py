"""Length-controlled win rate (AlpacaEval 2.0): the win rate a GLM predicts at equal lengths."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy import stats
from scipy.special import expit, logit

from assay.stats._validate import _check_conf

__all__ = ["length_controlled_win_rate"]

_MAX_ITER = 100
_TOL = 1e-10
_FITTED_EPS = 10.0 * float(np.finfo(np.float64).eps)
"""A fitted probability within this of 0 or 1 marks separation (R's ``glm.fit`` warns at the
same threshold: "fitted probabilities numerically 0 or 1 occurred")."""


@dataclass(frozen=True)
class LengthControlledWinRate:
    """The length-controlled win rate with its interval and the GLM behind it."""

    estimate: float
    """LC = mean_i sigma(theta + psi d_i): the predicted win rate at zero length difference.
    NaN when the preferences separate (``separated``) and are not all equal: the GLM then has
    no finite fit and its prediction depends on where Newton's method stopped. When every
    preference is the same 0 or 1, LC is that value (the limit of the fit)."""
    lower: float
    """Lower bound (logit-scale Wald interval, cluster-robust); NaN when the fit did not
    converge or separated, or the standard error is 0 (a saturated fit leaves no variation:
    a zero-width interval would claim certainty)."""
    upper: float
    """Upper bound; NaN as ``lower``."""
    standard_error: float
    """Delta-method standard error of ``estimate`` (cluster-robust sandwich)."""
    win_rate: float
    """The raw (weighted) mean preference, for comparison."""
    coefficients: dict[str, float]
    """``model`` (theta), ``length`` (phi, per unit of tanh of the standardised difference)
    and ``difficulty`` (psi, when given)."""
    length_sd: float
    """The standard deviation of the length differences the GLM standardises by."""
    conf: float
    n: int
    """Rows (instructions) fitted."""
    n_clusters: int
    converged: bool
    """Newton's method met the tolerance at a finite fit (False when the preferences
    separate, even if the steps became small)."""
    separated: bool = False
    """The preferences separate: some fitted probability is 0 or 1 to within 10 machine
    epsilons, so the maximum-likelihood coefficients are infinite (every preference equal,
    or the arm wins exactly where its answer is longer, and so on)."""
    method: str = "glm_logit_wald_cluster_robust"


def _check_inputs(preference: Any, length_arm: Any, length_baseline: Any, difficulty: Any,
                  cluster: Any, weight: Any) -> tuple[Any, ...]:
    y = np.asarray(preference, dtype=np.float64)
    if y.ndim != 1 or y.size < 3:
        raise ValueError("preference must be a 1-D array of at least 3 rows")
    if not np.all(np.isfinite(y)) or np.any((y < 0) | (y > 1)):
        raise ValueError("preference must lie in [0, 1] (the probability the arm is preferred)")
    arrays = []
    for name, values in (("length_arm", length_arm), ("length_baseline", length_baseline)):
        arr = np.asarray(values, dtype=np.float64)
        if arr.shape != y.shape or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{name} must hold one finite non-negative length per preference")
        arrays.append(arr)
    d = None
    if difficulty is not None:
        d = np.asarray(difficulty, dtype=np.float64)
        if d.shape != y.shape or not np.all(np.isfinite(d)):
            raise ValueError("difficulty must hold one finite number per preference")
    c = np.arange(y.size) if cluster is None else np.asarray(cluster)
    if c.shape != y.shape:
        raise ValueError("cluster must hold one label per preference")
    w = np.ones_like(y) if weight is None else np.asarray(weight, dtype=np.float64)
    if w.shape != y.shape or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("weight must hold one finite non-negative weight per preference")
    return y, arrays[0], arrays[1], d, c, w


def _fractional_logit(X: npt.NDArray[np.float64], y: npt.NDArray[np.float64],
                      w: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], bool]:
    """Maximise sum_i w_i [y_i log p_i + (1 - y_i) log(1 - p_i)] by Newton's method."""
    beta = np.zeros(X.shape[1])
    for _ in range(_MAX_ITER):
        p = expit(X @ beta)
        grad = X.T @ (w * (y - p))
        hess = (X * (w * p * (1.0 - p))[:, None]).T @ X
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        beta = beta + step
        if np.max(np.abs(step)) < _TOL:
            return beta, True
    return beta, False


def length_controlled_win_rate(preference: ArrayLike, length_arm: ArrayLike,
                               length_baseline: ArrayLike, *,
                               difficulty: ArrayLike | None = None,
                               cluster: ArrayLike | None = None,
                               weight: ArrayLike | None = None,
                               conf: float = 0.95) -> LengthControlledWinRate:
    r"""AlpacaEval 2.0's length-controlled win rate of an arm against a baseline.

    Parameters
    ----------
    preference : array_like, shape (n,)
        Per instruction, the probability (or 1/0.5/0 verdict) that the arm's answer is
        preferred to the baseline's.
    length_arm, length_baseline : array_like, shape (n,)
        The lengths of the two answers (AlpacaEval counts characters).
    difficulty : array_like, shape (n,), optional
        The instruction's difficulty (AlpacaEval's ``instruction_difficulty``); omitted: the
        GLM has no difficulty term.
    cluster : array_like, shape (n,), optional
        Sampling units for the cluster-robust variance (default: each row its own).
    weight : array_like, shape (n,), optional
        A weight per row (default 1).
    conf : float
        Level of the interval.

    Returns
    -------
    LengthControlledWinRate
        With ``separated`` True, ``converged`` False and NaN bounds when some fitted
        probability is numerically 0 or 1: the preferences separate and the coefficients
        run to infinity (Albert and Anderson 1984); ``estimate`` is then NaN unless every
        preference is the same 0 or 1.

    Notes
    -----
    The GLM of AlpacaEval 2.0 (Dubois et al. 2024, eq. 2), fitted per arm:

    .. math:: \operatorname{logit} P(\text{arm preferred} \mid i) = \theta
              + \phi \tanh\!\left(\frac{\ell_{\text{arm},i} - \ell_{\text{base},i}}{\sigma_\ell}
              \right) + \psi\, d_i,

    with :math:`\sigma_\ell` the sample standard deviation of the length differences and
    :math:`d_i` the instruction difficulty. The preference is a fractional outcome in [0, 1];
    the parameters maximise the weighted Bernoulli log likelihood (Papke and Wooldridge's
    fractional logit, Newton's method). The length-controlled win rate removes the length
    term, i.e. predicts at zero length difference, and averages over the instructions:

    .. math:: \mathrm{LC} = \frac{1}{n} \sum_i \sigma(\hat\theta + \hat\psi\, d_i).

    With the length term at zero the score equation of :math:`\theta` makes the fitted mean
    equal the raw win rate; a length effect moves LC away from it.

    Its variance is the delta method on the cluster-robust sandwich
    :math:`V = \frac{C}{C-1} H^{-1} \big(\sum_c s_c s_c^\top\big) H^{-1}` (:math:`H` the
    information, :math:`s_c` the score of cluster c), with gradient
    :math:`\frac{1}{n}\sum_i \sigma'(\eta^0_i)\,(1, 0, d_i)`; the interval is Wald on the
    logit scale, mapped back, so it stays in (0, 1).

    AlpacaEval itself fits the same formula with an L1 penalty chosen by 5-fold
    cross-validation and adds, with weight 0.2, the annotations of two length-gamed versions
    of the baseline (``df_gamed``), which pull the model towards the baseline's length
    response; its ``lc_standard_error`` is the standard error of the mean of the
    predictions, which leaves out the uncertainty of the fitted coefficients. This function
    is the unpenalised GLM with a full standard error.

    References
    ----------
    .. [1] Y. Dubois, B. Galambosi, P. Liang and T. B. Hashimoto, "Length-controlled
       AlpacaEval: a simple way to debias automatic evaluators", COLM 2024, arXiv:2404.04475.
    .. [2] L. E. Papke and J. M. Wooldridge, "Econometric methods for fractional response
       variables", J. Applied Econometrics 11 (1996) 619-632.
    .. [3] A. C. Cameron and D. L. Miller, "A practitioner's guide to cluster-robust
       inference", J. Human Resources 50 (2015) 317-372.
    .. [4] A. Albert and J. A. Anderson, "On the existence of maximum likelihood estimates
       in logistic regression models", Biometrika 71 (1984) 1-10.

    Examples
    --------
    Equal lengths: no length effect to remove, LC is the raw win rate.

    >>> res = length_controlled_win_rate([1, 0, 1, 1, 0.5, 0], [10] * 6, [10] * 6)
    >>> round(res.estimate, 6), round(res.win_rate, 6), res.converged
    (0.583333, 0.583333, True)
    """
    conf = _check_conf(conf)
    y, la, lb, d, c, w = _check_inputs(preference, length_arm, length_baseline, difficulty,
                                       cluster, weight)
    delta = la - lb
    sd = float(np.std(delta, ddof=1))
    x_len = np.tanh(delta / sd) if sd > 0 else np.zeros_like(delta)
    columns = [np.ones_like(y), x_len] + ([d] if d is not None else [])
    names = ["model", "length"] + (["difficulty"] if d is not None else [])
    X = np.column_stack(columns)
    if sd == 0:
        X = X[:, [0, *range(2, X.shape[1])]]
        names = [n for n in names if n != "length"]
    beta, converged = _fractional_logit(X, y, w)
    fitted = expit(X[w > 0] @ beta)
    separated = bool(np.any((fitted <= _FITTED_EPS) | (fitted >= 1.0 - _FITTED_EPS)))
    converged = converged and not separated
    coefficients = dict(zip(names, map(float, beta), strict=True))
    coefficients.setdefault("length", 0.0)
    X0 = X.copy()
    if "length" in names:
        X0[:, names.index("length")] = 0.0
    p0 = expit(X0 @ beta)
    estimate = float(np.mean(p0))
    if separated:
        held = y[w > 0]
        estimate = float(held[0]) if np.all(held == held[0]) and held[0] in (0.0, 1.0) \
            else math.nan
    win_rate = float(np.sum(w * y) / np.sum(w))
    # Cluster-robust sandwich and delta method.
    p = expit(X @ beta)
    hess = (X * (w * p * (1.0 - p))[:, None]).T @ X
    scores = X * (w * (y - p))[:, None]
    _, codes = np.unique(c, return_inverse=True)
    n_clusters = int(codes.max()) + 1
    summed = np.zeros((n_clusters, X.shape[1]))
    np.add.at(summed, codes, scores)
    meat = summed.T @ summed * (n_clusters / (n_clusters - 1) if n_clusters > 1 else math.nan)
    try:
        bread = np.linalg.inv(hess)
    except np.linalg.LinAlgError:
        bread = np.full_like(hess, np.nan)
    cov = bread @ meat @ bread
    grad = (X0 * (p0 * (1.0 - p0))[:, None]).mean(axis=0)
    se = float(math.sqrt(max(float(grad @ cov @ grad), 0.0))) if converged else math.nan
    z = float(stats.norm.ppf(0.5 + conf / 2.0))
    if converged and math.isfinite(se) and se > 1e-12 and 0.0 < estimate < 1.0:
        half = z * se / (estimate * (1.0 - estimate))
        lower, upper = float(expit(logit(estimate) - half)), float(expit(logit(estimate) + half))
    else:
        lower = upper = math.nan
    return LengthControlledWinRate(estimate, lower, upper, se, win_rate, coefficients, sd,
                                   conf, int(y.size), n_clusters, converged, separated)
