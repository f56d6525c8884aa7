"""``assay.pipeline.generate``: the systems' answers through the engine, on the stand-in server:
the layout assay judge reads, failures recorded as failures, the cache keyed by endpoint and
request, resume, dry run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from assay.errors import ConfigError
from assay.judge.config import parse_config
from assay.judge.inputs import load_inputs
from assay.pipeline.generate import generate_answers, generated_inputs

POINTS = [{"id": f"d{i}", "task": "qa", "cluster": f"c{i // 2}", "prompt": f"What is {i} + {i}?",
           "reference": str(2 * i), "attributes": {"level": "easy" if i % 2 else "hard"}}
          for i in range(3)]


def config(server_url: str, tmp_path: Path, *systems: dict, **extra: object):
    return parse_config({"version": 1, "llm": {"model": "judge-model", "base_url": server_url,
                                               "api_key_env": None, "max_concurrency": 1,
                                               "backoff_base_s": 0.01, **extra},
                         "systems": list(systems), "judges": []}, base_dir=tmp_path)


def model(name: str, url: str, **params: object) -> dict:
    return {"name": name, "model": f"{name}-model", "base_url": url, "api_key_env": None,
            "params": params, "price": {"input": 1.0, "output": 2.0}}


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_answers_land_in_the_layout_assay_judge_reads(server, tmp_path):
    cfg = config(server.url, tmp_path, model("small", server.url), model("large", server.url))
    result = generate_answers(cfg, tmp_path / "run", POINTS)
    assert server.stats.requests == 6 and result.complete
    responses = lines(tmp_path / "run" / "responses.jsonl")
    assert [(r["datapoint_id"], r["arm"]) for r in responses] == [
        ("d0", "small"), ("d1", "small"), ("d2", "small"), ("d0", "large"), ("d1", "large"), ("d2", "large")]
    assert all(r["text"] and r["failure_kind"] is None and r["usd"] > 0 for r in responses)
    assert responses[0]["id"] == "d0:small" and responses[0]["model"] == "small-model"
    # the judge's own reader, given the run folder: one answer per system and datapoint
    inputs = load_inputs(generated_inputs(cfg, tmp_path / "run"))
    assert sorted(inputs.answers) == ["large", "small"]
    answer = inputs.answers["small"]["d1"]
    assert (answer.question, answer.task, answer.cluster) == ("What is 1 + 1?", "qa", "c0")
    assert answer.text == responses[1]["text"]
    assert json.loads(answer.fields["attributes"]) == {"level": "easy"}
    assert inputs.references["d2"].text == "4"


def test_a_failed_answer_is_recorded_as_failed_never_as_empty_text(server, tmp_path):
    script = tmp_path / "answer.py"
    script.write_text("import sys\nprompt = sys.stdin.read()\n"
                      "if '1 + 1' in prompt: sys.exit('cannot add')\n"
                      "print('' if '2 + 2' in prompt else 'zero')\n")
    server.configure(script=["refusal", "ok", "ok"])  # the first answer of the model is refused
    cfg = config(server.url, tmp_path, model("small", server.url),
                 {"name": "local", "command": [sys.executable, str(script)]})
    result = generate_answers(cfg, tmp_path / "run", POINTS)
    by = {(r["datapoint_id"], r["arm"]): r for r in lines(tmp_path / "run" / "responses.jsonl")}
    assert by[("d0", "small")]["text"] is None and by[("d0", "small")]["failure_kind"] == "refusal"
    assert by[("d1", "local")]["text"] is None and by[("d1", "local")]["failure_kind"] == "api_error"
    assert "cannot add" in by[("d1", "local")]["error"]
    assert by[("d2", "local")]["text"] is None and by[("d2", "local")]["failure_kind"] == "api_error"
    assert by[("d0", "local")]["text"] == "zero"
    judged = {(a["item"], a["arm"]) for a in lines(tmp_path / "run" / "answers.jsonl")}
    assert judged == {("d1", "small"), ("d2", "small"), ("d0", "local")}
    counts = {s.system: (s.good, s.failed, s.failures) for s in result.systems}
    assert counts == {"small": (2, 1, {"refusal": 1}), "local": (1, 2, {"api_error": 2})}
    assert not result.complete or sum(s.failed for s in result.systems) == 3


def test_a_rerun_resumes_and_the_cache_is_keyed_by_endpoint_and_request(server, tmp_path):
    shared = tmp_path / "cache.sqlite"
    cfg = config(server.url, tmp_path, model("small", server.url, temperature=0.0))
    generate_answers(cfg, tmp_path / "a", POINTS, cache=str(shared))
    first = lines(tmp_path / "a" / "responses.jsonl")
    assert server.stats.requests == 3
    generate_answers(cfg, tmp_path / "a", POINTS, cache=str(shared))  # the store holds them all
    generate_answers(cfg, tmp_path / "b", POINTS, cache=str(shared))  # a new run: the cache does
    assert server.stats.requests == 3
    assert [r["text"] for r in lines(tmp_path / "b" / "responses.jsonl")] == [r["text"] for r in first]
    changed = config(server.url, tmp_path, model("small", server.url, temperature=0.5))
    generate_answers(changed, tmp_path / "b", POINTS, cache=str(shared))  # other params: asked again
    assert server.stats.requests == 6


def test_dry_run_sends_and_writes_nothing(server, tmp_path):
    cfg = config(server.url, tmp_path, model("small", server.url), model("large", server.url))
    result = generate_answers(cfg, tmp_path / "run", POINTS, dry_run=True)
    assert server.stats.requests == 0 and not (tmp_path / "run").exists()
    assert [(s.system, s.planned, s.good) for s in result.systems] == [("small", 3, 0), ("large", 3, 0)]


def test_the_cost_limit_stops_the_phase_and_a_rerun_resumes(server, tmp_path):
    cfg = config(server.url, tmp_path, model("small", server.url), model("large", server.url),
                 cost_limit_usd=1e-9, prices={"judge-model": {"input": 1.0, "output": 1.0}})
    result = generate_answers(cfg, tmp_path / "run", POINTS)
    assert result.stopped == "cost_limit" and not result.complete
    assert server.stats.requests == 1  # one answer spent the budget; no other request started
    assert [s.summary is None for s in result.systems] == [False, True]
    assert len(lines(tmp_path / "run" / "responses.jsonl")) == 1
    roomy = config(server.url, tmp_path, model("small", server.url), model("large", server.url))
    assert generate_answers(roomy, tmp_path / "run", POINTS).complete
    assert server.stats.requests == 6  # the stored answer was not asked again


def test_a_command_gets_a_minimal_environment_and_what_its_config_names(server, tmp_path, monkeypatch):
    # issue 22, item 9: a command system inherited assay's whole environment, API keys included
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-reach-the-command")
    monkeypatch.setenv("ASSAY_TEST_OTHER_SECRET", "other")
    monkeypatch.setenv("ASSAY_TEST_PASSED", "passed-value")
    monkeypatch.setenv("LC_ASSAY_TEST", "locale")
    script = tmp_path / "env.py"
    script.write_text("import os, sys\nsys.stdin.read()\n"
                      "print(' '.join(sorted(f'{k}={v}' for k, v in os.environ.items())))\n")
    cfg = config(server.url, tmp_path, {"name": "local", "command": [sys.executable, str(script)],
                                        "env": ["ASSAY_TEST_PASSED"]})
    generate_answers(cfg, tmp_path / "run", POINTS[:1])
    [answer] = lines(tmp_path / "run" / "responses.jsonl")
    seen = dict(word.split("=", 1) for word in answer["text"].split())
    assert seen["ASSAY_TEST_PASSED"] == "passed-value" and seen["LC_ASSAY_TEST"] == "locale"
    assert seen["PATH"] == os.environ["PATH"]
    assert "OPENAI_API_KEY" not in seen and "ASSAY_TEST_OTHER_SECRET" not in seen
    # the few every program needs, the locale, and the one variable named: nothing else
    minimal = {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR",
               "TEMP", "TMP", "ASSAY_TEST_PASSED"}
    assert {name for name in seen if not name.startswith("LC_")} <= minimal, seen


def test_a_variable_a_command_names_must_be_set(server, tmp_path, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_UNSET", raising=False)
    cfg = config(server.url, tmp_path, {"name": "local", "command": ["true"], "env": ["ASSAY_TEST_UNSET"]})
    with pytest.raises(ConfigError, match=r"^systems\[0\] \(local\): env: environment variable "
                                          r"ASSAY_TEST_UNSET is not set$"):
        generate_answers(cfg, tmp_path / "run", POINTS[:1])
    assert not (tmp_path / "run").exists()
