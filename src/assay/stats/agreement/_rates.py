"""Agreement between judges: kappas, Krippendorff's alpha, rank correlations, exact agreement
and the positional flip rate of counterbalanced pairwise judgments (CoEval's metrics).

Ratings come as a units x raters array with NaN for a rating not given; every function
says which units it uses. Statistics that are 0 / 0 on the data (constant raters, a single
category) are NaN and carry a code in ``undefined`` saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike
from scipy.stats import rankdata

from assay.stats.agreement._kappa import KappaResult as KappaResult  # result types, re-exported
from assay.stats.agreement._kappa import KappaWeights as KappaWeights
from assay.stats.agreement._kappa import Undefined, _pair, cohen_kappa, fleiss_kappa
from assay.stats.agreement._krippendorff import AlphaLevel as AlphaLevel
from assay.stats.agreement._krippendorff import AlphaResult as AlphaResult
from assay.stats.agreement._krippendorff import _check_ratings, krippendorff_alpha

__all__ = [
    "agreement_rate",
    "cohen_kappa",
    "fleiss_kappa",
    "kendall_tau_b_matrix",
    "krippendorff_alpha",
    "position_flip_rate",
    "spearman_matrix",
]

_TABLE_CELLS = 1 << 22  # Kendall's S from the joint table of distinct values up to this size
_BLOCK_ROWS = 512  # otherwise from sign products, this many rows at a time


@dataclass(frozen=True, eq=False)
class CorrelationMatrix:
    """A rater-by-rater matrix of a correlation, each entry over the units both rated."""

    estimate: npt.NDArray[np.float64]
    """Shape (m, m), symmetric. NaN where two raters share fewer than 2 units or one of them
    gave a single value on the shared units (a constant rater: 0 / 0). The diagonal is 1
    for a rater with at least two distinct values, else NaN."""
    n: npt.NDArray[np.int64]
    """Shape (m, m): units rated by both (pairwise-complete); the diagonal counts each
    rater's ratings."""
    method: str
    """``"spearman"`` or ``"kendall_tau_b"``."""


@dataclass(frozen=True)
class AgreementRate:
    """Share of units on which two raters gave exactly the same score."""

    estimate: float
    """n_agree / n; NaN when ``n`` is 0."""
    n: int
    """Units both raters scored."""
    n_agree: int
    """Units with identical scores."""
    undefined: Undefined | None = None
    """``"no_units"`` when the raters share no unit, else None."""


@dataclass(frozen=True)
class FlipRateResult:
    """Positional flip rate of counterbalanced pairwise judgments, before and after
    swap-and-average."""

    estimate: float
    """PFR: share of trial pairs whose verdict changes when the order is swapped."""
    n: int
    """Trial pairs (a comparison judged once in each order)."""
    n_flips: int
    """Trial pairs whose verdict changed (win/tie/loss for the arm)."""
    reversal_rate: float
    """Share of trial pairs whose verdict reversed outright (win <-> loss, ties aside)."""
    first_shown_preference: float
    """Among trials with a winner, the share won by the answer shown first (0.5 = no
    position preference); NaN when every trial was a tie."""
    n_decisive: int
    """Trials with a winner (out of 2 n)."""
    after_swap_average: float
    """PFR after swap-and-average: share of pairs of trial pairs of one comparison whose
    averaged verdicts differ; NaN (``after_undefined``) without repeated trial pairs."""
    n_after: int
    """Pairs of trial pairs behind ``after_swap_average``."""
    n_comparisons: int
    """Distinct comparisons (as labelled by ``comparison``)."""
    method: str = "position_flip_rate"
    """Always ``"position_flip_rate"``."""
    undefined: Undefined | None = None
    """``"no_units"`` when there is no trial pair, else None."""
    after_undefined: Literal["no_repeated_trial_pairs"] | None = None
    """``"no_repeated_trial_pairs"`` when no comparison has two trial pairs, else None."""


# ----- rank correlations -------------------------------------------------------------------


def _pairwise(
    ratings: ArrayLike, statistic: str
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    x = _check_ratings(ratings)
    m = x.shape[1]
    present = ~np.isnan(x)
    estimate = np.full((m, m), np.nan)
    n = np.zeros((m, m), dtype=np.int64)
    for a in range(m):
        n[a, a] = int(present[:, a].sum())
        if np.unique(x[present[:, a], a]).size >= 2:
            estimate[a, a] = 1.0
        for b in range(a + 1, m):
            both = present[:, a] & present[:, b]
            n[a, b] = n[b, a] = int(both.sum())
            xa, xb = x[both, a], x[both, b]
            value = _spearman(xa, xb) if statistic == "spearman" else _kendall_tau_b(xa, xb)
            estimate[a, b] = estimate[b, a] = value
    return estimate, n


def _spearman(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    if a.size < 2:
        return float("nan")
    ra = rankdata(a) - (a.size + 1) / 2.0
    rb = rankdata(b) - (b.size + 1) / 2.0
    denominator = float(np.sqrt(np.dot(ra, ra) * np.dot(rb, rb)))
    if not denominator > 0:
        return float("nan")
    return float(np.clip(np.dot(ra, rb) / denominator, -1.0, 1.0))


def _tie_pairs(values: npt.NDArray[np.float64]) -> float:
    _, counts = np.unique(values, return_counts=True)
    return float(np.sum(counts * (counts - 1.0)) / 2.0)


def _kendall_s(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    """S = concordant minus discordant pairs (pairs tied in either variable count for neither)."""
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    if ua.size * ub.size <= _TABLE_CELLS:
        table = np.zeros((ua.size, ub.size), dtype=np.int64)
        np.add.at(table, (ia, ib), 1)
        # above[i, j]: pairs in rows > i and columns > j; below_left: rows > i, columns < j.
        suffix = np.cumsum(np.cumsum(table[::-1, ::-1], axis=0), axis=1)[::-1, ::-1]
        above = np.zeros_like(table)
        above[:-1, :-1] = suffix[1:, 1:]
        rows_below = np.cumsum(table[::-1], axis=0)[::-1]
        prefix_cols = np.cumsum(rows_below, axis=1)
        below_left = np.zeros_like(table)
        below_left[:-1, 1:] = prefix_cols[1:, :-1]
        return float(np.sum(table * above) - np.sum(table * below_left))
    total = 0.0
    for start in range(0, a.size, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, a.size)
        da = np.sign(a[start:stop, None] - a[None, :])
        db = np.sign(b[start:stop, None] - b[None, :])
        total += float(np.sum(da * db))
    return total / 2.0


def _kendall_tau_b(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64]) -> float:
    if a.size < 2:
        return float("nan")
    pairs = a.size * (a.size - 1.0) / 2.0
    denominator = (pairs - _tie_pairs(a)) * (pairs - _tie_pairs(b))
    if not denominator > 0:
        return float("nan")
    return float(np.clip(_kendall_s(a, b) / np.sqrt(denominator), -1.0, 1.0))


def spearman_matrix(ratings: ArrayLike) -> CorrelationMatrix:
    r"""Spearman's rank correlation between every two raters, over the units both rated.

    Parameters
    ----------
    ratings : array_like, shape (U, m)
        Units in rows, raters in columns; NaN marks a rating not given.

    Returns
    -------
    CorrelationMatrix
        ``estimate[a, b]`` rho of raters a and b on the units both rated, ``n[a, b]`` that
        number. NaN for fewer than 2 shared units or a rater constant on them.

    Raises
    ------
    ValueError
        `ratings` not 2-D, or inf values.

    Notes
    -----
    rho is Pearson's correlation of the mid-ranks (ties get the mean of the ranks they
    span), re-ranked within each pair's shared units:

    .. math:: \rho_{ab} = \frac{\sum_u (r_{ua} - \bar r)(r_{ub} - \bar r)}
              {\sqrt{\sum_u (r_{ua} - \bar r)^2 \sum_u (r_{ub} - \bar r)^2}}

    [1]_. It measures monotone agreement only: a judge who is uniformly 10 points harsher has
    rho = 1 with a lenient one (absolute agreement is ICC(2,1)'s job). Validated against
    ``scipy.stats.spearmanr`` (tests/agreement/).

    References
    ----------
    .. [1] Spearman, C. (1904). The proof and measurement of association between two things.
           American Journal of Psychology 15(1), 72-101.

    Examples
    --------
    Ranks of the first rater 1, 2, 3, 4; of the second 1, 3, 2, 4: sum of squared rank
    differences 2, rho = 1 - 6 * 2 / (4 * 15) = 0.8. The third rater misses unit 4 and ranks
    the others 3, 2, 1 against 1, 2, 3 for the first: rho = -1 on those 3 units.

    >>> res = spearman_matrix([[1, 10, 9], [2, 30, 8], [3, 20, 7], [4, 40, float("nan")]])
    >>> res.estimate.round(12).tolist()[0], res.n.tolist()[0]
    ([1.0, 0.8, -1.0], [4, 4, 3])
    """
    estimate, n = _pairwise(ratings, "spearman")
    return CorrelationMatrix(estimate, n, "spearman")


def kendall_tau_b_matrix(ratings: ArrayLike) -> CorrelationMatrix:
    r"""Kendall's tau-b between every two raters, over the units both rated.

    Parameters
    ----------
    ratings : array_like, shape (U, m)
        Units in rows, raters in columns; NaN marks a rating not given.

    Returns
    -------
    CorrelationMatrix
        ``estimate[a, b]`` tau-b of raters a and b on the units both rated, ``n[a, b]`` that
        number. NaN for fewer than 2 shared units or a rater constant on them.

    Raises
    ------
    ValueError
        `ratings` not 2-D, or inf values.

    Notes
    -----
    With n_0 = n(n - 1)/2 pairs of units, C and D the concordant and discordant pairs, and
    n_1 = sum_i t_i (t_i - 1)/2, n_2 = sum_j u_j (u_j - 1)/2 over the groups of tied values
    of each rater,

    .. math:: \tau_b = \frac{C - D}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    [1]_. tau-b corrects for ties, which judges' coarse scales produce in abundance. C - D
    comes from the joint table of distinct values (2-D cumulative sums), or from sign
    products in blocks when that table would be large. Validated against
    ``scipy.stats.kendalltau`` (variant "b") (tests/agreement/).

    References
    ----------
    .. [1] Kendall, M. G. (1945). The treatment of ties in ranking problems. Biometrika
           33(3), 239-251.

    Examples
    --------
    Scores (1, 2, 2, 3) and (1, 3, 2, 3): of the 6 pairs, 4 are concordant, none discordant,
    one tied in the first only and one in the second only; n_1 = n_2 = 1, so
    tau_b = 4 / sqrt(5 * 5) = 0.8:

    >>> res = kendall_tau_b_matrix([[1, 1], [2, 3], [2, 2], [3, 3]])
    >>> round(float(res.estimate[0, 1]), 12)
    0.8
    """
    estimate, n = _pairwise(ratings, "kendall")
    return CorrelationMatrix(estimate, n, "kendall_tau_b")


# ----- exact agreement ---------------------------------------------------------------------


def agreement_rate(a: ArrayLike, b: ArrayLike) -> AgreementRate:
    r"""Exact agreement rate of two raters (CoEval's ACR, agreement consistency rate).

    Parameters
    ----------
    a, b : array_like, shape (n,)
        The two raters' scores of the same units; NaN marks a missing score, and a unit
        missing either is left out.

    Returns
    -------
    AgreementRate
        ``estimate`` the share of shared units with identical scores, ``n``, ``n_agree``;
        NaN with ``undefined = "no_units"`` when no unit has both scores.

    Raises
    ------
    ValueError
        Inputs of different lengths or not 1-D, or inf values.

    Notes
    -----
    .. math:: \mathrm{ACR} = \frac{1}{n} \sum_u [a_u = b_u]

    Scores are compared exactly, so the statistic suits categorical and coarse scales
    (ordinal levels, pass/fail, 1/0.5/0 verdicts); on a fine numeric scale it is near 0 by
    construction. It is not corrected for chance: two raters who both say "High" 90% of
    the time agree 82% of the time by chance alone, which is what Cohen's kappa removes.
    The mean of this rate over all pairs of raters of a unit set is Fleiss' P-bar when
    every rater rated every unit. Checked against a direct loop (tests/agreement/).

    References
    ----------
    .. [1] CoEval, "Key Metrics": Agreement Consistency Rate (ACR), judge-to-judge pairwise
           score agreement rate.

    Examples
    --------
    Three of four shared units agree; the fifth unit misses a score:

    >>> res = agreement_rate([0, 1, 2, 2, 1], [0, 1, 1, 2, float("nan")])
    >>> res.estimate, res.n, res.n_agree
    (0.75, 4, 3)
    """
    x, y = _pair(a, b)
    if x.size == 0:
        return AgreementRate(float("nan"), 0, 0, undefined="no_units")
    agree = int(np.sum(x == y))
    return AgreementRate(agree / x.size, int(x.size), agree)


# ----- positional flip rate ----------------------------------------------------------------


def position_flip_rate(
    first: ArrayLike, second: ArrayLike, *, comparison: ArrayLike | None = None
) -> FlipRateResult:
    r"""Positional flip rate (PFR) of counterbalanced pairwise judgments.

    Parameters
    ----------
    first : array_like, shape (n,)
        For each trial pair, the score of the arm when it was shown first (position 1), on
        [0, 1]: 1 the arm preferred, 0 the opponent preferred, 0.5 a tie (a graded
        preference is read by its side of 0.5).
    second : array_like, shape (n,)
        The score of the same arm, against the same opponent, when it was shown second
        (position 2) in the same trial pair.
    comparison : array_like, shape (n,), optional
        A label of the comparison (item, arm, opponent) each trial pair belongs to. Needed
        for the rate after swap-and-average, which compares the trial pairs of one
        comparison; default: every trial pair its own comparison.

    Returns
    -------
    FlipRateResult
        ``estimate`` the PFR, ``reversal_rate``, ``first_shown_preference``,
        ``after_swap_average`` and their counts. NaN with ``undefined = "no_units"`` for no
        trial pairs; ``after_swap_average`` NaN with ``after_undefined =
        "no_repeated_trial_pairs"`` when no comparison was judged in two trial pairs.

    Raises
    ------
    ValueError
        Inputs not 1-D or of different lengths, or scores outside [0, 1] or NaN.

    Notes
    -----
    The verdict of a trial is v = sign(s - 1/2) (win, tie, loss for the arm). For n trial
    pairs (v_1i shown first, v_2i shown second),

    .. math:: \mathrm{PFR} = \frac{1}{n} \sum_i [v_{1i} \ne v_{2i}]

    (CoEval: comparisons where the judge's ranking changes on order swap, over all
    comparisons). A change between a win and a tie counts; ``reversal_rate`` counts only
    win <-> loss. Swap-and-average scores a trial pair by a_i = (s_1i + s_2i) / 2, whose
    verdict no longer depends on the order within the pair, so within a pair it cannot flip.
    The rate after mitigation is therefore measured as BenchmarkQED's "ranking changes on order
    swap" for the averaged procedure: rerunning it (another trial pair, presented in the
    other order first) and comparing verdicts, over all pairs {i, j} of trial pairs of one
    comparison,

    .. math:: \mathrm{PFR}_{\text{after}} = \frac{\sum_c \sum_{i<j \in c}
              [\operatorname{sign}(a_i - \tfrac12) \ne \operatorname{sign}(a_j - \tfrac12)]}
              {\sum_c \binom{n_c}{2}}

    so it needs at least two trial pairs of some comparison (BenchmarkQED's 4 counterbalanced
    trials give two). Both rates include the judge's run-to-run noise; the difference
    between them is what swap-and-average removes. ``first_shown_preference`` is the share
    of decisive trials won by whichever answer was shown first, the direction of the bias.
    Checked by direct enumeration on hand-worked examples (tests/agreement/).

    References
    ----------
    .. [1] Zheng, L. et al. (2023). Judging LLM-as-a-judge with MT-Bench and Chatbot Arena.
           NeurIPS 2023 Datasets and Benchmarks (position consistency under swapped order).
    .. [2] Wang, P. et al. (2024). Large language models are not fair evaluators. ACL 2024
           (balanced position calibration: averaging over both orders).

    Examples
    --------
    Four trial pairs of two comparisons: (win, win) is consistent, (win, loss) reverses,
    (tie, loss) flips without reversing, (loss, loss) is consistent. PFR = 2/4. The
    averages are 1, 0.5, 0.25 and 0: comparison A's two trial pairs give win and tie
    (differ), B's give loss and loss (agree), so PFR after = 1/2. Of the 7 trials with a
    winner, the answer shown first won 5 (all but trial 2 of pair 1 and trial 1 of pair 4):

    >>> res = position_flip_rate([1, 1, 0.5, 0], [1, 0, 0, 0], comparison=["A", "A", "B", "B"])
    >>> res.estimate, res.reversal_rate, res.after_swap_average, res.n_after
    (0.5, 0.25, 0.5, 2)
    >>> res.n_decisive, round(res.first_shown_preference, 12) == round(5 / 7, 12)
    (7, True)
    """
    s1, s2 = _check_scores(first, "first"), _check_scores(second, "second")
    if s1.shape != s2.shape:
        raise ValueError(f"first and second must have the same length, got {s1.size} and {s2.size}")
    labels = np.arange(s1.size) if comparison is None else np.asarray(comparison)
    if labels.shape != s1.shape:
        raise ValueError(f"comparison must have one label per trial pair ({s1.size}), "
                         f"got shape {labels.shape}")
    n = int(s1.size)
    nan = float("nan")
    if n == 0:
        return FlipRateResult(nan, 0, 0, nan, nan, 0, nan, 0, 0, undefined="no_units",
                              after_undefined="no_repeated_trial_pairs")
    v1, v2 = np.sign(s1 - 0.5), np.sign(s2 - 0.5)
    flips = int(np.sum(v1 != v2))
    reversals = int(np.sum(v1 * v2 < 0))
    decisive = int(np.sum(v1 != 0) + np.sum(v2 != 0))
    first_won = int(np.sum(v1 > 0) + np.sum(v2 < 0))
    averaged = np.sign((s1 + s2) / 2.0 - 0.5)
    _, group = np.unique(labels, return_inverse=True)
    group = group.ravel()
    n_groups = int(group.max()) + 1
    pairs_total, pairs_differ = 0, 0
    for verdicts in _split(averaged, group, n_groups):
        size = verdicts.size
        if size < 2:
            continue
        pairs_total += size * (size - 1) // 2
        _, counts = np.unique(verdicts, return_counts=True)
        pairs_differ += size * (size - 1) // 2 - int(np.sum(counts * (counts - 1) // 2))
    after = pairs_differ / pairs_total if pairs_total else nan
    return FlipRateResult(
        estimate=flips / n, n=n, n_flips=flips, reversal_rate=reversals / n,
        first_shown_preference=first_won / decisive if decisive else nan, n_decisive=decisive,
        after_swap_average=after, n_after=pairs_total, n_comparisons=n_groups,
        after_undefined=None if pairs_total else "no_repeated_trial_pairs")


def _split(
    values: npt.NDArray[np.float64], group: npt.NDArray[np.intp], n_groups: int
) -> list[npt.NDArray[np.float64]]:
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(1, n_groups))
    return list(np.split(values[order], bounds))


def _check_scores(values: ArrayLike, name: str) -> npt.NDArray[np.float64]:
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D array of scores in [0, 1]") from None
    if x.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {x.shape}")
    if not np.all(np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
        raise ValueError(f"{name} must hold scores in [0, 1] with no NaN (drop incomplete "
                         "trial pairs first)")
    return x
