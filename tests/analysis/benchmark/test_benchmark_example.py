"""Seed 003's example design, checked against the seed's formulas written out by hand.

The seed's example draws its data with R's set.seed(2); R's random numbers cannot be
reproduced here, so the same design (12 documents x 3 questions, arms short at 0.7 and
long at 0.8, 5 runs, $0.001 and $0.004 per answer) is drawn with numpy, and every figure
is recomputed below from the seed's own definitions with pandas and scipy, independently
of the code under test.
"""

from __future__ import annotations

import json
import math
import re
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats

from assay.analysis.benchmark import benchmark_report

CONF = 0.95


ACCURACY_HEADING = "Accuracy (arms in benchmark order, not ranked; failures count as wrong):"

def item_accuracy(frame: pd.DataFrame, arm: str) -> pd.Series:
    """p_i: mean correctness over runs of each item, indexed by (cluster, item)."""
    rows = frame[frame["arm"] == arm]
    return rows.groupby(["cluster", "item"])["correct"].mean()


def ratio_and_variance(per_item: pd.Series) -> tuple[float, float, int]:
    """r = sum S_c / N and V = C / (C - 1) sum (S_c - r n_c)^2 / N^2 (seed, "Intervals")."""
    sums = per_item.groupby(level="cluster").sum()
    sizes = per_item.groupby(level="cluster").size()
    n_clusters, total = len(sums), sizes.sum()
    r = sums.sum() / total
    variance = n_clusters / (n_clusters - 1) * ((sums - r * sizes) ** 2).sum() / total**2
    return float(r), float(variance), n_clusters


def hand_cluster_t(per_item: pd.Series) -> tuple[float, float, float]:
    """logit(r) -+ t_(C-1, 0.975) sqrt(V) / (r (1 - r)), mapped back (seed, cluster_t)."""
    r, variance, n_clusters = ratio_and_variance(per_item)
    half = stats.t.ppf((1 + CONF) / 2, n_clusters - 1) * math.sqrt(variance) / (r * (1 - r))
    centre = math.log(r / (1 - r))
    expit = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    return r, expit(centre - half), expit(centre + half)


@pytest.fixture(scope="module")
def bench(make_bench) -> pd.DataFrame:
    return make_bench()


@pytest.fixture(scope="module")
def report(bench):
    return benchmark_report(bench, B=500)


@pytest.fixture(scope="module")
def seed_report(bench):
    """The seed's interval by its name: under auto an arm or pair whose 5 runs show a run
    component gets it added to the variance (issue 26), so the seed's printed figures are
    those of method="cluster_t" (auto's choice for this design before issue 26)."""
    return benchmark_report(bench, B=500, method="cluster_t")


def test_auto_adds_the_run_component_where_the_runs_show_one(report, seed_report):
    for auto, named in zip(report.accuracy, seed_report.accuracy, strict=True):
        assert auto["method"] in ("logit_cluster_robust_t", "logit_cluster_run_t")
        if auto["method"] == "logit_cluster_robust_t":
            assert (auto["lower"], auto["upper"]) == (named["lower"], named["upper"])
        else:
            assert auto["lower"] < named["lower"] and auto["upper"] > named["upper"]


def test_design_and_method(report):
    assert (report.n_items, report.n_clusters, report.runs) == (36, 12, 5)
    assert report.arms == ["short", "long"]
    assert report.method == "cluster_t"
    assert report.method_reason == ("36 items in 12 clusters fall short of 300 items and "
                                    "30 clusters")
    assert report.descriptive is False
    assert (report.B, report.seed, report.conf) == (500, 1, CONF)


def test_accuracy_matches_the_hand_computation(bench, seed_report):
    for record in seed_report.accuracy:
        r, lower, upper = hand_cluster_t(item_accuracy(bench, record["arm"]))
        assert record["method"] == "logit_cluster_robust_t"
        assert_allclose([record["estimate"], record["lower"], record["upper"]],
                        [r, lower, upper], rtol=0, atol=1e-9)
        assert record["rank_lower"] <= record["rank_upper"]
        assert {record["rank_lower"], record["rank_upper"]} <= {1, 2}


def test_paired_difference_matches_hand_and_statsmodels(bench, seed_report):
    diff = item_accuracy(bench, "short") - item_accuracy(bench, "long")
    d, variance, n_clusters = ratio_and_variance(diff)
    half = stats.t.ppf((1 + CONF) / 2, n_clusters - 1) * math.sqrt(variance)
    (contrast,) = seed_report.contrasts
    assert (contrast["arm1"], contrast["arm2"], contrast["method"]) == \
        ("short", "long", "cluster_robust_t")
    assert_allclose([contrast["estimate"], contrast["lower"], contrast["upper"]],
                    [d, max(d - half, -1), min(d + half, 1)], rtol=0, atol=1e-9)
    # Oracle: OLS of the item differences on a constant, clustered by document, t with
    # C - 1 df (use_t=True; the default would be a normal interval, SPEC-NOTES).
    groups = pd.factorize(diff.index.get_level_values("cluster"))[0]
    fit = sm.OLS(diff.to_numpy(), np.ones(len(diff))).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    assert_allclose(contrast["standard_error"], fit.bse[0], rtol=1e-10)
    assert_allclose([contrast["lower"], contrast["upper"]], fit.conf_int(alpha=1 - CONF)[0],
                    rtol=1e-9)
    # One pair: the simultaneous interval is the paired interval (t quantile, no draws).
    (simultaneous,) = seed_report.simultaneous
    assert_allclose([simultaneous["lower"], simultaneous["upper"]],
                    [contrast["lower"], contrast["upper"]], rtol=1e-12)
    assert_allclose(simultaneous["critical_value"], stats.t.ppf(0.975, 11), rtol=1e-12)


def test_stability_readings(bench, report):
    """flip_rate, TARa = 1 - flip_rate for binary scores, run_sd with ddof = 1 (SPEC-NOTES)."""
    for record in report.stability:
        rows = bench[bench["arm"] == record["arm"]]
        per_item = rows.groupby("item")["correct"].agg(["min", "max"])
        flip = float((per_item["min"] != per_item["max"]).mean())
        run_sd = float(rows.groupby("run")["correct"].mean().std(ddof=1))
        assert_allclose([record["flip_rate"], record["tara"], record["run_sd"]],
                        [flip, 1 - flip, run_sd], rtol=0, atol=1e-12)


def test_variance_components_reading(bench, report):
    """within = mean p(1 - p); between = ddof-0 variance over items, averaged over arms."""
    p = {arm: item_accuracy(bench, arm) for arm in ("short", "long")}
    within = np.mean([(v * (1 - v)).mean() for v in p.values()])
    between = np.mean([v.var(ddof=0) for v in p.values()])
    variance = report.variance
    assert_allclose([variance["within"], variance["between"], variance["within_share"]],
                    [within, between, within / (within + between)], rtol=1e-12)
    assert variance["recommend_runs"] == (10 if within / (within + between) > 0.1 else None)
    assert [r["arm"] for r in variance["per_arm"]] == ["short", "long"]
    assert_allclose(variance["per_arm"][0]["between"], p["short"].var(ddof=0), rtol=1e-12)


def test_pass_k_against_brute_force(bench, report):
    """pass^k = mean over items of the share of k-subsets of runs that are all correct."""
    assert sorted({r["k"] for r in report.pass_k}) == [1, 3, 5]
    for record in report.pass_k:
        rows = bench[bench["arm"] == record["arm"]].sort_values("run")
        shares = []
        for _, runs in rows.groupby("item")["correct"]:
            outcomes = runs.to_numpy()
            subsets = list(combinations(range(len(outcomes)), record["k"]))
            shares.append(np.mean([outcomes[list(s)].all() for s in subsets]))
        assert_allclose(record["pass_k"], np.mean(shares), rtol=0, atol=1e-12)
        if record["k"] == 1:
            accuracy = next(a for a in report.accuracy if a["arm"] == record["arm"])
            assert_allclose(record["pass_k"], accuracy["estimate"], rtol=1e-12)
        assert record["lower"] < record["pass_k"] < record["upper"]


def test_cost_and_frontier(bench, report):
    """usd_per_correct = total dollars over all runs / correct runs (SPEC-NOTES)."""
    for record in report.cost:
        rows = bench[bench["arm"] == record["arm"]]
        assert_allclose(record["usd_per_item"], rows["usd"].mean(), rtol=1e-12)
        assert_allclose(record["usd_per_correct"], rows["usd"].sum() / rows["correct"].sum(),
                        rtol=1e-12)
        assert record["usd_per_correct_lower"] < record["usd_per_correct"] \
            < record["usd_per_correct_upper"]
        assert record["tokens_per_item"] is None
        assert record["usd_estimated_share"] is None and record["estimated_flag"] is None
    # The cheaper arm is less accurate here, so both are on the frontier.
    assert [f["on_frontier"] for f in report.frontier] == [True, True]
    assert all(0.0 <= f["frontier_share"] <= 1.0 for f in report.frontier)


def test_failures_without_failure_kinds(bench, report):
    for record in report.failures:
        rows = bench[bench["arm"] == record["arm"]]
        assert record["wrong"] == (~rows["correct"]).sum()
        assert record["n_failures"] == 0
        assert_allclose(record["accuracy_without_parse_refusal"], rows["correct"].mean(),
                        rtol=1e-12)


def test_to_dict_and_json(report):
    data = report.to_dict()
    assert list(data) == [
        "method", "method_reason", "descriptive", "n_items", "n_clusters",
        "effective_clusters", "design_flagged", "runs", "arms",
        "conf", "B", "seed", "confirmatory", "accuracy", "bayes", "contrasts", "simultaneous",
        "stability", "pass_k", "cost", "frontier", "failures", "variance", "ni",
        "registration", "notes", "categories", "category_contrasts", "judge", "criterion",
        "failures_exact"]
    assert data["judge"] is None and data["failures_exact"] is False  # rows given as a frame
    assert data["ni"] is None and data["registration"] is None and data["bayes"] is None
    assert all("arm" in r for key in ("accuracy", "stability", "cost", "frontier", "failures")
               for r in data[key])
    assert all({"arm", "k"} <= set(r) for r in data["pass_k"])
    assert all({"arm1", "arm2"} <= set(r) for r in data["contrasts"] + data["simultaneous"])
    assert json.loads(report.to_json()) == data
    assert data["accuracy"][0]["estimate"] == report.accuracy[0]["estimate"]  # full precision


def test_print_lays_out_like_the_seed(report, seed_report):
    # Under auto the method line names the run component the rows add (the seed's own
    # line is that of method="cluster_t", whose rows are all the one-way t).
    methods = {r["method"] for r in report.accuracy + report.contrasts}
    assert methods & {"logit_cluster_run_t", "cluster_run_t"}
    assert str(report).splitlines()[1] == (
        "Intervals: cluster-robust t on the logit scale, C - 1 df; rows marked "
        "logit_cluster_run_t or cluster_run_t add the run component (V_1 + V_run, "
        "Satterthwaite df) at 95% (36 items in 12 clusters fall short of 300 items and 30 "
        "clusters).")
    assert str(seed_report).splitlines()[1] == (
        'Intervals: cluster-robust t on the logit scale, C - 1 df at 95% (method = '
        '"cluster_t" was asked for; 36 items in 12 clusters).')
    text = str(seed_report)
    lines = text.splitlines()
    assert lines[0] == "<assay benchmark report> 2 arm(s), 36 item(s) in 12 cluster(s), 5 run(s)"
    for title in ("Accuracy (arms in benchmark order, not ranked; failures count as wrong):",
                  "Paired differences (first minus second):", "Stability across runs:",
                  "Reliability:", "Cost:", "Failures (all counted wrong):"):
        assert title in lines
    header = lines[lines.index(ACCURACY_HEADING) + 1]
    assert header.split() == ["arm", "accuracy", "interval", "rank_interval"]
    row = lines[lines.index(ACCURACY_HEADING) + 2]
    assert re.fullmatch(r" short 0\.\d{3} +\[0\.\d{3}, 0\.\d{3}\] [12]-[12] *", row)
    assert " contrast     difference interval         simultaneous    " in lines
    assert any(line.startswith(" arm   pass^1 pass^3 pass^5") for line in lines)
    assert any(line.startswith(" estimated on_frontier frontier_share") for line in lines)
    assert any(line.startswith("Variance on the probability scale: within-item runs ")
               for line in lines)
    assert all(len(line.rstrip()) <= 80 for line in lines if not line.startswith(
        ("Note:", "Intervals:", "Variance")))
    assert ("Note: The frontier share (how often an arm is on the cost-accuracy frontier over "
            "resamples) is an extension, not a published standard.") in lines
