"""Seed 000's run-level statistics and the items interval beside them.

Oracles: hand-worked values (comments); the standard library's statistics module for
mean, median and sample SD; scipy.stats.bootstrap (method="percentile", the same
numpy Generator seeded 42) and the exact bootstrap distribution by enumeration for the
run-level interval; statsmodels OLS with cluster-robust covariance and use_t=True for the
items interval; the simulator's truth (judge offsets +8 and -6 points) on the demo.
"""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats

from assay.analysis.aggregate import aggregate, percentile_bootstrap_mean
from assay.stats import bell_mccaffrey_df, working_icc

from .conftest import make_table

# Clusters c1 = {a, b}, c2 = {c}, c3 = {d}; item e always failed; item f only in the dev split.
SCORES = {1: {"a": 4, "b": 6, "c": 8, "d": 2},
          2: {"a": 5, "b": 7, "c": 9, "d": 3},
          3: {"a": 6, "b": 5, "c": 7, "d": 6}}
CLUSTER = {"a": "c1", "b": "c1", "c": "c2", "d": "c3", "e": "c3", "f": "c3"}


def hand_table():
    records = []
    for run, scores in SCORES.items():
        for item, score in scores.items():
            records.append({"item": item, "cluster": CLUSTER[item], "arm": "sys", "run": run,
                            "judge": "judge-v1", "criterion": "rating", "score": score,
                            "split": "test"})
        records.append({"item": "e", "cluster": "c3", "arm": "sys", "run": run,
                        "judge": "judge-v1", "criterion": "rating", "score": None,
                        "failure_kind": "timeout", "split": "test"})
        records.append({"item": "f", "cluster": "c3", "arm": "sys", "run": run,
                        "judge": "judge-v1", "criterion": "rating", "score": 10,
                        "split": "dev"})
    return make_table(records, {"rating": "range:0,10"})


@pytest.fixture(scope="module")
def hand_report():
    return aggregate(hand_table())


def test_run_statistics_by_hand(hand_report):
    (a,) = hand_report.aggregations
    # Run means: (4+6+8+2)/4 = 5, (5+7+9+3)/4 = 6, (6+5+7+6)/4 = 6; the failed item e and the
    # dev item f are left out.
    assert a.per_run_scores == (5.0, 6.0, 6.0) and a.runs == (1, 2, 3)
    # Mean 17/3; median 6; deviations -2/3, 1/3, 1/3 -> variance (4+1+1)/9/2 = 1/3.
    assert_allclose(a.mean, 17 / 3, rtol=1e-12)
    assert a.median == 6.0 and (a.minimum, a.maximum) == (5.0, 6.0)
    assert_allclose(a.std_dev, math.sqrt(1 / 3), rtol=1e-12)
    assert_allclose([a.mean, a.median, a.std_dev],
                    [statistics.mean([5, 6, 6]), statistics.median([5, 6, 6]),
                     statistics.stdev([5, 6, 6])], rtol=1e-12)
    # Bootstrap of (5, 6, 6): the resample mean is 5 with probability (1/3)^3 = 0.037 > 0.025
    # and 6 with probability (2/3)^3 = 0.296 > 0.025, so the 2.5th and 97.5th percentiles of
    # 10,000 resample means are 5 and 6.
    assert (a.ci_lower, a.ci_upper) == (5.0, 6.0)
    assert (a.num_runs, a.n_scores, a.n_missing) == (3, 12, 3)
    assert hand_report.n_not_reportable == 3 and hand_report.n_unscored == 3
    assert hand_report.total_runs == 3 and hand_report.quiz_ids == ("c1", "c2", "c3")


def test_items_interval_by_hand_and_against_statsmodels(hand_report):
    (a,) = hand_report.aggregations
    i = a.items_interval
    # Item means over runs: a 5, b 6, c 8, d 11/3. Cluster sums 11 (2 items), 8, 11/3; N = 4;
    # r = (11 + 8 + 11/3) / 4 = 17/3. Residuals 11 - 34/3 = -1/3, 8 - 17/3 = 7/3,
    # 11/3 - 17/3 = -2; CR2 weighs them by 1 / (1 - n_c/N) = 2, 4/3, 4/3 (the sizes differ):
    # V2 = (2/9 + 4/3 * 49/9 + 4/3 * 36/9) / 16 = 346/432 (CR1 with C/(C-1): 129/144).
    assert_allclose(i.estimate, 17 / 3, rtol=1e-12)
    assert_allclose(i.standard_error, math.sqrt(346 / 432), rtol=1e-12)
    sizes = np.array([2.0, 1.0, 1.0])
    df = bell_mccaffrey_df(sizes, icc=working_icc([11, 8, 11 / 3], [61, 64, 121 / 9], sizes))
    half = stats.t.ppf(0.975, df) * math.sqrt(346 / 432)
    assert_allclose([i.lower, i.upper], [17 / 3 - half, 17 / 3 + half], rtol=1e-12)
    assert (i.n_items, i.n_clusters, i.method) == (4, 3, "cluster_robust_t")
    assert i.df == pytest.approx(df, rel=1e-12) and df < 2
    item_means = np.array([5, 6, 8, 11 / 3])
    fit = sm.OLS(item_means, np.ones(4)).fit(cov_type="cluster",
                                             cov_kwds={"groups": np.array([0, 0, 1, 2])},
                                             use_t=True)
    assert_allclose(i.estimate, fit.params[0], rtol=1e-12)


@pytest.mark.parametrize("values", [[75.5, 78.2, 77.1, 79.3, 78.8], [1.0, 2.0, 4.0, 8.0],
                                    [0.61, 0.64]])
def test_bootstrap_matches_scipy_with_the_same_generator(values):
    x = np.array(values)
    ours = percentile_bootstrap_mean(x, n_resamples=10_000, seed=42, conf=0.95)
    theirs = stats.bootstrap((x,), np.mean, n_resamples=10_000, method="percentile",
                             rng=np.random.default_rng(42)).confidence_interval
    assert_allclose(ours, (theirs.low, theirs.high), rtol=1e-12)


def test_bootstrap_is_close_to_the_exact_bootstrap_distribution():
    # All 5^5 equally likely resamples of five run means, enumerated: the exact percentiles.
    x = np.array([75.5, 78.2, 77.1, 79.3, 78.8])
    means = np.sort([np.mean(c) for c in itertools.product(x, repeat=5)])
    cdf = np.arange(1, len(means) + 1) / len(means)
    exact = (means[np.searchsorted(cdf, 0.025)], means[np.searchsorted(cdf, 0.975)])
    ours = percentile_bootstrap_mean(x, n_resamples=10_000, seed=42, conf=0.95)
    # Monte Carlo error of a 2.5% quantile of 10,000 draws: well under 0.1 points here.
    assert_allclose(ours, exact, atol=0.1)


def test_bootstrap_needs_two_runs():
    assert all(math.isnan(v) for v in percentile_bootstrap_mean(
        np.array([3.0]), n_resamples=100, seed=42, conf=0.95))


def test_same_seed_same_report_other_seed_other_interval(demo_judgments, demo_report):
    again = aggregate(demo_judgments, benchmark_config_name="demo", benchmark_version="1.0")
    assert again.to_dict() == demo_report.to_dict()
    other = aggregate(demo_judgments, seed=43)
    mine = {(a.criterion, a.judge): a for a in demo_report.aggregations}
    moved = [(a.ci_lower, a.ci_upper) != (mine[a.criterion, a.judge].ci_lower,
                                          mine[a.criterion, a.judge].ci_upper)
             for a in other.aggregations]
    assert any(moved)
    assert [a.mean for a in other.aggregations] == [a.mean for a in demo_report.aggregations]
    assert demo_report.to_dict()["methods"]["ci"]["seed"] == 42
    assert demo_report.to_dict()["methods"]["ci"]["n_resamples"] == 10_000


def test_demo_quality_per_run_means_recomputed(demo_judgments, demo_report):
    f = demo_judgments.frame
    for judge in ("judge-lenient", "judge-strict"):
        (a,) = [x for x in demo_report.aggregations
                if (x.criterion, x.judge) == ("quality", judge)]
        expected = []
        for run in range(1, 6):
            mask = ((f["criterion"] == "quality") & (f["judge"] == judge) & (f["run"] == run)
                    & f["reportable"] & f["score"].notna()).to_numpy()
            expected.append(float(np.mean(f["score"].to_numpy(dtype=float)[mask])))
        assert_allclose(a.per_run_scores, expected, rtol=1e-12)
        assert_allclose(a.std_dev, statistics.stdev(expected), rtol=1e-12)
        assert a.num_runs == 5 and a.arms == ("atlas-7b", "beacon-13b", "cirrus-70b")
        # The items interval respects the 40 documents; the test split holds 180 items.
        assert a.items_interval.n_clusters == 40 and a.items_interval.n_items == 180
        assert a.items_interval.lower < a.items_interval.estimate < a.items_interval.upper
        # The run-level interval is much narrower than the interval over items: five run
        # means that barely move say nothing about how the questions were sampled.
        assert (a.ci_upper - a.ci_lower) < (a.items_interval.upper - a.items_interval.lower) / 3


def test_demo_judges_differ_by_their_simulated_leniency(demo_report):
    means = {a.judge: a.mean for a in demo_report.aggregations if a.criterion == "quality"}
    # Simulator truth: judge-lenient +8 points, judge-strict -6 points, noise sd 7 and 9; the
    # clip to [0, 100] pulls the gap in a little. About 2,700 scores each.
    assert 12.0 < means["judge-lenient"] - means["judge-strict"] < 15.0


def test_what_is_left_out_is_named(demo_report):
    criteria = {(a.criterion, a.judge) for a in demo_report.aggregations}
    assert criteria == {("correct", "exact-match"), ("quality", "judge-lenient"),
                        ("quality", "judge-strict"), ("helpfulness", "judge-ordinal")}
    notes = " ".join(demo_report.notes)
    assert "'preference' is pairwise" in notes
    assert "'helpfulness' is ordinal" in notes
    assert "1319 rows of the dev or calibration split" in notes
    assert demo_report.n_invalid == 17 and "17 run-folder records" in notes


def test_nominal_criterion_is_left_out_with_a_note():
    records = [{"item": f"q{i}", "arm": "a", "run": r, "judge": "j-v1", "criterion": "colour",
                "score": (i + r) % 3} for i in range(4) for r in (1, 2)]
    report = aggregate(make_table(records, {"colour": "nominal:red,green,blue"}))
    assert report.aggregations == () and report.reliability == ()
    assert any("'colour' is nominal" in n for n in report.notes)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"conf": 1.0}, "conf"), ({"n_resamples": 0}, "n_resamples"),
    ({"n_resamples": 2.5}, "n_resamples"), ({"seed": -1}, "seed"),
])
def test_bad_options_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        aggregate(hand_table(), **kwargs)


def test_a_judge_whose_every_score_failed_is_null_not_nan():
    records = [{"item": f"q{i}", "cluster": f"c{i % 2}", "arm": "a", "run": run,
                "judge": judge, "criterion": "c",
                "score": None if judge == "broken-v1" else float(i + run),
                "failure_kind": "api_error" if judge == "broken-v1" else None}
               for i in range(4) for run in (1, 2) for judge in ("ok-v1", "broken-v1")]
    report = aggregate(make_table(records, {"c": "range:0,10"}))
    broken = report.to_dict()["aggregations"]["c_broken-v1"]
    assert broken["mean"] is None and broken["num_runs"] == 0 and broken["per_run_scores"] == []
    assert broken["num_missing"] == 8
    assert any(f.kind == "single_run" and f.judge == "broken-v1" and "no scored run" in f.message
               for f in report.flags)
    assert report.to_json()  # no NaN reaches the JSON


def test_items_interval_in_few_unequal_clusters_is_flagged_as_the_benchmark_flags_it():
    # Issue 26 (3): the aggregate computed no G*. Three clusters of 30 items and nine
    # singletons, each cluster its own level, two runs: G* about 3, flagged with its note.
    rng = np.random.default_rng(5)
    records, k = [], 0
    for c, size in enumerate([30, 30, 30] + [1] * 9):
        level = rng.uniform(2, 9)
        for _ in range(size):
            for run in (1, 2):
                records.append({"item": f"q{k}", "cluster": f"d{c}", "arm": "A", "run": run,
                                "judge": "j", "criterion": "rating",
                                "score": float(np.clip(level + rng.normal(0, 1), 0, 10))})
            k += 1
    report = aggregate(make_table(records, {"rating": "range:0,10"}), n_resamples=200)
    [agg] = [a for a in report.aggregations if a.judge == "j"]
    assert agg.items_interval.design_flagged and agg.items_interval.effective_clusters < 8
    assert any(n.startswith("rating / j, items interval: the 12 clusters count as")
               for n in report.notes)
    assert '"design_flagged": true' in report.to_json()
