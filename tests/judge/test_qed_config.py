"""``assay import qed-config``: a BenchmarkQED AutoE settings YAML (as ``benchmark-qed config
init autoe_pairwise`` / ``autoe_reference`` lay it out, with its input folder) becomes an assay
judge config that ``assay judge CONFIG --dry-run`` accepts and plans the same calls for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assay.cli import main

PAIRWISE = """\
base:
  name: vector_rag
  answer_base_path: input/vector_rag
others:
  - name: graph_rag
    answer_base_path: input/graph_rag
  - name: lazy_rag
    answer_base_path: input/lazy_rag
question_sets: [activity_local, activity_global]
criteria:
  - name: comprehensiveness
    description: How much detail does the answer provide?
trials: 2
llm_config:
  auth_type: api_key
  model: gpt-4.1
  api_key: ${QED_KEY}
  llm_provider: openai.chat
  concurrent_requests: 20
  init_args: {api_base: "http://127.0.0.1:9/v1"}
  call_args: {temperature: 0.0, seed: 42}
prompt_config:
  user_prompt: {prompt: prompts/pairwise_user_prompt.txt}
  system_prompt: {prompt: prompts/pairwise_system_prompt.txt}
"""


def _answers(folder: Path, methods, sets, n=3, one_file=None):
    for m in methods:
        for s in sets:
            path = folder / "input" / m / (one_file or f"{s}.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps([{"question_id": f"{s}-{i}", "question_text": f"Q{i}?",
                                         "answer": f"{m} says {i}"} for i in range(n)]))


def _run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return info.value.code, out.out + out.err


def test_pairwise_settings_become_a_config_the_dry_run_plans(tmp_path, capsys, monkeypatch):
    qed = tmp_path / "pairwise_test"
    qed.mkdir()
    (qed / "settings.yaml").write_text(PAIRWISE)
    _answers(qed, ["vector_rag", "graph_rag", "lazy_rag"], ["activity_local", "activity_global"])
    out = tmp_path / "assay" / "assay.yaml"
    code, text = _run(["import", "qed-config", str(qed / "settings.yaml"), "-o", str(out)],
                      capsys)
    assert code in (0, None), text
    assert "prompts not converted" in text and "pairwise_user_prompt.txt" in text
    config = yaml.safe_load(out.read_text())
    assert config["llm"] == {"model": "gpt-4.1", "base_url": "http://127.0.0.1:9/v1",
                             "api_key_env": "QED_KEY", "max_concurrency": 20,
                             "params": {"temperature": 0.0, "seed": 42}}
    judge = config["judges"][0]
    assert (judge["kind"], judge["base"], judge["others"], judge["trials"]) == (
        "pairwise", "vector_rag", ["graph_rag", "lazy_rag"], 2)
    monkeypatch.setenv("QED_KEY", "not-a-secret")
    code, text = _run(["judge", str(out), "--dry-run", "--out", str(tmp_path / "run")], capsys)
    assert code in (0, None), text
    # 2 question sets x 3 questions x 2 pairs x 2 trials, one call per criterion
    assert "pairwise  gpt-4.1     24" in text


def test_reference_settings_keep_the_scale_and_the_reference(tmp_path, capsys, monkeypatch):
    qed = tmp_path / "reference_test"
    qed.mkdir()
    (qed / "settings.yaml").write_text(
        "reference: {name: lazygraphrag, answer_base_path: input/lazygraphrag/activity.json}\n"
        "generated:\n  - {name: vector_rag, answer_base_path: input/vector_rag/activity.json}\n"
        "score_min: 1\nscore_max: 5\ntrials: 4\nllm_config: {model: gpt-4.1}\n")
    _answers(qed, ["lazygraphrag", "vector_rag"], ["activity"], n=4, one_file="activity.json")
    out = qed / "assay.yaml"
    code, text = _run(["import", "qed-config", str(qed / "settings.yaml"), "-o", str(out)],
                      capsys)
    assert code in (0, None), text
    judge = yaml.safe_load(out.read_text())["judges"][0]
    assert (judge["reference"], judge["generated"], judge["score_max"]) == (
        "lazygraphrag", ["vector_rag"], 5)
    monkeypatch.setenv("OPENAI_API_KEY", "not-a-secret")
    code, text = _run(["judge", str(out), "--dry-run", "--out", str(tmp_path / "run")], capsys)
    assert code in (0, None), text
    assert "reference  gpt-4.1     32" in text  # 4 questions x 4 trials x 2 criteria


def test_answers_outside_one_folder_layout_are_refused_by_field(tmp_path, capsys):
    settings = tmp_path / "settings.yaml"
    settings.write_text(PAIRWISE.replace("input/graph_rag", "elsewhere/answers"))
    code, text = _run(["import", "qed-config", str(settings), "-o", str(tmp_path / "a.yaml")],
                      capsys)
    assert code == 2 and "graph_rag" in text and "answer_base_path" in text
    assert "Traceback" not in text and not (tmp_path / "a.yaml").exists()
