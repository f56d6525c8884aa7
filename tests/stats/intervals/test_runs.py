"""The run component of a mean over crossed runs and the Satterthwaite df of an interval
that includes it (issue 26: no pre-test decides whether runs count)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import special, stats

from assay.analysis.benchmark._accuracy import run_inclusive
from assay.stats import RunComponent, run_inclusive_df, run_variance_component


def test_run_component_hand_worked() -> None:
    # Three clusters of one item, two runs, scores [[1, 0], [1, 0], [1, 1]]: N = 3, R = 2,
    # r = 4/6. Run totals 3 and 1 against r N = 2: V_R = 2/1 (1 + 1) / 6^2 = 1/9.
    # u_cr = T_cr - T_c./2: (1/2, -1/2), (1/2, -1/2), (0, 0); sum_c u = (1, -1);
    # e = u - (1/3)(1, -1): (1/6, -1/6) twice and (-1/3, 1/3); sum e^2 = 4/36 + 2/9 = 1/3;
    # V_E = R C / ((C - 1)(R - 1)) sum e^2 / 36 = 3 (1/3) / 36 = 1/36; V_run = 1/12.
    res = run_variance_component([[1, 0], [1, 0], [1, 1]], [1, 1, 1])
    assert_allclose([res.estimate, res.variance_runs, res.variance_noise, res.variance],
                    [4 / 6, 1 / 9, 1 / 36, 1 / 12], rtol=1e-12)
    assert (res.df_runs, res.df_noise) == (1.0, 2.0)


def test_run_component_is_the_anova_estimate_with_equal_clusters() -> None:
    # Independent implementation: statsmodels' two-way ANOVA (cluster + run, no
    # interaction) of the cluster means; with equal sizes V_run = (MS_R - MS_E) / (C R).
    from statsmodels.formula.api import ols
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(3)
    n_c, clusters, runs = 4, 12, 5
    shift = rng.normal(0.0, 0.4, runs)
    level = rng.normal(0.0, 0.6, clusters)
    p = special.expit(0.8 + level[:, None, None] + shift[None, None, :]
                      + rng.normal(0.0, 0.5, (clusters, n_c, 1)))
    y = (rng.random((clusters, n_c, runs)) < p).astype(float)
    cells = y.sum(axis=1)
    res = run_variance_component(cells, np.full(clusters, float(n_c)))
    frame = pd.DataFrame({"m": (cells / n_c).ravel(),
                          "cluster": np.repeat(np.arange(clusters), runs),
                          "run": np.tile(np.arange(runs), clusters)})
    table = anova_lm(ols("m ~ C(cluster) + C(run)", data=frame).fit())
    ms_r, ms_e = table.loc["C(run)", "mean_sq"], table.loc["Residual", "mean_sq"]
    assert ms_r > ms_e
    assert_allclose(res.variance, (ms_r - ms_e) / (clusters * runs), rtol=1e-10)


def test_run_component_ignores_duplicated_items_and_cluster_order() -> None:
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 9, 15).astype(float)
    cells = np.floor(rng.random((15, 5)) * (sizes[:, None] + 1))
    base = run_variance_component(cells, sizes)
    twice = run_variance_component(2 * cells, 2 * sizes)
    order = rng.permutation(15)
    moved = run_variance_component(cells[order], sizes[order])
    for other in (twice, moved):
        assert_allclose([other.variance_runs, other.variance_noise],
                        [base.variance_runs, base.variance_noise], rtol=1e-12)


def test_without_a_run_shift_the_noise_term_matches_the_run_term_on_average() -> None:
    # No run shift, unequal clusters: V_E is unbiased for what per-run noise puts into V_R,
    # so V_R - V_E (before the floor at 0) averages about 0 over benches: here within 5% of
    # V_R, with a Monte Carlo error of about 2.5% over 400 benches.
    rng = np.random.default_rng(11)
    sizes = rng.integers(2, 15, 20).astype(float)
    item_cluster = np.repeat(np.arange(20), sizes.astype(int))
    v_r, v_e = [], []
    for _ in range(400):
        p = rng.beta(3, 1, (item_cluster.size, 1))
        y = (rng.random((item_cluster.size, 5)) < p).astype(float)
        cells = np.stack([np.bincount(item_cluster, weights=y[:, r], minlength=20)
                          for r in range(5)], axis=1)
        res = run_variance_component(cells, sizes)
        v_r.append(res.variance_runs)
        v_e.append(res.variance_noise)
    assert abs(np.mean(v_r) - np.mean(v_e)) < 0.05 * np.mean(v_r)


def test_run_component_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="cell_sums"):
        run_variance_component([[1, 0, 1]], [3])
    with pytest.raises(ValueError, match="sizes"):
        run_variance_component([[1, 0], [1, 1]], [1, 0])


def test_run_inclusive_df_hand_worked_and_limits() -> None:
    # (1 + 1)^2 / (1/38 + 1/4) = 4 / (21 / 76) = 304 / 21.
    assert_allclose(run_inclusive_df(1.0, 38.0, 1.0, 5), 304.0 / 21.0, rtol=1e-12)
    assert run_inclusive_df(2.0, 38.0, 0.0, 5) == 38.0
    assert_allclose(run_inclusive_df(0.0, 38.0, 3.0, 5), 4.0, rtol=1e-12)
    # Between the smaller df and the sum of both, and increasing in nu_1.
    nus = [run_inclusive_df(1.0, nu, 0.5, 5) for nu in (2.0, 10.0, 100.0)]
    assert all(min(nu, 4.0) <= v <= nu + 4.0 for v, nu in zip(nus, (2.0, 10.0, 100.0), strict=True))
    assert nus == sorted(nus)
    with pytest.raises(ValueError, match="runs"):
        run_inclusive_df(1.0, 10.0, 1.0, 1)
    with pytest.raises(ValueError, match="variance"):
        run_inclusive_df(-1.0, 10.0, 1.0, 5)
    with pytest.raises(ValueError, match="df"):
        run_inclusive_df(1.0, 0.0, 1.0, 5)


def test_run_inclusive_interval_hand_worked() -> None:
    # r = 0.75, V_1 = 4e-4 on 38 df, V_run = 4e-4 over 5 runs: nu = 304/21, se = sqrt(8e-4);
    # logit: log(3) -/+ t_nu se / (0.75 x 0.25); a difference 0.05: 0.05 -/+ t_nu se.
    component = RunComponent(estimate=0.75, variance=4e-4, variance_runs=5e-4,
                             variance_noise=1e-4, df_runs=4.0, df_noise=156.0)
    nu = 304.0 / 21.0
    t_crit = stats.t.ppf(0.975, nu)
    se = math.sqrt(8e-4)
    acc = run_inclusive(0.75, 4e-4, 38.0, component, 5, conf=0.95, logit=True)
    assert acc is not None
    half = t_crit * se / 0.1875
    assert_allclose([acc.lower, acc.upper, acc.standard_error, acc.df],
                    [special.expit(math.log(3) - half), special.expit(math.log(3) + half),
                     se, nu], rtol=1e-12)
    diff = run_inclusive(0.05, 4e-4, 38.0, component, 5, conf=0.95, logit=False, low=-1.0)
    assert diff is not None
    assert_allclose([diff.lower, diff.upper], [0.05 - t_crit * se, 0.05 + t_crit * se],
                    rtol=1e-12)
    zero = RunComponent(0.75, 0.0, 1e-4, 2e-4, 4.0, 156.0)
    assert run_inclusive(0.75, 4e-4, 38.0, zero, 5, conf=0.95, logit=True) is None
