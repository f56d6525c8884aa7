"""Sentence BLEU with smoothing, and the mean pairwise BLEU of a set of texts (surface bias).

Pure Python and numpy: tokens (or whitespace-split strings) in, frozen results out. The
scoring follows sacreBLEU's sentence BLEU [1]_ [2]_ (clipped n-gram matches, closest reference
length, effective order, the smoothing methods of Chen and Cherry [3]_), on the [0, 1] scale
rather than sacreBLEU's 0-100.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from assay.stats._validate import _check_int, _check_rng

__all__ = ["bleu_from_counts", "mean_pairwise_bleu", "sentence_bleu"]
"""Public functions; the result classes :class:`BleuResult` and :class:`PairwiseBleuResult`
are public too (exported by ``assay.stats`` beside the other results)."""

Smoothing = Literal["floor", "add-k", "exp", "none"]
"""How a zero n-gram match count is smoothed (sacreBLEU's names)."""

_DEFAULT_SMOOTH_VALUE: dict[str, float] = {"floor": 0.1, "add-k": 1.0}

Tokens = str | Sequence[str]


@dataclass(frozen=True)
class BleuResult:
    """BLEU of one hypothesis against its references, with the statistics behind it."""

    score: float
    """BLEU in [0, 1]: brevity_penalty * exp(mean log precision over the orders used)."""
    precisions: tuple[float, ...]
    """Smoothed modified n-gram precisions p_1..p_N in [0, 1] (0 where an order was not used)."""
    brevity_penalty: float
    """1 if the hypothesis is longer than the reference, else exp(1 - r / c) (0 when c = 0)."""
    hyp_len: int
    """c, number of hypothesis tokens."""
    ref_len: int
    """r, length of the reference closest in length to the hypothesis (the shorter on a tie)."""
    matches: tuple[int, ...]
    """Clipped n-gram matches per order, before smoothing."""
    totals: tuple[int, ...]
    """Hypothesis n-grams per order, before smoothing."""
    order: int
    """Number of orders in the geometric mean (fewer than N under effective order)."""


@dataclass(frozen=True)
class PairwiseBleuResult:
    """Mean sentence BLEU over ordered pairs of distinct texts."""

    estimate: float
    """Mean of BLEU(t_i | t_j) over the ordered pairs (i != j) used; NaN for fewer than 2 texts."""
    n: int
    """Number of texts."""
    n_pairs: int
    """Ordered pairs averaged (both directions of each unordered pair)."""
    n_pairs_total: int
    """Ordered pairs there are: n (n - 1)."""
    method: str
    """``"all_pairs"``, or ``"sampled_pairs"`` when unordered pairs were drawn at random."""
    smooth: str
    """Smoothing method."""
    max_order: int
    """Largest n-gram order."""


def _check_smoothing(smooth: str, smooth_value: float | None) -> float:
    if smooth not in ("floor", "add-k", "exp", "none"):
        raise ValueError(f"smooth must be one of 'floor', 'add-k', 'exp', 'none', got {smooth!r}")
    if smooth_value is None:
        return _DEFAULT_SMOOTH_VALUE.get(smooth, 0.0)
    value = float(smooth_value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"smooth_value must be finite and non-negative, got {smooth_value!r}")
    return value


def bleu_from_counts(
    matches: Sequence[int],
    totals: Sequence[int],
    hyp_len: int,
    ref_len: int,
    *,
    smooth: Smoothing = "floor",
    smooth_value: float | None = None,
    effective_order: bool = True,
) -> BleuResult:
    r"""BLEU from clipped n-gram matches and hypothesis n-gram totals.

    Parameters
    ----------
    matches : sequence of int, length N
        m_n, clipped matches of order n = 1..N.
    totals : sequence of int, length N
        t_n, hypothesis n-grams of order n.
    hyp_len, ref_len : int
        c, hypothesis length, and r, the (closest) reference length, in tokens.
    smooth : {"floor", "add-k", "exp", "none"}, default "floor"
        Smoothing of a zero count (see Notes).
    smooth_value : float, optional
        epsilon of ``floor`` (default 0.1) or k of ``add-k`` (default 1); unused otherwise.
    effective_order : bool, default True
        Average only over the orders n with t_n > 0 (sacreBLEU's sentence-level default),
        so a hypothesis shorter than N tokens is not scored 0 for lacking long n-grams.

    Returns
    -------
    BleuResult

    Raises
    ------
    ValueError
        Lengths of `matches` and `totals` differ or are 0, a count is negative, a match count
        exceeds its total, or an unknown `smooth`.

    Notes
    -----
    With p_n = m_n / t_n, BP = 1 if c > r else exp(1 - r / c) (0 if c = 0), and K the orders
    used,

    .. math:: \mathrm{BLEU} = \mathrm{BP} \cdot \exp\Big(\frac{1}{K} \sum_{n=1}^{K} \log p_n\Big)

    [1]_. BLEU is 0 when no n-gram matches at all (then no smoothing applies). Smoothing of
    a zero m_n, as in sacreBLEU [2]_ after Chen and Cherry [3]_: ``floor`` p_n =
    epsilon / t_n (NLTK's ``method1``); ``exp`` p_n = 1 / (2^k t_n) for the k-th zero order
    (NIST mteval); ``add-k`` adds k to m_n and t_n for n >= 2 (Lin and Och); ``none`` leaves
    p_n = 0, so BLEU is 0. Without effective order, orders beyond the first with t_n = 0
    keep p_n = 0 and BLEU is 0. Validated against sacreBLEU's published test vectors.

    References
    ----------
    .. [1] Papineni, K., Roukos, S., Ward, T. and Zhu, W.-J. (2002). BLEU: a method for
           automatic evaluation of machine translation. ACL 2002, 311-318.
    .. [2] Post, M. (2018). A call for clarity in reporting BLEU scores. WMT 2018, 186-191.
    .. [3] Chen, B. and Cherry, C. (2014). A systematic comparison of smoothing techniques
           for sentence-level BLEU. WMT 2014, 362-367.

    Examples
    --------
    "this is a fest" against "this is a test": p = 3/4, 2/3, 1/2 and 0 -> 0.1/1, so BLEU =
    (0.75 * 0.6667 * 0.5 * 0.1)^(1/4) = 0.025^(1/4).

    >>> res = bleu_from_counts([3, 2, 1, 0], [4, 3, 2, 1], 4, 4)
    >>> round(res.score, 6), round(0.025 ** 0.25, 6)
    (0.397635, 0.397635)
    """
    value = _check_smoothing(smooth, smooth_value)
    m = [_check_int(x, "matches", minimum=0) for x in matches]
    t = [_check_int(x, "totals", minimum=0) for x in totals]
    if not m or len(m) != len(t):
        raise ValueError(f"matches and totals must have one equal, non-zero length, "
                         f"got {len(m)} and {len(t)}")
    if any(a > b for a, b in zip(m, t, strict=True)):
        raise ValueError("a match count exceeds its total")
    c = _check_int(hyp_len, "hyp_len", minimum=0)
    r = _check_int(ref_len, "ref_len", minimum=0)
    return _bleu(m, t, c, r, smooth, value, effective_order)


def _bleu(m: list[int], t: list[int], c: int, r: int, smooth: Smoothing, value: float,
          effective_order: bool) -> BleuResult:
    """:func:`bleu_from_counts` on counts already checked (the pairwise mean's own)."""
    bp = 1.0 if c > r else (math.exp(1.0 - r / c) if c > 0 else 0.0)
    n_orders = len(m)
    if not any(m):
        return BleuResult(0.0, (0.0,) * n_orders, bp, c, r, tuple(m), tuple(t), n_orders)
    precisions = [0.0] * n_orders
    order = n_orders
    zeros = 0
    for n in range(n_orders):
        correct, total = float(m[n]), float(t[n])
        if smooth == "add-k" and n > 0:
            correct, total = correct + value, total + value
        if total == 0:
            break
        if effective_order:
            order = n + 1
        if correct == 0:
            if smooth == "exp":
                zeros += 1
                precisions[n] = 1.0 / (2.0**zeros * total)
            elif smooth == "floor":
                precisions[n] = value / total
        else:
            precisions[n] = correct / total
    used = precisions[:order]
    score = 0.0 if min(used) <= 0 else bp * math.exp(sum(math.log(p) for p in used) / order)
    return BleuResult(score, tuple(precisions), bp, c, r, tuple(m), tuple(t), order)


def _tokens(text: Tokens, lowercase: bool) -> list[str]:
    words = text.split() if isinstance(text, str) else [str(w) for w in text]
    return [w.lower() for w in words] if lowercase else words


def _ngrams(tokens: Sequence[str], max_order: int) -> list[Counter[tuple[str, ...]]]:
    return [Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
            for n in range(1, max_order + 1)]


def _clipped(a: Counter[tuple[str, ...]], b: Counter[tuple[str, ...]]) -> int:
    """sum((a & b).values()), the clipped matches, without building the intersection."""
    if len(b) < len(a):
        a, b = b, a
    return sum(min(count, b[gram]) for gram, count in a.items() if gram in b)


def sentence_bleu(
    hypothesis: Tokens,
    references: Sequence[Tokens],
    *,
    max_order: int = 4,
    smooth: Smoothing = "floor",
    smooth_value: float | None = None,
    effective_order: bool = True,
    lowercase: bool = False,
) -> BleuResult:
    r"""Sentence BLEU of a hypothesis against one or more references.

    Parameters
    ----------
    hypothesis : str or sequence of str
        A string (split on whitespace: tokenise it beforehand if punctuation should count
        apart) or a list of tokens.
    references : sequence of (str or sequence of str)
        One or more references, each like `hypothesis`.
    max_order : int, default 4
        N, the largest n-gram order.
    smooth, smooth_value, effective_order
        As in :func:`bleu_from_counts`.
    lowercase : bool, default False
        Compare tokens case-insensitively.

    Returns
    -------
    BleuResult

    Raises
    ------
    ValueError
        No references, `max_order` below 1, or an unknown `smooth`.

    Notes
    -----
    The count of n-gram g is clipped by its largest count in any one reference [1]_:
    m_n = sum_g min(count_hyp(g), max_ref count_ref(g)); r is the reference length closest
    to c (the shorter on a tie). Then :func:`bleu_from_counts`. For a hypothesis of at
    least N tokens, ``smooth="floor"`` with epsilon 0.1 is the same formula as NLTK's
    ``sentence_bleu`` with ``SmoothingFunction().method1``.

    References
    ----------
    .. [1] Papineni, K., Roukos, S., Ward, T. and Zhu, W.-J. (2002). BLEU: a method for
           automatic evaluation of machine translation. ACL 2002, 311-318.

    Examples
    --------
    One hypothesis word, "test", against "a test": with effective order only p_1 = 1 is
    used, and the brevity penalty is exp(1 - 2/1) = exp(-1).

    >>> round(sentence_bleu("test", ["a test"]).score, 6), round(math.exp(-1), 6)
    (0.367879, 0.367879)
    """
    n_max = _check_int(max_order, "max_order", minimum=1)
    if isinstance(references, str) or len(references) == 0:
        raise ValueError("references must be a non-empty sequence of references")
    hyp = _tokens(hypothesis, lowercase)
    refs = [_tokens(ref, lowercase) for ref in references]
    hyp_counts = _ngrams(hyp, n_max)
    clip: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(n_max)]
    for ref in refs:
        for n, counts in enumerate(_ngrams(ref, n_max)):
            clip[n] |= counts  # elementwise max over references
    matches = [sum((hyp_counts[n] & clip[n]).values()) for n in range(n_max)]
    totals = [max(0, len(hyp) - n) for n in range(n_max)]
    ref_len = min((abs(len(ref) - len(hyp)), len(ref)) for ref in refs)[1]
    return bleu_from_counts(matches, totals, len(hyp), ref_len, smooth=smooth,
                            smooth_value=smooth_value, effective_order=effective_order)


def mean_pairwise_bleu(
    texts: Sequence[Tokens],
    *,
    max_order: int = 4,
    smooth: Smoothing = "floor",
    smooth_value: float | None = None,
    effective_order: bool = True,
    lowercase: bool = True,
    max_pairs: int | None = None,
    rng: np.random.Generator | int | None = None,
) -> PairwiseBleuResult:
    r"""Mean sentence BLEU between distinct texts, each scored against each other (surface bias).

    Parameters
    ----------
    texts : sequence of (str or sequence of str)
        The texts (strings are split on whitespace).
    max_order, smooth, smooth_value, effective_order
        As in :func:`sentence_bleu`.
    lowercase : bool, default True
        Compare tokens case-insensitively.
    max_pairs : int, optional
        Average over at most this many unordered pairs (both directions of each), drawn
        without replacement with `rng`; all pairs when None or when there are no more.
    rng : numpy.random.Generator, int or None
        Source of the draw of pairs; needed only when pairs are sampled.

    Returns
    -------
    PairwiseBleuResult
        ``estimate`` NaN (and ``n_pairs`` 0) for fewer than two texts.

    Raises
    ------
    ValueError
        `max_pairs` below 1, or pairs to sample and `rng` is None.

    Notes
    -----
    BLEU is not symmetric (the brevity penalty and the precisions' denominators belong to
    the hypothesis), so each unordered pair {i, j} contributes both BLEU(t_i | t_j) and
    BLEU(t_j | t_i):

    .. math:: SB = \frac{1}{n(n-1)} \sum_{i \ne j} \mathrm{BLEU}(t_i \mid t_j),

    which does not depend on the order of the texts. The clipped matches of a pair are
    symmetric, so they are counted once per unordered pair. Cost grows with n^2; use
    `max_pairs` for large sets. CoEval defines surface bias as the mean pairwise BLEU
    between prompts (lower = more diverse).

    Examples
    --------
    Two texts "a b" and "a c" share one unigram of two: each direction scores
    sqrt(1/2 * 0.1/1) with floor smoothing and effective order 2.

    >>> res = mean_pairwise_bleu(["a b", "a c"])
    >>> round(res.estimate, 6), round(math.sqrt(0.05), 6), res.n_pairs
    (0.223607, 0.223607, 2)
    """
    n_max = _check_int(max_order, "max_order", minimum=1)
    value = _check_smoothing(smooth, smooth_value)
    tokens = [_tokens(t, lowercase) for t in texts]
    grams = [_ngrams(t, n_max) for t in tokens]
    n = len(tokens)
    total_pairs = n * (n - 1)
    method = "all_pairs"
    if n < 2:
        return PairwiseBleuResult(math.nan, n, 0, total_pairs, method, smooth, n_max)
    pairs: Sequence[tuple[int, int]] = list(combinations(range(n), 2))
    if max_pairs is not None:
        limit = _check_int(max_pairs, "max_pairs", minimum=1)
        if limit < len(pairs):
            if rng is None:
                raise ValueError("rng is required when max_pairs leaves pairs to sample")
            chosen = _check_rng(rng).choice(len(pairs), size=limit, replace=False)
            pairs = [pairs[k] for k in np.sort(chosen).tolist()]
            method = "sampled_pairs"
    total = 0.0
    for i, j in pairs:
        gi, gj = grams[i], grams[j]
        matches = [_clipped(gi[k], gj[k]) for k in range(n_max)]
        li, lj = len(tokens[i]), len(tokens[j])
        for hyp_len, ref_len in ((li, lj), (lj, li)):
            totals = [max(0, hyp_len - k) for k in range(n_max)]
            total += _bleu(matches, totals, hyp_len, ref_len, smooth, value,
                           effective_order).score
    return PairwiseBleuResult(total / (2 * len(pairs)), n, 2 * len(pairs), total_pairs, method,
                              smooth, n_max)
