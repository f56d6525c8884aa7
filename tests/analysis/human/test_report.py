"""The human report: PPI++ per arm and pair from a table with human labels on a subset."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from assay.analysis.human import human_calibrated, human_support
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import DesignError
from assay.report.kinds import KINDS, build_reports
from assay.stats.ppi import ppi_mean_clustered


def _table(seed: int = 0, *, humans: bool = True) -> Judgments:
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(12):
        for i in range(6):
            item = f"q{c}-{i}"
            labelled = humans and i < 2
            for arm, p, bias in (("A", 0.6, 0.0), ("B", 0.5, 0.2)):
                y = float(rng.random() < p)
                f = float(rng.random() < np.clip(0.8 * y + 0.1 + bias, 0, 1))
                base = dict(item=item, cluster=f"d{c}", arm=arm, criterion="correct",
                            reportable=True)
                rows += [dict(base, run=1, judge="gpt", score=f),
                         dict(base, run=2, judge="gpt", score=f)]
                if labelled:
                    rows.append(dict(base, run=1, judge="human:1", score=y))
    return Judgments(pd.DataFrame(rows), {"correct": Scale("binary")})


def test_arm_record_is_ppi_of_the_item_values() -> None:
    judgments = _table()
    report = human_calibrated(judgments)
    assert [r.arm for r in report.arms] == ["A", "B"]
    assert [(r.arm, r.opponent) for r in report.pairs] == [("A", "B")]
    frame = judgments.frame
    a = frame[frame["arm"] == "A"]
    f = a[a["judge"] == "gpt"].groupby("item", sort=False)["score"].mean()
    y = a[a["judge"] == "human:1"].set_index("item")["score"].reindex(f.index)
    lab = y.notna().to_numpy()
    cl = np.array([i.split("-")[0] for i in f.index])
    direct = ppi_mean_clustered(y.to_numpy()[lab], f.to_numpy()[lab], f.to_numpy()[~lab],
                                clusters_labelled=cl[lab], clusters_unlabelled=cl[~lab])
    rec = report.arms[0]
    assert_allclose([rec.estimate, rec.lower, rec.upper, rec.lam],
                    [direct.estimate, direct.lower, direct.upper, direct.lam])
    assert (rec.n, rec.n_unlabelled, rec.n_clusters, rec.n_labelled_clusters) == (24, 48, 12, 12)
    assert_allclose(rec.judge_estimate, f.mean())
    assert_allclose(rec.human_estimate, y.mean())


def test_pair_is_antisymmetric_in_the_arms_order() -> None:
    report = human_calibrated(_table())
    pair = report.pairs[0]
    assert pair.lower < pair.estimate < pair.upper
    assert pair.effective_n > 0


def test_json_text_and_the_registered_kind() -> None:
    judgments = _table()
    outcome = build_reports(judgments, [KINDS["human"]])
    result = outcome.made["human"].result
    data = json.loads(result.to_json())
    assert {"arms", "pairs", "conf", "notes"} <= set(data)
    assert data["arms"][0]["opponent"] is None
    text = str(result)
    assert "PPI++" in text and "judge only" in text and "A - B" in text


def test_without_human_labels_the_report_is_skipped_with_its_reason() -> None:
    judgments = _table(humans=False)
    assert "no human labels" in (human_support(judgments) or "")
    outcome = build_reports(judgments, [KINDS["human"]])
    assert "human" in outcome.skipped
    with pytest.raises(DesignError):
        human_calibrated(judgments)


def _preference_table(seed: int = 3) -> Judgments:
    """Three systems compared pairwise on 60 items in 15 documents, each comparison judged
    twice with the positions swapped (the second trial stored from B's side), and a human
    preference on one item per document, stored from either side."""
    rng = np.random.default_rng(seed)
    rows = []
    for c in range(15):
        for i in range(4):
            item = f"q{c}-{i}"
            for a, b, p in (("A", "B", 0.6), ("A", "C", 0.5), ("B", "C", 0.4)):
                y = float(rng.choice([1.0, 0.5, 0.0], p=[p * 0.8, 0.2, 0.8 - p * 0.8]))
                base = dict(item=item, cluster=f"d{c}", run=1, criterion="preference",
                            reportable=True)
                for position in (1, 2):
                    f = y if rng.random() < 0.7 else float(rng.choice([1.0, 0.5, 0.0]))
                    if position == 1:
                        rows.append(dict(base, arm=a, opponent=b, position=1, judge="gpt",
                                         score=f))
                    else:
                        rows.append(dict(base, arm=b, opponent=a, position=1, judge="gpt",
                                         score=1.0 - f))
                if i == 0:
                    side = (a, b, y) if c % 2 else (b, a, 1.0 - y)
                    rows.append(dict(base, arm=side[0], opponent=side[1], position=1,
                                     judge="human:1", score=side[2]))
    return Judgments(pd.DataFrame(rows), {"preference": Scale.parse("range:0,1")})


def test_win_rate_is_ppi_of_the_per_item_preferences() -> None:
    judgments = _preference_table()
    assert human_support(judgments) is None
    report = human_calibrated(judgments)
    assert report.arms == [] and report.pairs == []
    assert [(r.arm, r.opponent) for r in report.win_rates] == [("A", "B"), ("A", "C"),
                                                               ("B", "C")]
    frame = judgments.frame
    rows = frame[((frame["arm"] == "A") & (frame["opponent"] == "B"))
                 | ((frame["arm"] == "B") & (frame["opponent"] == "A"))]
    a_side = np.where(rows["arm"] == "A", rows["score"], 1.0 - rows["score"])
    rows = rows.assign(a=a_side)
    f = rows[rows["judge"] == "gpt"].groupby("item", sort=False)["a"].mean()
    y = rows[rows["judge"] == "human:1"].set_index("item")["a"].reindex(f.index)
    lab = y.notna().to_numpy()
    assert lab.sum() == 15
    cl = np.array([i.split("-")[0] for i in f.index])
    direct = ppi_mean_clustered(y.to_numpy()[lab], f.to_numpy()[lab], f.to_numpy()[~lab],
                                clusters_labelled=cl[lab], clusters_unlabelled=cl[~lab])
    rec = report.win_rates[0]
    assert_allclose([rec.estimate, rec.lower, rec.upper, rec.lam, rec.effective_n],
                    [direct.estimate, direct.lower, direct.upper, direct.lam,
                     direct.effective_n])
    assert_allclose(rec.judge_estimate, f.mean())
    assert_allclose(rec.human_estimate, y.mean())
    assert (rec.n, rec.n_unlabelled, rec.n_labelled_clusters) == (15, 45, 15)
    data = json.loads(report.to_json())
    assert len(data["win_rates"]) == 3
    text = str(report)
    assert "A vs B" in text and "pairwise preferences" in text


def test_ordinal_labels_are_mapped_to_the_unit_interval() -> None:
    rows = []
    rng = np.random.default_rng(5)
    for c in range(10):
        for i in range(5):
            level = int(rng.integers(0, 3))
            judged = min(2, level + int(rng.random() < 0.3))
            base = dict(item=f"q{c}-{i}", cluster=f"d{c}", arm="A", run=1,
                        criterion="helpful", reportable=True)
            rows.append(dict(base, judge="gpt", score=judged))
            if i < 2:
                rows.append(dict(base, judge="human", score=level))
    judgments = Judgments(pd.DataFrame(rows), {"helpful": Scale.parse("ordinal:Low,Medium,High")})
    rec = human_calibrated(judgments).arms[0]
    frame = judgments.frame
    y = frame[frame["judge"] == "human"]["score"].to_numpy() / 2
    assert_allclose(rec.human_estimate, y.mean())
    assert 0 <= rec.lower < rec.estimate < rec.upper <= 1.05
