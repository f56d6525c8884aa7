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
