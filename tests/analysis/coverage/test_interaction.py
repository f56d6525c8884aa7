"""The teacher x arm interaction matrix is computed from the composite's own rows.

Regression test: the page mixed pairwise preferences into the cells (a demo cell read 0.568
over 2,264 rows against 0.599 over its 1,888 pointwise rows).
"""

from __future__ import annotations

import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import special, stats

from assay.analysis.coverage import interaction_matrix
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import ConfigError
from assay.report.html import interaction_page
from tests.analysis.judges.conftest import demo, demo_folder  # noqa: F401

# item, cluster, teacher, score of A, score of B (binary correctness)
ITEMS = [("q1", "d1", "T1", 1.0, 1.0), ("q2", "d2", "T1", 0.0, 1.0),
         ("q3", "d3", "T2", 0.0, 1.0), ("q4", "d4", "T2", 0.0, 0.0)]


def _table() -> Judgments:
    rows = []
    for item, cluster, teacher, a, b in ITEMS:
        for arm, score in (("A", a), ("B", b)):
            rows.append({"item": item, "cluster": cluster, "teacher": teacher, "arm": arm,
                         "opponent": None, "judge": "em", "criterion": "correct", "score": score})
        # a pairwise preference on every item: A wins (1 for A, 0 for B)
        for arm, other, score in (("A", "B", 1.0), ("B", "A", 0.0)):
            rows.append({"item": item, "cluster": cluster, "teacher": teacher, "arm": arm,
                         "opponent": other, "judge": "pw", "criterion": "pref", "score": score})
    frame = pd.DataFrame(rows).assign(run=1, reportable=True)
    return Judgments(frame, {"correct": Scale("binary"), "pref": Scale.parse("range:0,1")})


def test_cells_are_composite_scores_without_pairwise_rows():
    result = interaction_matrix(_table())
    cells = {(c.teacher, c.arm): c for c in result.cells}
    # by hand, pointwise rows only: T1/A (1 + 0) / 2, T1/B 1, T2/A (0 + 1)/2... see ITEMS
    assert {k: c.estimate for k, c in cells.items()} == {
        ("T1", "A"): 0.5, ("T1", "B"): 1.0, ("T2", "A"): 0.0, ("T2", "B"): 0.5}
    assert all(c.n == 2 and c.n_clusters == 2 for c in cells.values())
    # grand mean 0.5; rows 0.75 and 0.25, columns 0.25 and 0.75
    assert result.grand_mean == 0.5
    assert result.row_effects == {"T1": 0.25, "T2": -0.25}
    assert result.column_effects == {"A": -0.25, "B": 0.25}
    # T1/A: S = (1, 0), n = (1, 1): V = 2 ((1 - .5)^2 + (0 - .5)^2) / 4 = 0.25, se 0.5;
    # expit(logit .5 -+ t_{1, .975} x 0.5 / (.5 x .5))
    half = stats.t.ppf(0.975, 1) * 0.5 / 0.25
    t1a = cells[("T1", "A")]
    assert t1a.standard_error == pytest.approx(0.5)
    assert_allclose([t1a.lower, t1a.upper], special.expit([-half, half]), rtol=1e-12)
    # Q = 1: no logit interval; the one rule's Korn-Graubard, one-sided from the bound: with
    # no variance n* = N = 2, so the lower bound is alpha^(1/n) = 0.05^(1/2)
    t1b = cells[("T1", "B")]
    assert t1b.method == "korn_graubard_clopper_pearson"
    assert (t1b.lower, t1b.upper) == (pytest.approx(0.05 ** 0.5, rel=1e-9), 1.0)
    assert any("pairwise rows" in n for n in result.notes)
    # the page lays out the same numbers
    page = interaction_page(_table())
    table = page.sections[0].tables[0]
    keys = [c.key for c in table.columns]
    records = [dict(zip(keys, row, strict=True)) for row in table.rows]
    assert {(r["teacher"], r["arm"]): (r["mean"], r["n"]) for r in records} == {
        ("T1", "A"): (0.5, 2), ("T1", "B"): (1.0, 2), ("T2", "A"): (0.0, 2), ("T2", "B"): (0.5, 2)}


def test_demo_cells_match_pandas_over_pointwise_rows(demo):  # noqa: F811
    f = demo.frame.assign(v=demo.normalised_scores())
    f = f[f["reportable"] & f["v"].notna() & f["opponent"].isna()]
    expected = f.groupby(["teacher", "arm"])["v"].agg(["mean", "size"])
    cells = {(c.teacher, c.arm): c for c in interaction_matrix(demo).cells}
    assert set(cells) == set(expected.index)
    for key, (mean, size) in expected.iterrows():
        assert cells[key].n == size
        assert cells[key].estimate == pytest.approx(mean, rel=1e-12)
    cell = cells[("cirrus-70b", "atlas-7b")]
    assert (round(cell.estimate, 3), cell.n) == (0.599, 1888)


def test_too_many_cells_are_refused_before_the_matrix_is_built():
    table = _table()
    with pytest.raises(ConfigError, match=r"2 teachers x 2 arms = 4 cells, over the limit of 3"):
        interaction_matrix(table, max_cells=3)
    # one teacher per item: 1,001 teachers x 10 arms on the page: refused, with the reason
    frame = pd.DataFrame({"item": [f"q{i}" for i in range(1001) for _ in range(10)],
                          "arm": [f"a{k}" for _ in range(1001) for k in range(10)],
                          "score": 1.0}).assign(teacher=lambda f: "t-" + f["item"],
                                                cluster=lambda f: f["item"], run=1, judge="em",
                                                criterion="correct", reportable=True)
    page = interaction_page(Judgments(frame, {"correct": Scale("binary")}))
    assert "10,010 cells, over the limit of 10,000" in page.sections[0].missing
    assert interaction_matrix(Judgments(frame.drop(columns="teacher"),
                                        {"correct": Scale("binary")})) is None
