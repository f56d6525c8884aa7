"""AlpacaEval's own length-controlled GLM: L1-penalised, its penalty chosen by grouped 5-fold
cross-validation, with the instruction difficulty as a covariate."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import expit, log_expit

__all__ = ["alpaca_eval_glm_win_rate"]

_CS = np.logspace(-4, 4, 10)
_EPS = 1e-15


@dataclass(frozen=True)
class AlpacaEvalGLMWinRate:
    """AlpacaEval's length-controlled win rate and the fit behind it."""

    estimate: float
    """Mean over the instructions of the predicted preference at zero length difference."""
    standard_error: float
    """AlpacaEval's ``lc_standard_error``: the standard error of the mean of those predictions
    (it leaves out the uncertainty of the coefficients)."""
    win_rate: float
    """The raw mean preference."""
    coefficients: dict[str, float]
    """``length`` (on tanh of the standardised baseline-minus-arm length difference, AlpacaEval's
    sign), ``difficulty`` and ``model`` (the constant)."""
    penalty_c: float
    """The inverse L1 strength chosen by cross-validation."""
    n: int


def _fit_l1(X: npt.NDArray[np.float64], y: npt.NDArray[np.float64], C: float
            ) -> npt.NDArray[np.float64]:
    """argmin_b ||b||_1 - C sum_i [y_i log s(x_i b) + (1 - y_i) log(1 - s(x_i b))]."""
    k = X.shape[1]

    def objective(v: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        b = v[:k] - v[k:]
        eta = X @ b
        loglik = float(np.sum(y * log_expit(eta) + (1.0 - y) * log_expit(-eta)))
        grad_b = -C * (X.T @ (y - expit(eta)))
        return float(v.sum()) - C * loglik, np.concatenate([1.0 + grad_b, 1.0 - grad_b])

    res = minimize(objective, np.zeros(2 * k), jac=True, method="L-BFGS-B",
                   bounds=[(0.0, None)] * (2 * k),
                   options={"maxiter": 10_000, "ftol": 1e-15, "gtol": 1e-10})
    return np.asarray(res.x[:k] - res.x[k:], dtype=np.float64)


def _log_loss(y: npt.NDArray[np.float64], p: npt.NDArray[np.float64]) -> float:
    p = np.clip(p, _EPS, 1.0 - _EPS)
    return float(-np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p)))


def alpaca_eval_glm_win_rate(preference: ArrayLike, length_arm: ArrayLike,
                             length_baseline: ArrayLike, difficulty: ArrayLike, *,
                             n_splits: int = 5) -> AlpacaEvalGLMWinRate:
    r"""The length-controlled win rate as AlpacaEval's ``glm_winrate`` fits it.

    Parameters
    ----------
    preference : array_like, shape (n,)
        Per instruction, the preference of the arm in [0, 1] (AlpacaEval's preference - 1).
    length_arm, length_baseline : array_like, shape (n,)
        The answers' lengths in characters.
    difficulty : array_like, shape (n,)
        AlpacaEval's ``instruction_difficulty`` of each instruction.
    n_splits : int, default 5
        Folds of the cross-validation.

    Returns
    -------
    AlpacaEvalGLMWinRate

    Notes
    -----
    The model of ``length_controlled_v1`` without its gamed-baseline rows (AlpacaEval's
    ``length_controlled_noreg``):
    :math:`\operatorname{logit} P = \theta + \phi \tanh(\Delta_i / \operatorname{sd}(\Delta))
    + \psi d_i` with :math:`\Delta_i = \ell_{\text{base},i} - \ell_{\text{arm},i}`, fitted as a
    fractional logit with an L1 penalty on every coefficient (constant included):
    minimise :math:`\lVert\beta\rVert_1 - C \sum_i \ell_i(\beta)`. :math:`C` is the best of
    ``logspace(-4, 4, 10)`` by the summed held-out cross-entropy over ``n_splits`` folds of
    instructions, formed as scikit-learn's ``GroupKFold`` forms them for groups of equal size
    (instruction ``g`` of ``n`` in fold ``(n - 1 - g) mod n_splits``); the fit is then redone on
    every instruction with that :math:`C`. The result is the mean of the predictions at
    :math:`\Delta = 0`. AlpacaEval solves each fit with liblinear (tolerance 1e-4); this
    function solves the same convex problem to a tighter tolerance with L-BFGS-B on the split
    :math:`\beta = \beta^+ - \beta^-`, so the two agree to the solver's tolerance.

    References
    ----------
    .. [1] Y. Dubois, B. Galambosi, P. Liang and T. B. Hashimoto, "Length-controlled
       AlpacaEval: a simple way to debias automatic evaluators", COLM 2024, arXiv:2404.04475;
       code: ``alpaca_eval/metrics/glm_winrate.py`` (``get_length_controlled_winrate``).

    Examples
    --------
    >>> res = alpaca_eval_glm_win_rate([1, 0, 1, 1, 0.5, 0, 1, 0, 1, 0.5],
    ...                                [10, 12, 30, 25, 10, 5, 40, 8, 22, 10],
    ...                                [10] * 10, [0, 1, -1, 0, 1, 2, -2, 1, 0, 0])
    >>> 0.0 < res.estimate < 1.0, res.n
    (True, 10)
    """
    y = np.asarray(preference, dtype=np.float64)
    la = np.asarray(length_arm, dtype=np.float64)
    lb = np.asarray(length_baseline, dtype=np.float64)
    d = np.asarray(difficulty, dtype=np.float64)
    if y.ndim != 1 or y.size < 2 * n_splits:
        raise ValueError(f"preference must be a 1-D array of at least {2 * n_splits} rows")
    for name, arr in (("length_arm", la), ("length_baseline", lb), ("difficulty", d)):
        if arr.shape != y.shape or not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must hold one finite number per preference")
    if not np.all(np.isfinite(y)) or np.any((y < 0) | (y > 1)):
        raise ValueError("preference must lie in [0, 1]")
    delta = lb - la
    sd = float(np.std(delta, ddof=1))
    x_len = np.tanh(delta / sd) if sd > 0 else np.zeros_like(delta)
    X = np.column_stack([x_len, d, np.ones_like(y)])
    X_test = np.column_stack([np.zeros_like(y), d, np.ones_like(y)])
    n = y.size
    fold = (n - 1 - np.arange(n)) % n_splits
    scores = np.zeros(_CS.size)
    for f in range(n_splits):
        train, test = fold != f, fold == f
        for j, C in enumerate(_CS):
            b = _fit_l1(X[train], y[train], float(C))
            scores[j] -= _log_loss(y[test], expit(X[test] @ b))
    best = float(_CS[int(np.argmax(scores))])
    beta = _fit_l1(X, y, best)
    predicted = expit(X_test @ beta)
    return AlpacaEvalGLMWinRate(
        float(predicted.mean()), float(predicted.std(ddof=1) / np.sqrt(n)), float(y.mean()),
        {"length": float(beta[0]), "difficulty": float(beta[1]), "model": float(beta[2])},
        best, int(n))
