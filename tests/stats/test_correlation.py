"""spearman_interval: rho and p against scipy.stats.spearmanr; the interval by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats as sps

from assay.stats import spearman_interval


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rho_and_p_value_match_scipy(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, size=40).astype(float)  # ties on purpose
    y = x + rng.normal(0, 2, size=40)
    got = spearman_interval(x, y)
    want = sps.spearmanr(x, y)
    assert_allclose([got.estimate, got.p_value], [want.statistic, want.pvalue], rtol=1e-10)
    assert got.n == 40 and got.lower < got.estimate < got.upper


def test_interval_by_hand():
    # x = 1..6, y = 2 1 4 3 6 5: rank differences d = -1 1 -1 1 -1 1, sum d^2 = 6,
    # rho = 1 - 6 * 6 / (6 * 35) = 1 - 36/210 = 0.828571...
    # z = atanh(0.828571) = 1.18349; se = sqrt((1 + 0.828571^2 / 2) / 3) = sqrt(1.343265 / 3)
    # = 0.669145; z_0.975 = 1.959964; half = 1.311499; bounds tanh(z -+ half) = -0.1272, 0.9865
    rho = 1 - 36 / 210
    z = 0.5 * math.log((1 + rho) / (1 - rho))
    se = math.sqrt((1 + rho ** 2 / 2) / 3)
    half = 1.959963984540054 * se
    got = spearman_interval([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])
    assert_allclose(got.estimate, rho, rtol=1e-12)
    assert_allclose([got.lower, got.upper], [math.tanh(z - half), math.tanh(z + half)], rtol=1e-9)
    assert got.method == "fisher_z_bonett_wright" and got.conf == 0.95


def test_degenerate_cases_give_nan_never_zero_width():
    assert math.isnan(spearman_interval([1, 2], [2, 1]).estimate)
    const = spearman_interval([1, 1, 1, 1], [1, 2, 3, 4])
    assert math.isnan(const.estimate) and math.isnan(const.p_value)
    three = spearman_interval([1, 2, 3], [1, 3, 2])  # rho defined, interval needs n >= 4
    assert three.estimate == pytest.approx(0.5) and math.isnan(three.lower)
    perfect = spearman_interval([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert perfect.estimate == 1.0 and perfect.p_value == 0.0 and math.isnan(perfect.upper)
    with pytest.raises(ValueError, match="same length"):
        spearman_interval([1, 2, 3], [1, 2])
