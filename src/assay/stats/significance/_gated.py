"""The paired test a normality check chooses: a paired t test when both samples look normal,
else Wilcoxon's signed-rank test (BenchmarkQED's ``analyze_criteria``).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from assay.stats._validate import _check_1d

__all__ = ["normality_gated_paired_test"]


@dataclass(frozen=True)
class GatedTestResult:
    """The outcome of :func:`normality_gated_paired_test`."""

    test: str
    """``"paired t-test"`` or ``"wilcoxon"`` (the names BenchmarkQED writes)."""
    statistic: float
    """t of the paired t test (positive when ``a`` exceeds ``b``), or the normal
    approximation z of Wilcoxon's test as scipy reports it for a two-sided test,
    (min(W+, W-) - n'(n'+1)/4) / sd: never positive. NaN where undefined."""
    p_value: float
    """Two-sided p-value; 1 when the test is undefined because ``a`` equals ``b``."""
    normality_p_a: float
    """Shapiro-Wilk p-value of ``a``; NaN for fewer than 3 values."""
    normality_p_b: float
    """Shapiro-Wilk p-value of ``b``; NaN for fewer than 3 values."""
    mean_a: float
    mean_b: float
    n: int


def normality_gated_paired_test(a: ArrayLike, b: ArrayLike, *, alpha: float = 0.05) -> GatedTestResult:
    r"""Paired t test if both samples pass Shapiro-Wilk at `alpha`, else Wilcoxon's test.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Paired samples (for a win rate: the question-level mean scores of the two answers).
    alpha : float, default 0.05
        A sample counts as normal when its Shapiro-Wilk p-value exceeds `alpha`.

    Returns
    -------
    GatedTestResult

    Raises
    ------
    ValueError
        Samples of different lengths, an empty or non-finite sample, or `alpha` outside (0, 1).

    Notes
    -----
    With p_a, p_b the Shapiro-Wilk p-values [1]_: if p_a > alpha and p_b > alpha, Student's
    paired t test of d = a - b, t = \bar d / (s_d / \sqrt n) on n - 1 df
    (``scipy.stats.ttest_rel``); otherwise Wilcoxon's signed-rank test [2]_ of d with zeros
    dropped, no continuity correction and the normal approximation
    (``scipy.stats.wilcoxon(a, b, method="approx")``), whose statistic is the z of the
    smaller rank sum. A p-value that is undefined (no variance) when a equals b is 1. This
    is BenchmarkQED 0.4's ``analyze_criteria`` rule, test by test; fewer than 3 values
    (where Shapiro-Wilk is undefined and BenchmarkQED stops with an error) count as not
    normal. Validated against ``benchmark_qed.autoe.pairwise.analyze_criteria`` in
    ``tests/analysis/winrates/test_qed_sig_tests.py``.

    References
    ----------
    .. [1] Shapiro, S. S. and Wilk, M. B. (1965). An analysis of variance test for normality
           (complete samples). Biometrika 52(3/4), 591-611.
    .. [2] Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics
           Bulletin 1(6), 80-83.

    Examples
    --------
    Question-level win rates 1, 1, 0.5, 1, 0 of the base (the other's are 1 - x): not normal
    (Shapiro-Wilk p = 0.046), so Wilcoxon's test of d = 2x - 1 = (1, 1, 0, 1, -1): the zero is
    dropped, ranks of |d| are all 2.5, W- = 2.5, E = 5, sd = sqrt(4*5*9/24 - (4^3-4)/48) =
    sqrt(6.25) = 2.5, z = (2.5 - 5)/2.5 = -1, p = 2 (1 - Phi(1)) = 0.3173:

    >>> res = normality_gated_paired_test([1, 1, 0.5, 1, 0], [0, 0, 0.5, 0, 1])
    >>> res.test, round(res.statistic, 6), round(res.p_value, 4)
    ('wilcoxon', -1.0, 0.3173)
    """
    x = _check_1d(a, "a")
    y = _check_1d(b, "b")
    if x.size != y.size:
        raise ValueError(f"a and b must have the same length; got {x.size} and {y.size}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1); got {alpha!r}")
    with warnings.catch_warnings():  # scipy warns on constant samples; the result says it all
        warnings.simplefilter("ignore")
        p_a = float(stats.shapiro(x).pvalue) if x.size >= 3 else math.nan
        p_b = float(stats.shapiro(y).pvalue) if y.size >= 3 else math.nan
        if p_a > alpha and p_b > alpha:
            t = stats.ttest_rel(x, y)
            test, statistic, p = "paired t-test", float(t.statistic), float(t.pvalue)
        else:
            w = stats.wilcoxon(x, y, method="approx")
            test, statistic, p = "wilcoxon", float(w.zstatistic), float(w.pvalue)
    if math.isnan(p) and np.array_equal(x, y):
        p = 1.0
    return GatedTestResult(test=test, statistic=statistic, p_value=p, normality_p_a=p_a,
                           normality_p_b=p_b, mean_a=float(x.mean()), mean_b=float(y.mean()),
                           n=int(x.size))
