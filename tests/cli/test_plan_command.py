"""``assay plan``: from a small pilot table, from assumptions, from the demo's folder, and its
refusals (exit 2, one line)."""

from __future__ import annotations

import json

import pytest

from assay.cli import main
from tests.analysis.plan.test_pairwise import pairwise_table
from tests.analysis.plan.test_plan import pilot_table
from tests.cli.conftest import run_assay as run


@pytest.fixture
def pilot(tmp_path):
    path = tmp_path / "pilot.csv"
    pilot_table().frame.to_csv(path, index=False)
    return path


def test_plan_from_a_pilot_table(pilot, tmp_path, capsys):
    # the pilot of tests/analysis/plan (hand-worked there): 18 clusters of 3 under the normal
    with pytest.raises(SystemExit) as info:
        main(["plan", str(pilot), "--difference", "0.2", "--estimand", "mean", "--arms", "a",
              "--method", "normal", "--usd-per-call", "0.01", "--scale", "correct=binary",
              "--format", "text,json", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert info.value.code in (0, None), out
    assert "Needed: 54 questions in 18 clusters, 1 run(s), 1 trial(s): 54 judge calls, cost $0.5400" in out
    assert "Trade-offs" in out and "wrote" in out
    record = json.loads((tmp_path / "out" / "plan.json").read_text())
    assert record["source"] == "pilot" and record["rows"][0]["questions"] == 54
    assert record["pilot"]["n_items"] == 6 and record["pilot"]["arms"] == ["a"]


@pytest.fixture
def pairwise_pilot(tmp_path):
    path = tmp_path / "pairwise.csv"
    pairwise_table().frame.to_csv(path, index=False)
    return path


def test_plan_from_a_pairwise_pilot(pairwise_pilot, tmp_path, capsys):
    # the pairwise pilot of tests/analysis/plan (hand-worked there): the win rate of new
    # against base, 11 clusters of 3 under the normal, both orders of each question judged
    with pytest.raises(SystemExit) as info:
        main(["plan", str(pairwise_pilot), "--difference", "0.2", "--method", "normal",
              "--usd-per-call", "0.01", "--format", "text,json", "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert info.value.code in (0, None), out
    assert "Plan: detect a win rate 0.2 from 1/2 (new vs base (j/better))" in out
    assert "Needed: 33 questions in 11 clusters, 1 run(s), 1 trial(s): 66 judge calls, cost $0.6600" in out
    record = json.loads((tmp_path / "out" / "plan.json").read_text())
    assert record["estimand"] == "win_rate" and record["scores_per_trial"] == 2
    assert record["pilot"]["arms"] == ["new", "base"] and record["pilot"]["mean"] == 13 / 24


def test_plan_a_win_rate_from_assumptions():
    # P = 0.6, 20% ties: Var 0.19, n = 7.848879 x 0.19 / 0.01 = 149.1 -> 150, 300 calls
    result = run("plan", "--difference", "0.1", "--tie-rate", "0.2", "--method", "normal")
    assert result.returncode == 0, result.stderr
    assert "Needed: 150 questions in 150 clusters, 1 run(s), 1 trial(s): 300 judge calls" in \
        result.stdout
    assert "an upper bound" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["--arms", "new,new"], "--arms new,new: expected two arms judged against each other"),
    (["--estimand", "difference"], "plan their win rate with --estimand win_rate"),
    (["--win-rate", "0.6"], "--win-rate and --tie-rate come from the pilot table"),
])
def test_a_pairwise_pilot_refuses_one_line_exit_2(pairwise_pilot, args, words, capsys):
    with pytest.raises(SystemExit) as info:
        main(["plan", str(pairwise_pilot), "--difference", "0.1", *args])
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_plan_from_assumptions_with_a_priced_config(tmp_path):
    config = tmp_path / "judge.yaml"
    config.write_text("version: 1\nllm:\n  model: gpt-x\n  base_url: http://127.0.0.1:9/v1\n"
                      "  prices:\n    gpt-x: {input: 2.5, output: 10.0}\njudges: []\n")
    # sd 0.3 each, uncorrelated: Var = 0.18; n = 7.848879 x 0.18 / 0.01 = 141.3 under the
    # normal -> 142 questions, 284 calls at (1000 x 2.5 + 200 x 10) / 1e6 = $0.0045 = $1.278
    result = run("plan", "--difference", "0.1", "--sd", "0.3", "--method", "normal",
                 "--config", str(config), "--tokens-in", "1000", "--tokens-out", "200")
    assert result.returncode == 0, result.stderr
    assert "142 questions in 142 clusters" in result.stdout
    assert "284 judge calls, cost $1.2780" in result.stdout
    assert "no correlation between the systems' scores given" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["--difference", "0.1"], "exactly one of --sd"),
    (["--sd", "0.3"], "exactly one target"),
    (["--difference", "0.1", "--p", "1.5"], "--p must be"),
    (["--difference", "0.1", "--sd", "0.3", "--estimand", "median"], "--estimand 'median'"),
    (["--difference", "0.1", "--sd", "0.3", "--format", "pdf"], "--format 'pdf'"),
    (["--difference", "0.1", "--sd", "0.3", "--within-share", "2"], "--within-share must"),
    (["--difference", "0.1", "--sd", "0.3", "--criterion", "x"], "choose from a pilot table"),
    (["--difference", "0.6", "--estimand", "win_rate"], "--difference must be below 1/2"),
    (["--difference", "0.1", "--tie-rate", "0.9"], "--tie-rate must be at most"),
    (["--difference", "0.1", "--win-rate", "0.6", "--p", "0.5"], "--p and --correlation "
     "describe pointwise scores"),
    (["no-such-pilot.csv", "--difference", "0.1"], "no such file"),
])
def test_bad_input_is_one_line_exit_2(args, words, capsys):
    with pytest.raises(SystemExit) as info:
        main(["plan", *args])
    err = capsys.readouterr().err
    assert info.value.code == 2, err
    assert words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_a_pilot_with_two_criteria_asks_which(pilot, tmp_path, capsys):
    text = pilot.read_text().replace(",correct,", ",other,", 4)
    two = tmp_path / "two.csv"
    two.write_text(text)
    with pytest.raises(SystemExit) as info:
        main(["plan", str(two), "--difference", "0.2"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "--judge and --criterion" in err
    assert len(err.strip().splitlines()) == 1


def test_plan_on_the_demo(demo_run):
    assert demo_run.result.returncode == 0, demo_run.result.stderr
    table = demo_run.out / "judgments.parquet"
    result = run("plan", str(table), "--difference", "0.1", "--criterion", "correct",
                 "--arms", "atlas-7b,beacon-13b", "--format", "text,json", "--out",
                 str(demo_run.out.parent / "plan"))
    assert result.returncode == 0, result.stderr
    assert "From the pilot: " in result.stdout and "in 39 clusters, 5 run(s)" in result.stdout
    record = json.loads((demo_run.out.parent / "plan" / "plan.json").read_text())
    assert record["pilot"]["arms"] == ["atlas-7b", "beacon-13b"]
    chosen = record["rows"][0]
    assert chosen["reachable"] and chosen["power"] >= 0.8 and chosen["questions"] > 0
    # the demo's runs let the plan trade questions for runs: fewer questions with 5 runs
    five = next(r for r in record["rows"] if (r["runs"], r["trials"]) == (5, 1))
    assert five["questions"] < chosen["questions"]
    # the demo's run folder of metric judges: its run store is read for the calls (offline,
    # unpriced: the cost is unknown and said so); one run, so runs and trials buy nothing
    folder = demo_run.out / "metric-judges" / "run"
    result = run("plan", str(folder), "--difference", "0.1", "--criterion", "exact_match")
    assert result.returncode == 0, result.stderr
    assert "the pilot has one run" in result.stdout and "no price" in result.stdout
    # the demo's pairwise judge: its win rate is the win-rate report's
    result = run("plan", str(table), "--difference", "0.1", "--judge", "judge-pairwise",
                 "--arms", "cirrus-70b,atlas-7b", "--format", "json", "--out",
                 str(demo_run.out.parent / "plan-pairwise"))
    assert result.returncode == 0, result.stderr
    record = json.loads((demo_run.out.parent / "plan-pairwise" / "plan.json").read_text())
    reported = next(r for r in json.loads((demo_run.out / "winrates.json").read_text())
                    if r["judge"] == "judge-pairwise" and r["task"] is None
                    and {r["arm"], r["opponent"]} == {"cirrus-70b", "atlas-7b"})
    assert record["estimand"] == "win_rate" and record["rows"][0]["reachable"]
    expected = (reported["win_rate"] if reported["arm"] == "cirrus-70b"
                else 1.0 - reported["win_rate"])
    assert abs(record["pilot"]["mean"] - expected) < 1e-12
    assert record["pilot"]["n_items"] == reported["n"]
