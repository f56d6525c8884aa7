"""PPI++ for a mean: ppi_py as the oracle, a hand-worked value, and the clustered version's
properties (relabelling, duplication, reduction to the humans' CR2 mean)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import t as t_dist

from assay.stats import cr2_ratio_estimate
from assay.stats.ppi import (
    cluster_mean_interval,
    ppi_mean,
    ppi_mean_clustered,
    ppi_paired_difference,
)
from tests.stats.ppi.ppi_py_oracle import datasets

# (dataset, alpha): (estimate, lower, upper, lambda) from ppi_py 0.2.3's ppi_mean_ci and
# ppi_mean_pointestimate with lam=None (power tuning, clip=True), made by running
# tests/stats/ppi/ppi_py_oracle.py in its own venv (ppi-python 0.2.3, numpy 2.4.6,
# scipy 1.17.1, statsmodels 0.15.0, Python 3.11.7); its docstring has the commands.
ORACLE = {
    ('binary', 0.05): (0.6205579316368284, 0.5123978666730865, 0.7287179966005702, 0.4669517964193955),
    ('binary', 0.1): (0.6205579316368284, 0.5297871437293826, 0.7113287195442741, 0.4669517964193955),
    ('ordinal', 0.05): (0.4720931724845997, 0.4089666675421923, 0.535219677427007, 0.9505903490759756),
    ('ordinal', 0.1): (0.4720931724845997, 0.41911573951628134, 0.5250706054529181, 0.9505903490759756),
    ('clipped_at_0', 0.05): (0.6, 0.42469549188468364, 0.7753045081153163, 0.0),
    ('clipped_at_0', 0.1): (0.6, 0.45287981908397706, 0.7471201809160228, 0.0),
    ('clipped_at_1', 0.05): (0.5097152783903254, 0.46926311021708805, 0.5501674465635626, 1.0),
    ('clipped_at_1', 0.1): (0.5097152783903254, 0.47576674869149277, 0.5436638080891579, 1.0),
    # pairwise preferences A/B/tie -> 1/0/0.5: the human win rate of a pair's first system
    ('preference', 0.05): (0.5355713159968479, 0.44411395576741447, 0.6270286762262813, 0.6997635933806143),
    ('preference', 0.1): (0.5355713159968479, 0.4588178797748587, 0.6123247522188372, 0.6997635933806143),
}


@pytest.mark.parametrize("key", sorted(ORACLE))
def test_matches_ppi_py(key: tuple[str, float]) -> None:
    name, alpha = key
    y, f, fu = datasets()[name]
    res = ppi_mean(y, f, fu, conf=1 - alpha)
    assert_allclose([res.estimate, res.lower, res.upper, res.lam], ORACLE[key], rtol=0,
                    atol=1e-9)


def test_hand_worked() -> None:
    # y = (1, 0, 1, 1), f_L = (1, 0, 0, 1), f_U = (1, 1, 0, 1, 0, 1); n = 4, N = 6.
    # Cov_n(y, f_L) = [(.25)(.5) + (-.75)(-.5) + (.25)(-.5) + (.25)(.5)] / 4 = .5 / 4 = 1/8.
    # All ten judge scores: six ones, Var (divisor 9) = 10 (.6)(.4) / 9 = 4/15.
    # lambda = (1/8) / ((1 + 4/6) (4/15)) = (1/8) / (4/9) = 9/32 = 0.28125.
    # theta = (9/32)(4/6) + [.75 - (9/32)(.5)] = 3/16 + 39/64 = 51/64 = 0.796875.
    # V = lambda^2 (2/9) / 6 + Var_n(y - lambda f_L) / 4, y - lambda f_L = (23/32, 0, 1, 23/32),
    # mean 39/64, Var_n = (1/4) sum (dev^2) = 0.13696289...; V = 0.0029296875 + 0.0342407227.
    res = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 1, 0, 1, 0, 1])
    assert_allclose(res.lam, 9 / 32, rtol=1e-15)
    assert_allclose(res.estimate, 51 / 64, rtol=1e-15)
    dev = np.array([23 / 32, 0, 1, 23 / 32]) - 39 / 64
    v = (9 / 32) ** 2 * (2 / 9) / 6 + np.mean(dev**2) / 4
    assert_allclose(res.standard_error, math.sqrt(v), rtol=1e-13)
    assert_allclose(res.standard_error, 0.19279629186332917, rtol=1e-12)
    # humans only: Var_n(y) / n = (3/16) / 4; effective n = 4 (3/64) / V
    assert_allclose(res.effective_n, 4 * (3 / 64) / v, rtol=1e-12)


def test_fixed_lambda_ends() -> None:
    y, f, fu = datasets()["binary"]
    zero = ppi_mean(y, f, fu, lam=0)
    assert_allclose(zero.estimate, y.mean())
    assert_allclose(zero.standard_error, y.std() / math.sqrt(y.size))
    one = ppi_mean(y, f, fu, lam=1)
    assert_allclose(one.estimate, fu.mean() + (y - f).mean())


def _clustered_data(seed: int = 3) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    clusters = np.repeat(np.arange(12), rng.integers(2, 9, size=12))
    effect = rng.normal(0, 0.2, size=12)[clusters]
    y = (rng.random(clusters.size) < 0.5 + effect).astype(float)
    f = np.where(rng.random(clusters.size) < 0.8, y, 1 - y)
    labelled = rng.random(clusters.size) < 0.4
    return y[labelled], f[labelled], f[~labelled], clusters[labelled], clusters[~labelled]


def test_clustered_at_lambda_0_is_the_humans_cr2_mean() -> None:
    y, f, fu, cl, cu = _clustered_data()
    res = ppi_mean_clustered(y, f, fu, clusters_labelled=cl, clusters_unlabelled=cu, lam=0)
    ids = np.unique(cl)
    sums = np.array([y[cl == c].sum() for c in ids])
    sizes = np.array([np.sum(cl == c) for c in ids], dtype=float)
    cr2 = cr2_ratio_estimate(sums, sizes)
    assert_allclose(res.estimate, cr2.estimate, rtol=1e-14)
    assert_allclose(res.standard_error, cr2.standard_error, rtol=1e-12)
    assert res.df == len(ids) - 1
    assert_allclose(res.effective_n, res.n, rtol=1e-12)


def test_singleton_clusters_give_the_unclustered_variance_with_n_minus_1() -> None:
    y, f, fu = datasets()["ordinal"]
    lam = ppi_mean(y, f, fu).lam
    res = ppi_mean_clustered(y, f, fu, lam=lam, clusters_labelled=np.arange(y.size),
                             clusters_unlabelled=np.arange(y.size, y.size + fu.size))
    n, big_n = y.size, fu.size
    v = lam**2 * fu.var(ddof=1) / big_n + (y - lam * f).var(ddof=1) / n
    assert_allclose(res.standard_error, math.sqrt(v), rtol=1e-12)
    assert_allclose(res.estimate, ppi_mean(y, f, fu).estimate, rtol=1e-14)


def test_relabelling_and_reordering_clusters_change_nothing() -> None:
    y, f, fu, cl, cu = _clustered_data()
    base = ppi_mean_clustered(y, f, fu, clusters_labelled=cl, clusters_unlabelled=cu)
    names = {c: f"doc-{(7 * c) % 13}" for c in range(12)}
    order_l, order_u = np.random.default_rng(1).permutation(y.size), np.arange(fu.size)[::-1]
    other = ppi_mean_clustered(
        y[order_l], f[order_l], fu[order_u],
        clusters_labelled=[names[c] for c in cl[order_l]],
        clusters_unlabelled=[names[c] for c in cu[order_u]])
    for field in ("estimate", "lower", "upper", "lam", "df", "effective_n"):
        assert_allclose(getattr(other, field), getattr(base, field), rtol=1e-12)


def test_duplicating_every_item_inside_its_cluster_leaves_the_variance_unchanged() -> None:
    y, f, fu, cl, cu = _clustered_data()
    base = ppi_mean_clustered(y, f, fu, clusters_labelled=cl, clusters_unlabelled=cu)
    twice = ppi_mean_clustered(np.repeat(y, 2), np.repeat(f, 2), np.repeat(fu, 2),
                               clusters_labelled=np.repeat(cl, 2),
                               clusters_unlabelled=np.repeat(cu, 2))
    for field in ("estimate", "standard_error", "lam", "df"):
        assert_allclose(getattr(twice, field), getattr(base, field), rtol=1e-12)


def test_tuned_lambda_minimises_the_clustered_variance() -> None:
    y, f, fu, cl, cu = _clustered_data()
    tuned = ppi_mean_clustered(y, f, fu, clusters_labelled=cl, clusters_unlabelled=cu)
    assert 0 < tuned.lam < 1
    for lam in np.linspace(0, 1, 21):
        fixed = ppi_mean_clustered(y, f, fu, clusters_labelled=cl, clusters_unlabelled=cu,
                                   lam=lam)
        # the variance minimised is the one before the charge for the fitted lambda
        charge = tuned.n_labelled_clusters / (tuned.n_labelled_clusters - 1)
        assert fixed.standard_error**2 >= tuned.standard_error**2 / charge - 1e-15


def test_a_tuned_lambda_is_charged_one_cluster() -> None:
    # tuned inside (0, 1): the variance at that lambda times C_L / (C_L - 1), df one less
    y, f, fu, cl, cu = _clustered_data()
    kw = dict(clusters_labelled=cl, clusters_unlabelled=cu)
    tuned = ppi_mean_clustered(y, f, fu, **kw)
    given = ppi_mean_clustered(y, f, fu, lam=tuned.lam, **kw)
    c_l = tuned.n_labelled_clusters
    assert c_l == 11 and 0 < tuned.lam < 1
    assert_allclose(tuned.estimate, given.estimate, rtol=1e-15)
    assert_allclose(tuned.standard_error, given.standard_error * math.sqrt(11 / 10), rtol=1e-13)
    assert_allclose(tuned.df, given.df - 1, rtol=1e-13)
    assert_allclose(tuned.upper - tuned.estimate,
                    given.standard_error * math.sqrt(11 / 10)
                    * float(t_dist.ppf(0.975, given.df - 1)), rtol=1e-10)
    # a judge that tells nothing: lambda clipped at 0, no charge (the humans' CR2 mean)
    clipped = ppi_mean_clustered(y, 1 - f, fu, **kw)
    zero = ppi_mean_clustered(y, 1 - f, fu, lam=0.0, **kw)
    assert clipped.lam == 0.0
    assert (clipped.standard_error, clipped.df) == (zero.standard_error, zero.df)


def test_few_labelled_clusters_use_their_df() -> None:
    # whole clusters labelled: 3 of 12 hold the labels, so the rectifier rests on 2 df
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(12), 6)
    y_all = (rng.random(clusters.size) < 0.6).astype(float)
    f_all = np.where(rng.random(clusters.size) < 0.7, y_all, 1 - y_all)
    lab = clusters < 3
    res = ppi_mean_clustered(y_all[lab], f_all[lab], f_all[~lab],
                             clusters_labelled=clusters[lab], clusters_unlabelled=clusters[~lab])
    assert res.n_labelled_clusters == 3 and res.n_clusters == 12
    assert 2 <= res.df <= 11
    one = ppi_mean_clustered(y_all[clusters == 0], f_all[clusters == 0], f_all[clusters > 0],
                             clusters_labelled=clusters[clusters == 0],
                             clusters_unlabelled=clusters[clusters > 0])
    assert math.isnan(one.lower) and math.isnan(one.upper)


def test_paired_difference_is_antisymmetric_and_the_mean_of_differences() -> None:
    y, f, fu, cl, cu = _clustered_data(3)
    rng = np.random.default_rng(4)  # another system on the same items and split
    yb = (rng.random(y.size) < 0.4).astype(float)
    fb = np.where(rng.random(y.size) < 0.8, yb, 1 - yb)
    fub = (rng.random(fu.size) < 0.45).astype(float)
    kw = dict(clusters_labelled=cl, clusters_unlabelled=cu)
    ab = ppi_paired_difference(y, yb, f, fb, fu, fub, **kw)
    ba = ppi_paired_difference(yb, y, fb, f, fub, fu, **kw)
    assert_allclose(ab.estimate, -ba.estimate, atol=1e-14)
    assert_allclose([ab.lower, ab.upper], [-ba.upper, -ba.lower], atol=1e-14)
    direct = ppi_mean_clustered(y - yb, f - fb, fu - fub, **kw)
    assert_allclose([ab.estimate, ab.standard_error], [direct.estimate, direct.standard_error])
    assert ab.method == "ppi++_paired_cluster_t"


def test_cluster_mean_interval_is_the_cr2_t() -> None:
    res = cluster_mean_interval([1, 0, 1, 1, 0, 1], [1, 1, 2, 2, 3, 3])
    # cluster means 1/2, 1, 1/2 with r = 2/3: V2 = sum (S_c - r n_c)^2 / (1 - 1/3) / 36
    #  = (1/9 + 4/9 + 1/9) (3/2) / 36 = 1/36, se = 1/6, df = C - 1 = 2
    assert_allclose(res.standard_error, 1 / 6, rtol=1e-13)
    assert res.df == 2.0


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="f_labelled"):
        ppi_mean([1, 0], [1], [1])
    with pytest.raises(ValueError, match="lam"):
        ppi_mean([1, 0], [1, 0], [1], lam=1.5)
    with pytest.raises(ValueError, match="clusters_labelled"):
        ppi_mean_clustered([1, 0], [1, 0], [1], clusters_labelled=[1], clusters_unlabelled=[1])
