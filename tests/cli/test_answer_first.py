"""A new user's judgments CSV, reported with no flag but the column map: the answer comes first.

3 models x 40 questions in 8 topics x 2 runs, with 0/1 scores and with 1-10 scores, as a
user exports them (question_id, model, topic, run, score). ``assay report FILE --map ...``
must print, in the data's own units, each model's estimate and every pair's paired
difference with its interval and an adjusted p-value, in at most 40 lines, with no
"skipped" line and none of the names of assay's sources. The numbers are checked against
a computation made here with numpy and statsmodels (cluster-robust OLS of the question
differences on a constant, clusters = topics), not with assay's code.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.multitest import multipletests

from assay.cli import main

MAP = "question_id=item,model=arm,topic=cluster"
MODELS = ("gpt-a", "gpt-b", "claude-c")
SOURCE_NAMES = ("coeval", "table 7", "hr_report", "quiz", "results aggregator")


def _table(kind: str) -> pd.DataFrame:
    """3 models x 40 questions (5 in each of 8 topics) x 2 runs; claude-c is clearly better."""
    rng = np.random.default_rng(23)
    rows = []
    for q in range(40):
        easy = rng.normal(0, 1)
        for m, model in enumerate(MODELS):
            for run in (1, 2):
                skill = (-0.3, 0.0, 1.2)[m] + easy + rng.normal(0, 0.8)
                score = (int(skill > 0) if kind == "binary"
                         else int(np.clip(np.round(6 + 1.5 * skill), 1, 10)))
                rows.append({"question_id": f"q{q}", "model": model, "topic": f"t{q // 5}",
                             "run": run, "score": score})
    return pd.DataFrame(rows)


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return int(info.value.code or 0), captured.out, captured.err


def _expected(frame: pd.DataFrame) -> tuple[dict[str, float], dict[tuple[str, str], dict]]:
    """Per model: the mean of the question means; per pair (better, worse): the paired mean
    difference, its 95% interval from statsmodels' cluster-robust OLS, and Holm's p."""
    items = frame.groupby(["model", "question_id", "topic"])["score"].mean().unstack("model")
    means = {m: float(items[m].mean()) for m in MODELS}
    pairs = {}
    for i, a in enumerate(MODELS):
        for b in MODELS[i + 1:]:
            better, worse = (a, b) if means[a] >= means[b] else (b, a)
            d = (items[better] - items[worse]).to_numpy()
            groups = pd.factorize(items.index.get_level_values("topic"))[0]
            fit = sm.OLS(d, np.ones_like(d)).fit(cov_type="cluster", cov_kwds={"groups": groups},
                                                 use_t=True)
            low, high = fit.conf_int(0.05)[0]
            pairs[(better, worse)] = {"difference": float(np.mean(d)), "lower": float(low),
                                      "upper": float(high), "p": float(fit.pvalues[0])}
    keys = list(pairs)
    adjusted = multipletests([pairs[k]["p"] for k in keys], method="holm")[1]
    for key, p in zip(keys, adjusted, strict=True):
        pairs[key]["p_adjusted"] = float(p)
    return means, pairs


@pytest.mark.parametrize("kind", ["binary", "one_to_ten"])
def test_a_new_users_csv_gets_the_answer_first(kind, tmp_path, capsys):
    frame = _table(kind)
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["report", str(path), "--map", MAP], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) <= 40, out
    assert not any("skipped" in line for line in lines), out
    assert not any(name in out.lower() for name in SOURCE_NAMES), out
    means, pairs = _expected(frame)
    if kind == "binary":
        assert "score: values 0 and 1 read as binary" in out
    else:  # the data's units: a mean such as 6.9 on 1-10, never its [0, 1] image
        assert "score: numbers from 1 to 10 read on their own scale" in out
        assert min(means.values()) > 2
    for model, mean in means.items():  # each model's row: rank, name, its mean to 3 decimals
        assert re.search(rf"^\s+\d\s+{re.escape(model)}\s+{mean:.3f}\s+\[", out, re.M), (model, out)
    for (better, worse), e in pairs.items():
        found = re.search(rf"^\s+(.*){re.escape(better)} and {re.escape(worse)}.*?: "
                          rf"\+?(-?[\d.]+) \[([-+\d.]+), ([-+\d.]+)\], adjusted p (= [\d.]+|< 0.001)$"
                          rf"|^\s+{re.escape(better)} beats {re.escape(worse)} by ([\d.]+) "
                          rf"\[([-+\d.]+), ([-+\d.]+)\], adjusted p (= [\d.]+|< 0.001)$", out, re.M)
        assert found, (better, worse, out)
        numbers = [g for g in found.groups()[1:5] if g] if found.group(2) else \
            list(found.groups()[5:9])
        difference, lower, upper = (float(x) for x in numbers[:3])
        np.testing.assert_allclose([difference, lower, upper],
                                   [e["difference"], e["lower"], e["upper"]], atol=6e-4)
        shown = numbers[3]
        if shown.startswith("<"):
            assert e["p_adjusted"] < 0.001
        else:
            np.testing.assert_allclose(float(shown.removeprefix("= ")), e["p_adjusted"],
                                       rtol=6e-3)
        assert ("beats" in found.group(0)) == (e["p_adjusted"] <= 0.05)
    assert "claude-c beats gpt-a by" in out  # the simulated difference is large


@pytest.mark.parametrize("kind", ["binary", "one_to_ten"])
def test_the_answer_json_holds_the_numbers_at_full_precision(kind, tmp_path, capsys):
    frame = _table(kind)
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    code, _, err = _run(["report", str(path), "--map", MAP, "--format", "json", "--out",
                         str(tmp_path / "out")], capsys)
    assert code == 0, err
    answer = json.loads((tmp_path / "out" / "answer.json").read_text())
    assert (tmp_path / "out" / "scores.json").is_file()  # the other reports' files as before
    (verdict,) = answer["verdicts"]
    assert verdict["units"] == ("share" if kind == "binary" else "raw")
    means, pairs = _expected(frame)
    assert {s["arm"]: s["estimate"] for s in verdict["systems"]} == pytest.approx(means, rel=1e-12)
    assert [s["arm"] for s in verdict["systems"]] == sorted(means, key=means.get, reverse=True)
    for pair in verdict["pairs"]:
        e = pairs[(pair["better"], pair["worse"])]
        assert [pair["difference"], pair["lower"], pair["upper"], pair["p_value"],
                pair["p_adjusted"]] == pytest.approx(
            [e["difference"], e["lower"], e["upper"], e["p"], e["p_adjusted"]], rel=1e-9)


def test_kind_list_says_which_reports_are_made_and_why_not(tmp_path, capsys):
    path = tmp_path / "s.csv"
    _table("one_to_ten").to_csv(path, index=False)
    code, out, err = _run(["report", str(path), "--map", MAP, "--kind", "list"], capsys)
    assert code == 0, err
    status = {line.split()[0]: line.split()[1:3] for line in out.splitlines()
              if line and not line.startswith("note:")}
    assert status["answer"][0] == "made" and status["scores"][0] == "made"
    assert status["winrates"] == ["not", "made"]
    assert "no pairwise rows" in out and "no cost to report" in out


def test_the_old_reports_are_there_by_name(tmp_path, capsys):
    path = tmp_path / "s.csv"
    _table("binary").to_csv(path, index=False)
    code, out, err = _run(["report", str(path), "--map", MAP, "--kind", "all"], capsys)
    assert code == 0, err
    assert "Scores per criterion" in out and "report skipped" in out
    assert "Which system is better" not in out


def test_pairwise_judgments_get_win_rates_in_the_same_shape(tmp_path, capsys):
    rng = np.random.default_rng(5)
    rows = []
    strength = {"a": 0.0, "b": 0.4, "c": 1.5}
    for q in range(40):
        for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
            for run in (1, 2):
                edge = strength[first] - strength[second] + rng.normal(0, 1)
                rows.append({"item": f"q{q}", "cluster": f"t{q // 5}", "arm": first,
                             "opponent": second, "run": run,
                             "score": 1.0 if edge > 0.3 else 0.0 if edge < -0.3 else 0.5})
    frame = pd.DataFrame(rows)
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["report", str(path)], capsys)
    assert code == 0, err
    assert len(out.strip().splitlines()) <= 40 and "skipped" not in out
    # each system's share of won comparisons, from both sides, computed here
    sides = pd.concat([frame.assign(system=frame["arm"], v=frame["score"]),
                       frame.assign(system=frame["opponent"], v=1 - frame["score"])])
    share = sides.groupby(["system", "item"])["v"].mean().groupby("system").mean()
    for system, value in share.items():
        assert re.search(rf"^\s+\d\s+{system}\s+{value:.3f}\s+\[", out, re.M), (system, out)
    wins = frame[(frame["arm"] == "a") & (frame["opponent"] == "c")]
    rate_c = 1 - wins.groupby("item")["score"].mean().mean()
    assert f"c beats a: wins {rate_c:.3f} of their comparisons" in out


def test_runs_numbered_from_zero_are_read_with_a_note(tmp_path, capsys):
    frame = _table("binary")
    path = tmp_path / "s0.csv"
    frame.assign(run=frame["run"] - 1).to_csv(path, index=False)
    code, out, err = _run(["report", str(path), "--map", MAP], capsys)
    assert code == 0, err
    assert "note: run: numbered from 0 in this file; read as 1..R (run 0 is run 1)" in out
    frame.to_csv(tmp_path / "s1.csv", index=False)
    code, same, err = _run(["report", str(tmp_path / "s1.csv"), "--map", MAP], capsys)
    assert code == 0, err
    assert out.splitlines()[1:] == same.splitlines()  # the same answer, one note more
