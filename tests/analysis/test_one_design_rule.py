"""One design rule in every report (issue 26 item 3): the scores and win-rate reports read the
effective number of clusters G* and flag a design of few, unequal clusters exactly as the
benchmark report does."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.analysis.winrates import win_rates
from assay.data.schema import Scale
from assay.data.validate import judgments_from_records


def _unequal(seed: int = 4) -> list[tuple[str, str, float]]:
    # 237 questions in 40 clusters, 3 of which hold 200 of them (the design), with a
    # cluster effect: (cluster, item, verdict).
    rng = np.random.default_rng(seed)
    sizes = [67, 67, 66] + [1] * 37
    rows = []
    for c, size in enumerate(sizes):
        p = min(max(0.5 + rng.normal(0, 0.2), 0.05), 0.95)
        rows += [(f"c{c}", f"c{c}-q{i}", float(rng.random() < p)) for i in range(size)]
    return rows


def test_scores_and_benchmark_flag_the_same_design_with_the_same_g_star() -> None:
    rows = [{"item": item, "cluster": cluster, "arm": "a", "criterion": "correct",
             "score": v} for cluster, item, v in _unequal()]
    table = judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t",
                                   sources=["t"], scales={"correct": Scale.parse("binary")})
    summary = score_summary(table)
    [row] = summary.rows
    bench = benchmark_report(pd.DataFrame([{**r, "run": 1} for r in rows]).drop(
        columns="criterion"), method="cluster_t", B=100)
    assert bench.design_flagged and row.design_flagged
    assert row.effective_clusters == pytest.approx(bench.effective_clusters, rel=1e-12)
    assert row.effective_clusters < 8
    assert any("effective clusters" in n and "'correct', judge" in n for n in summary.notes)


def test_win_rate_in_unequal_clusters_says_why_it_is_wide() -> None:
    frame = pd.DataFrame([dict(item=item, cluster=cluster, arm="a", opponent="b",
                               position=1 + k % 2, score=v, judge="j", criterion="pref", run=1)
                          for k, (cluster, item, v) in enumerate(_unequal())])
    report = win_rates(frame)
    [record] = [r for r in report.records if not r.is_aa]
    assert record.n == 237 and record.n_clusters == 40
    assert any(n.startswith("win rate j / pref / a vs b: the 40 clusters count as")
               for n in report.notes)


def test_compare_delta_in_unequal_clusters_says_why_it_is_wide() -> None:
    from assay.analysis.compare import compare
    from assay.data.table import Judgments

    rng = np.random.default_rng(9)

    def table(rows: list[tuple[str, str, float]]) -> Judgments:
        frame = pd.DataFrame([dict(item=i, cluster=c, arm="m", run=1, score=v)
                              for c, i, v in rows])
        return Judgments(frame.assign(judge="em", criterion="correct", reportable=True),
                         {"correct": Scale("binary")})

    a_rows = _unequal(4)
    # run B: a cluster-level shift of the same items (so the differences cluster too)
    shift = {c: rng.normal(0, 0.3) for c, _, _ in a_rows}
    b_rows = [(c, i, float(rng.random() < min(max(0.5 + shift[c], 0.02), 0.98)))
              for c, i, _ in a_rows]
    report = compare(table(a_rows), table(b_rows))
    [delta] = report.deltas
    assert delta.n == 237 and delta.n_clusters == 40
    assert any(n.startswith("m (em, correct), delta: the 40 clusters count as")
               for n in report.notes)


def test_per_category_intervals_use_the_main_rows_cr2_variance() -> None:
    # Issue 26 (3): in one scores JSON the main rows were CR2 and the per-task block CR1.
    # Task t1: clusters d1 (items 1, 0, 1) and d2 (0) and d3 (1, 1): S = (2, 0, 2),
    # n = (3, 1, 2), N = 6, r = 2/3; residuals S_c - r n_c = 0, -2/3, 2/3; CR2 weights
    # 1 / (1 - n_c / N) = 2, 6/5, 3/2: V2 = (0 + 4/9 * 6/5 + 4/9 * 3/2) / 36 = 0.0333...
    # (CR1: 3/2 * 8/9 / 36 = 0.0370).
    layout = {"t1": [("d1", [1, 0, 1]), ("d2", [0]), ("d3", [1, 1])],
              "t2": [("e1", [1, 0]), ("e2", [0, 0]), ("e3", [1, 1])]}
    rows = [{"item": f"{task}-{c}-{i}", "cluster": c, "task": task, "arm": "a",
             "criterion": "correct", "score": float(v)}
            for task, clusters in layout.items() for c, values in clusters
            for i, v in enumerate(values)]
    table = judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t",
                                   sources=["t"], scales={"correct": Scale.parse("binary")})
    summary = score_summary(table)
    [t1] = [c for c in summary.categories if c["category"] == "t1"]
    v2 = (4 / 9 * 6 / 5 + 4 / 9 * 3 / 2) / 36
    assert t1["estimate"] == pytest.approx(2 / 3)
    assert t1["standard_error"] == pytest.approx(np.sqrt(v2), rel=1e-12)
    assert "CR1" not in t1["method"]
    assert "CR1" not in summary.to_json()


def test_compare_reads_the_arms_icc_as_the_benchmark_does_not_the_differences() -> None:
    # Issue 26 (3): the benchmark reads G* at the largest working ICC of the arms' values; the
    # compare report read it from the item differences. Here both runs share each cluster's
    # level (a strong cluster effect) and differ by item noise only, so the differences have
    # no cluster effect (working ICC 0.00, G* 4.2) while the arms have ICC 0.18 and G* 3.1,
    # the figure the benchmark's design_of gives and compare now reports.
    from assay.analysis.benchmark._design import design_of
    from assay.analysis.compare import compare
    from assay.data.table import Judgments

    rng = np.random.default_rng(2)
    sizes = [67, 67, 66] + [1] * 37
    level = rng.uniform(0.1, 0.9, len(sizes))
    items = [(f"c{c}", f"c{c}-q{i}", level[c]) for c, n in enumerate(sizes) for i in range(n)]

    def table(values: list[float]) -> Judgments:
        frame = pd.DataFrame([dict(item=i, cluster=c, arm="m", run=1, score=v)
                              for (c, i, _), v in zip(items, values, strict=True)])
        return Judgments(frame.assign(judge="em", criterion="correct", reportable=True),
                         {"correct": Scale("binary")})

    a = [float(rng.random() < p) for _, _, p in items]
    b = [float(rng.random() < p) for _, _, p in items]
    report = compare(table(a), table(b))
    [delta] = report.deltas
    # the reference: the benchmark's design_of on the two arms' cluster sums
    frame = pd.DataFrame({"c": [c for c, _, _ in items], "a": a, "b": b})
    sums = frame.groupby("c", sort=False)[["a", "b"]].sum().to_numpy()
    sq = sums  # binary values: squares are the values
    n = frame.groupby("c", sort=False).size().to_numpy(np.float64)
    bench = design_of(sums, sq, n, 1)
    assert bench.flagged
    assert delta.design_flagged and delta.effective_clusters == pytest.approx(
        bench.effective_clusters, rel=1e-12)
    assert any(n.startswith("m (em, correct), delta: the 40 clusters count as")
               for n in report.notes)


def test_a_flagged_design_gets_one_interval_in_the_scores_win_rate_and_benchmark_reports() -> None:
    # Issue 26 (3), one rule: where the design is flagged, the benchmark's auto rule takes the
    # CR2 t on the independence working model's df; the scores and win-rate reports now take
    # the same interval under the same label, not the working ICC's df. Five identical runs so
    # that the benchmark is not descriptive and has no run component.
    rows = [{"item": item, "cluster": cluster, "arm": "a", "criterion": "correct",
             "score": v} for cluster, item, v in _unequal()]
    table = judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t",
                                   sources=["t"], scales={"correct": Scale.parse("binary")})
    [row] = score_summary(table).rows
    bench = benchmark_report(pd.DataFrame([{**r, "run": k} for r in rows for k in range(1, 6)])
                             .drop(columns="criterion"), B=100)
    [acc] = bench.accuracy
    assert bench.design_flagged and row.design_flagged
    label = "logit_cluster_robust_t_independent_df"
    assert (acc["method"], row.method) == (label, label)
    assert (row.lower, row.upper) == pytest.approx((acc["lower"], acc["upper"]), rel=1e-12)
    # the win rate of the same verdicts (a preference of a over b in both orders)
    frame = pd.DataFrame([dict(item=item, cluster=cluster, arm="a", opponent="b",
                               position=1 + k % 2, score=v, judge="j", criterion="pref", run=1)
                          for k, (cluster, item, v) in enumerate(_unequal())])
    [record] = [r for r in win_rates(frame).records if not r.is_aa]
    assert record.interval_method == label
    assert (record.lower, record.upper) == pytest.approx((row.lower, row.upper), rel=1e-12)
    # and the working ICC's df would have given another, wider interval (the test can fail)
    from assay.stats.intervals import cluster_t_interval
    s = pd.DataFrame(rows).groupby("cluster", sort=False)["score"]
    working = cluster_t_interval(s.sum().to_numpy(), s.size().to_numpy().astype(float),
                                 variance="CR2", sumsq=s.sum().to_numpy())  # binary: v^2 = v
    assert working.upper - working.lower > row.upper - row.lower + 1e-3
