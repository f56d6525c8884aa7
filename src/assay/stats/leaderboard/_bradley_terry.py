"""Bradley-Terry ratings of pairwise battles on the Elo scale (Chatbot Arena's method).

The fit, and a cluster bootstrap of it giving rating intervals and rank intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from assay.stats._validate import _check_conf, _check_int, _check_rng
from assay.stats.intervals._resampling import cluster_bootstrap_weights

__all__ = ["bradley_terry", "bradley_terry_bootstrap"]

_MAX_ITER = 100
_TOL = 1e-10


@dataclass(frozen=True)
class BradleyTerryFit:
    """Bradley-Terry ratings of arms on the Elo scale."""

    ratings: npt.NDArray[np.float64]
    """R_k per arm (index k of the arms); NaN for an arm in no battle."""
    scale: float
    """Elo points per factor 10 of odds (400: an arm rated 400 above wins with odds 10:1)."""
    converged: bool
    """The MLE exists (the graph of wins is strongly connected) and Newton's method met the
    tolerance; False when the data separate the arms (an arm that never loses, or a group
    that never loses to the rest, has no finite MLE: its rating grows without bound)."""
    n_iterations: int
    """Newton steps taken."""
    n_battles: float
    """Sum of the battle weights."""


@dataclass(frozen=True)
class BradleyTerryIntervals:
    """Ratings with cluster-bootstrap percentile intervals, and rank intervals."""

    fit: BradleyTerryFit
    """The fit on the full data."""
    lower: npt.NDArray[np.float64]
    """Percentile lower bound of each rating."""
    upper: npt.NDArray[np.float64]
    """Percentile upper bound of each rating."""
    rank: npt.NDArray[np.int64]
    """Rank of each arm by its rating (1 the best; ties share the best rank)."""
    rank_lower: npt.NDArray[np.int64]
    """Best rank of the arm's bootstrap rank interval (percentile, rounded outwards)."""
    rank_upper: npt.NDArray[np.int64]
    """Worst rank of the arm's bootstrap rank interval."""
    conf: float
    """Level of the intervals (each on its own: not simultaneous over the arms)."""
    n_resamples: int
    """B, the bootstrap resamples."""
    n_clusters: int
    """C, the clusters resampled."""
    n_failed: int
    """Resamples whose fit did not converge (separated data); they are kept, their ratings
    large but finite after the iteration cap, so that leaving them out cannot narrow the
    interval."""


def _check_battles(arm_a: Any, arm_b: Any, outcome: Any, n_arms: int,
                   weight: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64],
                                         npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    a = np.asarray(arm_a)
    b = np.asarray(arm_b)
    y = np.asarray(outcome, dtype=np.float64)
    if a.ndim != 1 or b.shape != a.shape or y.shape != a.shape:
        raise ValueError("arm_a, arm_b and outcome must be 1-D arrays of one length, got shapes "
                         f"{a.shape}, {b.shape} and {y.shape}")
    if a.size == 0:
        raise ValueError("arm_a must hold at least one battle")
    for name, idx in (("arm_a", a), ("arm_b", b)):
        if not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0 or idx.max() >= n_arms:
            raise ValueError(f"{name} must hold arm indices in [0, {n_arms})")
    if np.any(a == b):
        raise ValueError("arm_a and arm_b must differ in every battle (an arm does not play "
                         "itself)")
    if not np.all(np.isfinite(y)) or np.any((y < 0) | (y > 1)):
        raise ValueError("outcome must lie in [0, 1] (1 a wins, 0.5 tie, 0 b wins)")
    w = np.ones_like(y) if weight is None else np.asarray(weight, dtype=np.float64)
    if w.shape != y.shape or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weight must be a 1-D array of finite non-negative numbers, one per "
                         "battle")
    return a.astype(np.int64), b.astype(np.int64), y, w


def _win_matrix(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], y: npt.NDArray[np.float64],
                w: npt.NDArray[np.float64], n_arms: int) -> npt.NDArray[np.float64]:
    """W[i, j]: the weighted wins of i over j, a tie half a win each way."""
    wins = np.zeros((n_arms, n_arms))
    np.add.at(wins, (a, b), w * y)
    np.add.at(wins, (b, a), w * (1.0 - y))
    return wins


def _fit_wins(wins: npt.NDArray[np.float64], scale: float,
              base: float) -> tuple[npt.NDArray[np.float64], bool, int]:
    """Maximise the Bradley-Terry likelihood of a win matrix by Newton's method."""
    n_arms = wins.shape[0]
    games = wins + wins.T
    played = games.sum(axis=1) > 0
    idx = np.flatnonzero(played)
    ratings = np.full(n_arms, np.nan)
    if idx.size < 2:
        ratings[idx] = base
        return ratings, True, 0
    W = wins[np.ix_(idx, idx)]
    G = games[np.ix_(idx, idx)]
    k = idx.size
    beta = np.zeros(k)
    converged = False
    it = 0
    for it in range(1, _MAX_ITER + 1):  # noqa: B007  (the count is returned)
        diff = beta[:, None] - beta[None, :]
        p = expit(diff)
        grad = (W - G * p).sum(axis=1)
        h = G * p * (1.0 - p)
        hess = np.diag(h.sum(axis=1)) - h
        # Sum-to-zero constraint: the Hessian is singular along the ones vector.
        step = np.linalg.lstsq(hess + np.ones((k, k)) / k, grad, rcond=None)[0]
        beta = beta + step
        beta -= beta.mean()
        if np.max(np.abs(step)) < _TOL:
            converged = True
            break
    ratings[idx] = base + scale / math.log(10.0) * beta
    # The MLE is finite only when every arm beats, and is beaten by, a path of others: the
    # graph of wins (i -> j when i won against j) is strongly connected (Ford 1957).
    n_strong, _ = connected_components(W > 0, directed=True, connection="strong")
    return ratings, converged and n_strong == 1, it


def bradley_terry(arm_a: ArrayLike, arm_b: ArrayLike, outcome: ArrayLike, *, n_arms: int,
                  weight: ArrayLike | None = None, scale: float = 400.0, base: float = 1000.0,
                  anchor: tuple[int, float] | None = None) -> BradleyTerryFit:
    r"""Bradley-Terry maximum-likelihood ratings on the Elo scale, as Chatbot Arena fits them.

    Parameters
    ----------
    arm_a, arm_b : array_like of int, shape (n,)
        The two arms of each battle (indices in [0, n_arms)); the order carries no meaning.
    outcome : array_like of float, shape (n,)
        The result for ``arm_a``: 1 a win, 0.5 a tie, 0 a loss (a graded preference in [0, 1]
        counts as that fraction of a win).
    n_arms : int
        The number of arms; an arm in no battle gets a NaN rating.
    weight : array_like of float, optional
        A weight per battle (default 1 each).
    scale, base : float
        Elo points per factor 10 of odds (400), and the mean rating (1000).
    anchor : (int, float), optional
        Shift the ratings so that arm ``anchor[0]`` is rated ``anchor[1]`` (Arena pins
        ``mixtral-8x7b-instruct-v0.1`` at 1114); default: the ratings average ``base``.

    Returns
    -------
    BradleyTerryFit

    Notes
    -----
    The model: :math:`P(i \text{ beats } j) = 1 / (1 + 10^{-(R_i - R_j)/s})`, with
    :math:`R_i = b + s\,\beta_i/\ln 10`, so that the log odds are :math:`\beta_i - \beta_j`.
    Arena fits it as a logistic regression without intercept on the battles, each battle
    entered in both orders (position-symmetrised): with :math:`W_{ij}` the wins of i over j,
    a tie counting half a win each way (Arena doubles the wins and counts each tie once each
    way, the same likelihood up to a factor 2), the log likelihood is

    .. math:: \ell(\beta) = \sum_{i \ne j} W_{ij} \log \sigma(\beta_i - \beta_j).

    It is maximised here by Newton's method under :math:`\sum_i \beta_i = 0` (the scale of
    the ratings is identified only up to a shift, which Arena's unpenalised lbfgs fit started
    at zero also resolves to the zero-sum solution, so the ratings average ``base``). The
    MLE exists when the comparison graph is strongly connected in wins (Zermelo, Ford): an
    arm that never loses has no finite rating, and ``converged`` is False.

    References
    ----------
    .. [1] R. A. Bradley and M. E. Terry, "Rank analysis of incomplete block designs: I. The
       method of paired comparisons", Biometrika 39 (1952) 324-345.
    .. [2] W.-L. Chiang et al., "Chatbot Arena: an open platform for evaluating LLMs by human
       preference", ICML 2024 (``compute_mle_elo`` of the FastChat arena notebooks).
    .. [3] L. R. Ford, "Solution of a ranking problem from binary comparisons", Amer. Math.
       Monthly 64 (1957) 28-33.

    Examples
    --------
    Arm 0 beats arm 1 three times out of four: the rating gap is 400 log10(3).

    >>> fit = bradley_terry([0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 0], n_arms=2)
    >>> round(float(fit.ratings[0] - fit.ratings[1]), 4), round(float(fit.ratings.mean()), 6)
    (190.8485, 1000.0)
    """
    n_arms = _check_int(n_arms, "n_arms", minimum=2)
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a positive number, got {scale!r}")
    a, b, y, w = _check_battles(arm_a, arm_b, outcome, n_arms, weight)
    wins = _win_matrix(a, b, y, w, n_arms)
    ratings, converged, it = _fit_wins(wins, float(scale), float(base))
    ratings = _anchored(ratings, anchor, n_arms)
    return BradleyTerryFit(ratings, float(scale), converged, it, float(w.sum()))


def _anchored(ratings: npt.NDArray[np.float64], anchor: tuple[int, float] | None,
              n_arms: int) -> npt.NDArray[np.float64]:
    if anchor is None:
        return ratings
    arm, value = anchor
    if not (0 <= int(arm) < n_arms) or not math.isfinite(ratings[int(arm)]):
        raise ValueError(f"anchor arm {arm!r} must be an arm with battles")
    return ratings + (float(value) - ratings[int(arm)])


def _ranks(ratings: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """1 + the number of arms rated strictly higher (NaN ratings rank last)."""
    r = np.where(np.isfinite(ratings), ratings, -np.inf)
    return (1 + (r[None, :] > r[:, None]).sum(axis=1)).astype(np.int64)


def bradley_terry_bootstrap(arm_a: ArrayLike, arm_b: ArrayLike, outcome: ArrayLike,
                            cluster: ArrayLike, *, n_arms: int, weight: ArrayLike | None = None,
                            scale: float = 400.0, base: float = 1000.0,
                            anchor: tuple[int, float] | None = None, conf: float = 0.95,
                            n_resamples: int = 1000,
                            rng: np.random.Generator | int | None) -> BradleyTerryIntervals:
    r"""Bradley-Terry ratings with cluster-bootstrap rating intervals and rank intervals.

    Parameters
    ----------
    arm_a, arm_b, outcome, n_arms, weight, scale, base, anchor
        As :func:`bradley_terry`.
    cluster : array_like, shape (n,)
        The sampling unit of each battle (the question): resamples draw whole clusters.
    conf : float
        Level of each interval.
    n_resamples : int
        B.
    rng : numpy.random.Generator, int or None
        Source of the draws (required).

    Returns
    -------
    BradleyTerryIntervals

    Notes
    -----
    Each resample draws C clusters with replacement (a question's battles, in both orders
    and all runs, enter together) and refits; a battle of a cluster drawn w times gets weight
    w. The rating interval is the percentile interval of the B refits. Chatbot Arena
    resamples battles one by one, which is right when every battle is a new prompt; here a
    question judged several times (several runs, arms or positions) is one draw, so
    correlated battles do not narrow the interval. The rank interval is the
    (1-conf)/2 and (1+conf)/2 quantiles of the arm's rank in the resamples, rounded outwards
    (rank 1 the best; an arm rated strictly higher moves the rank down by one) [1]_.

    References
    ----------
    .. [1] W.-L. Chiang et al., "Chatbot Arena", ICML 2024, Section 5 (bootstrap intervals).
    .. [2] A. C. Davison and D. V. Hinkley, *Bootstrap Methods and their Application*,
       Cambridge University Press, 1997, Section 3.8 (resampling clusters).

    Examples
    --------
    >>> res = bradley_terry_bootstrap([0, 1, 0, 1], [1, 2, 2, 0], [1, 1, 0.5, 0],
    ...                               ["q1", "q1", "q2", "q2"], n_arms=3, n_resamples=50, rng=1)
    >>> [int(r) for r in res.rank]
    [1, 2, 3]
    """
    conf = _check_conf(conf)
    n_arms = _check_int(n_arms, "n_arms", minimum=2)
    n_resamples = _check_int(n_resamples, "n_resamples", minimum=2)
    a, b, y, w = _check_battles(arm_a, arm_b, outcome, n_arms, weight)
    clusters = np.asarray(cluster)
    if clusters.shape != y.shape:
        raise ValueError(f"cluster must have one entry per battle, got {clusters.shape}")
    labels, codes = np.unique(clusters, return_inverse=True)
    n_clusters = labels.size
    if n_clusters < 2:
        raise ValueError("cluster must hold at least 2 distinct clusters to resample")
    fit = bradley_terry(a, b, y, n_arms=n_arms, weight=w, scale=scale, base=base, anchor=anchor)
    counts = cluster_bootstrap_weights(n_clusters, n_resamples, rng=_check_rng(rng))
    boot = np.empty((n_resamples, n_arms))
    failed = 0
    for r in range(n_resamples):
        wins = _win_matrix(a, b, y, w * counts[r, codes], n_arms)
        ratings, converged, _ = _fit_wins(wins, float(scale), float(base))
        if anchor is not None and math.isfinite(ratings[int(anchor[0])]):
            ratings = ratings + (float(anchor[1]) - ratings[int(anchor[0])])
        boot[r] = ratings
        failed += not converged
    tail = (1.0 - conf) / 2.0
    lower = np.nanquantile(boot, tail, axis=0)
    upper = np.nanquantile(boot, 1.0 - tail, axis=0)
    ranks = np.array([_ranks(row) for row in boot])
    rank_lower = np.floor(np.quantile(ranks, tail, axis=0)).astype(np.int64)
    rank_upper = np.ceil(np.quantile(ranks, 1.0 - tail, axis=0)).astype(np.int64)
    return BradleyTerryIntervals(fit, lower, upper, _ranks(fit.ratings), rank_lower, rank_upper,
                                 conf, n_resamples, n_clusters, failed)
