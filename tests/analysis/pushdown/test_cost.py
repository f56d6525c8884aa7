"""The engine's cost section (dollars reduced to cluster sums while streaming) equals the
pandas path's, with missing dollars, estimated ones and an arm that costs nothing."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import assay
from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.pushdown import engine_benchmark_report, open_table
from tests.analysis.pushdown._tables import SCALES, assert_same, write

# One cluster's runs of the paid arm: (item, run, usd, score, provenance); usd None is
# unknown. Cluster k (1, 2, 3) pays k times these dollars.
PAID = [("q1", 1, 0.010, 1.0, "reported"), ("q1", 2, 0.020, 0.0, "estimated"),
        ("q2", 1, None, 1.0, "reported"), ("q2", 2, 0.030, 1.0, "reported"),
        ("q3", 1, 0.040, 0.0, "estimated"), ("q3", 2, None, 1.0, "reported")]


def cost_table() -> pd.DataFrame:
    rows = []
    for k in (1, 2, 3):
        for item, run, usd, score, provenance in PAID:
            base = dict(judge="gpt", criterion="correct", cluster=f"c{k}", item=f"{item}-{k}",
                        run=run)
            rows.append(dict(base, arm="paid", score=score, failure_kind=None,
                             usd=None if usd is None else k * usd, usd_provenance=provenance))
            # The free arm costs 0 on every run; it fails (timeout) on one run per cluster.
            failed = item == "q2" and run == 2
            rows.append(dict(base, arm="free", score=None if failed else float(run == 1),
                             failure_kind="timeout" if failed else None, usd=0.0,
                             usd_provenance="reported"))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_the_cost_section_equals_the_pandas_path_and_the_hand_count(fmt, tmp_path):
    frame = cost_table()
    table = open_table(write(frame, tmp_path, fmt), scales=SCALES)
    engine, _, _ = engine_benchmark_report(table, B=200, seed=2, method="bootstrap")
    loaded = assay.load(write(frame, tmp_path, "parquet" if fmt != "parquet" else "folder"),
                        scales=SCALES)
    pandas = benchmark_report(benchmark_rows(loaded), B=200, seed=2,
                              method="bootstrap")
    assert_same(engine.to_dict(), pandas.to_dict())  # every section, intervals included

    cost = {r["arm"]: r for r in engine.to_dict()["cost"]}
    # By hand: the known dollars of the paid arm are (1 + 2 + 3) x (0.01 + 0.02 + 0.03 +
    # 0.04) = 0.6 over 3 x 4 known runs, 2 of them correct in each cluster; 0.02 + 0.04 of
    # every 0.10 rest on estimated tokens.
    assert math.isclose(cost["paid"]["usd_per_item"], 0.6 / 12, rel_tol=1e-12)
    assert math.isclose(cost["paid"]["usd_per_correct"], 0.6 / 6, rel_tol=1e-12)
    assert math.isclose(cost["paid"]["usd_estimated_share"], 0.6, rel_tol=1e-12)
    assert cost["paid"]["estimated_flag"] is True
    assert cost["paid"]["usd_per_item_lower"] < 0.05 < cost["paid"]["usd_per_item_upper"]
    assert cost["free"]["usd_per_item"] == 0.0 and cost["free"]["usd_per_correct"] == 0.0
    assert cost["free"]["usd_estimated_share"] is None  # nothing spent, no share
    assert "6 run(s) of paid have no usd: its usd figures use the other runs." in engine.notes
    frontier = {r["arm"]: r["on_frontier"] for r in engine.to_dict()["frontier"]}
    assert frontier == {"paid": True, "free": True}  # paid is more accurate, free cheaper
