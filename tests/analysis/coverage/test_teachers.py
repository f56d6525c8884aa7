"""The teacher report: coverage, diversity and item quality per teacher, worked by hand."""

from __future__ import annotations

import json
import math

import pytest

from assay.analysis.coverage import teacher_report
from assay.data.table import Judgments
from tests.analysis.judges.conftest import make_table

# item, teacher, attributes, score of arm X, score of arm Y
ITEMS = [("i1", "A", {"size": "S", "tone": "formal"}, 0.2, 0.4),
         ("i2", "A", {"size": "L", "tone": "formal"}, 0.6, 0.8),
         ("i3", "A", {"size": "S", "tone": "casual"}, 1.0, 0.0),
         ("i4", None, {"size": "S", "tone": "formal"}, 0.5, 0.5),
         ("i5", None, {"size": "L", "tone": "casual"}, 0.3, 0.7),
         ("i6", "B", {"size": "S", "tone": "formal"}, 1.0, 0.8)]


@pytest.fixture
def table() -> Judgments:
    rows = [{"item": item, "arm": arm, "score": score, "task": "t1", "teacher": teacher,
             "attributes": json.dumps(attrs)}
            for item, teacher, attrs, x, y in ITEMS for arm, score in (("X", x), ("Y", y))]
    return make_table(rows, {"score": "range:0,1"})


def test_coverage_diversity_and_quality_by_hand(table: Judgments) -> None:
    report = teacher_report(table, benchmark_teachers=["B"])
    rows = {r.teacher: r for r in report.teachers}
    assert set(rows) == {"A", "B", "(benchmark)"}
    # Omega = {S, L} x {formal, casual}: A covers 3, the teacherless items 2, B 1
    assert [rows[t].acr for t in ("A", "(benchmark)", "B")] == [0.75, 0.5, 0.25]
    # A: size S, S, L and tone formal, formal, casual: J = H(2/3, 1/3) / ln 2 = 0.9182958
    assert rows["A"].diversity == pytest.approx(0.9182958, abs=1e-7)
    assert rows["(benchmark)"].diversity == pytest.approx(1.0)
    assert rows["B"].diversity == 0.0 and rows["B"].distinct_share == 0.5
    assert rows["A"].quality == pytest.approx(3.0 / 6)
    assert rows["A"].lower < 0.5 < rows["A"].upper
    assert rows["A"].kind == "synthetic" and rows["B"].kind == rows["(benchmark)"].kind == "benchmark"
    kinds = {k.kind: k for k in report.kinds}
    assert kinds["benchmark"].teachers == ["(benchmark)", "B"]
    assert kinds["benchmark"].quality == pytest.approx(3.8 / 6)
    assert kinds["synthetic"].n_items == 3
    assert any("no declared target attributes" in n for n in report.notes)


def test_declared_targets_leave_the_other_keys_as_nuanced(table: Judgments) -> None:
    report = teacher_report(table, attribute_space={"attributes": {"size": ["S", "L", "M"]}})
    assert report.nuanced_attributes == {"t1": ["tone"]}
    rows = {r.teacher: r for r in report.teachers}
    assert rows["A"].acr == pytest.approx(2 / 3)
    assert rows["A"].diversity == pytest.approx(0.9182958, abs=1e-7)
    assert {d.attribute for d in report.diversity} == {"tone"}
    assert rows["A"].kind == "synthetic" and rows["B"].kind == "synthetic"
    assert not any(k.kind == "benchmark" and "B" in k.teachers for k in report.kinds)
    assert math.isfinite(rows["B"].quality)
