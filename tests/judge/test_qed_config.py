"""``assay import qed-config``: a BenchmarkQED AutoE settings YAML (each layout of
``benchmark_qed.autoe.config``, with its input folder) becomes an assay judge config that
assay's loader reads and ``assay judge CONFIG --dry-run`` plans the same calls for, or is
refused in one line (exit 2)."""

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


# --- every other layout: benchmark-qed autoe hierarchical-assertion-scores, assertion-scores
# (multi-RAG), differential-pairwise-scores, chunk-assertion-scores; settings written after
# benchmark_qed.autoe.config (HierarchicalAssertionConfig, MultiRAGAssertionConfig,
# MultiRAGHierarchicalAssertionConfig, DifferentialPairwiseConfig) and
# benchmark_qed.autoe.data_model.chunk_assertion.ChunkAssertionConfig

LLM = 'llm_config: {model: gpt-4.1, api_key: "${QED_KEY}", init_args: {api_base: "http://127.0.0.1:9/v1"}}\n'


def _assertions(path: Path, n=3, supporting=True):
    records = [{"question_id": f"q{i}", "question_text": f"Q{i}?", "assertions": [
        {"statement": f"Claim {i}.{r}", "rank": r + 1,
         **({"supporting_assertions": [{"id": f"s{i}{r}{k}", "statement": f"Detail {k}"}
                                       for k in range(2)]} if supporting else {})}
        for r in range(2)]} for i in range(n)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))


def _flat_answers(folder: Path, methods, sets, n=3):
    for m in methods:
        for s in sets:
            path = folder / m / f"{s}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps([{"question_id": f"q{i}", "question_text": f"Q{i}?",
                                         "answer": f"{m} on {s}: {i}"} for i in range(n)]))


def _convert(tmp_path, settings: str, capsys, monkeypatch):
    """Import the settings, load the config with assay's loader, dry-run it: (config, notes, plan rows)."""
    from assay.judge.config import load_config

    (tmp_path / "settings.yaml").write_text(settings)
    out = tmp_path / "assay" / "assay.yaml"
    code, notes = _run(["import", "qed-config", str(tmp_path / "settings.yaml"), "-o", str(out)],
                       capsys)
    assert code in (0, None), notes
    load_config(out)
    monkeypatch.setenv("QED_KEY", "not-a-secret")
    code, text = _run(["judge", str(out), "--dry-run", "--out", str(tmp_path / "run")], capsys)
    assert code in (0, None), text
    rows = [line.split() for line in text.splitlines() if line.startswith("gpt-4.1")]
    # judge, kind, model, calls, pending, stage2<=, ...
    return yaml.safe_load(out.read_text()), notes, [(r[1], int(r[3]), r[5]) for r in rows]


SINGLE = ("generated: {name: vector_rag, answer_base_path: input/vector_rag/data_global.json}\n"
          "assertions: {assertions_path: input/data_global_assertions.json}\n"
          "pass_threshold: 0.5\ntrials: 2\n" + LLM)


@pytest.mark.parametrize("mode", ["staged", "joint"])
def test_single_rag_hierarchical_keeps_its_mode(tmp_path, capsys, monkeypatch, mode):
    _flat_answers(tmp_path / "input", ["vector_rag"], ["data_global"])
    _assertions(tmp_path / "input" / "data_global_assertions.json")
    config, notes, plan = _convert(tmp_path, SINGLE + f"mode: {mode}\ndetect_discovery: false\n",
                                   capsys, monkeypatch)
    judge = config["judges"][0]
    assert (judge["kind"], judge["mode"], judge["trials"]) == ("assertion_hierarchical", mode, 2)
    assert "detect_discovery" in notes
    # 3 questions x 2 global assertions x 2 trials; STAGED asks the supporting ones of the
    # passed globals afterwards (at most one call each), JOINT asks all in the one call
    assert plan == [("assertion_hierarchical", 12, "12" if mode == "staged" else "-")]


def test_single_rag_assertion_with_supporting_assertions_says_what_it_made(tmp_path, capsys,
                                                                          monkeypatch):
    _flat_answers(tmp_path / "input", ["vector_rag"], ["data_global"])
    _assertions(tmp_path / "input" / "data_global_assertions.json")
    config, notes, plan = _convert(tmp_path, SINGLE, capsys, monkeypatch)
    assert config["judges"][0]["kind"] == "assertion"
    assert "add mode: staged" in notes  # never silently a plain judge of a hierarchical file
    assert plan == [("assertion", 12, "-")]


def test_multi_rag_assertion_is_one_config_with_every_method(tmp_path, capsys, monkeypatch):
    _flat_answers(tmp_path / "input", ["vector_rag", "graph_rag"], ["data_local", "data_global"])
    for s in ("data_local", "data_global"):
        _assertions(tmp_path / "input" / f"{s}_assertions.json", supporting=False)
    settings = ("input_dir: input\noutput_dir: output\nrag_methods: [vector_rag, graph_rag]\n"
                "question_sets: [data_local, data_global]\n"
                "answers_path_template: '{input_dir}/{generated_rag}/{question_set}.json'\n"
                "top_k_assertions: 1\ntrials: 2\nsignificance_correction: fdr_bh\n"
                "significance_alpha: 0.01\n" + LLM)
    config, notes, plan = _convert(tmp_path, settings, capsys, monkeypatch)
    assert config["inputs"]["methods"] == ["vector_rag", "graph_rag"]
    assert config["inputs"]["answers_path"] == "{input_dir}/{method}/{question_set}.json"
    assert config["judges"][0]["top_k"] == 1
    # BenchmarkQED's defaults: significance on, no clustered permutation tests
    assert config["significance"] == {"enabled": True, "alpha": 0.01, "correction": "fdr_bh",
                                      "permutations": 0}
    assert "output_dir not carried" in notes
    assert plan == [("assertion", 2 * 2 * 3 * 1 * 2, "-")]  # methods x sets x questions x top 1 x trials


def test_multi_rag_hierarchical_reads_its_one_assertions_file(tmp_path, capsys, monkeypatch):
    _flat_answers(tmp_path / "input", ["vector_rag", "graph_rag"], ["data_global"])
    _assertions(tmp_path / "input" / "hierarchical.json")
    settings = ("input_dir: input\noutput_dir: output\nrag_methods: [vector_rag, graph_rag]\n"
                "assertions_file: hierarchical.json\n"
                "answers_path_template: '{input_dir}/{generated_rag}/data_global.json'\n"
                "mode: joint\ntrials: 2\nrun_clustered_permutation: true\nn_permutations: 500\n"
                "permutation_seed: 7\n" + LLM)
    config, _, plan = _convert(tmp_path, settings, capsys, monkeypatch)
    judge = config["judges"][0]
    assert (judge["kind"], judge["mode"], judge["supporting_key"]) == (
        "assertion_hierarchical", "joint", "supporting_assertions")
    assert config["inputs"]["question_sets"] == ["data_global"]
    assert config["significance"]["permutations"] == 500 and config["significance"]["seed"] == 7
    assert plan == [("assertion_hierarchical", 2 * 3 * 2 * 2, "-")]


PAIRS = ("others:\n  - {name: a_rag, answer_base_path: input/a_rag}\n"
         "  - {name: b_rag, answer_base_path: input/b_rag}\n"
         "  - {name: c_rag, answer_base_path: input/c_rag}\n"
         "question_sets: [activity]\ntrials: 2\n" + LLM +
         "prompt_config:\n  extract_user_prompt: {prompt: prompts/pairwise_extract_user_prompt.txt}\n"
         "  judge_user_prompt: {prompt: prompts/pairwise_unique_judge_user_prompt.txt}\n")


def test_differential_with_a_base_is_one_joint_judge(tmp_path, capsys, monkeypatch):
    _flat_answers(tmp_path / "input", ["base_rag", "a_rag", "b_rag"], ["activity"])
    settings = "base: {name: base_rag, answer_base_path: input/base_rag}\n" + PAIRS.replace(
        "  - {name: c_rag, answer_base_path: input/c_rag}\n", "")
    config, notes, plan = _convert(tmp_path, settings, capsys, monkeypatch)
    judge = config["judges"][0]
    assert (judge["kind"], judge["base"], judge["others"], judge["mode"]) == (
        "differential", "base_rag", ["a_rag", "b_rag"], "joint")
    assert [c["name"] for c in judge["criteria"]] == [
        "comprehensiveness", "diversity", "empowerment", "relevance"]  # BenchmarkQED's defaults
    assert "pairwise_extract_user_prompt.txt" in notes
    # extractions: 3 questions x 2 pairs x 2 trials; then one joint judging call each
    assert plan == [("differential", 12, "12")]


def test_differential_without_a_base_compares_every_pair(tmp_path, capsys, monkeypatch):
    _flat_answers(tmp_path / "input", ["a_rag", "b_rag", "c_rag"], ["activity"])
    config, _, plan = _convert(tmp_path, PAIRS, capsys, monkeypatch)
    assert [(j["base"], j["others"]) for j in config["judges"]] == [
        ("a_rag", ["b_rag", "c_rag"]), ("b_rag", ["c_rag"])]  # itertools.combinations order
    assert plan == [("differential", 12, "12"), ("differential", 6, "6")]


def test_chunk_assertion_settings_judge_the_retrieved_chunks(tmp_path, capsys, monkeypatch):
    _assertions(tmp_path / "input" / "assertions.json", supporting=False)
    retrieval = [{"question_id": f"q{i}", "text": f"Q{i}?", "context": [
        {"chunk_id": f"c{i}{k}", "text": f"chunk {k}", "rank": k} for k in range(4)]}
        for i in range(3)]
    (tmp_path / "input" / "data_local_retrieval.json").write_text(json.dumps(retrieval))
    settings = ("generated: {name: my_retriever, retrieval_path: input/data_local_retrieval.json}\n"
                "assertions: {assertions_path: input/assertions.json}\n"
                "k_list: [1, 3]\npass_threshold: 0.5\nmax_chunks_per_question: 3\n"
                "cache_dir: .benchmark_qed_cache/chunk_assertions\n" + LLM)
    config, notes, plan = _convert(tmp_path, settings, capsys, monkeypatch)
    judge = config["judges"][0]
    assert (judge["kind"], judge["k_list"], judge["max_chunks"]) == ("chunk_assertion", [1, 3], 3)
    assert "cache_dir not carried" in notes
    assert plan == [("chunk_assertion", 3 * 2 * 3, "-")]  # questions x assertions x 3 chunks


def test_every_key_is_carried_or_named(tmp_path, capsys, monkeypatch):
    _flat_answers(tmp_path / "input", ["vector_rag"], ["data_global"])
    _assertions(tmp_path / "input" / "data_global_assertions.json")
    settings = (SINGLE.replace("init_args:", "retry: {max_retries: 3}, llm_provider: "
                               "azure.openai.chat, init_args:")
                + "mode: staged\ntrails: 4\noutput_storage: {type: blob}\n")
    _, notes, _ = _convert(tmp_path, settings, capsys, monkeypatch)
    for named in ("trails", "output_storage", "retry", "llm_provider", "prompt_config absent"):
        assert named in notes, named


@pytest.mark.parametrize(("settings", "named"), [
    ("output_dir: out\nrag_methods: [a, b]\nquestion_sets: [q]\n", "assertion-significance"),
    ("scores_dir: out\nrag_methods: [a, b]\n", "hierarchical-assertion-significance"),
    ("reference_dir: ref\nclusters_path: c.json\ntext_units_path: t.json\noutput_dir: o\n"
     "rag_methods: [{name: a, retrieval_results_path: a.json}]\n", "retrieval-scores"),
    ("questions_path: q.json\ntext_units_path: t.json\noutput_dir: o\n" + LLM,
     "generate-retrieval-reference"),
    (SINGLE + "input_storage: {type: blob, container_name: c}\n", "input_storage"),
    (SINGLE.replace("model: gpt-4.1", "model: gpt-4.1, auth_type: azure_managed_identity"),
     "auth_type"),
    ("input_dir: input\nrag_methods: [a]\nquestion_sets: [q]\n"
     "answers_path_template: '{input_dir}/{rag}/{question_set}.json'\n" + LLM, "{rag}"),
    ("autoq: {}\n", "not a BenchmarkQED AutoE settings file"),
])
def test_what_does_not_convert_is_refused_in_one_line(tmp_path, capsys, settings, named):
    (tmp_path / "settings.yaml").write_text(settings)
    out = tmp_path / "a.yaml"
    code, text = _run(["import", "qed-config", str(tmp_path / "settings.yaml"), "-o", str(out)],
                      capsys)
    assert code == 2 and named in text, text
    assert len(text.strip().splitlines()) == 1 and "Traceback" not in text
    assert not out.exists()


def _fake_qed_install(root):
    """A stand-in BenchmarkQED package with its prompt files' placeholders (text of our own)."""
    folder = root / "benchmark_qed" / "autoe" / "prompts" / "assertion"
    folder.mkdir(parents=True)
    users = {"assertion": "${score_id}\nQ ${question}\nA ${answer}\nG ${assertion}\n",
             "hierarchical_assertion": "${score_id}\nQ ${question}\nG ${assertion}\n"
                                       "${supporting_assertions}\n",
             "supporting_discovery": "${score_id}\nG ${assertion}\nWHY ${global_reasoning}\n"
                                     "${supporting_assertions}\n"}
    for stem, user in users.items():
        (folder / f"{stem}_system_prompt.txt").write_text(f"system of {stem}\n", encoding="utf-8")
        (folder / f"{stem}_user_prompt.txt").write_text(user, encoding="utf-8")
    return root / "benchmark_qed"


@pytest.mark.parametrize("mode", ["staged", "joint"])
def test_hierarchical_prompts_convert_per_mode(tmp_path, mode):
    from assay.judge.qed_config import qed_settings_to_config

    package = _fake_qed_install(tmp_path / "site")
    own = tmp_path / "mine_user.txt"
    own.write_text("${score_id}\nMINE ${assertion}\n${supporting_assertions}\n", encoding="utf-8")
    settings = {"generated": {"name": "rag", "answer_base_path": "in/rag/data_global.json"},
                "assertions": {"assertions_path": "in/a.json"}, "mode": mode, "trials": 2,
                "prompt_config": {"user_prompt": {"prompt": str(own)}},
                "llm_config": {"model": "m", "api_key": "${OPENAI_API_KEY}"}}
    out = tmp_path / "out"
    config, notes = qed_settings_to_config(settings, folder=tmp_path, out_folder=out, convert_prompts=True,
                                           qed_install=package)
    folder = out / config["judges"][0]["prompt"]
    made = sorted(p.name for p in folder.iterdir() if p.is_dir())
    if mode == "staged":
        # BenchmarkQED's staged scoring sends its packaged assertion, then supporting-discovery prompts
        assert made == ["assertion", "assertion_supporting"]
        user = (folder / "assertion_supporting" / "user.md").read_text(encoding="utf-8")
        assert "WHY {{ global_reasoning }}" in user and "SA{{ loop.index }}" in user
        assert any("prompt_config not read" in n for n in notes)
    else:
        # joint reads the settings' prompt_config (here its user prompt) over the packaged one
        assert made == ["assertion_hierarchical"]
        user = (folder / "assertion_hierarchical" / "user.md").read_text(encoding="utf-8")
        assert "MINE {{ assertion }}" in user
        assert (folder / "assertion_hierarchical" / "system.md").read_text(encoding="utf-8") == \
            "system of hierarchical_assertion\n"
