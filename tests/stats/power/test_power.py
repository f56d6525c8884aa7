"""Power and sample size of a planned design: hand-worked values and statsmodels' power
classes on the unclustered case."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.power import NormalIndPower, TTestPower

from assay.stats.power import (
    VarianceComponents,
    design_df,
    design_power,
    design_variance,
    paired_variance,
    preference_variance,
    size_for_difference,
    size_for_width,
    variance_components,
)


def test_design_variance_hand_worked():
    # sigma^2 = 0.25 split: cluster 0.1 x 0.25 = 0.025, within 0.4 x 0.25 = 0.1,
    # question 0.5 x 0.25 = 0.125; run shift variance 0.01.
    c = variance_components(0.25, icc=0.1, within_share=0.4, run_variance=0.01)
    assert_allclose([c.cluster, c.question, c.within, c.run], [0.025, 0.125, 0.1, 0.01])
    # 20 clusters of mean 5 (cv 0.5), 2 runs, 2 trials:
    # per question 0.025 x 5 x 1.25 + 0.125 + 0.1 / 4 = 0.15625 + 0.125 + 0.025 = 0.30625,
    # / 100 questions = 0.0030625, plus 0.01 / 2 runs = 0.005 -> 0.0080625
    v = design_variance(c, clusters=20, cluster_size=5, size_cv=0.5, runs=2, trials=2)
    assert_allclose(v, 0.0080625, rtol=1e-12)


def test_unequal_sizes_match_the_sum_over_clusters():
    # sizes 2, 4, 6, 8: n = 20, sum n_c^2 = 120; tau^2 = 0.3, sigma_q^2 = 0.7:
    # V = (0.3 x 120 + 0.7 x 20) / 20^2 = (36 + 14) / 400 = 0.125.
    # mean size 5, population SD sqrt(5), cv^2 = 0.2: 0.3 x 5 x 1.2 = 1.8, (1.8 + 0.7) / 20 = 0.125
    c = VarianceComponents(cluster=0.3, question=0.7, within=0.0)
    assert_allclose(design_variance(c, clusters=4, cluster_size=5, size_cv=math.sqrt(0.2)), 0.125)


def test_design_effect_is_kish():
    # no within part: V = sigma^2 (1 + (m - 1) rho) / n = 1 x (1 + 9 x 0.2) / 200 = 0.014
    c = variance_components(1.0, icc=0.2)
    assert_allclose(design_variance(c, clusters=20, cluster_size=10), 0.014)


def test_paired_variance_hand_worked():
    # 0.21 + 0.24 - 2 x 0.3 x sqrt(0.21 x 0.24) = 0.45 - 0.6 x 0.2244994 = 0.3153004
    assert_allclose(paired_variance(0.21, 0.24, correlation=0.3), 0.45 - 0.6 * math.sqrt(0.0504))
    assert paired_variance(0.25, 0.25, correlation=1.0) == 0.0
    with pytest.raises(ValueError, match="correlation"):
        paired_variance(0.2, 0.2, correlation=1.5)


def test_normal_sample_size_is_millers_formula():
    # z_{0.975} + z_{0.8} = 1.959964 + 0.841621 = 2.801585, squared 7.848879;
    # paired variance 0.5, D = 0.05: n = 7.848879 x 0.5 / 0.0025 = 1569.78 -> 1570
    res = size_for_difference(variance_components(0.5), 0.05, method="normal")
    assert res.questions == 1570 and res.reachable
    # the same with clusters of 10 at rho = 0.05: DE = 1.45, n = 2276.2 -> 228 clusters of 10
    res = size_for_difference(variance_components(0.5, icc=0.05), 0.05, cluster_size=10,
                              method="normal")
    assert (res.clusters, res.questions) == (228, 2280)


def test_normal_matches_statsmodels_one_sample():
    for sigma2, d in [(0.25, 0.05), (0.5, 0.1), (1.0, 0.3)]:
        n = NormalIndPower().solve_power(effect_size=d / math.sqrt(sigma2), alpha=0.05,
                                         power=0.8, ratio=0)
        res = size_for_difference(variance_components(sigma2), d, method="normal")
        assert res.questions == math.ceil(n)
        assert_allclose(design_power(d, sigma2 / 137, math.inf, method="normal"),
                        NormalIndPower().power(d / math.sqrt(sigma2), 137, 0.05, ratio=0),
                        rtol=1e-9)


def test_t_matches_statsmodels_ttest_power():
    for sigma2, d, power in [(0.25, 0.05, 0.8), (0.5, 0.2, 0.9), (1.0, 0.5, 0.8)]:
        effect = d / math.sqrt(sigma2)
        n = TTestPower().solve_power(effect_size=effect, alpha=0.05, power=power)
        res = size_for_difference(variance_components(sigma2), d, power=power)
        assert res.clusters == math.ceil(n), (n, res)
        assert res.df == res.clusters - 1
        for nobs in (5, 12, 40):
            assert_allclose(design_power(d, sigma2 / nobs, nobs - 1.0),
                            TTestPower().power(effect, nobs, 0.05), rtol=1e-8)


def test_t_needs_more_than_normal_with_few_clusters():
    # clusters of 50 at rho 0.3: each cluster is worth few questions, the t on C - 1 df adds
    c = variance_components(0.25, icc=0.3)
    t = size_for_difference(c, 0.1, cluster_size=50)
    z = size_for_difference(c, 0.1, cluster_size=50, method="normal")
    assert t.clusters > z.clusters >= 2
    # the smallest: one cluster fewer falls short. V at C - 1: 0.25 (1 + 49 x 0.3) / (50 (C - 1))
    fewer = t.clusters - 1
    assert t.power >= 0.8 > design_power(0.1, 0.25 * 15.7 / (50 * fewer), fewer - 1.0)


def test_run_shift_caps_what_questions_reach():
    # D = 0.05, z^2 = 7.8489; V_run = 0.002 / 1 run: z^2 V_run = 0.0157 > D^2 = 0.0025
    c = variance_components(0.25, run_variance=0.002)
    res = size_for_difference(c, 0.05)
    assert not res.reachable
    # 10 runs: V_run = 0.0002, z^2 V_run = 0.00157 < 0.0025; normal n = 7.8489 x 0.25 /
    # (0.0025 - 0.0015698) = 1.9622 / 0.00093 = 2109.4 -> 2110
    res = size_for_difference(c, 0.05, runs=10, method="normal")
    assert res.reachable and res.questions == 2110
    t = size_for_difference(c, 0.05, runs=10)
    # V_1 = 0.25 / n on n - 1 df, V_run = 0.0002 on 9 df: the Satterthwaite df sit near 9 + a bit
    v_1 = 0.25 / t.questions
    assert t.reachable and t.questions > 2110
    assert_allclose(t.df, (v_1 + 0.0002) ** 2 / (v_1**2 / (t.questions - 1) + 0.0002**2 / 9))
    assert 9 < t.df < 30


def test_design_df_is_satterthwaite():
    # V_1 = 0.25 / 100 = 0.0025 on 99 df, V_run = 0.01 / 5 = 0.002 on 4 df:
    # (0.0045)^2 / (0.0025^2 / 99 + 0.002^2 / 4) = 2.025e-5 / (6.3131e-8 + 1e-6) = 18.8687
    c = variance_components(0.25, run_variance=0.01)
    assert_allclose(design_df(c, clusters=100, runs=5), 2.025e-5 / (0.0025**2 / 99 + 0.002**2 / 4))


def test_width_hand_worked():
    # (2 x 1.959964)^2 x 0.25 / 0.05^2 = 15.366 x 100 = 1536.6 -> 1537 questions
    assert size_for_width(variance_components(0.25), 0.05, method="normal").questions == 1537
    # t: 2 t_{n-1} sqrt(0.25 / n) at n = 1539: 2 x 1.9615076 x 0.0127444 = 0.0500001 > 0.05;
    # at n = 1540: 2 x 1.9615066 x 0.0127412 = 0.0499838 <= 0.05
    res = size_for_width(variance_components(0.25), 0.05)
    assert res.questions == 1540 and res.width <= 0.05


def test_trials_reduce_only_the_within_part():
    c = variance_components(1.0, within_share=0.5)
    # per question 0.5 + 0.5 / K: K = 1 -> 1.0, K = 4 -> 0.625; n falls by 0.625
    one = size_for_difference(c, 0.1, method="normal").questions
    four = size_for_difference(c, 0.1, trials=4, method="normal").questions
    assert one == math.ceil(7.848879 / 0.01 - 1e-6) and four == math.ceil(0.625 * 7.848879 / 0.01)


@pytest.mark.parametrize("bad", [dict(difference=0.0), dict(power=1.0), dict(conf=0.0)])
def test_bad_arguments(bad):
    kw = dict(difference=0.1, power=0.8, conf=0.95) | bad
    with pytest.raises(ValueError):
        size_for_difference(variance_components(0.25), kw.pop("difference"), **kw)


def test_preference_variance_hand_worked_and_by_enumeration():
    # P = 0.6, 20% ties: wins 0.5, losses 0.3; E[s^2] = 0.5 + 0.2 / 4 = 0.55, Var = 0.55 - 0.36
    assert_allclose(preference_variance(0.6, tie_rate=0.2), 0.19, rtol=1e-12)
    assert_allclose(preference_variance(0.5), 0.25)  # no ties: the binary p (1 - p)
    # the variance of the three-point distribution itself (numpy's weighted moments)
    scores = np.array([0.0, 0.5, 1.0])
    for p, t in ((0.6, 0.2), (0.3, 0.5), (0.5, 1.0), (0.9, 0.1)):
        probs = np.array([1.0 - p - t / 2, t, p - t / 2])
        mean = np.average(scores, weights=probs)
        assert_allclose(mean, p)
        assert_allclose(preference_variance(p, tie_rate=t),
                        np.average((scores - mean) ** 2, weights=probs), atol=1e-15)
    with pytest.raises(ValueError, match="tie_rate must be at most"):
        preference_variance(0.9, tie_rate=0.3)  # losses would be 0.1 - 0.15 < 0
    with pytest.raises(ValueError, match="win_rate"):
        preference_variance(1.2)
