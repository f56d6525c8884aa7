"""Paired tests of assay.stats.significance (_paired, _ranks) against independent oracles.

Oracles: scipy's one-sample and paired t tests (the cluster t test with one item per cluster),
statsmodels OLS with cluster-robust covariance (real clusters), the exact distribution of
Wilcoxon's W+ over all 2^n sign patterns, the normal approximation written out here, pingouin's
own Friedman implementation, and statsmodels' Holm.
"""

from __future__ import annotations

import inspect
import itertools
import math

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.multitest import multipletests

from assay.stats import paired_difference_interval
from assay.stats.significance import (
    _paired,
    _ranks,
    cluster_t_test,
    friedman_test,
    normality_test,
    pairwise_wilcoxon,
    wilcoxon_signed_rank,
)


def _cluster_sums(x: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    _, codes = np.unique(g, return_inverse=True)
    return np.bincount(codes, weights=x), np.bincount(codes).astype(float)


@st.composite
def clustered(draw: st.DrawFn):
    """Question-level win rates minus 1/2 (multiples of 1/4) in 2-8 clusters of 1-5."""
    sizes = draw(st.lists(st.integers(1, 5), min_size=2, max_size=8))
    n = sum(sizes)
    values = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    return np.array(values) / 4.0, np.repeat(np.arange(len(sizes)), sizes)


# ----- the module's public surface ---------------------------------------------------------


def test_functions_have_examples_notes_and_keyword_options() -> None:
    from assay.stats.significance import _permutation as permutation

    for module in (_paired, _ranks, permutation):
        for name in module.__all__:
            fn = getattr(module, name)
            doc = inspect.getdoc(fn) or ""
            assert "Examples\n--------" in doc and ">>>" in doc, name
            assert "Notes\n-----" in doc and "References\n----------" in doc, name
            for p in inspect.signature(fn).parameters.values():
                if p.name in {"alternative", "rng", "zero_method", "correction", "method",
                              "n_resamples"}:
                    assert p.kind is inspect.Parameter.KEYWORD_ONLY, (name, p.name)


# ----- cluster_t_test ----------------------------------------------------------------------


def test_cluster_t_hand_worked() -> None:
    # D = (1, 0, -0.5), n = (2, 2, 2): d = 1/12, V_d = 7/144 (residuals 5/6, -1/6, -2/3:
    # 3/2 * 42/36 / 36), t = (1/12) / (sqrt 7 / 12) = 1/sqrt(7). Student's t with 2 df has
    # F(t) = 1/2 + t / (2 sqrt(2 + t^2)), so p = 1 - t / sqrt(2 + t^2).
    res = cluster_t_test([1, 0, -0.5], [2, 2, 2])
    t = 1 / math.sqrt(7)
    assert_allclose(res.statistic, t, rtol=1e-13)
    assert_allclose(res.p_value, 1 - t / math.sqrt(2 + t * t), rtol=1e-12)
    assert_allclose(res.standard_error, math.sqrt(7) / 12, rtol=1e-13)
    assert (res.df, res.n, res.n_clusters, res.method) == (2.0, 6, 3, "cluster_robust_t")


def test_cluster_t_with_one_item_per_cluster_is_the_one_sample_t_test() -> None:
    # With C = N: V = C/(C-1) * sum (x_i - xbar)^2 / N^2 = s^2 / N exactly (ddof = 1), so t and
    # p are scipy's one-sample t test, and seed 004's ttest_rel(w, 1 - w) (difference 2w - 1,
    # a rescaling of w - 1/2) gives the same t and p.
    rng = np.random.default_rng(3)
    w = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=37, p=[0.3, 0.1, 0.2, 0.1, 0.3])
    res = cluster_t_test(w - 0.5, np.ones(w.size))
    one = stats.ttest_1samp(w, 0.5)
    rel = stats.ttest_rel(w, 1 - w)
    assert_allclose([res.statistic, res.p_value], [one.statistic, one.pvalue], rtol=1e-12)
    assert_allclose([res.statistic, res.p_value], [rel.statistic, rel.pvalue], rtol=1e-12)
    assert_allclose(res.standard_error, w.std(ddof=1) / math.sqrt(w.size), rtol=1e-12)
    # without the small-sample factor (statsmodels' use_correction=False: sum e^2 / N^2) the
    # statistic is larger by exactly sqrt(C / (C - 1))
    sm0 = sm.OLS(w - 0.5, np.ones(w.size)).fit(
        cov_type="cluster", cov_kwds={"groups": np.arange(w.size), "use_correction": False})
    assert_allclose(sm0.tvalues[0], res.statistic * math.sqrt(w.size / (w.size - 1)), rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(clustered())
def test_cluster_t_matches_statsmodels_cluster_ols(data) -> None:
    x, g = data
    sums, sizes = _cluster_sums(x, g)
    res = cluster_t_test(sums, sizes)
    if not res.standard_error > 1e-12:
        assert math.isnan(res.p_value) or res.standard_error > 0
        return
    fit = sm.OLS(x, np.ones(x.size)).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
    assert_allclose(res.statistic, fit.tvalues[0], rtol=1e-9, atol=1e-9)
    assert_allclose(res.p_value, fit.pvalues[0], rtol=1e-9, atol=1e-15)
    assert res.df == len(sizes) - 1


@settings(max_examples=60, deadline=None)
@given(clustered(), st.randoms(use_true_random=False))
def test_cluster_t_invariances(data, random) -> None:
    x, g = data
    sums, sizes = _cluster_sums(x, g)
    base = cluster_t_test(sums, sizes)
    order = list(range(sums.size))
    random.shuffle(order)
    shuffled = cluster_t_test(sums[order], sizes[order])  # relabelling/reordering clusters
    doubled = cluster_t_test(2 * sums, 2 * sizes)  # every item duplicated inside its cluster
    negated = cluster_t_test(-sums, sizes)  # swapping the arms
    for other in (shuffled, doubled):
        assert_allclose([other.statistic, other.p_value], [base.statistic, base.p_value],
                        rtol=1e-9, equal_nan=True)
    assert_allclose(negated.statistic, -base.statistic, rtol=1e-12, equal_nan=True)
    assert_allclose(negated.p_value, base.p_value, rtol=1e-12, equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(clustered(), st.sampled_from([0.8, 0.9, 0.95]))
def test_cluster_t_agrees_with_the_paired_interval(data, conf) -> None:
    # the interval excludes 0 exactly when the two-sided p-value is below 1 - conf
    x, g = data
    sums, sizes = _cluster_sums(x, g)
    res = cluster_t_test(sums, sizes)
    iv = paired_difference_interval(sums, sizes, conf=conf)
    if math.isnan(res.p_value):
        assert math.isnan(iv.lower)
        return
    if abs(res.p_value - (1 - conf)) < 1e-9:
        return  # on the boundary: rounding decides
    assert (res.p_value < 1 - conf) == (iv.lower > 0 or iv.upper < 0)


def test_cluster_t_one_sided_and_degenerate() -> None:
    sums, sizes = np.array([1.0, 0.5, 0.25, 0.75]), np.array([2.0, 1.0, 1.0, 2.0])
    two = cluster_t_test(sums, sizes)
    greater = cluster_t_test(sums, sizes, alternative="greater")
    less = cluster_t_test(sums, sizes, alternative="less")
    assert_allclose(greater.p_value, two.p_value / 2, rtol=1e-12)  # t > 0
    assert_allclose(less.p_value, 1 - two.p_value / 2, rtol=1e-12)
    same = cluster_t_test([1.0, 2.0, 0.5], [2.0, 4.0, 1.0])  # every cluster's mean is 1/2
    assert same.standard_error == 0 and math.isnan(same.statistic) and math.isnan(same.p_value)
    with pytest.raises(ValueError, match="diff_sums"):
        cluster_t_test([1.0], [1.0])
    with pytest.raises(ValueError, match="alternative"):
        cluster_t_test([1.0, 2.0], [1.0, 1.0], alternative="both")  # type: ignore[arg-type]


# ----- wilcoxon_signed_rank ----------------------------------------------------------------


def _approx_p(d: np.ndarray) -> tuple[float, float, float]:
    """W+, z and two-sided p of the normal approximation, zeros dropped, tie-corrected."""
    d = d[d != 0]
    n = d.size
    ranks = stats.rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    _, ties = np.unique(np.abs(d), return_counts=True)
    var = n * (n + 1) * (2 * n + 1) / 24 - np.sum(ties**3 - ties) / 48
    z = (w_plus - n * (n + 1) / 4) / math.sqrt(var)
    return float(w_plus), z, 2 * stats.norm.sf(abs(z))


def test_wilcoxon_hand_worked() -> None:
    # 0.5, -0.5, 0.5, 0, 0.25, 0.5, -0.25: zero dropped; ranks of |d|: 0.25s -> 1.5, 0.5s ->
    # 4.5; W+ = 4.5 * 3 + 1.5 = 15; E = 6*7/4 = 10.5; Var = 6*7*13/24 - (2^3-2 + 4^3-4)/48
    # = 22.75 - 1.375 = 21.375; z = 4.5 / sqrt(21.375) = 0.973329.
    res = wilcoxon_signed_rank([0.5, -0.5, 0.5, 0, 0.25, 0.5, -0.25])
    assert res.statistic == 15.0 and res.n_zero == 1 and res.n == 7
    assert_allclose(res.z, 4.5 / math.sqrt(21.375), rtol=1e-12)
    assert_allclose(res.p_value, 2 * stats.norm.sf(4.5 / math.sqrt(21.375)), rtol=1e-10)
    # scipy's own two-sided statistic is min(W+, W-) = min(15, 6)
    assert stats.wilcoxon([0.5, -0.5, 0.5, 0, 0.25, 0.5, -0.25]).statistic == 6.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-4, 4), min_size=2, max_size=30))
def test_wilcoxon_approx_matches_the_formula(values) -> None:
    d = np.array(values) / 4.0
    res = wilcoxon_signed_rank(d)
    if np.all(d == 0):
        assert math.isnan(res.p_value) and res.statistic == 0.0
        return
    w_plus, z, p = _approx_p(d)
    assert res.statistic == w_plus
    assert_allclose(res.p_value, p, rtol=1e-9)
    assert_allclose(res.z, z, rtol=1e-9, atol=1e-12)  # signed as W+ - E[W+]
    negated = wilcoxon_signed_rank(-d)
    assert_allclose(negated.p_value, res.p_value, rtol=1e-12)
    assert_allclose(negated.z, -res.z, rtol=1e-12, atol=1e-12)


def test_wilcoxon_exact_matches_enumeration_of_sign_patterns() -> None:
    # no ties or zeros: W+ takes each subset sum of ranks 1..n with probability 2^-n
    d = np.array([0.9, -0.2, 0.35, 0.6, -0.05, 0.75, 0.4, -0.15, 0.55])
    n = d.size
    dist = np.array([sum(r for r, s in zip(range(1, n + 1), signs, strict=True) if s)
                     for signs in itertools.product([0, 1], repeat=n)])
    ranks = stats.rankdata(np.abs(d))
    w = ranks[d > 0].sum()
    p = min(1.0, 2 * min(np.mean(dist <= w), np.mean(dist >= w)))
    res = wilcoxon_signed_rank(d, method="exact")
    assert res.statistic == w and res.z is None
    assert_allclose(res.p_value, p, rtol=1e-12)
    greater = wilcoxon_signed_rank(d, method="exact", alternative="greater")
    assert_allclose(greater.p_value, np.mean(dist >= w), rtol=1e-12)


def test_wilcoxon_zero_methods_and_errors() -> None:
    d = np.array([0.5, 0, 0, 0.25, -0.25, 0.5, 0.5])
    pratt = wilcoxon_signed_rank(d, zero_method="pratt")
    zsplit = wilcoxon_signed_rank(d, zero_method="zsplit")
    ranks = stats.rankdata(np.abs(d))  # zeros rank 1.5, 1.5; 0.25s 3.5; 0.5s 6
    assert pratt.statistic == ranks[d > 0].sum() == 21.5
    assert zsplit.statistic == 21.5 + 1.5
    for zm, res in (("pratt", pratt), ("zsplit", zsplit)):
        assert_allclose(res.p_value, stats.wilcoxon(d, zero_method=zm, method="approx").pvalue,
                        rtol=1e-12)
    assert wilcoxon_signed_rank([0, 0, 0]).n_zero == 3
    with pytest.raises(ValueError, match="zero_method"):
        wilcoxon_signed_rank(d, zero_method="drop")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="differences"):
        wilcoxon_signed_rank([])


# ----- normality_test ----------------------------------------------------------------------


def test_normality_rule() -> None:
    # three equally spaced values: W = 1
    assert_allclose(normality_test([0, 0.5, 1]).statistic, 1.0, rtol=1e-12)
    assert normality_test([0.5, 1.0]).method == "undefined"  # n < 3
    assert math.isnan(normality_test([0.5] * 10).p_value)  # constant
    rng = np.random.default_rng(5)
    w = rng.choice([0, 0.5, 1.0], size=80)
    res = normality_test(w)
    # W is invariant under w -> 1 - w, which is why seed 004 checking both the base and the
    # other method's scores is one check
    assert_allclose(normality_test(1 - w).p_value, res.p_value, rtol=1e-6)
    big = rng.normal(size=6000)
    ks = normality_test(big)
    z = (big - big.mean()) / big.std(ddof=1)
    cdf = np.sort(stats.norm.cdf(z))
    i = np.arange(1, z.size + 1)
    d = max(np.max(i / z.size - cdf), np.max(cdf - (i - 1) / z.size))  # KS D by hand
    assert ks.method == "kolmogorov_smirnov_standardised"
    assert_allclose(ks.statistic, d, rtol=1e-12)


# ----- friedman_test and pairwise_wilcoxon -------------------------------------------------


def test_friedman_hand_worked_and_pingouin() -> None:
    # no ties: R = (6, 6, 12), Q = 12 * 216 / 48 - 48 = 6 on 2 df, p = exp(-3)
    res = friedman_test([[0.1, 0.2, 0.9], [0.2, 0.1, 0.8], [0.3, 0.4, 0.7], [0.5, 0.4, 0.6]])
    assert_allclose([res.statistic, res.p_value], [6.0, math.exp(-3)], rtol=1e-12)
    rng = np.random.default_rng(11)
    m = rng.integers(0, 5, size=(25, 4)) / 4  # pass rates with many ties
    res = friedman_test(m)
    long = pd.DataFrame([(i, j, m[i, j]) for i in range(25) for j in range(4)],
                        columns=["q", "arm", "v"])
    oracle = pg.friedman(data=long, dv="v", within="arm", subject="q")
    assert_allclose([res.statistic, res.p_value],
                    [oracle["Q"].iloc[0], oracle["p_unc"].iloc[0]], rtol=1e-10)
    # the tie-corrected formula written out
    ranks = np.apply_along_axis(stats.rankdata, 1, m)
    n, k = m.shape
    q = 12 * np.sum(ranks.sum(axis=0) ** 2) / (n * k * (k + 1)) - 3 * n * (k + 1)
    ties = sum(np.sum(c**3 - c) for c in (np.unique(row, return_counts=True)[1] for row in m))
    assert_allclose(res.statistic, q / (1 - ties / (n * (k**3 - k))), rtol=1e-12)
    assert (res.df, res.n, res.k) == (3, 25, 4)
    flat = friedman_test([[0.5, 0.5, 0.5], [1, 1, 1]])
    assert math.isnan(flat.statistic) and math.isnan(flat.p_value)
    with pytest.raises(ValueError, match="3 columns"):
        friedman_test([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="finite"):
        friedman_test([[1, 2, np.nan], [3, 4, 5]])


def test_pairwise_wilcoxon_holm_matches_statsmodels() -> None:
    rng = np.random.default_rng(2)
    m = np.clip(rng.normal([0.5, 0.55, 0.7, 0.52], 0.2, size=(30, 4)).round(1), 0, 1)
    m[:, 3] = m[:, 0]  # one pair with no non-zero difference: left out of the family
    tests = pairwise_wilcoxon(m)
    assert [(t.first, t.second) for t in tests] == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    for t in tests:
        d = m[:, t.first] - m[:, t.second]
        if np.all(d == 0):
            assert math.isnan(t.result.p_value) and math.isnan(t.p_adjusted)
            continue
        assert_allclose(t.result.p_value, stats.wilcoxon(d, method="approx").pvalue, rtol=1e-12)
    defined = [t for t in tests if not math.isnan(t.result.p_value)]
    expected = multipletests([t.result.p_value for t in defined], method="holm")[1]
    assert_allclose([t.p_adjusted for t in defined], expected, rtol=1e-12)
