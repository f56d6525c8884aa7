"""The systems report's statistics: hand-worked values on a tiny table, statsmodels' cluster
OLS on the demo data, Holm against statsmodels' multipletests, and the symmetries."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import special
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from assay.analysis.benchmark._design import design_flag_note
from assay.analysis.systems import head_to_head, performance_by_attribute, systems_report
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.stats import bell_mccaffrey_df, working_icc


def tiny(attributes: bool = True) -> Judgments:
    """Two arms, three documents of two questions, two runs each (scores a, b per run).

    d1: q1 a (1,1) b (0,0) -> item difference 1;   q2 a (1,1) b (1,1) -> 0;   D1 = 1
    d2: q3 a (1,1) b (0,0) -> 1;                   q4 a (0,0) b (1,1) -> -1;  D2 = 0
    d3: q5 a (1,1) b (1,0) -> 0.5;                 q6 a (0,0) b (1,1) -> -1;  D3 = -0.5
    Q_a = 8/12 > Q_b = 7/12, so a is ranked first.
    """
    scores = {"q1": ((1, 1), (0, 0)), "q2": ((1, 1), (1, 1)), "q3": ((1, 1), (0, 0)),
              "q4": ((0, 0), (1, 1)), "q5": ((1, 1), (1, 0)), "q6": ((0, 0), (1, 1))}
    records = []
    for i, (item, (a, b)) in enumerate(scores.items()):
        cluster = f"d{i // 2 + 1}"
        level = "x" if cluster in ("d1", "d2") else "y"
        for arm, runs in (("a", a), ("b", b)):
            for run, score in enumerate(runs, 1):
                row = {"item": item, "cluster": cluster, "arm": arm, "run": run, "judge": "em",
                       "criterion": "correct", "score": float(score), "reportable": True}
                if attributes:
                    row["attributes"] = json.dumps({"level": level})
                records.append(row)
    return Judgments(pd.DataFrame(records), {"correct": Scale("binary")})


def test_hand_worked_paired_difference_on_a_tiny_table():
    report = systems_report(tiny(), B=50, seed=3)
    assert [r.arm for r in report.rankings.arms] == ["a", "b"]
    (row,) = report.head_to_head
    assert (row.arm, row.opponent, row.task, row.n, row.n_clusters) == ("a", "b", None, 6, 3)
    # d = (1 + 0 - 0.5) / 6 = 1/12; residuals D_c - 2d = 5/6, -1/6, -2/3;
    # V_d = 3/2 * (25 + 1 + 16)/36 / 36 = 7/144, sqrt(V_d) = sqrt(7)/12 = 0.2204792759.
    # t_{2,0.975} = 0.95 / sqrt(2 * 0.975 * 0.025) = 4.3026527297 (closed form for 2 df);
    # lower = (1 - 4.3026527297 sqrt(7)) / 12 = -0.8653124251, upper 1.0319790917 cut to 1.
    assert_allclose([row.estimate, row.standard_error, row.lower, row.upper],
                    [1 / 12, 0.2204792759, -0.8653124251, 1.0], rtol=1e-9)
    # t = (1/12) / (sqrt(7)/12) = 1/sqrt(7); for 2 df p = 1 - t / sqrt(2 + t^2) = 1 - 1/sqrt(15).
    assert row.p_value == pytest.approx(0.7418011103, rel=1e-9)
    assert row.p_adjusted == pytest.approx(row.p_value, rel=1e-12)  # a family of one pair
    assert (row.method, row.df) == ("cluster_robust_t", 2.0)


def test_hand_worked_attribute_q_on_the_tiny_table():
    by = performance_by_attribute(tiny())
    assert by.attributes == ["level"]
    rows = {(r.value, r.arm): r for r in by.rows}
    assert set(rows) == {("x", "a"), ("x", "b"), ("y", "a"), ("y", "b")}
    x = rows[("x", "a")]
    # Units of a on q1..q4: 1,1,1,1,1,1,0,0 -> Q = 6/8; S = (4, 2), n = (4, 4);
    # V = 2/1 * ((4 - 3)^2 + (2 - 3)^2) / 8^2 = 1/16; half-width on the logit scale
    # t_{1,0.975} sqrt(V) / (Q (1 - Q)) = tan(0.475 pi) * 0.25 / 0.1875 = 16.9416063149;
    # bounds expit(ln 3 -+ 16.9416063149) = 1.3166643e-07 and 0.99999998537.
    assert (x.n, x.n_items, x.n_clusters, x.method) == (8, 4, 2, "logit_cluster_robust_t")
    assert_allclose([x.estimate, x.standard_error, x.lower, x.upper],
                    [0.75, 0.25, 1.316664300e-07, 0.9999999853704], rtol=1e-8)
    # y holds one document only: no interval, said by the method.
    y = rows[("y", "a")]
    assert y.estimate == 0.5 and y.n_clusters == 1 and y.method == "too_few_clusters"
    assert math.isnan(y.lower) and math.isnan(y.upper)


def test_swapping_the_arms_negates_and_relabelling_clusters_changes_nothing():
    table = tiny()
    (ab,), _ = head_to_head(table, ["a", "b"])
    (ba,), _ = head_to_head(table, ["b", "a"])
    assert ba.estimate == pytest.approx(-ab.estimate, abs=1e-15)
    assert ba.standard_error == pytest.approx(ab.standard_error, rel=1e-12)
    assert ba.p_value == pytest.approx(ab.p_value, rel=1e-12)
    assert ba.lower == pytest.approx(-1.0) and ab.upper == 1.0  # both cut at the same end
    frame = table.frame.copy()
    frame["cluster"] = frame["cluster"].map({"d1": "zz", "d2": "aa", "d3": "mm"})
    (moved,), _ = head_to_head(Judgments(frame, table.scales), ["a", "b"])
    assert_allclose([moved.estimate, moved.standard_error, moved.lower, moved.p_value],
                    [ab.estimate, ab.standard_error, ab.lower, ab.p_value], rtol=1e-12)


def test_one_cluster_gives_no_interval_and_a_note_not_an_error():
    frame = tiny().frame
    one = Judgments(frame[frame["cluster"] == "d1"].reset_index(drop=True),
                    {"correct": Scale("binary")})
    rows, notes = head_to_head(one, ["a", "b"])
    assert rows[0].method == "too_few_clusters" and rows[0].estimate == 0.5
    assert math.isnan(rows[0].p_value) and math.isnan(rows[0].p_adjusted)
    assert any("left out of the Holm family" in n for n in notes)


def test_without_attributes_the_report_is_empty_with_a_reason():
    report = systems_report(tiny(attributes=False), B=20)
    assert report.attributes.rows == [] and report.attributes.attributes == []
    assert any("no attributes column" in n for n in report.notes)
    data = json.loads(report.to_json())
    assert data["attributes"]["by_attribute"] == [] and data["head_to_head"][0]["arm"] == "a"


def item_differences(judgments: Judgments, arm: str, opponent: str, task: str | None) -> pd.DataFrame:
    """Item scores by plain pandas: reportable, pointwise, scored rows normalised to [0, 1]."""
    f = judgments.frame.assign(v=judgments.normalised_scores())
    f = f[f["reportable"] & f["opponent"].isna() & f["v"].notna()]
    if task is not None:
        f = f[f["task"] == task]
    wide = f.groupby(["cluster", "item", "arm"])["v"].mean().unstack("arm")[[arm, opponent]]
    wide = wide.dropna().reset_index()
    return wide.assign(d=wide[arm] - wide[opponent])


def _cr2_by_hand(d: np.ndarray, groups: np.ndarray, *,
                 independent: bool = False) -> tuple[float, float, float]:
    """Mean, CR2 standard error sqrt(sum_c e_c^2 / (1 - n_c/N)) / N and Bell-McCaffrey df.

    The df comes from ``bell_mccaffrey_df`` at the working ICC (at ICC 0, the independence
    working model, with ``independent``), both checked against the dense matrices in
    tests/stats/intervals/test_cr2.py; statsmodels gives CR1 only.
    """
    sums, sizes = np.bincount(groups, weights=d), np.bincount(groups).astype(float)
    total, mean = sizes.sum(), d.mean()
    resid = sums - mean * sizes
    se = math.sqrt(np.sum(resid**2 / (1 - sizes / total))) / total
    icc = 0.0 if independent else working_icc(sums, np.bincount(groups, weights=d * d), sizes)
    return float(mean), se, bell_mccaffrey_df(sizes, icc=icc)


def test_head_to_head_matches_statsmodels_cluster_ols_on_the_demo(systems_demo):
    report, judgments = systems_demo.report, systems_demo.judgments
    tasks = sorted(judgments.frame["task"].dropna().unique())
    assert len(report.head_to_head) == 3 * (1 + len(tasks))
    for scope in [None, *tasks]:
        mine = [r for r in report.head_to_head if r.task == scope]
        assert len(mine) == 3
        p_values = []
        for row in mine:
            data = item_differences(judgments, row.arm, row.opponent, scope)
            groups = pd.factorize(data["cluster"])[0]
            fit = sm.OLS(data["d"].to_numpy(), np.ones((len(data), 1))).fit(
                cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
            d, se, df = _cr2_by_hand(data["d"].to_numpy(), groups)
            half = sps.t.ppf(0.975, df) * se
            p = 2 * sps.t.sf(abs(d) / se, df)
            assert_allclose([row.estimate, row.standard_error, row.lower, row.upper, row.p_value,
                             row.df], [fit.params[0], se, max(d - half, -1), min(d + half, 1), p,
                                       df], rtol=1e-9)
            assert (row.n, row.n_clusters) == (len(data), data["cluster"].nunique())
            p_values.append(p)
        assert_allclose([r.p_adjusted for r in mine],
                        multipletests(p_values, method="holm")[1], rtol=1e-9)
    # Pairs follow the ranking: the higher-ranked arm first, so every overall difference is > 0.
    order = [r.arm for r in report.rankings.arms]
    overall = [r for r in report.head_to_head if r.task is None]
    assert [(r.arm, r.opponent) for r in overall] == [(order[0], order[1]), (order[0], order[2]),
                                                        (order[1], order[2])]
    assert all(r.estimate > 0 for r in overall)


def test_attribute_q_is_the_logit_cr2_t_on_the_demo(systems_demo):
    report, judgments = systems_demo.report, systems_demo.judgments
    f = judgments.frame.assign(v=judgments.normalised_scores())
    f = f[f["reportable"] & f["opponent"].isna() & f["v"].notna()]
    attrs = f["attributes"].map(json.loads)
    rows = report.attributes.rows
    assert report.attributes.attributes == ["difficulty", "domain"]
    assert len(rows) == 3 * (3 + 5)
    seen_flagged: set[bool] = set()
    for r in rows:
        part = f[(attrs.map(lambda a, key=r.attribute: a.get(key)) == r.value) & (f["arm"] == r.arm)]
        groups = pd.factorize(part["cluster"])[0]
        fit = sm.OLS(part["v"].to_numpy(), np.ones((len(part), 1))).fit(
            cov_type="cluster", cov_kwds={"groups": groups})
        # CR2 with Bell-McCaffrey df on the units, as every other cluster-sum interval (the
        # independence model's df where the benchmark's design rule flags the units, the one
        # rule); statsmodels (CR1) is the oracle of Q, and of the standard error when balanced.
        v = part["v"].to_numpy()
        flagged = design_flag_note(np.bincount(groups, weights=v), np.bincount(groups, weights=v * v),
                                   np.bincount(groups).astype(float), what="")[0].flagged
        assert r.method == "logit_cluster_robust_t" + ("_independent_df" if flagged else "")
        seen_flagged.add(flagged)
        q, se, df = _cr2_by_hand(v, groups, independent=flagged)
        sizes = np.bincount(groups)
        if np.all(sizes == sizes[0]):
            assert_allclose(se, fit.bse[0], rtol=1e-9)
            assert df == pytest.approx(sizes.size - 1)
        half = sps.t.ppf(0.975, df) * se / (q * (1 - q))
        expected = [fit.params[0], se, special.expit(special.logit(q) - half),
                    special.expit(special.logit(q) + half)]
        assert_allclose([r.estimate, r.standard_error, r.lower, r.upper], expected, rtol=1e-9)
        c = part["cluster"].nunique()
        assert (r.n, r.n_items, r.n_clusters) == (len(part), part["item"].nunique(), c)
    assert seen_flagged == {False, True}  # the demo has rows of both kinds


def test_report_serialises_and_prints(systems_demo):
    report = systems_demo.report
    data = json.loads(report.to_json())
    assert set(data) == {"conf", "B", "seed", "composite", "rankings", "head_to_head",
                         "attributes", "notes"}
    assert data["B"] == 200 and data["seed"] == 1
    assert len(data["head_to_head"]) == len(report.head_to_head)
    text = str(report)
    assert all(a in text for a in systems_demo.judgments.arms)
    assert "Head-to-head" in text and "difficulty=hard" in text
