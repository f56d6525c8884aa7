"""Data preparation of the benchmark report: balance, reportable rows, labels, failures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from assay.analysis.benchmark import benchmark_report
from assay.errors import ConfigError, DesignError, InputError


def comparable(report) -> dict:
    """The report without its notes (which say what was left out)."""
    data = report.to_dict()
    data.pop("notes")
    return data


def test_balance_refusal_names_the_missing_cell(example_bench):
    frame = example_bench
    gone = (frame["item"] == "q5") & (frame["arm"] == "long") & (frame["run"] == 3)
    with pytest.raises(DesignError) as info:
        benchmark_report(frame.loc[~gone])
    message = str(info.value)
    assert "1 cell(s) have no scored row" in message
    assert "item q5 (cluster doc2), arm long, run 3" in message


def test_balance_refusal_lists_a_few_cells_then_the_count(example_bench):
    frame = example_bench
    gone = (frame["item"] == "q7") & (frame["arm"] == "short")
    with pytest.raises(DesignError) as info:
        benchmark_report(frame.loc[~gone])
    message = str(info.value)
    assert "5 cell(s) have no scored row" in message
    assert message.count("item q7 (cluster doc3), arm short, run") == 5
    gone = frame["item"].isin(["q7", "q8"]) & (frame["arm"] == "short")
    with pytest.raises(DesignError, match=r"10 cell\(s\).*; and 5 more"):
        benchmark_report(frame.loc[~gone])


def test_duplicated_cells_are_refused(example_bench):
    frame = pd.concat([example_bench, example_bench.iloc[[3]]], ignore_index=True)
    with pytest.raises(DesignError, match=r"1 \(item, arm, run\) cell\(s\) have more than one"):
        benchmark_report(frame)


def test_an_item_partly_unlabelled_is_unbalanced(example_bench):
    frame = example_bench.copy()
    frame["correct"] = frame["correct"].astype(object)
    frame.loc[(frame["item"] == "q2") & (frame["run"] == 4), "correct"] = None
    with pytest.raises(DesignError, match=r"item q2 .*run 4"):
        benchmark_report(frame)


def test_not_reportable_rows_never_enter(example_bench):
    base = benchmark_report(example_bench, B=200)
    rng = np.random.default_rng(5)
    junk = example_bench.sample(n=150, random_state=1).copy()
    junk["item"] = "dev-" + junk["item"]  # items of their own, and unbalanced
    junk["arm"] = np.where(rng.random(len(junk)) < 0.5, "short", "ghost")
    junk["correct"] = rng.random(len(junk)) < 0.5
    junk["usd"] = 99.0

    by_split = pd.concat([example_bench.assign(split="test"), junk.assign(split="dev")],
                         ignore_index=True)
    report = benchmark_report(by_split, B=200)
    assert comparable(report) == comparable(base)
    assert any("150 row(s) not reportable" in note for note in report.notes)

    by_flag = pd.concat([example_bench.assign(reportable=True), junk.assign(reportable=False)],
                        ignore_index=True)
    assert comparable(benchmark_report(by_flag, B=200)) == comparable(base)


def test_calibration_split_is_not_reportable_but_exploratory_is(example_bench):
    frame = example_bench.assign(split="exploratory")
    extra = example_bench.assign(split="calibration", arm="calib")
    report = benchmark_report(pd.concat([frame, extra], ignore_index=True), B=200)
    assert report.arms == ["short", "long"]


def test_items_with_no_label_are_left_out(example_bench):
    frame = example_bench.copy()
    frame["score"] = frame.pop("correct").astype(float)
    blank = frame[frame["item"] == "q1"].copy()
    blank["item"], blank["score"] = "q-blank", np.nan
    report = benchmark_report(pd.concat([frame, blank], ignore_index=True), B=200)
    assert report.n_items == 36
    assert comparable(report) == comparable(benchmark_report(frame, B=200))
    assert any("1 item(s) with no label" in note for note in report.notes)


def test_failures_count_wrong_and_the_sensitivity_line_leaves_them_out(example_bench):
    frame = example_bench.copy()
    frame["score"] = frame.pop("correct").astype(float)
    frame["failure_kind"] = None
    parse = (frame["arm"] == "short") & frame["item"].isin(["q1", "q2"]) & (frame["run"] <= 2)
    refusal = (frame["arm"] == "short") & (frame["item"] == "q3")
    timeout = (frame["arm"] == "long") & (frame["item"] == "q4") & (frame["run"] == 1)
    frame.loc[parse, "failure_kind"] = "parse_error"
    frame.loc[parse, "score"] = np.nan  # a failure with no score counts as wrong
    frame.loc[refusal, "failure_kind"] = "refusal"
    frame.loc[refusal, "score"] = 1.0  # and so does a failure with a score
    frame.loc[timeout, "failure_kind"] = "timeout"
    report = benchmark_report(frame, B=200)

    short = next(r for r in report.failures if r["arm"] == "short")
    long_ = next(r for r in report.failures if r["arm"] == "long")
    assert (short["parse_error"], short["refusal"], short["timeout"]) == (4, 5, 0)
    assert (long_["parse_error"], long_["refusal"], long_["timeout"]) == (0, 0, 1)
    assert short["n_failures"] == 9

    counted = frame.assign(score=np.where(frame["failure_kind"].notna(), 0.0, frame["score"]))
    rows = counted[counted["arm"] == "short"]
    assert_allclose(short["accuracy"], rows["score"].mean(), rtol=1e-12)
    assert_allclose(report.accuracy[0]["estimate"], rows["score"].mean(), rtol=1e-12)
    assert short["wrong"] == (rows["score"] == 0).sum()
    kept = rows[~rows["failure_kind"].isin(["parse_error", "refusal"])]
    expected = kept.groupby("item")["score"].mean().mean()  # q3 has no run left
    assert_allclose(short["accuracy_without_parse_refusal"], expected, rtol=1e-12)
    # TARa now compares the failure kind where there is one: q3 (all refusals) agrees.
    assert report.stability[0]["tara"] >= 1 / 36


def test_tara_uses_outcome_when_given(example_bench):
    frame = example_bench.copy()
    frame["outcome"] = "same answer"
    report = benchmark_report(frame, B=200)
    assert [r["tara"] for r in report.stability] == [1.0, 1.0]
    assert report.stability[0]["flip_rate"] > 0


def test_score_column_or_correct_column(example_bench):
    renamed = example_bench.rename(columns={"correct": "score"})
    assert comparable(benchmark_report(renamed, B=200)) == \
        comparable(benchmark_report(example_bench, B=200))


@pytest.mark.parametrize(("change", "error", "match"), [
    (lambda f: f.drop(columns="arm"), InputError, "missing required column"),
    (lambda f: f.assign(correct=np.where(f.index == 7, 1.5, f["correct"])), InputError,
     r"row 8, column 'correct'"),
    (lambda f: f.assign(arm=np.where(f.index == 3, None, f["arm"])), InputError, "no arm"),
])
def test_input_errors(example_bench, change, error, match):
    with pytest.raises(error, match=match):
        benchmark_report(change(example_bench))


@pytest.mark.parametrize("options", [
    {"B": 50}, {"conf": 1.5}, {"k": (0, 2)}, {"method": "wald"}, {"seed": -1},
    {"contrasts": [("short", "nope")]}, {"contrasts": [("short", "short")]},
])
def test_bad_options_are_config_errors(example_bench, options):
    with pytest.raises(ConfigError):
        benchmark_report(example_bench, **options)


def test_tokens_and_estimated_dollars(example_bench):
    frame = example_bench.copy()
    frame["tokens_in"] = np.where(frame["arm"] == "long", 900.0, 300.0)
    frame["tokens_out"] = 100.0
    frame["usd_provenance"] = np.where(
        (frame["arm"] == "long") & (frame["item"].isin(["q1", "q2", "q3"])), "estimated",
        "reported")
    report = benchmark_report(frame, B=200)
    short, long_ = report.cost
    assert_allclose([short["tokens_per_item"], long_["tokens_per_item"]], [400.0, 1000.0])
    correct_long = frame.loc[frame["arm"] == "long", "correct"].sum()
    assert_allclose(long_["tokens_per_correct"], 1000.0 * 36 * 5 / correct_long)
    assert short["usd_estimated_share"] == 0.0 and short["estimated_flag"] is False
    assert_allclose(long_["usd_estimated_share"], 3 / 36)
    assert long_["estimated_flag"] is True
    assert any("rest on estimated token counts" in note for note in report.notes)


def test_an_arm_with_every_score_missing_is_refused_by_name(make_bench) -> None:
    # Issue 12 (a): unlabelled rows are left out, and an arm with nothing else vanished
    # from the report (no accuracy, no contrast, no note).
    frame = make_bench(arms=("a", "b", "c"), accuracy=(0.7, 0.8, 0.6), usd=None)
    frame["correct"] = frame["correct"].astype(object)
    frame.loc[frame["arm"] == "c", "correct"] = None
    with pytest.raises(DesignError, match=r"no score and no failure kind.*c \(180 rows\)"):
        benchmark_report(frame, B=200)
