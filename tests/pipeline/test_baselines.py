"""``assay baselines``: G-Eval through the engine (logprob expectation, else sampled mean),
BERTScore through the native-scores machinery (a stand-in scorer), and Spearman against
the ground truth per method x task, checked against scipy.stats.spearmanr."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest
from scipy import stats as sps

from assay.pipeline.baselines import BaselinesConfig, baselines
from assay.pipeline.geval import parse_score
from tests.cli._judge_helpers import run
from tests.pipeline.test_native_scores import _write  # a run folder's JSONL file

# The stand-in model's score distribution; its expectation is worked by hand:
# 1 * .05 + 2 * .10 + 3 * .15 + 4 * .30 + 5 * .40 = .05 + .2 + .45 + 1.2 + 2.0 = 3.9
SCORES = {"1": 0.05, "2": 0.10, "3": 0.15, "4": 0.30, "5": 0.40}
REF = [0.1, 0.9, 0.4, 0.6, 0.3, 0.8, 0.2, 0.7]  # reference_score of d0..d7


@pytest.fixture()
def run_folder(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    _write(folder, "datapoints.jsonl", [
        {"id": f"d{i}", "task": "qa" if i < 4 else "sum", "prompt": f"Question {i}?",
         "reference": f"answer {i} " + "word " * i, "reference_score": REF[i]} for i in range(8)])
    _write(folder, "responses.jsonl", [
        {"id": f"r{i}{arm}", "datapoint_id": f"d{i}", "arm": arm, "text": f"reply {arm} {i} " + "x " * i}
        for i in range(8) for arm in "ab"])
    # judge j scores response r{i}{arm} with (i * 7) % 10 + (arm == "b"): a fixed, tie-bearing pattern
    _write(folder, "evaluations.jsonl", [
        {"id": f"e{i}{arm}", "response_id": f"r{i}{arm}", "judge": "j",
         "scores": {"ok": (i * 7) % 10 + (arm == "b")}} for i in range(8) for arm in "ab"])
    return folder


def _config(server, **geval):
    return BaselinesConfig.model_validate({
        "methods": ["geval"], "geval": {"samples": 4, **geval},
        "llm": {"model": "judge-model", "base_url": server.url, "api_key_env": None,
                "timeout_s": 5.0, "backoff_base_s": 0.01,
                "prices": {"judge-model": {"input": 2.5, "output": 10.0}}}})


def test_geval_expectation_from_logprobs_stored_and_resumed(server, run_folder):
    server.configure(scores=SCORES, record_bodies=True)
    result = baselines(run_folder, _config(server))
    geval = [r for r in result.records if r["method"] == "geval"]
    assert len(geval) == 16 and {r["how"] for r in geval} == {"logprob_expectation"}
    assert all(r["score"] == pytest.approx(3.9, rel=1e-12) and r["mass"] == pytest.approx(1.0)
               for r in geval)
    assert server.stats.requests == 16  # one logprob call per response, no sample
    # every G-Eval score is 3.9: rho is undefined, and the CSV says why (no number invented)
    geval_rows = [r for r in result.correlations if r["method"] == "geval"]
    assert len(geval_rows) == 3 and all(math.isnan(r["estimate"]) for r in geval_rows)
    assert {r["note"] for r in geval_rows} == {"undefined: the method's scores do not vary"}
    body = server.stats.bodies[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 20
    assert body["messages"][0]["content"].endswith("- Quality (1-5):")
    conn = sqlite3.connect(run_folder / "baselines" / "judgments.sqlite")
    tables = [json.loads(t) for (t,) in conn.execute("SELECT top_logprobs FROM judgments")]
    conn.close()
    assert len(tables) == 16 and dict(tables[0]) == pytest.approx({k: math.log(p) for k, p in SCORES.items()})
    # a rerun asks nothing again and writes the same scores
    again = baselines(run_folder, _config(server))
    assert server.stats.requests == 16 and again.records == result.records
    assert result.usd > 0 and again.usd == 0


def test_geval_sampled_mean_when_the_endpoint_returns_no_logprobs(server, run_folder):
    server.configure(scores=SCORES, logprobs=False)
    result = baselines(run_folder, _config(server))
    geval = {r["response_id"]: r for r in result.records}
    assert {r["how"] for r in geval.values()} == {"sampled_mean"}
    assert server.stats.requests == 16 * (1 + 4)  # the logprob call, then 4 samples each
    # the oracle: the stored sample replies' texts, read as integers here and averaged
    conn = sqlite3.connect(run_folder / "baselines" / "judgments.sqlite")
    texts: dict[str, list[int]] = {}
    for rows, raw in conn.execute("SELECT rows, raw_response FROM judgments"):
        row = json.loads(rows)[0]
        if row["stage"] == "samples":
            texts.setdefault(row["response_id"], []).append(int(raw))
    conn.close()
    for rid, values in texts.items():
        assert len(values) == 4 and geval[rid]["n_samples"] == 4
        assert geval[rid]["score"] == pytest.approx(sum(values) / 4)
    assert len({tuple(v) for v in texts.values()}) > 1  # seeds make the samples differ
    # more samples later: only the new ones are asked (the logprob calls and samples 1-4 are stored)
    more = baselines(run_folder, _config(server, samples=6))
    assert server.stats.requests == 16 * (1 + 4) + 16 * 2
    assert {r["n_samples"] for r in more.records} == {6}


def test_geval_logprobs_off_goes_straight_to_samples(server, run_folder):
    server.configure(scores=SCORES, record_bodies=True)
    baselines(run_folder, _config(server, logprobs=False, samples=2))
    assert server.stats.requests == 32 and not any("logprobs" in b for b in server.stats.bodies)


def _stand_in(predictions, references):
    """A stand-in for BERTScore-F1: the prediction's length over the reference's (capped at 1)."""
    return [min(1.0, len(p) / len(r)) for p, r in zip(predictions, references, strict=True)]


def test_csv_spearman_per_method_and_task_matches_scipy(run_folder):
    result = baselines(run_folder, BaselinesConfig(methods=["bertscore"]), bertscore_batch=_stand_in)
    rows = {(r["method"], r["task"]): r for r in result.correlations}
    assert set(rows) == {(m, t) for m in ("bertscore", "judge:j/ok") for t in ("qa", "sum", "all")}
    responses = [(i, arm) for i in range(8) for arm in "ab"]
    text = {(i, a): f"reply {a} {i} " + "x " * i for i, a in responses}
    ref_text = {i: f"answer {i} " + "word " * i for i in range(8)}
    for task, wanted in (("qa", range(4)), ("sum", range(4, 8)), ("all", range(8))):
        pairs = [(i, a) for i, a in responses if i in wanted]
        truth = [REF[i] for i, _ in pairs]
        bert = [min(1.0, len(text[(i, a)]) / len(ref_text[i])) for i, a in pairs]
        judge = [(i * 7) % 10 + (a == "b") for i, a in pairs]
        for method, x in (("bertscore", bert), ("judge:j/ok", judge)):
            want = sps.spearmanr(x, truth)
            got = rows[(method, task)]
            assert got["n"] == len(pairs) and got["ground_truth"] == "reference_score"
            assert got["estimate"] == pytest.approx(want.statistic, rel=1e-10)
            assert got["p_value"] == pytest.approx(want.pvalue, rel=1e-8)
            assert got["lower"] < got["estimate"] < got["upper"]
    text_csv = (run_folder / "baselines.csv").read_text(encoding="utf-8").splitlines()
    assert text_csv[0] == "method,task,ground_truth,n,estimate,lower,upper,conf,p_value,interval_method,note"
    assert len(text_csv) == 7 and "fisher_z_bonett_wright" in text_csv[1]
    records = [json.loads(line) for line in (run_folder / "baselines.jsonl").read_text().splitlines()]
    assert len(records) == 16 and {r["how"] for r in records} == {"bertscore_f1"}


def test_native_scores_are_the_ground_truth_when_present(run_folder):
    _write(run_folder, "native_scores.jsonl", [
        {"response_id": f"r{i}{a}", "metric": "rouge_l", "reference_score": float(7 - i)}
        for i in range(8) for a in "ab"])
    result = baselines(run_folder, BaselinesConfig(methods=["bertscore"]), bertscore_batch=_stand_in)
    row = next(r for r in result.correlations if (r["method"], r["task"]) == ("bertscore", "all"))
    x = [min(1.0, len(f"reply {a} {i} " + "x " * i) / len(f"answer {i} " + "word " * i))
         for i in range(8) for a in "ab"]
    assert row["ground_truth"] == "native:rouge_l"
    truth = [7 - i for i in range(8) for _ in "ab"]
    assert row["estimate"] == pytest.approx(sps.spearmanr(x, truth).statistic)


def test_cli_geval_and_user_errors(server, run_folder, tmp_path, capsys):
    server.configure(scores=SCORES)
    cfg = tmp_path / "baselines.yaml"
    cfg.write_text(f"llm: {{model: judge-model, base_url: '{server.url}', api_key_env: null}}\n"
                   "geval: {criterion: coherence, score_max: 5, samples: 2}\n", encoding="utf-8")
    assert run(["baselines", str(run_folder), "--methods", "geval", "--config", str(cfg)]) == 0
    out = capsys.readouterr().out
    assert "16 geval logprob_expectation" in out and "Spearman against reference_score" in out
    assert "judge:j/ok" in out
    assert run(["baselines", str(run_folder), "--methods", "geval,rouge"]) == 2
    err = capsys.readouterr().err
    assert "--methods" in err and "rouge" in err and "Traceback" not in err
    assert run(["baselines", str(run_folder), "--methods", "geval"]) == 2  # no llm section
    assert "llm section" in capsys.readouterr().err
    assert run(["baselines", str(run_folder), "--methods", "bertscore"]) == 2  # no model path
    assert "bertscore.model_path" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("geval: {score_max: 12}\n", encoding="utf-8")
    assert run(["baselines", str(run_folder), "--config", str(bad)]) == 2
    assert "geval.score_max" in capsys.readouterr().err


def test_parse_score_reads_only_a_score_in_range():
    assert [parse_score(t, 5) for t in ("5", " 2 ", "Score: 4", "0", "10", "", None)] == \
        [5, 2, 4, None, None, None, None]


def test_judges_of_the_run_store_are_compared_too(run_folder):
    from assay.judge import ChatRequest, Reply
    from assay.llm.store import RunStore

    (run_folder / "evaluations.jsonl").unlink()
    # an `assay judge` run store (a trial is its rows' run): judge "rub" scored each (item, arm)
    # with 10 - i + (arm == "a") + trial in trials 1 and 2
    with RunStore(run_folder, config={"judge": "rub"}) as store:
        for i in range(8):
            for arm in "ab":
                for trial in (1, 2):
                    key = f"k{i}{arm}{trial}"
                    row = {"item": f"d{i}", "arm": arm, "run": trial, "judge": "rub", "criterion": "ok",
                           "score": float(10 - i + (arm == "a") + trial)}
                    store.put(ChatRequest(key=key, messages=(("user", "x"),)),
                              Reply(key=key, verdict=None, text="x"), [row])
    result = baselines(run_folder, BaselinesConfig(methods=["bertscore"]), bertscore_batch=_stand_in)
    row = next(r for r in result.correlations if (r["method"], r["task"]) == ("judge:rub/ok", "all"))
    x = [10 - i + (a == "a") + 1.5 for i in range(8) for a in "ab"]  # the mean of trials 1 and 2
    truth = [REF[i] for i in range(8) for _ in "ab"]
    assert row["n"] == 16 and row["estimate"] == pytest.approx(sps.spearmanr(x, truth).statistic)
    assert "no evaluations.jsonl" in " ".join(result.notes)


def test_geval_stops_at_the_cost_limit_and_a_rerun_resumes(server, run_folder):
    server.configure(scores=SCORES)
    cfg = _config(server)
    tight = cfg.model_copy(update={"llm": cfg.llm.model_copy(update={"cost_limit_usd": 1e-3,
                                                                     "max_concurrency": 1})})
    first = baselines(run_folder, tight)
    assert first.stopped == "cost_limit" and 0 < len(first.records) < 16
    sent = server.stats.requests
    second = baselines(run_folder, cfg)
    assert second.stopped is None and len(second.records) == 16
    assert server.stats.requests == 16 and sent < 16  # nothing asked twice


def test_assay_run_passes_its_whole_config(server, run_folder, tmp_path):
    from assay.errors import ConfigError
    from assay.judge.config import parse_config
    from assay.pipeline.baselines import run_baselines

    server.configure(scores=SCORES)
    whole = {"version": 1, "judges": [],
             "llm": {"model": "judge-model", "base_url": server.url, "api_key_env": None},
             "baselines": {"methods": "geval", "geval": {"criterion": "fluency", "samples": 2}}}
    path = run_baselines(run_folder, parse_config(whole, base_dir=tmp_path))
    assert path == run_folder / "baselines.csv" and server.stats.requests == 16
    records = [json.loads(line) for line in (run_folder / "baselines.jsonl").read_text().splitlines()]
    assert {r["how"] for r in records} == {"logprob_expectation"}
    whole["baselines"]["geval"]["sample"] = 3  # a typo in the section is named, not ignored
    with pytest.raises(ConfigError, match=r"baselines: geval\.sample"):
        run_baselines(run_folder, parse_config(whole, base_dir=tmp_path))
