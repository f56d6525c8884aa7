"""Inter-rater reliability inside the aggregation, its bands, and seed 000's "don'ts" as flags.

Oracles: pingouin.intraclass_corr (ICC(A,1), CI unrounded) and scipy.stats.spearmanr on a
ratings matrix the test builds itself from the table's frame; hand-made tables whose
flags and notes are known by construction.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from assay.analysis.aggregate import aggregate, has_version, icc_band, mad_band, rho_band
from assay.report.text import format_summary

from .conftest import make_table, seed_like_records


def pingouin_icc(wide: pd.DataFrame) -> pd.Series:
    long = wide.reset_index(drop=True).rename_axis("unit").reset_index().melt(
        id_vars="unit", var_name="rater", value_name="score")
    saved = pg.options.get("round.column.CI95")
    pg.options["round.column.CI95"] = None
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*inplace.*")
            table = pg.intraclass_corr(long, targets="unit", raters="rater", ratings="score")
    finally:
        pg.options["round.column.CI95"] = saved
    return table.set_index("Type").loc["ICC(A,1)"]


def test_demo_quality_reliability_against_pingouin(demo_judgments, demo_report):
    f = demo_judgments.frame
    q = f[(f["criterion"] == "quality") & f["reportable"] & f["score"].notna()]
    wide = q.pivot_table(index=["item", "arm", "run"], columns="judge", values="score")
    complete = wide.dropna()
    (r,) = demo_report.reliability
    assert r.criterion == "quality" and r.judges == ("judge-lenient", "judge-strict")
    assert r.num_units == len(complete) and r.num_units_incomplete == len(wide) - len(complete)
    oracle = pingouin_icc(complete[["judge-lenient", "judge-strict"]])
    assert_allclose(r.icc.estimate, oracle["ICC"], rtol=1e-9)
    assert_allclose([r.icc.lower, r.icc.upper], oracle["CI95"], rtol=1e-8)
    x = complete.to_numpy()
    assert_allclose(r.mad.estimate, np.mean(np.abs(x[:, 0] - x[:, 1])), rtol=1e-12)
    assert_allclose(r.spearman.estimate, stats.spearmanr(x[:, 0], x[:, 1]).statistic,
                    rtol=1e-10)
    # Simulator truth: a 14-point offset between the judges plus noise sd sqrt(7^2 + 9^2) =
    # 11.4, so the MAD is near E|14 + e| ~ 15 points (Poor on the seed's 0-100 bands), while
    # the ranks agree well.
    assert 13 < r.mad.estimate < 17 and r.mad_band == "Poor"
    # Two judges 14 points apart: the rater mean square rests on 1 df, so the interval is wide
    # (v < 10) however many units there are, and the report says why.
    assert r.icc.df < 10 and r.icc.upper - r.icc.lower > 0.5
    assert any("The ICC interval of 'quality' is wide" in n for n in demo_report.notes)
    record = demo_report.to_dict()["inter_rater_reliability"]["quality"]
    assert record["icc"] == r.icc.estimate and record["icc_ci_lower"] == r.icc.lower
    assert record["num_raters"] == 2
    assert record["interpretation"] == {"icc": icc_band(r.icc.estimate), "mad": "Poor",
                                        "spearman_rho": rho_band(r.spearman.estimate)}


@pytest.mark.parametrize(("value", "band"), [
    (0.49, "Poor"), (0.5, "Moderate"), (0.7499, "Moderate"), (0.75, "Good"), (0.8999, "Good"),
    (0.9, "Excellent"), (1.0, "Excellent"), (-0.3, "Poor"), (float("nan"), None)])
def test_icc_bands(value, band):
    assert icc_band(value) == band


@pytest.mark.parametrize(("value", "band"), [
    (0.0, "Excellent"), (2.999, "Excellent"), (3.0, "Good"), (4.99, "Good"), (5.0, "Moderate"),
    (9.99, "Moderate"), (10.0, "Poor"), (None, None)])
def test_mad_bands(value, band):
    assert mad_band(value) == band


@pytest.mark.parametrize(("value", "band"), [
    (-0.01, "Negative"), (0.0, "Weak"), (0.5, "Weak"), (0.5001, "Moderate to good"),
    (0.8, "Moderate to good"), (0.8001, "Excellent"), (float("nan"), None)])
def test_rho_bands(value, band):
    assert rho_band(value) == band


def test_mad_band_reads_percent_of_a_narrow_scale():
    # Two judges on range:0,10 who differ by exactly 0.4 on every unit: MAD 0.4 = 4 points of
    # 100 -> Good (a raw 0.4 read on the seed's 0-100 bands would wrongly be Excellent).
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": i + (0.4 if judge == "j2-v1" else 0.0)}
               for i in range(6) for judge in ("j1-v1", "j2-v1")]
    (r,) = aggregate(make_table(records, {"c": "range:0,10"})).reliability
    assert_allclose(r.mad.estimate, 0.4, rtol=1e-12)
    assert_allclose(r.mad_points, 4.0, rtol=1e-12)
    assert r.mad_band == "Good"


def test_interval_scale_has_no_mad_band():
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": i * 1.5 + (j * 0.3)} for i in range(6)
               for j, judge in enumerate(("j1-v1", "j2-v1"))]
    (r,) = aggregate(make_table(records)).reliability
    assert r.mad_band is None and r.icc_band is not None


def test_constant_rater_gives_a_clear_note_and_null_rho():
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": 50.0 if judge == "flat-v1" else 10.0 * i}
               for i in range(6) for judge in ("varied-v1", "flat-v1")]
    report = aggregate(make_table(records, {"c": "range:0,100"}))
    (r,) = report.reliability
    assert np.isnan(r.spearman.estimate) and r.rho_band is None
    assert any("flat-v1 gave every unit the same score" in n for n in report.notes)
    assert report.to_dict()["inter_rater_reliability"]["c"]["spearman_rho"] is None
    assert "flat-v1 gave every unit the same score" in str(report)


def test_identical_scores_everywhere_give_a_note_not_nan_noise():
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": 7.0} for i in range(5) for judge in ("j1-v1", "j2-v1")]
    report = aggregate(make_table(records, {"c": "range:0,10"}))
    record = report.to_dict()["inter_rater_reliability"]["c"]
    assert record["icc"] is None and record["icc_ci_lower"] is None and record["mad"] == 0.0
    assert any("every rating is the same value" in n for n in report.notes)
    assert not re.search(r"\bnan\b", str(report), flags=re.IGNORECASE)


def test_judges_without_common_units_are_dropped_by_name():
    # j3 scored other units than j1 and j2: with all three there is no common unit.
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": float(i + k)} for i in range(6)
               for k, judge in enumerate(("j1-v1", "j2-v1"))]
    records += [{"item": f"other{i}", "arm": "a", "run": 1, "judge": "j3-v1", "criterion": "c",
                 "score": float(i)} for i in range(3)]
    report = aggregate(make_table(records))
    (r,) = report.reliability
    assert r.judges == ("j1-v1", "j2-v1") and r.num_units == 6
    assert any("leaving out j3-v1" in n for n in report.notes)


def test_flags_on_the_demo(demo_report):
    kinds = {(f.kind, f.criterion, f.judge) for f in demo_report.flags}
    assert {("one_judge", "correct", "exact-match"), ("one_judge", "helpfulness", "judge-ordinal"),
            ("one_judge", "preference", "judge-pairwise")} <= kinds
    unversioned = {f.judge for f in demo_report.flags if f.kind == "unversioned_evaluator"}
    assert unversioned == {"exact-match", "judge-lenient", "judge-strict", "judge-ordinal",
                           "judge-pairwise"}
    assert not any(f.kind in ("single_run", "high_variance") for f in demo_report.flags)
    text = format_summary(demo_report)  # summary.txt
    assert "WARNINGS" in text and "Only one judge: correct" in text


def test_single_run_flag_and_nulls():
    records = [r for r in seed_like_records() if r["run"] == 1]
    report = aggregate(make_table(records, {"clarity": "range:0,100",
                                            "distractor_quality": "range:0,100"}))
    assert [f.kind for f in report.flags if f.kind == "single_run"] == ["single_run"]
    record = report.to_dict()["aggregations"]["clarity_gpt-4"]
    assert record["std_dev"] is None and record["ci_lower"] is None and record["ci_upper"] is None
    assert record["num_runs"] == 1 and record["per_run_scores"] == [record["mean"]]
    assert "Single run" in str(report)


def test_a_judge_with_one_run_among_many_is_flagged():
    records = [r for r in seed_like_records()
               if r["judge"] == "gpt-4" or r["run"] == 1]
    report = aggregate(make_table(records, {"clarity": "range:0,100",
                                            "distractor_quality": "range:0,100"}))
    single = {(f.criterion, f.judge) for f in report.flags if f.kind == "single_run"}
    assert single == {("clarity", "claude-3-opus-20240229"),
                      ("distractor_quality", "claude-3-opus-20240229")}


def test_high_variance_flag_matches_the_seeds_rule():
    table = make_table(seed_like_records(spread=12.0, seed=5),
                       {"clarity": "range:0,100", "distractor_quality": "range:0,100"})
    report = aggregate(table)
    flagged = {(f.criterion, f.judge) for f in report.flags if f.kind == "high_variance"}
    # The seed's own test, on the aggregated.json fields: std_dev > 5.
    expected = {(s["metric_name"], s["evaluator_model"])
                for s in report.to_dict()["aggregations"].values() if s["std_dev"] > 5}
    assert flagged == expected and flagged


def test_high_variance_on_a_binary_scale_reads_points_of_100():
    # Run means 0.2, 0.3, 0.4 (sd 0.1 = 10 points of 100: flagged) for j1; 0.5, 0.5, 0.6
    # (sd sqrt(3/900) = 0.0577 = 5.77 points: flagged) for j2; 0.5 in every run for j3 (sd 0:
    # not flagged, and its zero-width run interval gets a note).
    def rows(judge, ones):
        return [{"item": f"q{i}", "arm": "a", "run": run, "judge": judge, "criterion": "ok",
                 "score": 1.0 if i < k else 0.0} for run, k in enumerate(ones, start=1)
                for i in range(10)]
    records = rows("j1-v1", [2, 3, 4]) + rows("j2-v1", [5, 5, 6]) + rows("j3-v1", [5, 5, 5])
    report = aggregate(make_table(records, {"ok": "binary"}))
    flagged = {f.judge for f in report.flags if f.kind == "high_variance"}
    assert flagged == {"j1-v1", "j2-v1"}
    j3 = next(a for a in report.aggregations if a.judge == "j3-v1")
    assert j3.std_dev == 0.0 and (j3.ci_lower, j3.ci_upper) == (0.5, 0.5)
    assert any("ok (j3-v1): every run has the same mean" in n for n in report.notes)


@pytest.mark.parametrize(("name", "versioned"), [
    ("gpt-4", False), ("gpt-4-0613", True), ("GPT-4-0613", True), ("claude-3-opus", False),
    ("claude-3-opus-20240229", True), ("gpt-4o-2024-08-06", True), ("gpt-3.5-turbo", False),
    ("gpt-3.5-turbo-0301", True), ("mistral-large-2407", True), ("llama-3-70b", False),
    ("my-judge-v2", True), ("rubric_v1.5", True), ("scorer 1.0.3", True),
    ("human:alice", True), ("judge-strict", False), ("gpt4_turbo", False),
    ("alpaca_eval_gpt4_turbo_fn", False), ("gpt-4-1106-preview", True)])
def test_version_rule(name, versioned):
    assert has_version(name) is versioned


def test_seed_like_evaluators(seed_like_judgments):
    report = aggregate(seed_like_judgments)
    assert {f.judge for f in report.flags if f.kind == "unversioned_evaluator"} == {"gpt-4"}
    assert report.quiz_ids == ("python_quiz_1", "python_quiz_2", "advanced_python")
    assert {r.criterion for r in report.reliability} == {"clarity", "distractor_quality"}
    assert all(r.num_raters == 2 and r.num_units == 60 for r in report.reliability)


def test_icc_interval_on_a_fraction_of_a_degree_of_freedom_is_a_note_not_an_interval():
    # Issue 26 (4): three units two judges scored, Satterthwaite v = 0.0099; the F-based
    # bounds [-0.351, -0.307] were printed beside ICC -0.316 with no word.
    scores = {"j1-v1": [3, 1, 2], "j2-v1": [3, 5, 5]}
    records = [{"item": f"q{i}", "arm": "a", "run": 1, "judge": judge, "criterion": "c",
                "score": float(scores[judge][i])} for i in range(3) for judge in scores]
    report = aggregate(make_table(records, {"c": "range:0,10"}))
    record = report.to_dict()["inter_rater_reliability"]["c"]
    assert_allclose(record["icc"], -6 / 19, rtol=1e-12)
    assert record["icc_ci_lower"] is None and record["icc_ci_upper"] is None
    assert any("ICC of 'c'" in n and "Satterthwaite degrees of freedom" in n
               for n in report.notes)
    assert "Satterthwaite degrees of freedom" in " ".join(str(report).split())


def test_ordinal_means_are_on_the_unit_scale_as_in_every_other_report():
    # Issue 26 (4): the aggregate report averaged level indices 0..2 while the scores report
    # reads level i of 3 as i / 2. Levels low/mid/high scored 0, 1, 2, 2 in run 1 and 1, 1, 2, 0
    # in run 2: run means (0 + 1/2 + 1 + 1) / 4 = 5/8 and (1/2 + 1/2 + 1 + 0) / 4 = 1/2.
    scores = {1: [0, 1, 2, 2], 2: [1, 1, 2, 0]}
    records = [{"item": f"q{i}", "arm": "a", "run": run, "judge": "j1-v1", "criterion": "c",
                "score": ["low", "mid", "high"][s]}
               for run, values in scores.items() for i, s in enumerate(values)]
    report = aggregate(make_table(records, {"c": "ordinal:low,mid,high"}))
    (agg,) = report.aggregations
    assert_allclose(agg.per_run_scores, [5 / 8, 1 / 2], rtol=1e-12)
    assert_allclose(agg.mean, 9 / 16, rtol=1e-12)
    assert any("'c' is ordinal: its means are on [0, 1]" in n for n in report.notes)
