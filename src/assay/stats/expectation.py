"""The expected score under a judge's token probabilities (G-Eval's scoring function)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from assay.stats._validate import _check_1d

__all__ = ["score_expectation"]


@dataclass(frozen=True)
class ScoreExpectation:
    """The probability-weighted score and what it rests on."""

    estimate: float
    """sum_s s p(s) over the valid scores, p renormalised; NaN when none has probability."""
    mass: float
    """Probability the valid score tokens had before renormalising (in [0, 1] for a table
    of one token position): how much of the judge's belief the estimate rests on."""
    n: int
    """Valid scores with a probability (a finite log probability)."""


def score_expectation(scores: ArrayLike, logprobs: ArrayLike) -> ScoreExpectation:
    r"""G-Eval's score: the expectation of the score under the judge's token probabilities.

    Parameters
    ----------
    scores : array_like, shape (k,)
        The valid scores (e.g. 1..5), finite, one per score token.
    logprobs : array_like, shape (k,)
        Natural-log probability of each score's token at the score's position; ``-inf``
        for a score absent from the returned table.

    Returns
    -------
    ScoreExpectation
        ``estimate``, ``mass``, ``n``. ``estimate`` is NaN when no score has a probability.

    Raises
    ------
    ValueError
        When the arrays differ in length, are empty, a score is not finite, or a log
        probability is NaN or positive.

    Notes
    -----
    With p_s = exp(logprob_s) and P = sum_s p_s,

    .. math:: \text{score} = \sum_s s \, p_s / P,

    the renormalisation over the valid score tokens that Liu et al. [1]_ apply (tokens
    that are not a score, such as a space or a word, do not enter). Computed from the
    log probabilities shifted by their maximum, so tiny probabilities do not underflow.

    References
    ----------
    .. [1] Y. Liu, D. Iter, Y. Xu, S. Wang, R. Xu and C. Zhu (2023). G-Eval: NLG
       evaluation using GPT-4 with better human alignment. EMNLP 2023, eq. 1.

    Examples
    --------
    >>> import math
    >>> r = score_expectation([1, 2, 3], [math.log(0.2), math.log(0.3), math.log(0.3)])
    >>> round(r.estimate, 6), round(r.mass, 6), r.n
    (2.125, 0.8, 3)
    """
    s = _check_1d(scores, "scores")
    try:
        lp = np.asarray(logprobs, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("logprobs must be a 1-D array of numbers") from None
    if lp.ndim != 1 or lp.size != s.size:
        raise ValueError(f"logprobs must be 1-D with one value per score ({s.size}), got shape {lp.shape}")
    if np.any(np.isnan(lp)) or np.any(lp > 0.0):
        raise ValueError("logprobs must be log probabilities: <= 0, -inf for an absent score, no NaN")
    present = np.isfinite(lp)
    if not present.any():
        return ScoreExpectation(math.nan, 0.0, 0)
    top = float(lp[present].max())
    weights = np.exp(lp[present] - top)
    estimate = float(np.dot(s[present], weights) / weights.sum())
    return ScoreExpectation(estimate, float(math.exp(top) * weights.sum()), int(present.sum()))
