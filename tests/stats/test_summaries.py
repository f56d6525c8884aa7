"""CoEval's summaries: expected values worked by hand, or from scipy / numpy as oracles."""

import math

import numpy as np
import pytest
from scipy import stats as sps

from assay.stats.summaries import (
    attribute_diversity,
    equal_count_bins,
    percentile_bands,
    ranking_stability,
    reliability_weights,
)


def test_diversity_by_hand():
    # p = (1/2, 1/4, 1/4): H = 1.5 ln 2 = 1.0397208; J = H / ln 3 = 0.9463946
    d = attribute_diversity([2, 1, 1])
    assert d.entropy == pytest.approx(1.0397208, abs=1e-7)
    assert d.normalised_entropy == pytest.approx(0.9463946, abs=1e-7)
    assert d.distinct_share == 1.0
    assert d.normalised_entropy == pytest.approx(sps.entropy([2, 1, 1], base=3))


def test_diversity_counts_unseen_levels():
    d = attribute_diversity([3, 1], n_levels=4)
    assert d.distinct_share == 0.5 and d.n_distinct == 2 and d.n == 4
    assert d.normalised_entropy == pytest.approx(sps.entropy([3, 1, 0, 0], base=4))
    one = attribute_diversity([5], n_levels=3)
    assert one.normalised_entropy == 0.0 and one.distinct_share == pytest.approx(1 / 3)
    assert math.isnan(attribute_diversity([4]).normalised_entropy)  # K = 1: undefined
    with pytest.raises(ValueError, match="n_levels"):
        attribute_diversity([1, 1, 1], n_levels=2)


def test_equal_count_bins_keep_ties_together():
    assert equal_count_bins([5, 1, 2, 2, 3, 4], 3).tolist() == [2, 0, 0, 0, 1, 2]
    # a three-level judge: the bins are its levels
    assert equal_count_bins([0, 0.5, 0, 1, 0.5, 0], 3).tolist() == [0, 1, 0, 2, 1, 0]
    assert equal_count_bins(np.arange(10.0), 5).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert equal_count_bins([1.0, 1.0, 1.0], 4).tolist() == [0, 0, 0]


def test_percentile_bands_by_hand_and_against_numpy():
    bands = percentile_bands([4.0, 1.0, 3.0, 2.0], percentiles=[0, 25, 50, 90, 100])
    assert bands.values == pytest.approx([1.0, 1.75, 2.5, 3.7, 4.0])
    x = np.random.default_rng(3).normal(size=37)
    assert percentile_bands(x).values == pytest.approx(np.percentile(x, [10, 25, 50, 75, 90]))
    assert all(math.isnan(v) for v in percentile_bands([]).values)


def test_reliability_weights_by_hand():
    # j0 = j1 = (0,1,1,0); j2 = (1,0,1,0). Rest of j0: (.5,.5,1,0): r = .5 / sqrt(1 * .5)
    w = reliability_weights([[0, 0, 1], [1, 1, 0], [1, 1, 1], [0, 0, 0]])
    assert w.rest_correlations == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2), 0.0])
    assert w.weights == pytest.approx([0.5, 0.5, 0.0])
    assert not w.equal_fallback and w.n_shared == [4, 4, 4]


def test_reliability_weights_missing_scores_and_fallback():
    nan = math.nan
    m = np.array([[1, 1, nan], [2, 3, 1], [3, 2, 3], [4, 4, nan], [5, 5, 5.0]])
    w = reliability_weights(m)
    # judge 2 shares units 1, 2, 4 with the mean of judges 0 and 1: (2.5, 2.5, 5)
    assert w.n_shared == [5, 5, 3]
    assert w.rest_correlations[2] == pytest.approx(np.corrcoef([1, 3, 5], [2.5, 2.5, 5])[0, 1])
    assert sum(w.weights) == pytest.approx(1.0)
    opposed = reliability_weights([[0, 1], [1, 0], [0, 1], [1, 0]])
    assert opposed.equal_fallback and opposed.weights == [0.5, 0.5]
    assert reliability_weights([[1.0], [2.0]]).weights == [1.0]


def test_ranking_stability_by_hand_and_against_scipy():
    s = ranking_stability([[1, 2, 3], [1, 2, 3], [1, 3, 2]])
    assert s.mean_tau == pytest.approx(5 / 9) and s.min_tau == pytest.approx(1 / 3)
    assert s.n_pairs == 3 and s.n_undefined == 0
    m = np.random.default_rng(7).integers(0, 4, size=(6, 5)).astype(float)
    m[2] = 1.0  # all tied: its pairs are undefined
    taus = [sps.kendalltau(m[r], m[t]).statistic for r in range(6) for t in range(r + 1, 6)]
    finite = [t for t in taus if np.isfinite(t)]
    got = ranking_stability(m)
    assert got.mean_tau == pytest.approx(np.mean(finite)) and got.n_undefined == 5
