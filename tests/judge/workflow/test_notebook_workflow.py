"""Seed 004's notebook workflow through ``assay judge`` + ``assay report`` against the test server.

One config holds every judge of the notebook: pairwise with significance, reference
scoring, standard, hierarchical (STAGED and JOINT) and chunk-level assertions, and the
differential judge joint and separate under two judge models (original vs differential,
joint vs separate across models). The run is made once per module (``workflow``); each
test checks one part of it against values worked out here from the stored rows or the
seed-format CSVs, with scipy and statsmodels as oracles for the statistics.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats
from statsmodels.stats.multitest import multipletests

import assay
import assay.cli.judge  # registers ``assay judge``
from assay.analysis.winrates import win_rates
from tests.cli._judge_helpers import run
from tests.judge.llm_server import Behaviour, LLMServer
from tests.judge.workflow._dataset import METHODS, N_ASSERTIONS, N_QUESTIONS, write_dataset

pytestmark = pytest.mark.slow  # a whole judge run against the test server: about 30 s (.ci/run runs it)

MODEL_A, MODEL_B = "judge-model", "judge-model-b"
TRIALS = 2
DIFF_CRITERIA = ["relevance", "diversity", "comprehensiveness"]
MAX_CHUNKS = 3


def _judges() -> list[dict[str, Any]]:
    diff = {"kind": "differential", "base": "vector_rag", "others": ["graph_rag"], "trials": TRIALS}
    return [
        {"kind": "pairwise", "base": "vector_rag", "others": ["graph_rag"], "trials": TRIALS,
         "criteria": DIFF_CRITERIA},
        {"kind": "reference", "label": "reference", "reference": "inputs", "trials": TRIALS,
         "criteria": ["correctness"]},
        {"kind": "assertion", "label": "assert", "trials": TRIALS, "question_sets": ["data_local"]},
        {"kind": "assertion_hierarchical", "label": "staged", "mode": "staged", "trials": TRIALS,
         "question_sets": ["data_global"]},
        {"kind": "assertion_hierarchical", "label": "hjoint", "mode": "joint", "trials": TRIALS,
         "question_sets": ["data_global"]},
        {"kind": "chunk_assertion", "label": "chunks", "arms": ["vector_rag"],
         "question_sets": ["data_global"], "max_chunks": MAX_CHUNKS, "k_list": [1, 3]},
        {**diff, "label": "diff-joint", "mode": "joint"},
        {**diff, "label": "diff-separate", "mode": "separate"},
        {**diff, "label": "diff-joint", "mode": "joint", "model": MODEL_B},
        {**diff, "label": "diff-separate", "mode": "separate", "model": MODEL_B},
    ]


def write_config(tmp: Path, data: Path, url: str, judges: list[dict[str, Any]], **llm: Any) -> Path:
    config = {
        "version": 1,
        "llm": {"model": MODEL_A, "base_url": url, "api_key_env": None, "max_concurrency": 8,
                "timeout_s": 5.0, "backoff_base_s": 0.01,
                "prices": {MODEL_A: {"input": 2.5, "output": 10.0}}, **llm},
        "inputs": {
            "input_dir": str(data),
            "methods": list(METHODS),
            "question_sets": ["data_local", "data_global"],
            "answers_path": "{input_dir}/answers/{method}/{question_set}.json",
            "question_text_key": "question_text",
            "references_path": "{input_dir}/answers/reference/{question_set}.json",
            "assertions_path": "{input_dir}/assertions/{question_set}_assertions.json",
            "retrieval_path": "{input_dir}/retrieval/{method}/{question_set}.json",
        },
        "judges": judges,
        "cache": str(tmp / "cache.sqlite"),
    }
    path = tmp / "judge.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Workflow:
    folder: Path
    report: Path
    table: pd.DataFrame
    requests: int
    bodies: list[dict[str, Any]]
    prompts_max: int
    first_out: str
    rerun_requests: int
    rerun_out: str


@pytest.fixture(scope="module")
def workflow(_server: LLMServer, tmp_path_factory: pytest.TempPathFactory) -> Workflow:
    tmp = tmp_path_factory.mktemp("workflow")
    data = write_dataset(tmp / "data")
    config = write_config(tmp, data, _server.url, _judges())
    folder, report = tmp / "run", tmp / "report"
    _server.reset(Behaviour(record_bodies=True))
    capture = _Capture()
    with capture:
        assert run(["judge", str(config), "--out", str(folder), "--display", "plain"]) == 0
    requests, bodies = _server.stats.requests, list(_server.stats.bodies)
    prompts_max = max(_server.stats.prompts.values())
    with capture:
        assert run(["judge", str(config), "--out", str(folder), "--display", "plain"]) == 0
    rerun_requests = _server.stats.requests
    assert run(["report", str(folder), "--kind", "winrate", "--format", "json", "--out", str(report)]) == 0
    _server.reset(Behaviour())
    return Workflow(folder, report, assay.load(folder).frame, requests, bodies, prompts_max,
                    capture.outputs[0], rerun_requests, capture.outputs[1])


class _Capture:
    """Collect what ``assay judge`` prints (typer's console writes to sys.stdout)."""

    def __init__(self) -> None:
        self.outputs: list[str] = []

    def __enter__(self) -> None:
        import contextlib
        import io

        self._buffer = io.StringIO()
        self._redirect = contextlib.redirect_stdout(self._buffer)
        self._redirect.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._redirect.__exit__(*exc)
        self.outputs.append(self._buffer.getvalue())


def _rows(table: pd.DataFrame, judge: str, criterion: str | None = None) -> pd.DataFrame:
    rows = table[table["judge"] == judge]
    return rows if criterion is None else rows[rows["criterion"] == criterion]


def _attr(rows: pd.DataFrame, key: str) -> list[Any]:
    return [json.loads(a)[key] for a in rows["attributes"]]


# ---------------------------------------------------------------------------------------------
def test_every_prompt_sent_once_and_a_rerun_sends_nothing(workflow):
    t = workflow.table
    q = 2 * N_QUESTIONS  # questions over both question sets
    n_local = n_global = N_QUESTIONS
    # STAGED stage 2: one call per trial of each (arm, global) whose trial scores average > 0.5
    glob = _rows(t, f"{MODEL_A}/staged", "global_assertion")
    passed = sum(1 for _, g in glob.groupby(["arm", "item"]) if g["score"].mean() > 0.5)
    expected = {
        "pairwise": q * 3 * TRIALS,  # 8 questions x 3 criteria x 2 trials
        "reference": len(METHODS) * q * 1 * TRIALS,
        "assertion": len(METHODS) * n_local * N_ASSERTIONS * TRIALS,
        "staged": len(METHODS) * n_global * N_ASSERTIONS * TRIALS + passed * TRIALS,
        "hjoint": len(METHODS) * n_global * N_ASSERTIONS * TRIALS,
        "chunks": n_global * N_ASSERTIONS * MAX_CHUNKS,
        # per model: one extraction per (question, trial), shared by joint and separate,
        # then 1 (joint) + 3 (separate) judging calls per extraction
        "differential": 2 * (q * TRIALS + q * TRIALS * (1 + 3)),
    }
    assert workflow.requests == sum(expected.values())
    assert workflow.prompts_max == 1  # no prompt was sent twice
    extractions = [b for b in workflow.bodies
                   if "ExtractionVerdict" in json.dumps(b.get("response_format", {}))]
    assert len(extractions) == 2 * q * TRIALS
    assert {b["model"] for b in extractions} == {MODEL_A, MODEL_B}
    # the rerun: nothing sent, every judgment already stored
    assert workflow.rerun_requests == workflow.requests
    stored = sum(expected.values()) + 2 * q * TRIALS  # each judge stores its own extraction
    assert f"0 judged (0 failed, 0 from cache), {stored} already stored, 0 calls" in workflow.rerun_out
    assert workflow.table["failure_kind"].isna().all()


def test_pairwise_win_rates_and_holm_against_scipy_and_statsmodels(workflow):
    seed_csv = pd.read_csv(workflow.folder / "win_rates.csv")
    assert list(seed_csv.columns[:7]) == ["score_id", "question", "answer_1_name", "answer_1",
                                          "answer_2_name", "answer_2", "criteria"]
    records = json.loads((workflow.report / "winrates.json").read_text())
    pairwise = [r for r in records if r["judge"] == MODEL_A and r["task"] is None]
    assert {r["criterion"] for r in pairwise} == set(DIFF_CRITERIA)
    for record in pairwise:
        rows = seed_csv[seed_csv["criteria"] == record["criterion"]]
        # question-level win rate: mean over the counterbalanced trials, then over questions
        per_question = rows.groupby("question")["vector_rag_score"].mean().to_numpy()
        assert record["n"] == len(per_question) == 2 * N_QUESTIONS
        assert record["win_rate"] == pytest.approx(per_question.mean(), abs=1e-12)
        # one question per cluster: the cluster-robust t test is the one-sample t test
        if np.ptp(per_question) > 0:
            assert record["p_value"] == pytest.approx(stats.ttest_1samp(per_question, 0.5).pvalue, rel=1e-9)
    family = [r for r in records if r["p_value"] is not None and r["arm"] != r["opponent"]]
    holm = multipletests([r["p_value"] for r in family], method="holm")[1]
    assert [r["p_adjusted"] for r in family] == pytest.approx(list(holm), rel=1e-9)


def test_reference_summary_matches_the_scores(workflow):
    scores = pd.read_csv(workflow.folder / "reference_scores.csv")
    summary = pd.read_csv(workflow.folder / "reference_scores_summary.csv")
    assert set(scores["score"]) <= set(range(1, 11))
    assert len(scores) == len(METHODS) * 2 * N_QUESTIONS * TRIALS
    for _, row in summary.iterrows():
        s = scores[(scores["generated"] == row["generated"])
                   & (scores["question_set"] == row["question_set"])]
        values = s["score"].to_numpy(float)
        n = len(values)
        assert row["mean"] == pytest.approx(values.sum() / n)
        assert row["std"] == pytest.approx(math.sqrt(((values - values.sum() / n) ** 2).sum() / n))


def test_standard_assertion_summary_by_hand(workflow):
    rows = _rows(workflow.table, f"{MODEL_A}/assert", "assertion")
    summary = pd.read_csv(workflow.folder / "assertion_scores_summary.csv")
    for arm in METHODS:
        mine = rows[rows["arm"] == arm]
        passes: dict[str, list[int]] = {}
        for item, g in mine.groupby("item"):
            passes.setdefault(str(item).split("#")[0], []).append(int(g["score"].mean() > 0.5))
        micro = sum(map(sum, passes.values())) / sum(map(len, passes.values()))
        macro = float(np.mean([sum(v) / len(v) for v in passes.values()]))
        got = summary[summary["arm"] == arm].iloc[0]
        assert got["overall_accuracy"] == pytest.approx(micro)
        assert got["avg_question_pass_rate"] == pytest.approx(macro)
        assert got["total_assertions"] == N_QUESTIONS * N_ASSERTIONS


def test_staged_asks_supporting_only_for_passed_globals(workflow):
    t = workflow.table
    judge = f"{MODEL_A}/staged"
    glob = _rows(t, judge, "global_assertion")
    passed = {k for k, g in glob.groupby(["arm", "item"]) if g["score"].mean() > 0.5}
    sup = _rows(t, judge, "supporting_assertion")
    parents = {(a, i.split("/")[0]) for a, i in zip(sup["arm"], sup["item"], strict=True)}
    assert parents == passed and passed
    disc = _rows(t, judge, "discovery")
    assert {(a, i) for a, i in zip(disc["arm"], disc["item"], strict=True)} == passed
    # the summary applies "a pass with no support and no discovery fails"
    agg = pd.read_csv(workflow.folder / "hierarchical_scores_by_assertion.csv")
    agg = agg[agg["judge"] == judge]
    for _, row in agg.iterrows():
        item = f"{row['question']}#{row['assertion_id']}"
        raw = (row["arm"], item) in passed
        expect = raw and (row["n_supporting_passed"] > 0 or bool(row["has_discovery"]))
        assert row["global_score"] == int(expect)
    # JOINT judged every global with its supporting assertions in one call
    joint = _rows(t, f"{MODEL_A}/hjoint")
    assert len(joint[joint["criterion"] == "global_assertion"]) == len(glob)
    assert set(pd.read_csv(workflow.folder / "hierarchical_summary.csv")["judge"]) == {
        judge, f"{MODEL_A}/hjoint"}


def test_chunk_coverage_by_hand(workflow):
    rows = _rows(workflow.table, f"{MODEL_A}/chunks", "chunk_support")
    position = _attr(rows, "position")
    chunk = _attr(rows, "chunk_id")
    # ranks run backwards in the file: the chunk of rank 1 (the last listed, c3) is position 0
    assert all(c.endswith("c3") for c, p in zip(chunk, position, strict=True) if p == 0)
    assert not any(c.endswith("c0") for c in chunk)  # cut by max_chunks = 3
    table = pd.read_csv(workflow.folder / "chunk_coverage.csv").set_index("k")
    frame = rows.assign(position=position, question=rows["cluster"],
                        assertion=[i.split("@")[0] for i in rows["item"]])
    for k in (1, 3):
        best = frame[frame["position"] < k].groupby(["question", "assertion"])["score"].max()
        per_q = (best >= 0.5).groupby(level="question").mean()
        strict = (best >= 1.0).groupby(level="question").mean()
        assert table.loc[f"k{k}", "coverage"] == pytest.approx(per_q.mean())
        assert table.loc[f"k{k}", "strict_coverage"] == pytest.approx(strict.mean())
        assert table.loc[f"k{k}", "coverage_strength"] == pytest.approx(best.mean())
        assert table.loc[f"k{k}", "mean_chunks"] == pytest.approx(min(k, 4))


def test_original_vs_differential_and_joint_vs_separate_across_models(workflow):
    joint = pd.read_csv(workflow.folder / "differential_pairwise_scores.csv")
    separate = pd.read_csv(workflow.folder / "separate_differential_scores.csv")
    for frame in (joint, separate):
        assert set(frame["criteria"]) == set(DIFF_CRITERIA)
        assert (frame["vector_rag_score"] + frame["graph_rag_score"] == 1.0).all()
    records = json.loads((workflow.report / "winrates.json").read_text())
    shown = {(r["judge"], r["criterion"]) for r in records if r["task"] is None}
    differential = [f"{m}/diff-{mode}" for m in (MODEL_A, MODEL_B) for mode in ("joint", "separate")]
    for judge in (MODEL_A, *differential):
        assert {(judge, c) for c in DIFF_CRITERIA} <= shown  # original and differential side by side
    report = win_rates(assay.load(workflow.folder))
    keys = ["question_set", "question", "criteria", "trial"]
    for model in (MODEL_A, MODEL_B):
        a, b = f"{model}/diff-joint", f"{model}/diff-separate"
        # the seed's recipe: merge the joint and separate rows on (question set, question,
        # criterion, trial) and count equal base scores
        merged = joint[joint["judge"] == a][[*keys, "vector_rag_score"]].merge(
            separate[separate["judge"] == b][[*keys, "vector_rag_score"]], on=keys)
        assert len(merged) == 2 * N_QUESTIONS * TRIALS * len(DIFF_CRITERIA)
        for criterion in DIFF_CRITERIA:
            m = merged[merged["criteria"] == criterion]
            agree = (m["vector_rag_score_x"] == m["vector_rag_score_y"]).mean()
            found = [c for c in report.judges
                     if {c.judge_a, c.judge_b} == {a, b} and c.criterion == criterion]
            assert len(found) == 1
            assert found[0].agreement_rate == pytest.approx(agree)
            assert found[0].n_trials == len(m)
