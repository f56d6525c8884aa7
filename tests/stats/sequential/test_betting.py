"""The hedged-capital betting confidence sequence: confseq's figures, a hand-worked value,
properties against the empirical-Bernstein one, and a seeded time-uniform coverage check."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from assay.stats.sequential import betting_cs, empirical_bernstein_cs, paired_difference_cs
from tests.stats.sequential.confseq_betting_oracle import CASES, TIMES
from tests.stats.sequential.confseq_oracle import datasets

# made by tests/stats/sequential/confseq_betting_oracle.py with confseq 0.0.11
# (confseq.betting.betting_cs; dataset, alpha, breaks, running_intersection, lower at TIMES, upper at TIMES)
ORACLE = [
    ('bernoulli', 0.05, 1000, False,
     [0.0, 0.0, 0.055, 0.133, 0.20400000000000001, 0.23800000000000002, 0.262],
     [1.0, 1.0, 1.0, 0.894, 0.6920000000000001, 0.532, 0.45]),
    ('bernoulli', 0.05, 1000, True,
     [0.0, 0.0, 0.065, 0.133, 0.20700000000000002, 0.23800000000000002, 0.269],
     [1.0, 1.0, 1.0, 0.888, 0.681, 0.523, 0.45]),
    ('beta', 0.1, 1000, True,
     [0.0, 0.0, 0.0, 0.097, 0.184, 0.244, 0.258],
     [1.0, 0.904, 0.684, 0.548, 0.372, 0.335, 0.313]),
    ('beta', 0.05, 400, False,
     [0.0, 0.0, 0.0, 0.08, 0.17, 0.2375, 0.255],
     [1.0, 1.0, 0.74, 0.595, 0.3975, 0.34750000000000003, 0.32]),
    ('skewed', 0.05, 1000, True,
     [0.0, 0.0, 0.067, 0.067, 0.108, 0.12, 0.148],
     [1.0, 1.0, 0.8, 0.592, 0.387, 0.243, 0.214]),
    ('differences', 0.05, 1000, True,
     [0.0, 0.0, 0.226, 0.271, 0.394, 0.479, 0.527],
     [1.0, 1.0, 0.963, 0.784, 0.627, 0.591, 0.591]),
    ('differences', 0.008333333333333333, 1000, True,
     [0.0, 0.0, 0.144, 0.20700000000000002, 0.354, 0.464, 0.52],
     [1.0, 1.0, 1.0, 0.838, 0.67, 0.62, 0.616]),
]


@pytest.mark.parametrize("row", ORACLE, ids=lambda r: f"{r[0]}-{r[1]:.4f}-{r[2]}-{r[3]}")
def test_matches_confseq(row):
    name, alpha, breaks, ri, lower, upper = row
    cs = betting_cs(datasets()[name], conf=1 - alpha, breaks=breaks, running_intersection=ri)
    assert_allclose(cs.lower[list(TIMES)], lower, rtol=0, atol=1e-12)
    assert_allclose(cs.upper[list(TIMES)], upper, rtol=0, atol=1e-12)
    assert cs.method == "hedged_betting_cs"


def test_the_table_covers_every_case():
    assert [(r[0], r[1], r[2], r[3]) for r in ORACLE] == list(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]:.4f}-{c[2]}-{c[3]}")
def test_matches_confseq_live(case):
    """Against the installed confseq at every time (skipped when it is not installed)."""
    betting = pytest.importorskip("confseq.betting")
    name, alpha, breaks, ri = case
    x = datasets()[name]
    lower, upper = betting.betting_cs(x, alpha=alpha, breaks=breaks, running_intersection=ri)
    cs = betting_cs(x, conf=1 - alpha, breaks=breaks, running_intersection=ri)
    assert_allclose(cs.lower, lower, rtol=0, atol=1e-12)
    assert_allclose(cs.upper, upper, rtol=0, atol=1e-12)


def test_hand_worked_two_ones():
    # x = (1, 1), alpha = 0.05 (each gambler's bet at a = 0.025, threshold max(K+, K-)/2 <= 20).
    # lambda_1 = sqrt(2 ln 40 / (1/4 * 1 * ln 2)) = 6.525; mu_hat_1 = (1/2 + 1)/2 = 3/4,
    # sigma2_1 = (1/4 + (1 - 3/4)^2)/2 = 0.15625, lambda_2 = sqrt(2 ln 40 / (0.15625 * 2 ln 3)) = 4.636.
    # For m < 1/2 / 6.525 = 0.0766 neither bet is truncated, so with u = 1 - m
    # K_2^+(m) = (1 + a u)(1 + b u) > 40 iff a b u^2 + (a + b) u - 39 > 0: u > 0.96590, m < 0.034103.
    # Grid: 0.034 out, 0.035 in, lower = 0.035 - 0.001 = 0.034. K^- has factors 1 - lambda^-(m) u
    # >= 1/2 (its truncation) and <= 1, so never reaches 40: upper = 1.
    a = math.sqrt(2 * math.log(40) / (0.25 * math.log(2)))
    b = math.sqrt(2 * math.log(40) / (0.15625 * 2 * math.log(3)))
    u = (-(a + b) + math.sqrt((a + b) ** 2 + 4 * a * b * 39)) / (2 * a * b)
    assert 0.034 < 1 - u < 0.035 and 0.5 / a > 0.035
    cs = betting_cs([1.0, 1.0], conf=0.95, running_intersection=False)
    assert_allclose(cs.lower, [0.0, 0.034], atol=1e-12)
    assert_allclose(cs.upper, [1.0, 1.0], atol=1e-12)


def test_narrower_than_empirical_bernstein_on_small_samples():
    x = datasets()["differences"]
    bet, eb = betting_cs(x[:40]), empirical_bernstein_cs(x[:40])
    assert bet.upper[-1] - bet.lower[-1] < 0.8 * (eb.upper[-1] - eb.lower[-1])


def test_paired_difference_by_method():
    d = datasets()["differences"] * 2 - 1
    half = betting_cs((d + 1) / 2, conf=0.9)
    cs = paired_difference_cs(d, conf=0.9, method="betting")
    assert_allclose(cs.lower, 2 * half.lower - 1, rtol=0, atol=1e-15)
    assert_allclose(cs.upper, 2 * half.upper - 1, rtol=0, atol=1e-15)
    assert cs.method == "hedged_betting_cs"
    assert paired_difference_cs(d).method == "prpl_empirical_bernstein_cs"
    with pytest.raises(ValueError, match="method"):
        paired_difference_cs(d, method="bonferroni")


def test_running_intersection_never_widens_and_contains_the_mean_of_a_constant():
    cs = betting_cs(datasets()["beta"])
    assert np.all(np.diff(cs.lower) >= 0) and np.all(np.diff(cs.upper) <= 0)
    const = betting_cs(np.full(200, 0.3))
    assert np.all(const.lower <= 0.3) and np.all(const.upper >= 0.3)


@pytest.mark.parametrize("bad", [[1.2], [-0.1], [np.nan], []])
def test_refuses_values_off_the_unit_interval(bad):
    with pytest.raises(ValueError, match="x"):
        betting_cs(bad)


def test_refuses_bad_options():
    with pytest.raises(ValueError, match="conf"):
        betting_cs([0.5], conf=0.0)
    with pytest.raises(ValueError, match="truncation"):
        betting_cs([0.5], truncation=0.0)
    with pytest.raises(ValueError, match="breaks"):
        betting_cs([0.5], breaks=1)


@pytest.mark.slow
def test_time_uniform_coverage():
    """Over 400 seeded streams of 300 Bernoulli(0.2) draws, the sequence misses the mean at
    *some* time in at most alpha of them (binomial test at the nominal level)."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(11)
    misses = 0
    for _ in range(400):
        cs = betting_cs((rng.random(300) < 0.2).astype(float), conf=0.9)
        misses += bool(np.any((cs.lower > 0.2) | (cs.upper < 0.2)))
    assert binomtest(misses, 400, 0.1, alternative="greater").pvalue > 0.01
