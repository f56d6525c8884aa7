"""Per-category breakdowns: intervals against scipy's t, Holm against a hand adjustment, and the
breakdown in the scores report."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from assay.analysis.categories import category_breakdown
from assay.analysis.scores import score_summary
from assay.data.schema import Scale
from assay.data.table import Judgments


def _table(seed: int = 0, n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for task, shift in (("math", 0.3), ("code", 0.0), ("chat", -0.1)):
        for i in range(n):
            item = f"{task}{i}"
            for arm, bonus in (("A", 0.1), ("B", 0.0)):
                v = float(np.clip(0.5 + shift + bonus + rng.normal(0, 0.2), 0, 1))
                rows.append(dict(item=item, cluster=item, arm=arm, run=1, value=v, task=task,
                                 criterion="quality", judge="j"))
    return pd.DataFrame(rows)


def test_each_item_its_own_cluster_gives_scipys_t_interval_and_paired_t_test() -> None:
    frame = _table()
    cats, contrasts, _ = category_breakdown(frame, group=["criterion", "judge"], conf=0.9)
    assert len(cats) == 6 and len(contrasts) == 3
    for rec in cats:
        v = frame[(frame["arm"] == rec["arm"]) & (frame["task"] == rec["category"])]["value"]
        lo, hi = stats.t.interval(0.9, len(v) - 1, loc=v.mean(), scale=stats.sem(v))
        assert (rec["estimate"], rec["lower"], rec["upper"]) == pytest.approx((v.mean(), lo, hi))
        # simultaneous over the three categories: wider than each one's own interval
        assert rec["lower_simultaneous"] < rec["lower"] < rec["upper"] < rec["upper_simultaneous"]
    p_raw = []
    for rec in contrasts:
        rows = frame[frame["task"] == rec["category"]]
        a = rows[rows["arm"] == "A"]["value"].to_numpy()
        b = rows[rows["arm"] == "B"]["value"].to_numpy()
        assert rec["p_value"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
        p_raw.append(rec["p_value"])
    # Holm by hand: sorted p times (m - rank), running maximum, capped at 1
    order = np.argsort(p_raw)
    adj, running = np.empty(3), 0.0
    for rank, idx in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * p_raw[idx]))
        adj[idx] = running
    np.testing.assert_allclose([c["p_adjusted"] for c in contrasts], adj)


def test_one_category_gives_no_breakdown_and_a_constant_category_no_interval() -> None:
    frame = _table()
    cats, contrasts, _ = category_breakdown(frame[frame["task"] == "math"],
                                            group=["criterion", "judge"])
    assert cats == [] and contrasts == []
    frame.loc[frame["task"] == "chat", "value"] = 1.0
    cats, _, notes = category_breakdown(frame, group=["criterion", "judge"])
    chat = [r for r in cats if r["category"] == "chat"]
    assert all(np.isnan(r["lower"]) and np.isnan(r["upper"]) for r in chat)
    assert any("chat: no variance" in n for n in notes)


def test_the_scores_report_shows_the_breakdown_per_task() -> None:
    frame = _table().rename(columns={"value": "score"}).assign(reportable=True)
    judgments = Judgments(frame, {"quality": Scale.parse("range:0,1")})
    summary = score_summary(judgments)
    assert {r["category"] for r in summary.categories} == {"math", "code", "chat"}
    assert len(summary.category_contrasts) == 3
    text = summary.to_text() if hasattr(summary, "to_text") else str(summary)
    assert "By category (task): quality / j" in text and "Holm" in text
    assert summary.to_dict()["categories"][0]["arm"] in {"A", "B"}
    doubled = score_summary(Judgments(frame.assign(weight=2.0),
                                      {"quality": Scale.parse("range:0,1")}))
    assert doubled.categories == summary.categories  # a common weight changes nothing


def _two_runs(weights: list[float] | None) -> pd.DataFrame:
    """Two runs per item; the second run's rows weighted by `weights` (cycled) when given."""
    frame = _table(seed=3, n=6)
    second = frame.assign(run=2, value=1.0 - frame["value"])
    both = pd.concat([frame, second], ignore_index=True)
    if weights is not None:
        w = np.resize(np.asarray(weights, dtype=float), len(second))
        both["weight"] = np.concatenate([np.ones(len(frame)), w])
    return both


def test_row_weights_weight_every_category_mean_and_contrast() -> None:
    plain, _, _ = category_breakdown(_two_runs(None), group=["criterion", "judge"])
    ones, _, _ = category_breakdown(_two_runs([1.0]), group=["criterion", "judge"])
    assert ones == plain
    frame = _two_runs([3.0, 1.0])
    cats, contrasts, _ = category_breakdown(frame, group=["criterion", "judge"])
    for rec in cats:
        rows = frame[(frame["arm"] == rec["arm"]) & (frame["task"] == rec["category"])]
        # by hand, each item its own cluster: item value sum(w v) / sum(w) over its runs,
        # item weight the mean row weight; the category mean sum(W_i V_i) / sum(W_i)
        w, wv = rows["weight"], rows["weight"] * rows["value"]
        value = wv.groupby(rows["item"]).sum() / w.groupby(rows["item"]).sum()
        weight = w.groupby(rows["item"]).mean()
        assert rec["estimate"] == pytest.approx(float((weight * value).sum() / weight.sum()))
        assert rec["n_items"] == rows["item"].nunique()
    unweighted = {(r["arm"], r["category"]): r["estimate"] for r in plain}
    assert any(abs(r["estimate"] - unweighted[r["arm"], r["category"]]) > 1e-3 for r in cats)
    by_arm = {(r["arm"], r["category"]): r["estimate"] for r in cats}
    for c in contrasts:
        assert c["estimate"] == pytest.approx(by_arm["A", c["category"]]
                                              - by_arm["B", c["category"]])
        assert c["lower"] < c["estimate"] < c["upper"]


def test_the_benchmark_report_breaks_accuracy_down_by_task() -> None:
    from assay.analysis.benchmark import benchmark_report

    rng = np.random.default_rng(0)
    frame = pd.DataFrame([
        {"cluster": f"doc{i // 3}", "item": f"q{i}", "arm": arm, "run": run,
         "task": ("math", "code")[i % 2], "correct": bool(rng.random() < p),
         "failure_kind": "parse_error" if (i, arm, run) == (0, "a", 1) else None}
        for i in range(36) for arm, p in (("a", 0.7), ("b", 0.8)) for run in range(1, 6)])
    report = benchmark_report(frame, B=200, method="cluster_t")
    by = {(r["arm"], r["category"]): r for r in report.categories}
    # item accuracy averaged over runs, a failure counted wrong, then the category mean
    rows = frame[(frame["arm"] == "a") & (frame["task"] == "math")]
    value = rows["correct"].astype(float).where(rows["failure_kind"].isna(), 0.0)
    assert by[("a", "math")]["estimate"] == pytest.approx(value.groupby(rows["item"]).mean().mean())
    assert by[("a", "math")]["n_clusters"] == 12
    assert {c["category"] for c in report.category_contrasts} == {"math", "code"}
    assert "By category (task)" in str(report)
    descriptive = benchmark_report(frame[frame["run"] <= 2], B=200)
    assert descriptive.categories is None
    assert any("per-task breakdown" in n for n in descriptive.notes)


# Issue 26 (3): one rule in one report. The per-category block of --kind scores printed a
# bounded criterion's category means with the raw-scale CR2 t and no design flag, beside main
# rows on the logit CR2 t with the benchmark's G* flag; its contrasts were CR1.

def _unequal_rows(seed: int = 3) -> list[dict]:
    """Task A: three clusters of 40 questions and nine singletons (few effective clusters);
    task B: ten clusters of four. One binary criterion, one arm."""
    rng = np.random.default_rng(seed)
    rows, i = [], 0
    for task, sizes in (("A", [40, 40, 40] + [1] * 9), ("B", [4] * 10)):
        for c, size in enumerate(sizes):
            p = rng.uniform(0.3, 0.9)
            for _ in range(size):
                rows.append({"item": f"q{i}", "cluster": f"{task}{c}", "arm": "x",
                             "criterion": "ok", "task": task, "score": int(rng.random() < p)})
                i += 1
    return rows


def _scores(rows: list[dict], scale: str = "binary"):
    from assay.data.validate import judgments_from_records

    table = judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t", sources=["t"],
                                   scales={"ok": Scale.parse(scale)})
    return score_summary(table)


def test_a_category_mean_is_the_main_row_of_that_category_alone() -> None:
    rows = _unequal_rows()
    summary = _scores(rows)
    for task in ("A", "B"):
        [cat] = [r for r in summary.categories if r["category"] == task]
        [main] = _scores([r for r in rows if r["task"] == task]).rows
        assert cat["method"].startswith(main.method + ";")
        assert (cat["estimate"], cat["lower"], cat["upper"]) == pytest.approx(
            (main.estimate, main.lower, main.upper), rel=1e-12)
        assert cat["effective_clusters"] == pytest.approx(main.effective_clusters)
        assert cat["design_flagged"] is main.design_flagged
    # task A sits in three large clusters: flagged in the block as in its own main row, named
    [a] = [r for r in summary.categories if r["category"] == "A"]
    assert a["design_flagged"] and a["effective_clusters"] < 8
    assert any("/ A: the 12 clusters count as" in n for n in summary.notes)
    text = str(summary)
    assert f"129/12 ({a['effective_clusters']:.1f} effective)" in text
    # the flagged category takes the independence model's df (the one rule), B the working ICC's
    assert a["method"].startswith("logit_cluster_robust_t_independent_df;")
    assert ("By category (task): ok / unspecified (logit cluster-robust t (CR2, df of the "
            "independence model: a flagged design); logit cluster-robust t (CR2)") in text
    assert all(0 < r["lower_simultaneous"] < r["lower"] < r["upper"] < r["upper_simultaneous"] < 1
               for r in summary.categories)


def test_a_bounded_category_without_cluster_variance_falls_back_to_korn_graubard() -> None:
    # task A: four clusters with a 4 and an 8 on 1-10 (each cluster's mean 5/9, V = 0);
    # Korn-Graubard by hand, as tests/analysis/test_scores_degenerate.py: n* = N (t_{N-1} /
    # t_{C-1})^2, N = 8, C = 4, Clopper-Pearson on x = r n* of n*.
    rows = [{"item": f"a{i}", "cluster": f"a{i // 2}", "arm": "x", "criterion": "ok",
             "task": "A", "score": s} for i, s in enumerate([4, 8] * 4)]
    rows += [{"item": f"b{i}", "cluster": f"b{i // 2}", "arm": "x", "criterion": "ok",
              "task": "B", "score": s} for i, s in enumerate([2, 9, 5, 7, 3, 3, 8, 10])]
    summary = _scores(rows, "range:1,10")
    [a] = [r for r in summary.categories if r["category"] == "A"]
    r, q = 5 / 9, 0.975
    n_star = 8 * (stats.t.ppf(q, 7) / stats.t.ppf(q, 3)) ** 2
    x = r * n_star
    assert a["method"].startswith("korn_graubard_clopper_pearson;")
    assert a["lower"] == pytest.approx(stats.beta.ppf(1 - q, x, n_star - x + 1), rel=1e-9)
    assert a["upper"] == pytest.approx(stats.beta.ppf(q, x + 1, n_star - x), rel=1e-9)
    # simultaneous over two categories: Bonferroni's 1 - 0.05 / 2 for the Korn-Graubard one
    q2 = 1 - 0.05 / 4
    n2 = 8 * (stats.t.ppf(q2, 7) / stats.t.ppf(q2, 3)) ** 2
    assert a["lower_simultaneous"] == pytest.approx(
        stats.beta.ppf(1 - q2, r * n2, n2 - r * n2 + 1), rel=1e-9)
    assert any("/ A:" in n and "Korn-Graubard" in n for n in summary.notes)


def _dense_cr2_se(d: np.ndarray, clusters: np.ndarray) -> float:
    """CR2 standard error of the mean of d (OLS on a constant) from the dense hat matrix:
    sum_c (1' (I - H_cc)^{-1/2} e_c)^2 / N^2 (Bell and McCaffrey 2002), by eigendecomposition."""
    N = d.size
    e = d - d.mean()
    total = 0.0
    for c in np.unique(clusters):
        idx = clusters == c
        H = np.full((idx.sum(), idx.sum()), 1.0 / N)
        w, V = np.linalg.eigh(np.eye(idx.sum()) - H)
        A = V @ np.diag(w ** -0.5) @ V.T
        total += float(np.ones(idx.sum()) @ A @ e[idx]) ** 2
    return float(np.sqrt(total)) / N


def test_category_contrasts_use_the_cr2_variance_of_every_other_paired_difference() -> None:
    rng = np.random.default_rng(5)
    rows = []
    for task in ("math", "code"):
        for c, size in enumerate([1, 2, 3, 6, 9, 14]):
            for i in range(size):
                item = f"{task}{c}_{i}"
                for arm, bonus in (("A", 0.1), ("B", 0.0)):
                    v = float(np.clip(0.5 + bonus + rng.normal(0, 0.25), 0, 1))
                    rows.append(dict(item=item, cluster=f"{task}{c}", arm=arm, run=1, value=v,
                                     task=task, criterion="quality", judge="j"))
    frame = pd.DataFrame(rows)
    _, contrasts, _ = category_breakdown(frame, group=["criterion", "judge"])
    for rec in contrasts:
        part = frame[frame["task"] == rec["category"]]
        a = part[part["arm"] == "A"].set_index("item")
        b = part[part["arm"] == "B"].set_index("item").loc[a.index]
        d = (a["value"] - b["value"]).to_numpy()
        se = _dense_cr2_se(d, a["cluster"].to_numpy())
        assert rec["standard_error"] == pytest.approx(se, rel=1e-9)
        assert rec["df"] < 5  # Bell-McCaffrey df of six unequal clusters, below C - 1
        t = rec["estimate"] / se
        assert rec["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), rec["df"]), rel=1e-9)
        assert "(CR2)" in rec["method"]
