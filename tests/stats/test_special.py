"""The pure-Python t quantile, logit and expit of the score summary agree with scipy.special."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from assay.stats import t_ppf
from assay.stats._special import expit, logit, t_quantile, t_tail

DFS = [0.3, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 7.3, 9.0, 19.0, 29.0, 49.7, 99.0, 500.0, 1e3,
       4999.0, 5e3, 1e4, 8.5e4, 1e6, 1e9, 1e15]
QS = [1e-12, 1e-6, 0.001, 0.025, 0.1, 0.3, 0.49, 0.5, 0.51, 0.7, 0.9, 0.95, 0.975, 0.995,
      0.999, 1 - 1e-6, 1 - 1e-12]


@pytest.mark.parametrize("df", DFS)
def test_t_quantile_matches_stdtrit(df: float) -> None:
    ours = np.array([t_quantile(q, df) for q in QS])
    np.testing.assert_allclose(ours, special.stdtrit(df, np.array(QS)), rtol=1e-12, atol=1e-14)


def test_t_quantile_at_random_df_and_levels() -> None:
    rng = np.random.default_rng(7)
    df = np.exp(rng.uniform(math.log(0.3), math.log(1e7), 400))
    q = rng.uniform(1e-9, 1 - 1e-9, 400)
    np.testing.assert_allclose(t_ppf(q, df), special.stdtrit(df, q), rtol=1e-12, atol=1e-14)


def test_t_quantile_edges() -> None:
    assert t_quantile(0.5, 3.0) == 0.0
    assert t_quantile(1.0, 3.0) == math.inf and t_quantile(0.0, 3.0) == -math.inf
    for q, df in [(math.nan, 3.0), (0.5, math.nan), (1.2, 3.0), (-0.1, 3.0), (0.9, 0.0),
                  (0.9, -1.0)]:
        assert math.isnan(t_quantile(q, df))
    assert isinstance(t_ppf(0.975, 10), float)
    assert t_ppf(np.array([0.025, 0.975]), 10).shape == (2,)


def test_logit_and_expit_are_scipys_bit_for_bit() -> None:
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.uniform(0, 1, 20_000), rng.uniform(0.29, 0.66, 20_000),
                        10 ** rng.uniform(-300, 0, 2_000), [0.3, 0.65, 0.5]])
    assert [logit(float(v)) for v in p] == special.logit(p).tolist()
    x = rng.normal(0, 8, 20_000)
    assert [expit(float(v)) for v in x] == special.expit(x).tolist()
    assert logit(0.0) == -math.inf and logit(1.0) == math.inf and math.isnan(logit(1.5))
    assert expit(-1000.0) == 0.0 and expit(1000.0) == 1.0


@pytest.mark.parametrize("df", [d for d in DFS if d < 5e3])
def test_t_tail_matches_stdtr(df: float) -> None:
    ts = np.array([-50.0, -5.0, -2.0, -1.0, -0.3, -1e-4, 1e-4, 0.01, 0.3, 1.0, 1.96, 2.5, 4.0,
                   10.0, 50.0, 1e3, 1e6, 1e10])
    ours = np.array([t_tail(t, df) for t in ts])
    np.testing.assert_allclose(ours, special.stdtr(df, -ts), rtol=1e-12, atol=0)


def test_t_tail_edges() -> None:
    assert t_tail(0.0, 3.0) == 0.5
    assert t_tail(math.inf, 3.0) == 0.0 and t_tail(-math.inf, 3.0) == 1.0
    # df = 1 is the Cauchy tail, atan(1/t)/pi; scipy's stdtr loses digits near t = 0 there
    assert t_tail(1e-8, 1.0) == pytest.approx(0.5 - math.atan(1e-8) / math.pi, rel=1e-15)
    for t, df in [(math.nan, 3.0), (1.0, math.nan), (1.0, 0.0), (1.0, 5e3)]:
        assert math.isnan(t_tail(t, df))
