"""Judges against human labels in the judges report: accuracy, Cohen's kappa (against
scikit-learn), bias, and their intervals."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from assay.analysis.judges import judge_agreement
from assay.data.schema import Scale
from assay.data.table import Judgments


def _table(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    rows = []
    truth = {}
    for c in range(15):
        for i in range(4):
            item = f"c{c}i{i}"
            truth[item] = float(rng.random() < 0.5)
            rows.append(dict(item=item, cluster=f"c{c}", arm="m", run=1, judge="human:ann",
                             criterion="correct", score=truth[item]))
            # the judge agrees 80% of the time, and says "correct" when it disagrees
            agrees = rng.random() < 0.8
            rows.append(dict(item=item, cluster=f"c{c}", arm="m", run=1, judge="gpt",
                             criterion="correct", score=truth[item] if agrees else 1.0))
    frame = pd.DataFrame(rows).assign(reportable=True)
    wide = frame.pivot(index="item", columns="judge", values="score")
    return frame, wide


def test_accuracy_kappa_and_bias_against_a_human_label() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    frame, wide = _table()
    report = judge_agreement(Judgments(frame, {"correct": Scale.parse("binary")}))
    (h,) = report.human
    assert (h.criterion, h.judge, h.n, h.n_items, h.n_clusters, h.n_humans) == (
        "correct", "gpt", 60, 60, 15, 1)
    judge, human = wide["gpt"].to_numpy(), wide["human:ann"].to_numpy()
    assert h.accuracy == pytest.approx(np.mean(judge == human))
    assert h.kappa == pytest.approx(metrics.cohen_kappa_score(judge, human))
    assert h.bias == pytest.approx(np.mean(judge - human))
    assert h.bias > 0  # the judge errs towards "correct"
    assert h.accuracy_lower < h.accuracy < h.accuracy_upper <= 1
    assert h.bias_lower < h.bias < h.bias_upper
    assert report.to_dict()["human"][0]["judge"] == "gpt"
    assert "Judges against human labels" in str(report)


def test_clustered_labels_widen_the_accuracy_interval() -> None:
    """The same 60 comparisons, with the disagreements gathered in few clusters, get a wider
    interval than when every item is its own cluster: the clusters are the unit."""
    frame, _ = _table(seed=3)
    own = judge_agreement(Judgments(frame.assign(cluster=frame["item"]),
                                    {"correct": Scale.parse("binary")})).human[0]
    disagree = frame.pivot(index="item", columns="judge", values="score")
    wrong = set(disagree.index[disagree["gpt"] != disagree["human:ann"]])
    order = sorted(frame["item"].unique(), key=lambda i: (i not in wrong, i))
    packed = {item: f"k{rank // 4}" for rank, item in enumerate(order)}
    clustered = judge_agreement(Judgments(frame.assign(cluster=frame["item"].map(packed)),
                                          {"correct": Scale.parse("binary")})).human[0]
    assert clustered.accuracy == pytest.approx(own.accuracy)
    width = lambda h: h.accuracy_upper - h.accuracy_lower  # noqa: E731
    assert width(clustered) > width(own)


def test_no_human_labels_no_records_and_a_range_scale_has_no_accuracy() -> None:
    frame, _ = _table()
    alone = frame[frame["judge"] == "gpt"]
    assert judge_agreement(Judgments(alone, {"correct": Scale.parse("binary")})).human == []
    rated = frame.assign(score=frame["score"] * 4 + 1)
    (h,) = judge_agreement(Judgments(rated, {"correct": Scale.parse("range:1,5")})).human
    assert math.isnan(h.accuracy) and math.isnan(h.kappa)
    assert h.bias == pytest.approx((rated[rated.judge == "gpt"]["score"].mean()
                                    - rated[rated.judge == "human:ann"]["score"].mean()) / 4)


def test_the_judges_page_has_a_human_section() -> None:
    from assay.report.html._judges import judges_page

    frame, _ = _table()
    page = judges_page(judge_agreement(Judgments(frame, {"correct": Scale.parse("binary")})))
    [section] = [s for s in page.sections if s.title == "Judges against human labels"]
    assert section.tables and section.tables[0].name == "judges-human"
