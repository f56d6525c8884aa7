"""korn_graubard_wilson_interval: a hand-worked value, statsmodels' Wilson interval in the
unclustered special cases, and the bounds."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from statsmodels.stats.proportion import proportion_confint

from assay.stats import korn_graubard_interval, korn_graubard_wilson_interval


def test_hand_worked_clusters_of_unequal_accuracy() -> None:
    # Clusters of 5 items with 1, 0, 0, 2 right: N = 20, r = 3/20 = 0.15.
    # Residuals S_c - r n_c = 0.25, -0.75, -0.75, 1.25; sum of squares 0.0625 + 0.5625 +
    # 0.5625 + 1.5625 = 2.75; V = C/(C-1) * 2.75 / N^2 = 4/3 * 2.75 / 400 = 0.0091667.
    # r(1-r)/V = 0.1275 / 0.0091667 = 13.909091; df factor (t_{19,.975} / t_{3,.975})^2 =
    # (2.093024 / 3.182446)^2 = 0.432540, so n* = 13.909091 * 0.432540 = 6.016238.
    # z = 1.959964, z^2/n* = 3.841459 / 6.016238 = 0.638515;
    # centre = (0.15 + 0.319258) / 1.638515 = 0.286392;
    # half = 1.959964 * sqrt(0.1275 / 6.016238 + 0.638515 / (4 * 6.016238)) / 1.638515
    #      = 1.959964 * sqrt(0.021193 + 0.026533) / 1.638515 = 1.959964 * 0.218462 / 1.638515
    #      = 0.261321; bounds 0.286392 -/+ 0.261321 = 0.025071 and 0.547713.
    res = korn_graubard_wilson_interval([1, 0, 0, 2], [5, 5, 5, 5])
    assert res.n == pytest.approx(6.016238, abs=2e-6)
    assert res.lower == pytest.approx(0.025071, abs=2e-6)
    assert res.upper == pytest.approx(0.547713, abs=2e-6)
    assert (res.method, res.df, res.n_clusters) == ("korn_graubard_wilson", 3.0, 4)


def test_capped_at_n_items_equals_statsmodels_wilson() -> None:
    # The design of test_korn_graubard's cap test: n* = N = 100, so the interval is Wilson's
    # for 55 of 100 trials.
    res = korn_graubard_wilson_interval(np.array([5, 6] * 5, float), np.full(10, 10.0))
    assert res.n == 100.0
    assert_allclose([res.lower, res.upper], proportion_confint(55, 100, method="wilson"),
                    rtol=1e-12)


@pytest.mark.parametrize("conf", [0.9, 0.95, 0.99])
def test_one_item_per_cluster_is_wilson_on_n_minus_1(conf) -> None:
    # C = N items alone: V = r(1 - r)/(N - 1), the df factor is 1, so n* = N - 1 trials
    # with x = r (N - 1) successes (statsmodels takes a non-integer count).
    y = np.r_[np.ones(7), np.zeros(33)]
    res = korn_graubard_wilson_interval(y, np.ones(40), conf=conf)
    assert res.n == pytest.approx(39.0)
    lo, hi = proportion_confint(7 / 40 * 39, 39, alpha=1 - conf, method="wilson")
    assert_allclose([res.lower, res.upper], [lo, hi], rtol=1e-10)


def test_all_wrong_stays_two_sided_with_the_kg_effective_n() -> None:
    # r = 0: V = 0, so n* = N (t_{N-1}/t_{C-1})^2 as for Korn-Graubard at the two-sided q,
    # and the upper bound is z^2 / (n* + z^2).
    res = korn_graubard_wilson_interval([0, 0, 0, 0], [5, 5, 5, 5])
    kg = korn_graubard_interval([1, 1, 1, 1], [5, 5, 5, 5])  # V = 0 too, same n*
    z2 = 1.959963984540054**2
    assert res.n == pytest.approx(kg.n)
    assert (res.lower, res.alternative) == (0.0, "two-sided")
    assert res.upper == pytest.approx(z2 / (kg.n + z2))


def test_narrower_than_clopper_pearson_on_the_same_n() -> None:
    sums, sizes = np.array([1, 0, 0, 2, 0, 1.0]), np.full(6, 5.0)
    w = korn_graubard_wilson_interval(sums, sizes)
    cp = korn_graubard_interval(sums, sizes)
    assert w.n == pytest.approx(cp.n)
    assert cp.lower < w.lower < w.estimate < w.upper < cp.upper


def test_rejects_bad_design_df() -> None:
    with pytest.raises(ValueError, match="design_df"):
        korn_graubard_wilson_interval([1, 2], [5, 5], design_df=0.5)
