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
