"""The PrPl empirical-Bernstein confidence sequence: confseq's figures, a hand-worked value,
properties, and a seeded time-uniform coverage check."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

from assay.stats.sequential import (
    cluster_means,
    empirical_bernstein_cs,
    paired_difference_cs,
)
from tests.stats.sequential.confseq_oracle import CASES, TIMES, datasets

# made by tests/stats/sequential/confseq_oracle.py with confseq 0.0.11
# (dataset, alpha, truncation, running_intersection, lower at TIMES, upper at TIMES)
ORACLE = [
    ('bernoulli', 0.05, 0.5, False,
     [0.0, 0.0, 0.0, 0.0,
      0.07723041305934969, 0.1971595436137001, 0.24523478372248705],
     [1.0, 1.0, 1.0, 1.0,
      0.8023127323113133, 0.5391379103716176, 0.4481421403137982]),
    ('bernoulli', 0.05, 0.5, True,
     [0.0, 0.0, 0.0, 0.0,
      0.08257030089452849, 0.1971595436137001, 0.2522839875746885],
     [1.0, 1.0, 1.0, 1.0,
      0.791679856688861, 0.5280779734325911, 0.4481421403137982]),
    ('beta', 0.1, 0.5, True,
     [0.0, 0.0, 0.0, 0.0,
      0.029556042542600303, 0.21956265418352278, 0.2566151849848652],
     [1.0, 1.0, 1.0, 0.8638792889276982,
      0.45086411542757077, 0.35749045889138276, 0.3184931563155703]),
    ('beta', 0.05, 0.75, False,
     [0.0, 0.0, 0.0, 0.0,
      0.05855026770363686, 0.2189860581002506, 0.25047337337300735],
     [1.0, 1.0, 1.0, 0.8027670361519628,
      0.43449788262705147, 0.36325974864108834, 0.3286004110112811]),
    ('skewed', 0.05, 0.5, True,
     [0.0, 0.0, 0.0, 0.0,
      0.0, 0.07133005668385921, 0.14070197207216095],
     [1.0, 1.0, 1.0, 0.9732327078009732,
      0.4739565698044481, 0.26020067680620707, 0.2208594320427073]),
    ('differences', 0.05, 0.5, True,
     [0.0, 0.0, 0.0, 0.0,
      0.2491782853727964, 0.4567685638616274, 0.5273134493383523],
     [1.0, 1.0, 1.0, 1.0,
      0.7777168086085389, 0.6498546783349528, 0.6226727835001642]),
]


@pytest.mark.parametrize("row", ORACLE, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}-{r[3]}")
def test_matches_confseq(row):
    name, alpha, truncation, ri, lower, upper = row
    cs = empirical_bernstein_cs(datasets()[name], conf=1 - alpha, truncation=truncation,
                                running_intersection=ri)
    assert_allclose(cs.lower[list(TIMES)], lower, rtol=0, atol=1e-12)
    assert_allclose(cs.upper[list(TIMES)], upper, rtol=0, atol=1e-12)


def test_the_table_covers_every_case():
    assert [(r[0], r[1], r[2], r[3]) for r in ORACLE] == list(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}-{c[3]}")
def test_matches_confseq_live(case):
    """Against the installed confseq at every time (skipped when it is not installed)."""
    predmix = pytest.importorskip("confseq.predmix")
    name, alpha, truncation, ri = case
    x = datasets()[name]
    lower, upper = predmix.predmix_empbern_twosided_cs(x, alpha=alpha, truncation=truncation,
                                                       running_intersection=ri)
    cs = empirical_bernstein_cs(x, conf=1 - alpha, truncation=truncation, running_intersection=ri)
    assert_allclose(cs.lower, lower, rtol=0, atol=1e-12)
    assert_allclose(cs.upper, upper, rtol=0, atol=1e-12)


def test_hand_worked_constant_sequence():
    # x_t = 1/2 for t = 1..100, alpha = 0.05 (each side a = 0.025):
    # the regularised mean stays 1/2, so sigma2_{t-1} = (1/4)/t and
    # lambda_t = sqrt(2 ln 40 * 4t / (t ln(1+t))) = sqrt(8 ln 40 / ln(1+t)) > 1/2: every bet is c = 1/2.
    # v_1 = (1/2 - 0)^2 = 1/4 (m_0 = 0), v_t = 0 after; psi(1/2) = ln 2 - 1/2.
    # margin_100 = (ln 40 + (ln 2 - 1/2)/4) / (100 / 2); centre = 1/2.
    margin = (math.log(40) + (math.log(2) - 0.5) / 4) / 50
    cs = empirical_bernstein_cs(np.full(100, 0.5), conf=0.95)
    assert_allclose(cs.lower[-1], 0.5 - margin, rtol=1e-13)
    assert_allclose(cs.upper[-1], 0.5 + margin, rtol=1e-13)
    assert_allclose(margin, 0.07474332498507845, rtol=1e-13)


def test_paired_difference_is_the_rescaled_mean():
    d = datasets()["differences"] * 2 - 1
    half = empirical_bernstein_cs((d + 1) / 2, conf=0.9)
    cs = paired_difference_cs(d, conf=0.9)
    assert_allclose(cs.lower, 2 * half.lower - 1, rtol=0, atol=1e-15)
    assert_allclose(cs.upper, 2 * half.upper - 1, rtol=0, atol=1e-15)
    assert_allclose(cs.estimate[-1], d.mean(), rtol=1e-12)


def test_swapping_the_arms_mirrors_the_sequence():
    d = datasets()["differences"] * 2 - 1
    ab, ba = paired_difference_cs(d), paired_difference_cs(-d)
    assert_allclose(ab.lower, -ba.upper, atol=1e-12)
    assert_allclose(ab.upper, -ba.lower, atol=1e-12)


def test_running_intersection_never_widens():
    cs = empirical_bernstein_cs(datasets()["beta"], running_intersection=True)
    assert np.all(np.diff(cs.lower) >= 0) and np.all(np.diff(cs.upper) <= 0)
    assert np.all(cs.lower <= cs.upper)


def test_a_higher_level_is_wider():
    x = datasets()["beta"]
    narrow, wide = empirical_bernstein_cs(x, conf=0.9), empirical_bernstein_cs(x, conf=0.99)
    assert np.all(wide.lower <= narrow.lower) and np.all(wide.upper >= narrow.upper)
    assert wide.upper[-1] - wide.lower[-1] > narrow.upper[-1] - narrow.lower[-1]


@pytest.mark.parametrize("bad", [[1.2], [-0.1], [np.nan], []])
def test_refuses_values_off_the_unit_interval(bad):
    with pytest.raises(ValueError, match="x"):
        empirical_bernstein_cs(bad)


def test_refuses_a_bad_level_and_truncation():
    with pytest.raises(ValueError, match="conf"):
        empirical_bernstein_cs([0.5], conf=1.0)
    with pytest.raises(ValueError, match="truncation"):
        empirical_bernstein_cs([0.5], truncation=1.0)
    with pytest.raises(ValueError, match="differences"):
        paired_difference_cs([1.5])


def test_cluster_means_in_first_appearance_order():
    assert_allclose(cluster_means([1, 0, 1, 1, 0], ["b", "b", "a", "c", "a"]), [0.5, 0.5, 1.0])
    with pytest.raises(ValueError, match="clusters"):
        cluster_means([1, 0], ["a"])


@pytest.mark.slow
def test_time_uniform_coverage():
    """Over 400 seeded streams of 500 Bernoulli(0.2) draws, the sequence misses the mean at
    *some* time in at most alpha of them (binomial test at the nominal level)."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(7)
    misses = 0
    for _ in range(400):
        cs = empirical_bernstein_cs((rng.random(500) < 0.2).astype(float), conf=0.9)
        misses += bool(np.any((cs.lower > 0.2) | (cs.upper < 0.2)))
    assert binomtest(misses, 400, 0.1, alternative="greater").pvalue > 0.01
