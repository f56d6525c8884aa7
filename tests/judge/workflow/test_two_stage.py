"""Two-stage judges in the planner: resume across the stage boundary, config sections, shared extraction."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import assay
from assay.errors import ConfigError
from assay.judge.config import load_config, parse_config
from assay.judge.inputs import load_inputs
from assay.judge.judges import JUDGE_KINDS
from assay.judge.plan import build_plan
from tests.judge.llm_server import Behaviour
from tests.judge.workflow._dataset import N_QUESTIONS, write_dataset
from tests.judge.workflow.test_notebook_workflow import MODEL_A, run, write_config

STAGED = {"kind": "assertion_hierarchical", "label": "staged", "mode": "staged", "trials": 2,
          "question_sets": ["data_global"]}
DIFF = {"kind": "differential", "label": "diff", "base": "vector_rag", "mode": "separate", "trials": 2}


def _facts(folder: Path) -> set[tuple]:
    t = assay.load(folder).frame
    return set(zip(t["judge"], t["item"], t["arm"], t["run"], t["criterion"], t["score"], strict=True))


def test_run_stopped_in_stage_one_resumes_to_the_same_rows(server, tmp_path, capsys):
    data = write_dataset(tmp_path / "data")
    # a clean run (its own cache) for the expected rows
    clean_dir = tmp_path / "clean"
    clean_dir.mkdir()
    clean = write_config(clean_dir, data, server.url, [STAGED, DIFF])
    assert run(["judge", str(clean), "--out", str(tmp_path / "clean_run"), "--display", "plain"]) == 0
    expected = _facts(tmp_path / "clean_run")
    capsys.readouterr()
    # the same config stopped by its cost limit during stage 1 (so stage 2 never starts) ...
    stop_dir = tmp_path / "stop"
    stop_dir.mkdir()
    limited = write_config(stop_dir, data, server.url, [STAGED, DIFF], cost_limit_usd=0.005,
                           max_concurrency=1)
    out = tmp_path / "run"
    assert run(["judge", str(limited), "--out", str(out), "--display", "plain"]) == 3  # stopped early: exit 3
    first_out = capsys.readouterr()
    first = first_out.out
    assert "cost limit" in first_out.err
    done_first = int(first.split(" judged")[0].split()[-1])
    stage1 = 2 * N_QUESTIONS * 2 * 2 + 2 * N_QUESTIONS * 2  # staged globals + extractions
    assert 0 < done_first < stage1
    # ... then resumed without a limit: only what is missing is asked, nothing twice
    resumed = write_config(stop_dir, data, server.url, [STAGED, DIFF])
    assert run(["judge", str(resumed), "--out", str(out), "--display", "plain"]) == 0
    second = capsys.readouterr().out
    assert f"(0 failed, 0 from cache), {done_first} already stored" in second
    assert _facts(out) == expected
    assert run(["judge", str(resumed), "--out", str(out), "--display", "plain"]) == 0
    assert "0 judged (0 failed, 0 from cache)" in capsys.readouterr().out


def _plan(tmp_path: Path, judges: list[dict]):
    data = write_dataset(tmp_path / "data")
    config = write_config(tmp_path, data, "http://127.0.0.1:9/v1", judges)
    cfg = load_config(config)
    return build_plan(cfg, load_inputs(cfg))


def test_new_kinds_are_registered_and_refuse_unknown_keys():
    assert {"assertion", "assertion_hierarchical", "chunk_assertion", "differential"} <= set(JUDGE_KINDS)
    base = {"version": 1, "llm": {"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key_env": None},
            "inputs": {"jsonl": ["a.jsonl"]}}
    with pytest.raises(ConfigError, match=r"judges\[0\]\.modes: unknown key"):
        parse_config({**base, "judges": [{**STAGED, "modes": "joint"}]})
    with pytest.raises(ConfigError, match=r"judges\[0\]\.trials"):
        parse_config({**base, "judges": [{**DIFF, "trials": 3}]})
    with pytest.raises(ConfigError, match=r"judges\[0\]\.mode"):
        parse_config({**base, "judges": [{**DIFF, "mode": "both"}]})


def test_selection_settings_keep_keys_and_verdict_settings_change_them(tmp_path):
    one = _plan(tmp_path / "a", [{"kind": "assertion", "trials": 2, "pass_threshold": 0.5}])
    two = _plan(tmp_path / "b", [{"kind": "assertion", "trials": 2, "pass_threshold": 0.75, "top_k": 1}])
    keys_one, keys_two = set(one.keys), set(two.keys)
    # top_k = 1 keeps half the (2) assertions per question: a subset of the same keys
    assert keys_two < keys_one and 2 * len(keys_two) == len(keys_one)
    joint = _plan(tmp_path / "c", [{**STAGED, "mode": "joint"}])
    staged = _plan(tmp_path / "d", [STAGED])
    assert not set(joint.keys) & set(staged.keys)


def test_joint_and_separate_send_identical_extractions(tmp_path):
    plan = _plan(tmp_path, [{**DIFF, "label": "j", "mode": "joint"}, {**DIFF, "label": "s"}])
    joint, separate = (part.requests for part in plan.judges)
    assert len(joint) == len(separate) == 2 * N_QUESTIONS * 2
    for a, b in zip(joint, separate, strict=True):
        assert a.key != b.key  # each judge stores its own extraction ...
        assert (a.messages, a.model, a.sample) == (b.messages, b.model, b.sample)
        assert dict(a.params) == dict(b.params) and a.response_model is b.response_model
    # ... and a different model asks its own
    other = _plan(tmp_path / "m", [{**DIFF, "model": "judge-model-b"}]).judges[0].requests
    assert other[0].model == "judge-model-b" and other[0].messages[1] != joint[0].messages[1]


def test_retrieval_records_are_read_per_method_and_set(tmp_path):
    chunks = {"kind": "chunk_assertion", "question_sets": ["data_local"], "arms": ["graph_rag"]}
    plan = _plan(tmp_path, [chunks])
    requests = plan.judges[0].requests
    # 4 questions x 2 assertions x 4 chunks of graph_rag's data_local retrieval results
    assert len(requests) == N_QUESTIONS * 2 * 4
    assert {r.meta["arm"] for r in requests} == {"graph_rag"}
    assert {r.meta["task"] for r in requests} == {"data_local"}
    first = json.loads(requests[0].meta["attributes"])
    assert first["chunk_id"].endswith("c3") and first["position"] == 0 and first["n_chunks"] == 4


def test_prompt_override_for_a_judge_with_several_prompts(tmp_path):
    folder = tmp_path / "prompts" / "differential_extract"
    folder.mkdir(parents=True)
    (folder / "system.md").write_text("Split the answers.", encoding="utf-8")
    (folder / "user.md").write_text("Q: {{ question }} A1: {{ answer_1 }} A2: {{ answer_2 }} {{ score_id }}",
                                    encoding="utf-8")
    plan = _plan(tmp_path, [{**DIFF, "prompt": str(tmp_path / "prompts")}])
    request = plan.judges[0].requests[0]
    assert request.messages[0] == ("system", "Split the answers.")
    default = _plan(tmp_path / "d", [DIFF]).judges[0].requests[0]
    assert default.key != request.key  # the prompt's hash is in the key


def test_model_is_named_in_stage_two(server, tmp_path):
    server.reset(Behaviour(record_bodies=True))
    data = write_dataset(tmp_path / "data")
    config = write_config(tmp_path, data, server.url, [{**DIFF, "mode": "joint", "model": "judge-model-b"}])
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    assert {b["model"] for b in server.stats.bodies} == {"judge-model-b"}
    assert server.stats.requests == 2 * (2 * N_QUESTIONS * 2)  # extractions, then one joint call each
    assert set(assay.load(tmp_path / "run").frame["judge"]) == {"judge-model-b/diff"}
    assert MODEL_A not in {b["model"] for b in server.stats.bodies}
