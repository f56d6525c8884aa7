"""Calibration against reference scores: OLS per (judge, task) on a holdout of items, the cache."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import stats as sps

from assay.analysis.judges import CALIBRATION_FILE, calibrate_judges, load_or_fit_calibration
from assay.data.table import Judgments

from .conftest import make_table


def _linear_table(split: list[str] | None = None) -> Judgments:
    # 10 items with reference r_i = i/10; judge "lin" scores 0.5 r + 0.2 (so r = 2x - 0.4 exactly),
    # judge "flat" scores 0.5 everywhere.
    rows = []
    for i in range(10):
        extra = {"split": split[i]} if split else {}
        for judge, score in (("lin", 0.5 * i / 10 + 0.2), ("flat", 0.5)):
            rows.append({"item": f"q{i}", "arm": "A", "judge": judge, "criterion": "score",
                         "score": score, "reference_score": i / 10, "task": "t", **extra})
    return make_table(rows, {"score": "range:0,1"})


def test_exact_line_is_recovered_and_flat_judge_is_identity() -> None:
    report = calibrate_judges(_linear_table())
    lin = report.params["lin"]["t"]
    # hand-worked: x = 0.5 r + 0.2  =>  r = 2 x - 0.4, so the calibrated scores equal r
    assert_allclose([lin["alpha"], lin["beta"]], [-0.4, 2.0], rtol=1e-10)
    assert lin["mae_calibrated"] == pytest.approx(0.0, abs=1e-12)
    eval_items = 10 - lin["n_fit_items"]
    assert lin["holdout"] == "random_half" and lin["n_fit_items"] == 5 and eval_items == 5
    assert lin["rho_raw"] == pytest.approx(1.0) and lin["rho_calibrated"] == pytest.approx(1.0)
    flat = report.params["flat"]["t"]
    assert (flat["alpha"], flat["beta"], flat["method"]) == (0.0, 1.0, "identity_zero_variance")
    assert flat["rho_raw"] is None  # a constant judge has no rank correlation
    assert any("do not vary" in n for n in flat["notes"])


def test_constant_reference_cannot_calibrate() -> None:
    # Issue 26 (4): every reference score 0 gave alpha 0, beta 0 and "MAE 0.437 -> 0.000", a
    # perfect fit by construction (the flat line sends every score to the reference).
    rows = [{"item": f"q{i}", "arm": "A", "judge": "lin", "criterion": "score",
             "score": 0.1 * i, "reference_score": 0.0, "task": "t"} for i in range(10)]
    entry = calibrate_judges(make_table(rows, {"score": "range:0,1"})).params["lin"]["t"]
    assert (entry["alpha"], entry["beta"]) == (0.0, 1.0)
    assert entry["method"] == "identity_constant_reference"
    assert entry["mae_calibrated"] == pytest.approx(entry["mae_raw"]) and entry["mae_raw"] > 0
    assert any("a constant reference cannot calibrate" in n for n in entry["notes"])


def test_calibration_split_items_are_the_fit_set() -> None:
    split = ["calibration"] * 3 + ["test"] * 7
    report = calibrate_judges(_linear_table(split))
    lin = report.params["lin"]["t"]
    assert lin["holdout"] == "calibration_split"
    assert (lin["n_fit_items"], lin["n_eval_items"]) == (3, 7)


def test_demo_entry_against_an_independent_fit(demo: Judgments) -> None:
    report = calibrate_judges(demo)
    f = demo.frame
    for judge, task, divisor in (("judge-lenient", "summarisation", 100.0),
                                 ("judge-ordinal", "factoid_qa", 2.0)):
        rows = f[(f["judge"] == judge) & (f["task"] == task) & f["score"].notna()
                 & f["reference_score"].notna()]
        items = np.array(sorted(rows["item"].unique()))
        # the documented rule: n <= 200 items, so floor(n/2) drawn by default_rng(0).choice
        fit_items = set(np.random.default_rng(0).choice(items, len(items) // 2, replace=False))
        in_fit = rows["item"].isin(fit_items).to_numpy()
        x = rows["score"].to_numpy() / divisor
        y = rows["reference_score"].to_numpy()
        ols = sm.OLS(y[in_fit], sm.add_constant(x[in_fit])).fit()
        entry = report.params[judge][task]
        assert_allclose([entry["alpha"], entry["beta"]], ols.params, rtol=1e-9)
        xe, ye = x[~in_fit], y[~in_fit]
        calibrated = np.clip(ols.params[0] + ols.params[1] * xe, 0, 1)
        assert_allclose(entry["rho_raw"], sps.spearmanr(xe, ye).statistic, rtol=1e-9)
        assert_allclose(entry["rho_calibrated"], sps.spearmanr(calibrated, ye).statistic, rtol=1e-9)
        assert_allclose(entry["mae_raw"], np.mean(np.abs(xe - ye)), rtol=1e-9)
        assert_allclose(entry["mae_calibrated"], np.mean(np.abs(calibrated - ye)), rtol=1e-9)
        assert (entry["n_fit"], entry["n_eval"], entry["n_total"]) == (
            int(in_fit.sum()), int((~in_fit).sum()), len(rows))


def test_demo_three_level_warning_only_where_it_applies(demo: Judgments) -> None:
    params = calibrate_judges(demo).params
    assert set(params) == {"exact-match", "judge-lenient", "judge-strict", "judge-ordinal",
                           "_overall"}

    def warned(entry: dict[str, object]) -> bool:
        return any("3 ordinal levels" in n for n in entry["notes"])  # type: ignore[union-attr]

    for task in ("factoid_qa", "summarisation"):
        assert warned(params["judge-ordinal"][task])
        assert params["judge-ordinal"][task]["n_distinct_raw"] == 3
        assert warned(params["exact-match"][task])  # binary: 2 distinct values
        assert not warned(params["judge-lenient"][task])
    assert {"alpha", "beta", "rho_raw", "rho_calibrated", "mae_raw", "mae_calibrated", "n_fit",
            "n_total"} <= set(params["_overall"])


def test_cache_is_read_back_refitted_on_force_and_scores_untouched(demo: Judgments,
                                                                   tmp_path: Path) -> None:
    before = demo.frame.copy()
    first = calibrate_judges(demo, out_dir=tmp_path)
    path = tmp_path / CALIBRATION_FILE
    assert not first.from_cache and json.loads(path.read_text()) == first.params
    assert demo.frame.equals(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == [CALIBRATION_FILE]
    second = calibrate_judges(demo, out_dir=tmp_path)
    assert second.from_cache and second.params == first.params
    other = calibrate_judges(demo, out_dir=tmp_path, seed=5)
    assert other.from_cache and any("force=True to refit" in n for n in other.notes)
    refit = calibrate_judges(demo, out_dir=tmp_path, seed=5, force=True)
    assert not refit.from_cache
    assert refit.params["judge-lenient"]["summarisation"]["seed"] == 5
    assert json.loads(path.read_text())["_overall"]["seed"] == 5
    path.unlink()
    assert not calibrate_judges(demo, out_dir=tmp_path).from_cache
    assert load_or_fit_calibration(demo, tmp_path) == first.params


def test_no_reference_scores_gives_an_empty_mapping(tmp_path: Path) -> None:
    table = make_table([{"item": "q1", "arm": "A", "score": 0.4},
                        {"item": "q2", "arm": "A", "score": 0.6}], {"score": "range:0,1"})
    assert load_or_fit_calibration(table, tmp_path) == {}
    report = calibrate_judges(table)
    assert any("No reference scores" in n for n in report.notes)


def test_too_few_items_is_not_fitted() -> None:
    rows = [{"item": f"q{i}", "arm": "A", "score": i / 3, "reference_score": i / 4}
            for i in range(3)]
    entry = calibrate_judges(make_table(rows, {"score": "range:0,1"})).params["j"]["all"]
    assert entry["method"] == "not_fitted_too_few_items" and entry["n_fit"] == 0
    assert math.isclose(entry["beta"], 1.0)
