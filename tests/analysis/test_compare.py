"""``assay.analysis.compare``: deltas against statsmodels' cluster-robust OLS, hand-worked values,
ranks against scipy's rankdata, the swap property, and the ``assay compare`` command."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats
from scipy.stats import rankdata

import assay.cli.compare  # noqa: F401  (registers the command until cli.py imports it)
from assay.analysis.compare import compare
from assay.cli import main
from assay.data.io import load
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.demo.simulate import simulate_evaluation
from assay.stats import bell_mccaffrey_df, working_icc


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    simulate_evaluation(root / "a", seed=7)
    simulate_evaluation(root / "b0", seed=8)
    a, b = load(root / "a"), load(root / "b0")
    # Run B: new answers and judgments on run A's benchmark (same items, clusters and strata).
    design = a.frame.groupby("item")[["cluster", "task", "teacher", "attributes"]].first()
    frame = b.frame.drop(columns=list(design.columns)).join(design, on="item")
    Judgments(frame, b.scales).save(root / "b.parquet")
    return root / "a", root / "b.parquet", a, load(root / "b.parquet")


def _table(rows):
    frame = pd.DataFrame(rows, columns=["item", "cluster", "arm", "run", "score"])
    frame = frame.assign(judge="em", criterion="correct", reportable=True)
    return Judgments(frame, {"correct": Scale("binary")})


def test_hand_worked_delta_three_clusters():
    # Items (cluster): q1,q2 (d1); q3 (d2); q4,q5 (d3). Run A means over two runs:
    # q1 0.5, q2 0, q3 1, q4 0, q5 1. Run B: q1 1, q2 1, q3 1, q4 0, q5 0.
    # d = (0.5, 1, 0, 0, -1): D = (1.5, 0, -1), n = (2, 1, 2), N = 5, d_bar = 0.1.
    # Residuals D_c - d_bar n_c = 1.3, -0.1, -1.2; CR2 weights 1 / (1 - n_c/N) = 5/3, 5/4,
    # 5/3: V = (5/3 (1.69 + 1.44) + 5/4 0.01) / 25 = 0.209167 (CR1: 0.1884), cut to [-1, 1].
    a = _table([("q1", "d1", "m", 1, 1.0), ("q1", "d1", "m", 2, 0.0), ("q2", "d1", "m", 1, 0.0),
                ("q3", "d2", "m", 1, 1.0), ("q4", "d3", "m", 1, 0.0), ("q5", "d3", "m", 1, 1.0)])
    b = _table([("q1", "d1", "m", 1, 1.0), ("q2", "d1", "m", 1, 1.0), ("q3", "d2", "m", 1, 1.0),
                ("q4", "d3", "m", 1, 0.0), ("q5", "d3", "m", 1, 0.0), ("q6", "d3", "m", 1, 1.0)])
    d = compare(a, b).deltas[0]
    se = math.sqrt((5 / 3 * (1.69 + 1.44) + 5 / 4 * 0.01) / 25)
    assert_allclose([d.estimate, d.standard_error], [0.1, se], rtol=1e-12)
    assert (d.lower, d.upper) == (-1.0, 1.0)
    assert (d.n, d.n_clusters, d.n_only_a, d.n_only_b) == (5, 3, 0, 1) and d.df < 2


def test_deltas_match_statsmodels_cluster_robust_ols(runs):
    _, _, a, b = runs
    report = compare(a, b, conf=0.9)
    assert report.deltas

    def item_means(j, judge, criterion, arm):
        f = j.frame.assign(v=j.normalised_scores())
        f = f[f["reportable"] & f["opponent"].isna() & f["v"].notna() & (f["judge"] == judge)
              & (f["criterion"] == criterion) & (f["arm"] == arm)]
        return f.groupby("item").agg(v=("v", "mean"), cluster=("cluster", "first"))

    for d in report.deltas:
        ma, mb = item_means(a, d.judge, d.criterion, d.arm), item_means(b, d.judge, d.criterion,
                                                                        d.arm)
        shared = ma.index.intersection(mb.index)
        y = (mb.loc[shared, "v"] - ma.loc[shared, "v"]).to_numpy()
        groups = pd.factorize(ma.loc[shared, "cluster"])[0]
        fit = sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", use_t=True,
                                                  cov_kwds={"groups": groups})
        # statsmodels' CR1 for the estimate; CR2 by hand (weights 1 / (1 - n_c / N)) with the
        # Bell-McCaffrey df at the working ICC (checked in tests/stats/intervals/test_cr2.py)
        sums, sizes = np.bincount(groups, weights=y), np.bincount(groups).astype(float)
        resid = sums - y.mean() * sizes
        se = math.sqrt(np.sum(resid**2 / (1 - sizes / sizes.sum()))) / sizes.sum()
        # the one rule: the independence model's df (ICC 0) where the benchmark's paired
        # design rule flags the shared items
        icc = 0.0 if d.design_flagged else working_icc(sums, np.bincount(groups, weights=y * y),
                                                       sizes)
        df = bell_mccaffrey_df(sizes, icc=icc)
        assert d.method == "cluster_robust_t" + ("_independent_df" if d.design_flagged else "")
        half = stats.t.ppf(0.95, df) * se
        assert d.n == len(shared) and d.n_clusters == len(set(groups))
        assert_allclose([d.estimate, d.standard_error, d.lower, d.upper, d.df],
                        [fit.params[0], se, max(y.mean() - half, -1), min(y.mean() + half, 1),
                         df], rtol=1e-9)


def test_ranks_match_scipy_rankdata(runs):
    _, _, a, b = runs
    report = compare(a, b)
    for judge, criterion in {(r.judge, r.criterion) for r in report.rankings}:
        mine = [r for r in report.rankings if (r.judge, r.criterion) == (judge, criterion)]
        for side, table in (("a", a), ("b", b)):
            f = table.frame.assign(v=table.normalised_scores())
            f = f[f["reportable"] & f["opponent"].isna() & f["v"].notna()
                  & (f["judge"] == judge) & (f["criterion"] == criterion)]
            means = f.groupby(["arm", "item"])["v"].mean().groupby("arm").mean()
            expected = dict(zip(means.index, rankdata(-means.to_numpy(), method="min"),
                                strict=True))
            assert {r.arm: getattr(r, f"rank_{side}") for r in mine} == expected
            assert_allclose([getattr(r, f"score_{side}") for r in mine],
                            [means[r.arm] for r in mine], rtol=1e-12)
        assert all(r.rank_change == r.rank_b - r.rank_a for r in mine)


def test_swapping_the_runs_negates_deltas_and_rank_changes(runs):
    _, _, a, b = runs
    ab, ba = compare(a, b), compare(b, a)
    forward = {(d.judge, d.criterion, d.arm): d for d in ab.deltas}
    backward = {(d.judge, d.criterion, d.arm): d for d in ba.deltas}
    assert forward.keys() == backward.keys()
    for key, d in forward.items():
        e = backward[key]
        assert_allclose([e.estimate, e.lower, e.upper], [-d.estimate, -d.upper, -d.lower],
                        rtol=1e-9, atol=1e-12)
        assert (e.n_only_a, e.n_only_b) == (d.n_only_b, d.n_only_a)


def test_a_run_against_itself_has_zero_deltas_and_says_why_no_interval(runs):
    _, _, a, _ = runs
    report = compare(a, a)
    assert all(d.estimate == 0.0 and math.isnan(d.lower) for d in report.deltas)
    assert all(r.rank_change == 0 for r in report.rankings)
    assert any("t interval is undefined" in n for n in report.notes)
    cov = report.coverage[0]
    assert cov.task is None and cov.items_a == cov.items_b == cov.items_shared == 200
    assert cov.acr_change == 0.0
    json.loads(report.to_json())  # NaN written as null


def test_one_shared_cluster_and_no_shared_items_are_named():
    a = _table([("q1", "d1", "m", 1, 1.0), ("q2", "d1", "m", 1, 0.0), ("q9", "d9", "n", 1, 1.0),
                ("q8", "d8", "n", 1, 1.0)])
    b = _table([("q1", "d1", "m", 1, 1.0), ("q2", "d1", "m", 1, 1.0), ("q7", "d7", "n", 1, 0.0),
                ("q6", "d6", "n", 1, 1.0)])
    deltas = {d.arm: d for d in compare(a, b).deltas}
    assert deltas["m"].method == "too_few_clusters" and deltas["m"].estimate == 0.5
    assert deltas["n"].method == "no_shared_items" and deltas["n"].n == 0


def test_cli_writes_text_json_and_html(runs, tmp_path, capsys):
    pa, pb, a, b = runs
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(pa), str(pb), "--format", "text,json,html", "--out", str(tmp_path)])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "Comparison: B =" in out and "correct (judge exact-match)" in out
    data = json.loads((tmp_path / "comparison.json").read_text())
    expected = compare(a, b, label_a=str(pa), label_b=str(pb)).to_dict()
    assert data == json.loads(json.dumps(expected))
    assert (tmp_path / "compare.html").stat().st_size > 0 and (tmp_path / "index.html").exists()


def test_cli_rejects_an_unknown_format(runs, capsys):
    pa, pb, _, _ = runs
    with pytest.raises(SystemExit) as exc:
        main(["compare", str(pa), str(pb), "--format", "pdf"])
    assert exc.value.code == 2
    assert "--format 'pdf'" in capsys.readouterr().err
