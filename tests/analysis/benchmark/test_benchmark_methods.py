"""Interval methods, fallbacks, regimes and reproducibility of the benchmark report."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats

import assay.analysis.benchmark._report as benchmark_module
from assay.analysis.benchmark import benchmark_report
from assay.errors import DesignError
from assay.stats.contrasts import tango_effective_n, tango_interval


def test_descriptive_below_five_runs(make_bench):
    report = benchmark_report(make_bench(runs=3))
    assert report.descriptive is True and report.method == "descriptive"
    assert all(r["lower"] is None and r["upper"] is None and r["rank_lower"] is None
               and r["method"] == "descriptive" for r in report.accuracy)
    assert all(r["lower"] is None for r in report.contrasts + report.simultaneous)
    assert sorted({r["k"] for r in report.pass_k}) == [1, 3]
    assert all(r["lower"] is None for r in report.pass_k)
    assert all(r["usd_per_correct_lower"] is None for r in report.cost)
    assert all(r["frontier_share"] is None for r in report.frontier)
    assert any("k = 5 is left out" in n for n in report.notes)
    assert any("descriptive only" in n for n in report.notes)
    assert "Descriptive only (3 run(s) per item, fewer than 5" in str(report)
    json.loads(report.to_json())


def test_all_correct_arm_gets_one_sided_korn_graubard(make_bench):
    report = benchmark_report(make_bench(accuracy=(1.0, 0.8)), B=200)
    perfect = report.accuracy[0]
    assert perfect["estimate"] == 1.0
    assert perfect["method"] == "korn_graubard_clopper_pearson"
    assert perfect["upper"] == 1.0
    # V = 0, so n* = N (t_(N-1, conf) / t_(C-1, conf))^2 and the one-sided bound at level
    # conf is (1 - conf)^(1 / n*) (Clopper-Pearson with x = n*).
    n_star = 36 * (stats.t.ppf(0.95, 35) / stats.t.ppf(0.95, 11)) ** 2
    assert_allclose(perfect["lower"], 0.05 ** (1 / n_star), rtol=1e-9)
    # the logit CR2 t, with the run component added when the 5 runs show one (issue 26)
    assert report.accuracy[1]["method"] in ("logit_cluster_robust_t", "logit_cluster_run_t")
    assert any("Accuracy of short is 1" in n and "one-sided from 1" in n for n in report.notes)
    assert "korn_graubard_clopper_pearson" in str(report)


def test_zero_cluster_variance_contrast_uses_tango_on_items():
    # In each document of 3 questions, arm a is right and arm b wrong on the first question
    # only, so every cluster has mean difference 1/3 per item and V_d = 0.
    rows = []
    for doc in range(10):
        for q in range(3):
            for run in range(1, 6):
                rows.append({"cluster": f"d{doc}", "item": f"d{doc}q{q}", "run": run,
                             "arm": "a", "correct": q == 0 or (q == 1 and run % 2 == 0)})
                rows.append({"cluster": f"d{doc}", "item": f"d{doc}q{q}", "run": run,
                             "arm": "b", "correct": q == 1 and run % 2 == 0})
    report = benchmark_report(pd.DataFrame(rows), B=200)
    (contrast,) = report.contrasts
    assert contrast["method"] == "tango_items"
    assert_allclose(contrast["estimate"], 1 / 3, rtol=1e-12)
    # q10 = mean over items of p_a (1 - p_b): 1 on question 0, 0.4 x 0.6 on question 1.
    q10, q01 = (1 + 0.24) / 3, 0.24 / 3
    n_eff = tango_effective_n(30, 10, 0.025)
    expected = tango_interval(q10, q01, n_eff, conf=0.95)
    assert_allclose([contrast["lower"], contrast["upper"], contrast["n_eff"]],
                    [expected.lower, expected.upper, n_eff], rtol=1e-12)
    (simultaneous,) = report.simultaneous
    assert simultaneous["method"] == "tango_items" and simultaneous["critical_value"] is None
    assert any("V_d = 0" in n for n in report.notes)


def test_three_arms_max_t_is_wider_than_pairwise(make_bench):
    frame = make_bench(arms=("a", "b", "c"), accuracy=(0.6, 0.7, 0.8), cluster_effect=0.5,
                       usd=None)
    # The named method: under auto a pair whose runs show a run component takes its own
    # interval at the Bonferroni level instead (issue 26).
    report = benchmark_report(frame, B=200, method="cluster_t")
    assert [(r["arm1"], r["arm2"]) for r in report.contrasts] == \
        [("a", "b"), ("a", "c"), ("b", "c")]
    t_crit = stats.t.ppf(0.975, 11)
    for contrast, simultaneous in zip(report.contrasts, report.simultaneous, strict=True):
        assert simultaneous["method"] == "max_t_cluster_robust"
        assert t_crit < simultaneous["critical_value"] < t_crit * 1.6
        assert simultaneous["lower"] <= contrast["lower"] + 1e-12
        assert simultaneous["upper"] >= contrast["upper"] - 1e-12
    assert report.cost is None and report.frontier is None
    ranks = [(r["rank_lower"], r["rank_upper"]) for r in report.accuracy]
    assert all(1 <= lo <= hi <= 3 for lo, hi in ranks)


def test_contrasts_argument_and_swapping_negates(make_bench):
    frame = make_bench(cluster_effect=0.5)
    forward = benchmark_report(frame, B=200).contrasts[0]
    (backward,) = benchmark_report(frame, B=200, contrasts=[("long", "short")]).contrasts
    assert (backward["arm1"], backward["arm2"]) == ("long", "short")
    assert_allclose([backward["estimate"], backward["lower"], backward["upper"]],
                    [-forward["estimate"], -forward["upper"], -forward["lower"]], rtol=1e-12)


def test_bootstrap_regime(make_bench):
    frame = make_bench(n_docs=40, per_doc=8, cluster_effect=0.5)
    report = benchmark_report(frame, B=300)
    assert report.method == "bootstrap"
    assert report.method_reason == "320 items in 40 clusters reach 300 items and 30 clusters"
    for record in report.accuracy:
        # the bootstrap, or the logit CR2 t with the run component where the runs show one
        assert record["method"] in ("studentised_cluster_bootstrap", "logit_cluster_run_t")
        assert 0 <= record["lower"] < record["estimate"] < record["upper"] <= 1
    named = benchmark_report(frame, B=300, method="bootstrap")
    assert {r["method"] for r in named.accuracy} == {"studentised_cluster_bootstrap"}
    assert not any("rough" in n for n in report.notes)
    line = str(report).splitlines()[1]
    assert line.startswith("Intervals: studentised cluster bootstrap, 300 resamples")
    run_rows = any(r["method"] == "logit_cluster_run_t" for r in report.accuracy + report.contrasts) \
        or any(r["method"] == "cluster_run_t" for r in report.contrasts)
    assert ("add the run component" in line) == run_rows


def test_bootstrap_forced_below_thresholds_has_a_note(make_bench):
    report = benchmark_report(make_bench(), B=200, method="bootstrap")
    assert report.method == "bootstrap"
    assert any("asked for below its thresholds (300 items and 30 clusters)" in n for n in report.notes)


def test_exact_and_bayes_methods(make_bench):
    frame = make_bench(cluster_effect=0.5)
    exact = benchmark_report(frame, B=200, method="exact")
    assert {r["method"] for r in exact.accuracy} == {"korn_graubard_clopper_pearson"}
    bayes = benchmark_report(frame, B=200, method="bayes")
    assert {r["method"] for r in bayes.accuracy} == {"beta_binomial_bayes"}
    assert [r["arm"] for r in bayes.bayes] == ["short", "long"]
    assert all(0 < r["rho_mean"] < 1 for r in bayes.bayes)
    assert any("96.5% to 96.6%" in n for n in bayes.notes)
    assert "Bayesian posterior of mu" in str(bayes)
    # The estimate beside the Bayes interval is the item-weighted ratio estimate.
    assert_allclose([r["estimate"] for r in bayes.accuracy],
                    [r["estimate"] for r in exact.accuracy], rtol=1e-12)


def test_same_seed_same_report_and_global_state_untouched(make_bench):
    frame = make_bench(arms=("a", "b", "c"), accuracy=(0.6, 0.7, 0.8), usd=(1.0, 2.0, 3.0))
    saved = np.random.get_state()
    np.random.seed(123)
    state = np.random.get_state()
    first = benchmark_report(frame, B=200, seed=7).to_dict()
    second = benchmark_report(frame, B=200, seed=7).to_dict()
    after = np.random.get_state()
    np.random.set_state(saved)
    assert first == second
    assert state[0] == after[0] and np.array_equal(state[1], after[1]) and state[2:] == after[2:]
    other = benchmark_report(frame, B=200, seed=8).to_dict()
    assert other["pass_k"] != first["pass_k"]  # the resamples come from the seed
    assert other["accuracy"][0]["lower"] == first["accuracy"][0]["lower"]  # cluster_t


def test_one_weight_matrix_drives_every_resample(make_bench, monkeypatch):
    calls = []
    original = benchmark_module.ClusterResampler.draw.__func__

    def counting(cls, sizes, n_resamples, rng):
        calls.append(n_resamples)
        return original(cls, sizes, n_resamples, rng)

    monkeypatch.setattr(benchmark_module.ClusterResampler, "draw", classmethod(counting))
    benchmark_report(make_bench(n_docs=40, per_doc=8), B=150)
    assert calls == [150]


def test_row_order_does_not_matter(make_bench):
    frame = make_bench(cluster_effect=0.5)
    shuffled = frame.sample(frac=1.0, random_state=3)
    firsts = frame.groupby("arm", sort=False).head(1).index  # keep arms' first appearance
    shuffled = pd.concat([frame.loc[firsts], shuffled.drop(index=firsts)])
    assert list(shuffled["arm"].drop_duplicates()) == ["short", "long"]
    assert not shuffled.index.equals(frame.index)
    assert benchmark_report(shuffled, B=200).to_dict() == benchmark_report(frame, B=200).to_dict()


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_relabelling_clusters_and_duplicating_items(make_bench, seed):
    """Cluster labels do not matter, and items are not the sampling unit: duplicating every
    item inside its own cluster leaves r, V and so the cluster_t intervals unchanged."""
    frame = make_bench(seed=seed, cluster_effect=0.7)
    base = benchmark_report(frame, B=100)
    relabelled = frame.assign(cluster="x" + frame["cluster"].str[::-1])
    again = benchmark_report(relabelled, B=100)
    doubled = pd.concat([frame, frame.assign(item=frame["item"] + "-copy")], ignore_index=True)
    twice = benchmark_report(doubled, B=100)
    for other in (again, twice):
        for a, b in zip(base.accuracy + base.contrasts, other.accuracy + other.contrasts,
                        strict=True):
            for key in ("estimate", "lower", "upper"):
                if a[key] is None or (isinstance(a[key], float) and math.isnan(a[key])):
                    assert b[key] is None or math.isnan(b[key])
                else:
                    assert_allclose(b[key], a[key], rtol=1e-10, atol=1e-12)


def test_one_arm(make_bench):
    frame = make_bench()
    report = benchmark_report(frame[frame["arm"] == "short"], B=200)
    assert report.arms == ["short"] and report.contrasts == [] and report.simultaneous == []
    assert (report.accuracy[0]["rank_lower"], report.accuracy[0]["rank_upper"]) == (1, 1)
    assert report.frontier[0]["on_frontier"] is True
    str(report)


def test_share_scores(make_bench):
    frame = make_bench().drop(columns="correct")
    frame["score"] = np.random.default_rng(0).random(len(frame))
    report = benchmark_report(frame, B=200, k=(1, 1, 3))
    assert report.pass_k == []
    assert any("needs binary correctness" in n for n in report.notes)
    assert all(0 < r["lower"] < r["estimate"] < r["upper"] < 1 for r in report.accuracy)
    with pytest.raises(DesignError, match="bayes"):
        benchmark_report(frame, method="bayes")


def test_one_cluster_is_descriptive_only(make_bench):
    frame = make_bench().assign(cluster="all")
    with pytest.raises(DesignError, match="at least 2 clusters"):
        benchmark_report(frame)
    report = benchmark_report(frame[frame["run"] <= 2])
    assert report.descriptive and report.n_clusters == 1


def test_digits_only_change_the_text(make_bench):
    report = benchmark_report(make_bench(), B=200)
    assert f"{report.accuracy[0]['estimate']:.5f}" in report.to_text(digits=5)
    assert report.to_text(digits=5) != report.to_text()
    assert str(report) == report.to_text(digits=3)


def test_equal_cluster_accuracy_falls_back_with_a_note():
    # Every document has one of its two questions always right and the other always wrong
    # under arm "flat", so each cluster's accuracy is 0.5 and V = 0.
    rows = [{"cluster": f"d{doc}", "item": f"d{doc}q{q}", "run": run, "arm": arm,
             "correct": (q == 0) if arm == "flat" else bool((doc + q + run) % 3)}
            for doc in range(8) for q in range(2) for run in range(1, 6)
            for arm in ("flat", "other")]
    report = benchmark_report(pd.DataFrame(rows), B=200)
    flat = report.accuracy[0]
    assert flat["estimate"] == 0.5 and flat["method"] == "korn_graubard_clopper_pearson"
    assert flat["lower"] < 0.5 < flat["upper"]
    assert any("Every cluster of flat has the same accuracy (V = 0)" in n for n in report.notes)
