"""The benchmark report on unequal clusters: effective clusters, CR2, the flag and its df."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import linalg, stats

from assay import benchmark_report
from assay.stats import (
    cluster_t_interval,
    effective_clusters,
    korn_graubard_interval,
    mover_difference_interval,
    paired_difference_interval,
    run_inclusive_df,
    run_variance_component,
    working_icc,
)


def _unequal_bench(sizes, *, seed: int = 5, accuracy=(0.75, 0.70), runs: int = 5):
    """Clusters of the given sizes, a shared logit shift per cluster, two arms, 5 runs."""
    rng = np.random.default_rng(seed)
    rows = []
    item = 0
    for c, size in enumerate(sizes):
        shift = rng.normal(0.0, 0.8)
        for _ in range(size):
            item += 1
            for arm, base in zip(("a", "b"), accuracy, strict=True):
                p = 1.0 / (1.0 + np.exp(-(np.log(base / (1 - base)) + shift)))
                for run in range(1, runs + 1):
                    rows.append({"cluster": f"c{c:03d}", "item": f"q{item:04d}", "arm": arm,
                                 "run": run, "correct": bool(rng.random() < p)})
    return pd.DataFrame(rows)


def _cluster_data(frame: pd.DataFrame, arm: str):
    per_item = frame[frame["arm"] == arm].groupby(["cluster", "item"])["correct"].mean()
    grouped = per_item.groupby(level="cluster")
    return (grouped.sum().to_numpy(float), (per_item**2).groupby(level="cluster").sum()
            .to_numpy(float), grouped.size().to_numpy(float))


SIZES_3BIG = [100, 60, 40] + [1] * 37


def _dense_cr2_independent(values: np.ndarray, cluster: np.ndarray) -> tuple[float, float]:
    """CR2 variance of a mean and its Satterthwaite (Bell-McCaffrey) df under the
    independence working model, with the textbook matrices: X = 1, H = J / N, A_c =
    (I - H_cc)^(-1/2) by scipy.linalg.sqrtm, V2 = sum_c (1_c' A_c e_c)^2 / N^2 = y' M y and
    nu = tr(M)^2 / tr(M M) (Omega = I; Pustejovsky and Tipton 2018 for one coefficient)."""
    n = values.size
    resid_maker = np.eye(n) - np.full((n, n), 1.0 / n)
    e = resid_maker @ values
    m = np.zeros((n, n))
    v2 = 0.0
    for c in np.unique(cluster):
        idx = np.flatnonzero(cluster == c)
        a_c = np.real(linalg.inv(linalg.sqrtm(np.eye(idx.size) - np.full((idx.size,) * 2,
                                                                          1.0 / n))))
        row = np.zeros(n)
        row[idx] = a_c.sum(axis=0)
        v2 += float(row @ e) ** 2
        g = resid_maker @ row
        m += np.outer(g, g)
    return v2 / n**2, float(np.trace(m) ** 2 / np.trace(m @ m))


def _item_values(frame: pd.DataFrame, arm: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Item accuracy (runs averaged; arm a minus arm b when `arm` is None) and cluster codes."""
    per_item = frame.groupby(["cluster", "item", "arm"])["correct"].mean().unstack()
    values = per_item[arm] if arm is not None else per_item["a"] - per_item["b"]
    codes = pd.factorize(per_item.index.get_level_values("cluster"), sort=True)[0]
    return values.to_numpy(float), codes


def test_three_big_clusters_are_flagged_and_take_the_independence_df() -> None:
    # 40 clusters, 3 of which hold 200 of 237 items: counted as 40 clusters the auto rule
    # used a C - 1 = 39 df interval that covered 74-76% in the simulation; the hull with the
    # Bayes interval then covered 99-100%, the CR2 t on the independence df 93-97%.
    frame = _unequal_bench(SIZES_3BIG)
    report = benchmark_report(frame, B=200)
    sums_a, sumsq_a, sizes = _cluster_data(frame, "a")
    sums_b, sumsq_b, _ = _cluster_data(frame, "b")
    icc = max(working_icc(sums_a, sumsq_a, sizes), working_icc(sums_b, sumsq_b, sizes))
    assert_allclose(report.effective_clusters, effective_clusters(sizes, icc=icc), rtol=1e-12)
    assert report.effective_clusters < 4.0 and report.design_flagged
    assert report.method == "cluster_t"
    assert "effective" in report.method_reason
    assert any("count as" in n and "independence working model" in n for n in report.notes)
    values, codes = _item_values(frame, "a")
    v2, nu = _dense_cr2_independent(values, codes)
    r = values.mean()
    half = stats.t.ppf(0.975, nu) * math.sqrt(v2) / (r * (1 - r))
    centre = math.log(r / (1 - r))
    record = report.accuracy[0]
    assert record["method"] == "logit_cluster_robust_t_independent_df"
    assert_allclose([record["lower"], record["upper"], record["df"]],
                    [1 / (1 + math.exp(-(centre - half))), 1 / (1 + math.exp(-(centre + half))),
                     nu], rtol=1e-9)
    assert_allclose(record["standard_error"], math.sqrt(v2), rtol=1e-9)
    # The working ICC's df are fewer, so its interval is wider: the flag no longer widens.
    working = cluster_t_interval(sums_a, sizes, variance="CR2", sumsq=sumsq_a)
    assert working.df < nu and working.upper - working.lower > record["upper"] - record["lower"]
    text = str(report)
    assert f"in 40 cluster(s) ({report.effective_clusters:.1f} effective)" in text.splitlines()[0]
    assert "CR2" in text.splitlines()[1] and "independence working model" in text.splitlines()[1]


def test_flagged_contrast_takes_the_independence_df() -> None:
    frame = _unequal_bench(SIZES_3BIG, seed=8)
    report = benchmark_report(frame, B=200)
    assert report.design_flagged
    values, codes = _item_values(frame)
    v2, nu = _dense_cr2_independent(values, codes)
    d = values.mean()
    half = stats.t.ppf(0.975, nu) * math.sqrt(v2)
    (contrast,) = report.contrasts
    assert contrast["method"] == "cluster_robust_t_independent_df"
    assert_allclose([contrast["estimate"], contrast["standard_error"], contrast["df"]],
                    [d, math.sqrt(v2), nu], rtol=1e-9)
    assert_allclose([contrast["lower"], contrast["upper"]], [d - half, d + half], rtol=1e-9)


def test_flagged_design_at_accuracy_one_bounds_on_effective_clusters() -> None:
    # Every answer of arm a right over 3 big clusters and 37 singletons: Korn-Graubard's
    # one-sided bound takes G* - 1 design df (on C - 1 = 39 it covered 0% of such benches).
    frame = _unequal_bench(SIZES_3BIG, seed=8)
    frame.loc[frame["arm"] == "a", "correct"] = True
    report = benchmark_report(frame, B=200)
    assert report.design_flagged
    record = report.accuracy[0]
    n_items, g_star = 237, report.effective_clusters
    # Hand: V = 0, so n* = N (t_{N-1,0.95} / t_{G*-1,0.95})^2 and the bound is 0.05^(1/n*).
    n_eff = min(n_items * (stats.t.ppf(0.95, n_items - 1) / stats.t.ppf(0.95, g_star - 1)) ** 2,
                n_items)
    assert record["method"] == "korn_graubard_clopper_pearson" and record["upper"] == 1.0
    assert_allclose(record["lower"], 0.05 ** (1 / n_eff), rtol=1e-9)
    on_c = korn_graubard_interval(*_cluster_data(frame, "a")[::2], alternative="greater")
    assert record["lower"] < on_c.lower
    assert any("G* - 1" in n for n in report.notes)


def test_moderately_unequal_design_uses_cr2_without_flag() -> None:
    # 30 clusters of 4 to 15 items: G* near C, no flag, CR2 with Bell-McCaffrey df.
    sizes = list(np.rint(np.linspace(4, 15, 30)).astype(int))
    frame = _unequal_bench(sizes, seed=3)
    report = benchmark_report(frame, B=200)
    assert not report.design_flagged and 20 < report.effective_clusters < 30
    sums_a, sumsq_a, sizes_a = _cluster_data(frame, "a")
    cr2 = cluster_t_interval(sums_a, sizes_a, variance="CR2", sumsq=sumsq_a)
    record = report.accuracy[0]
    assert record["method"] == "logit_cluster_robust_t"
    assert_allclose([record["lower"], record["upper"], record["df"]],
                    [cr2.lower, cr2.upper, cr2.df], rtol=1e-12)
    assert cr2.df < 29


def test_balanced_design_keeps_c_minus_1_df_and_prints_no_effective_count(make_bench) -> None:
    # The named method (auto adds a run component on Satterthwaite df where the runs show one)
    report = benchmark_report(make_bench(), B=200, method="cluster_t")
    assert report.effective_clusters == pytest.approx(12.0) and not report.design_flagged
    assert [r["df"] for r in report.accuracy] == [11.0, 11.0]
    assert report.contrasts[0]["df"] == 11.0
    assert "effective" not in str(report).splitlines()[0]


def test_forced_method_in_a_flagged_design_keeps_it_and_says_so() -> None:
    frame = _unequal_bench(SIZES_3BIG)
    report = benchmark_report(frame, B=200, method="exact")
    assert report.design_flagged
    assert report.accuracy[0]["method"] == "korn_graubard_clopper_pearson"
    assert any('method asked for ("exact") is kept' in n for n in report.notes)


def _run_shift_bench(make_bench):
    # Crossed runs: run 1 of every item is a bad pass, run 2 a good one (one seed or
    # snapshot per run), shared by all items.
    frame = make_bench(n_docs=20, per_doc=5, usd=None, seed=9)
    frame.loc[frame["run"] == 1, "correct"] = False
    frame.loc[frame["run"] == 2, "correct"] = True
    return frame


def _run_inclusive_expected(cells, sums, sumsq, sizes, runs, *, logit):
    """The one-way CR2 interval with the run component added, from the stats functions."""
    if logit:
        one = cluster_t_interval(sums, sizes, variance="CR2", sumsq=sumsq)
    else:
        one = paired_difference_interval(sums, sizes, variance="CR2", sumsq=sumsq)
    component = run_variance_component(cells, sizes)
    nu = run_inclusive_df(one.standard_error**2, one.df, component.variance, runs)
    se = math.sqrt(one.standard_error**2 + component.variance)
    half = stats.t.ppf(0.975, nu) * se
    if logit:
        centre, half = math.log(one.estimate / (1 - one.estimate)), half / (
            one.estimate * (1 - one.estimate))
        return 1 / (1 + math.exp(-(centre - half))), 1 / (1 + math.exp(-(centre + half))), se, nu
    return one.estimate - half, one.estimate + half, se, nu


def _run_cells(frame, arm):
    rows = frame[frame["arm"] == arm]
    cells = rows.groupby(["cluster", "run"])["correct"].sum().unstack("run")
    return cells.to_numpy(dtype=float)


def test_a_material_run_shift_gets_the_run_inclusive_interval_under_auto(make_bench) -> None:
    # The auto rule adds the run component to the CR2 variance (runs in general) and gives
    # the one-way interval (these runs) in the note; the named method keeps the one-way one.
    frame = _run_shift_bench(make_bench)
    report = benchmark_report(frame, B=200)
    auto = report.accuracy[0]
    named = benchmark_report(frame, B=200, method="cluster_t")
    one_way = named.accuracy[0]
    assert one_way["method"] == "logit_cluster_robust_t"
    assert auto["method"] == "logit_cluster_run_t"
    arm = auto["arm"]
    sums, sumsq, sizes = _cluster_data(frame, arm)
    lower, upper, se, nu = _run_inclusive_expected(_run_cells(frame, arm), sums, sumsq, sizes,
                                                   5, logit=True)
    assert_allclose([auto["lower"], auto["upper"], auto["standard_error"], auto["df"]],
                    [lower, upper, se, nu], rtol=1e-10)
    assert 4.0 < auto["df"] < one_way["df"]
    assert auto["standard_error"] > 1.2 * one_way["standard_error"]
    assert auto["lower"] < one_way["lower"] and auto["upper"] > one_way["upper"]
    assert any("is wide for that reason" in n
               and f"[{one_way['lower']:.3g}, {one_way['upper']:.3g}]" in n for n in report.notes)
    assert any("whatever a test of the runs would say" in n for n in report.notes)
    assert any("the intervals above speak about these 5 runs" in n for n in named.notes)


def test_a_material_run_shift_of_a_difference_gets_the_run_inclusive_interval(make_bench) -> None:
    # Only arm A's runs shift: the difference A - B carries the run component.
    frame = make_bench(n_docs=20, per_doc=5, usd=None, seed=9)
    arms = list(dict.fromkeys(frame["arm"]))
    arm_a = frame["arm"] == arms[0]
    frame.loc[arm_a & (frame["run"] == 1), "correct"] = False
    frame.loc[arm_a & (frame["run"] == 2), "correct"] = True
    auto = benchmark_report(frame, B=200).contrasts[0]
    named = benchmark_report(frame, B=200, method="cluster_t").contrasts[0]
    assert named["method"] == "cluster_robust_t"
    assert auto["method"] == "cluster_run_t"
    sums_a, _, sizes = _cluster_data(frame, arms[0])
    sums_b, _, _ = _cluster_data(frame, arms[1])
    item = frame.groupby(["arm", "cluster", "item"])["correct"].mean().unstack("arm")
    sumsq_d = ((item[arms[0]] - item[arms[1]]) ** 2).groupby(level="cluster").sum().to_numpy()
    lower, upper, se, nu = _run_inclusive_expected(
        _run_cells(frame, arms[0]) - _run_cells(frame, arms[1]), sums_a - sums_b, sumsq_d,
        sizes, 5, logit=False)
    assert_allclose([auto["lower"], auto["upper"], auto["standard_error"], auto["df"]],
                    [lower, upper, se, nu], rtol=1e-10)
    assert auto["upper"] - auto["lower"] > 1.2 * (named["upper"] - named["lower"])
    # one pair: its simultaneous interval is the same interval, not the max-t one
    (simultaneous,) = benchmark_report(frame, B=200).simultaneous
    assert simultaneous["method"] == "cluster_run_t"
    assert_allclose([simultaneous["lower"], simultaneous["upper"]],
                    [auto["lower"], auto["upper"]], rtol=1e-12)


def test_no_run_note_without_a_run_shift(make_bench) -> None:
    report = benchmark_report(make_bench(n_docs=20, per_doc=5, usd=None, seed=9), B=200)
    assert not any("differ more than their items explain" in n for n in report.notes)
    assert all(r["standard_error_two_way"] is not None for r in report.accuracy)


def _sparse_bench(make_bench):
    # 30 documents of 5 questions; "short" is right only on q1, q2 (doc1), q6 (doc2) and
    # q11 (doc3) in some runs, "long" only on q1 and q6: accuracy 0.02 and 0.01, the rarer
    # outcome in 3 and 2 of 30 clusters.
    frame = make_bench(n_docs=30, per_doc=5, usd=None, seed=4)
    frame["correct"] = False
    short, long_ = frame["arm"] == "short", frame["arm"] == "long"
    frame.loc[short & frame["item"].isin(["q1", "q6", "q11"]), "correct"] = True
    frame.loc[short & (frame["item"] == "q2") & (frame["run"] <= 2), "correct"] = True
    frame.loc[long_ & frame["item"].isin(["q1"]), "correct"] = True
    frame.loc[long_ & (frame["item"] == "q6") & (frame["run"] <= 3), "correct"] = True
    return frame


def test_a_sparse_arm_gets_korn_graubard_under_auto(make_bench) -> None:
    # At accuracy 0.02 over 30 clusters the logit t covered 92% in the grid (ext-0.02);
    # Korn-Graubard held. The auto rule takes it and says why; a named method is kept.
    frame = _sparse_bench(make_bench)
    report = benchmark_report(frame, B=200)
    kg = korn_graubard_interval(*_cluster_data(frame, "short")[::2])
    record = report.accuracy[0]
    assert record["method"] == "korn_graubard_clopper_pearson"
    assert_allclose([record["lower"], record["upper"]], [kg.lower, kg.upper], rtol=1e-12)
    assert any("right answers of short sit in 3 of 30 clusters" in n for n in report.notes)
    named = benchmark_report(frame, B=200, method="cluster_t").accuracy[0]
    assert named["method"] == "logit_cluster_robust_t"


def _midp_by_hand(sums, sizes, conf: float = 0.95) -> tuple[float, float, float]:
    """(r, L, U) of the mid-p interval on the Korn-Graubard n*, written out from its formula
    with scipy.stats (not through assay): V = C/(C-1) sum (S_c - r n_c)^2 / N^2,
    n* = min(N, r(1 - r)/V (t_{N-1,q}/t_{C-1,q})^2), x = r n*, and L, U the roots of
    [F(p; x, n* - x + 1) + F(p; x + 1, n* - x)] / 2 = a and 1 - a, F the beta cdf."""
    from scipy.optimize import brentq

    sums, sizes = np.asarray(sums, float), np.asarray(sizes, float)
    n_items, c = sizes.sum(), sizes.size
    r = sums.sum() / n_items
    v = c / (c - 1) * np.sum((sums - r * sizes) ** 2) / n_items**2
    q = (1 + conf) / 2
    n_star = min(n_items, r * (1 - r) / v * (stats.t.ppf(q, n_items - 1)
                                             / stats.t.ppf(q, c - 1)) ** 2)
    x = r * n_star

    def g(p: float) -> float:
        return (stats.beta.cdf(p, x, n_star - x + 1) + stats.beta.cdf(p, x + 1, n_star - x)) / 2

    return (r, brentq(lambda p: g(p) - (1 - q), 1e-12, 1 - 1e-12, xtol=1e-15),
            brentq(lambda p: g(p) - q, 1e-12, 1 - 1e-12, xtol=1e-15))


def test_a_sparse_pair_gets_the_mover_midp_korn_graubard_interval(make_bench) -> None:
    # Issue 26 (run F): MOVER on the arms' mid-p intervals on n*; on Clopper-Pearson ones it
    # covered 97.2-98.6% in the grid's sparse cells.
    frame = _sparse_bench(make_bench)
    report = benchmark_report(frame, B=200)
    contrast = report.contrasts[0]
    sums_1, _, sizes = _cluster_data(frame, "short")
    sums_2, _, _ = _cluster_data(frame, "long")
    kg_1, kg_2 = _midp_by_hand(sums_1, sizes), _midp_by_hand(sums_2, sizes)
    e_1, e_2 = sums_1 - kg_1[0] * sizes, sums_2 - kg_2[0] * sizes
    rho = float(e_1 @ e_2 / np.sqrt((e_1 @ e_1) * (e_2 @ e_2)))
    by_hand = mover_difference_interval(kg_1, kg_2, correlation=rho)
    cp_1, cp_2 = korn_graubard_interval(sums_1, sizes), korn_graubard_interval(sums_2, sizes)
    assert cp_1.lower < kg_1[1] < kg_1[2] < cp_1.upper  # inside Clopper-Pearson
    assert cp_2.lower < kg_2[1] < kg_2[2] < cp_2.upper
    assert contrast["method"] == "mover_korn_graubard_midp"
    assert_allclose([contrast["lower"], contrast["upper"]], [by_hand.lower, by_hand.upper],
                    rtol=1e-12)
    assert any("MOVER" in n and "short - long" in n for n in report.notes)
    (simultaneous,) = report.simultaneous
    assert simultaneous["method"] == "mover_korn_graubard_midp"
    assert_allclose([simultaneous["lower"], simultaneous["upper"]],
                    [contrast["lower"], contrast["upper"]], rtol=1e-12)
    named = benchmark_report(frame, B=200, method="cluster_t").contrasts[0]
    assert named["method"] == "cluster_robust_t"


def test_a_sparse_pair_takes_mid_p_only_for_its_sparse_arm() -> None:
    # 30 clusters of 5: arm 1 right on 4 items in 3 clusters (sparse), arm 2 right on about
    # a third of the items in every cluster (not sparse): arm 1 enters MOVER with its mid-p
    # interval on n*, arm 2 with Clopper-Pearson on n* (mid-p for both took the grid's
    # ext-0.02-0.04, 0.02 against a non-sparse 0.04, below 93.5%).
    from assay.analysis.benchmark._contrasts import sparse_difference

    sizes = np.full(30, 5.0)
    sums_1 = np.r_[2.0, 1.0, 1.0, np.zeros(27)]
    sums_2 = np.tile([1.0, 2.0, 2.0], 10)
    res = sparse_difference(sums_1, sums_2, sizes, conf=0.95)
    arm_1 = _midp_by_hand(sums_1, sizes)
    cp_2 = korn_graubard_interval(sums_2, sizes)
    e_1, e_2 = sums_1 - arm_1[0] * sizes, sums_2 - cp_2.estimate * sizes
    rho = float(e_1 @ e_2 / np.sqrt((e_1 @ e_1) * (e_2 @ e_2)))
    by_hand = mover_difference_interval(arm_1, (cp_2.estimate, cp_2.lower, cp_2.upper),
                                        correlation=rho)
    assert res is not None and res.method == "mover_korn_graubard_midp"
    assert_allclose([res.lower, res.upper], [by_hand.lower, by_hand.upper], rtol=1e-12)
    assert sparse_difference(sums_2, sums_2[::-1].copy(), sizes, conf=0.95) is None


def test_the_noninferiority_bound_of_a_sparse_pair_is_the_mover_lower_end(make_bench) -> None:
    # The registered test reads the contrasts' interval: at its one-sided level alpha the
    # bound is the lower end of the MOVER (mid-p Korn-Graubard) interval at confidence 1 - 2 alpha
    # (the CR2 t bound covered 90% at accuracy 0.02 in the grid).
    from assay.analysis.benchmark import register_contrasts

    frame = _sparse_bench(make_bench).assign(split="test")
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.05}],
                             reference_hash="ref")
    report = benchmark_report(frame, B=200, registration=reg, reference_hash="ref")
    (record,) = report.ni
    sums_1, _, sizes = _cluster_data(frame, "short")
    sums_2, _, _ = _cluster_data(frame, "long")
    conf = 1.0 - 2.0 * record["level"]
    kg_1 = _midp_by_hand(sums_1, sizes, conf)
    kg_2 = _midp_by_hand(sums_2, sizes, conf)
    e_1, e_2 = sums_1 - kg_1[0] * sizes, sums_2 - kg_2[0] * sizes
    rho = float(e_1 @ e_2 / np.sqrt((e_1 @ e_1) * (e_2 @ e_2)))
    by_hand = mover_difference_interval(kg_1, kg_2, correlation=rho)
    assert_allclose(record["lower"], by_hand.lower, rtol=1e-12)
    named = benchmark_report(frame, B=200, method="cluster_t", registration=reg,
                             reference_hash="ref").ni[0]
    assert named["lower"] != pytest.approx(record["lower"])  # a named method keeps the CR2 t
