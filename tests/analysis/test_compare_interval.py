"""``compare`` on interval-scale scores: the difference is taken on the raw scale.

Regression test: interval scores (no map to [0, 1]) were all dropped with the wrong reason
("160 rows without a score left out" where every row had a score); a difference needs no
normalisation.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scipy import stats

from assay.analysis.compare import compare
from assay.cli import main
from assay.data.schema import Scale
from assay.data.table import Judgments


def _frame(shifted: bool) -> pd.DataFrame:
    """20 items in 10 clusters, arms x and y, scores 1-7 on an interval scale. Run B adds 2 to
    arm x on items 0, 4, 8, ... and 1 on items 2, 6, 10, ..."""
    rows = []
    for i in range(20):
        for arm in ("x", "y"):
            score = float(i % 7 + 1)
            if shifted and arm == "x":
                score += {0: 2.0, 2: 1.0}.get(i % 4, 0.0)
            rows.append({"item": f"q{i}", "cluster": f"d{i // 2}", "arm": arm, "run": 1,
                         "judge": "j", "criterion": "quality", "score": score})
    return pd.DataFrame(rows)


def _table(shifted: bool, scale: str = "interval") -> Judgments:
    return Judgments(_frame(shifted).assign(reportable=True), {"quality": Scale.parse(scale)})


def test_interval_scores_are_compared_on_their_raw_scale():
    report = compare(_table(False), _table(True))
    assert not [n for n in report.notes if "without a score" in n]
    deltas = {d.arm: d for d in report.deltas}
    x, y = deltas["x"], deltas["y"]
    # by hand: cluster sums of item differences D = 2, 1, 2, 1, ... (n_c = 2), d = 15 / 20;
    # V = C/(C-1) sum (D_c - d n_c)^2 / N^2 = 10/9 x 10 x 0.25 / 400, sqrt(V) = 1/12
    assert (x.scale, x.n, x.n_clusters) == ("raw", 20, 10)
    assert x.estimate == pytest.approx(0.75)
    assert x.standard_error == pytest.approx(1 / 12)
    half = stats.t.ppf(0.975, 9) / 12
    assert (x.lower, x.upper) == (pytest.approx(0.75 - half), pytest.approx(0.75 + half))
    assert y.estimate == 0.0 and math.isnan(y.lower)  # no change at all
    scores = {r.arm: r for r in report.rankings}
    a_mean = sum(i % 7 + 1 for i in range(20)) / 20
    assert scores["x"].score_a == pytest.approx(a_mean)
    assert scores["x"].score_b == pytest.approx(a_mean + 0.75)
    assert report.to_dict()["scale"] == "per_row"
    assert "raw interval scale" in str(report)


def test_scales_that_differ_between_runs_are_not_compared():
    report = compare(_table(False, "range:1,10"), _table(True))
    assert report.deltas == () and report.rankings == ()
    assert any("different scales" in n for n in report.notes)
    normalised = compare(_table(False, "range:1,10"), _table(True, "range:1,10"))
    assert normalised.deltas[0].scale == "normalised_0_1"
    assert normalised.deltas[0].estimate == pytest.approx(0.75 / 9)


def test_compare_command_on_interval_csvs(tmp_path, capsys):
    for name, shifted in (("a", False), ("b", True)):
        _frame(shifted).to_csv(tmp_path / f"{name}.csv", index=False)
    with pytest.raises(SystemExit) as info:
        main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--format",
              "text,json", "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    assert "without a score" not in out
    data = json.loads((tmp_path / "out" / "comparison.json").read_text())
    assert {d["arm"]: d["estimate"] for d in data["deltas"]} == {"x": 0.75, "y": 0.0}


def test_raw_differences_beyond_one_get_their_unclipped_interval():
    # Scores 0-100: a difference of 30 points per item was an internal error ("diff_sums must
    # lie between -1 times the size and the size of each cluster"); the interval of a raw
    # difference has no bound at +-1. Hand-worked: items 2c, 2c+1 of cluster c, run B adds
    # 30 to item 2c and 10 to item 2c+1, so every cluster's difference sum is 40 (mean 20);
    # the one cluster where item 0 gets 50 instead sums to 60.
    a = _frame(shifted=False).assign(score=lambda f: f["score"] * 10)
    b = a.copy()
    odd = b["item"].str[1:].astype(int) % 2 == 1
    b.loc[b["arm"] == "x", "score"] += 30.0
    b.loc[(b["arm"] == "x") & odd, "score"] -= 20.0
    b.loc[(b["arm"] == "x") & (b["item"] == "q0"), "score"] += 20.0
    interval = Scale.parse("interval")
    result = compare(Judgments(a.assign(reportable=True), {"quality": interval}),
                     Judgments(b.assign(reportable=True), {"quality": interval}))
    (delta,) = [d for d in result.deltas if d.arm == "x"]
    # d = (60 + 9 * 40) / 20 = 21; the interval is d +- t(df) SE with the CR2 SE and df of
    # the stats module (checked against its oracles in tests/stats), not cut to [-1, 1].
    assert delta.estimate == pytest.approx(21.0)
    assert delta.lower < 20.0 < 21.0 < delta.upper and delta.lower > 1.0
    from assay.stats.intervals import cr2_ratio_estimate

    sums = [60.0] + [40.0] * 9
    est = cr2_ratio_estimate(sums, [2.0] * 10,
                             sumsq=[50.0**2 + 10.0**2] + [30.0**2 + 10.0**2] * 9)
    half = stats.t.ppf(0.975, est.df) * est.standard_error
    assert (delta.lower, delta.upper) == pytest.approx((21.0 - half, 21.0 + half))
