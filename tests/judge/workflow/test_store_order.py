"""The same judgments give the same files, whatever order the judge happened to answer them in.

The judge runs its requests concurrently, so the order judgments are stored in changes from run
to run. Here one plan's judgments (each verdict drawn from its key, as the test server draws
its verdicts) are stored twice, in two different shuffled orders (first stage, then the second
stage built from it, as :func:`assay.judge.plan.execute` does); everything written from the two
stores must be byte-identical: BenchmarkQED's CSVs (:mod:`assay.judge.qed_files`), the
win-rate report's files and ``assay export``'s standings. No server, no network: a few
hundred judgments stored in-process. The pairwise and reference judges' files (no statistics
stack, under a second) run in the default suite; every judge's files, the reports and the
exports in the slow step.
"""

from __future__ import annotations

import functools
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

import assay
from assay.judge.config import load_config
from assay.judge.inputs import load_inputs
from assay.judge.plan import Plan, build_followups, build_plan
from assay.judge.qed_files import write_assertion_csvs, write_qed_csvs
from assay.llm import STORE_FILENAME, ChatRequest, Reply, RunStore
from tests.cli._judge_helpers import run
from tests.judge.llm_server import _Instance
from tests.judge.workflow._dataset import METHODS, write_dataset
from tests.judge.workflow.test_notebook_workflow import MODEL_A, MODEL_B, write_config

PAIRWISE = {"kind": "pairwise", "base": "vector_rag", "others": ["reference", "graph_rag"], "trials": 2,
            "criteria": ["relevance", "diversity"]}
REFERENCE = {"kind": "reference", "label": "reference", "reference": "inputs", "generated": ["graph_rag"],
             "trials": 2, "criteria": ["correctness", "completeness"], "score_min": 1, "score_max": 10}
DIFF = {"kind": "differential", "base": "vector_rag", "others": ["graph_rag"], "trials": 2,
        "criteria": ["relevance", "diversity"]}
EVERY_JUDGE = [
    PAIRWISE, REFERENCE,
    {"kind": "assertion", "label": "assert", "trials": 2, "question_sets": ["data_local"]},
    {"kind": "assertion_hierarchical", "label": "hjoint", "mode": "joint", "trials": 2,
     "question_sets": ["data_global"]},
    {"kind": "assertion_hierarchical", "label": "hstaged", "mode": "staged", "trials": 2,
     "question_sets": ["data_global"]},
    {"kind": "chunk_assertion", "label": "chunks", "trials": 1, "question_sets": ["data_local"]},
    {**DIFF, "label": "diff-joint", "mode": "joint"},
    {**DIFF, "label": "diff-separate", "mode": "separate"},
    {**DIFF, "label": "diff-joint", "mode": "joint", "model": MODEL_B},
    {**DIFF, "label": "diff-separate", "mode": "separate", "model": MODEL_B},
]
"""Every judge that writes a file after a run, with a second stage (differential, STAGED)."""


def _config(tmp: Path, judges: list[dict[str, Any]]) -> Path:
    data = write_dataset(tmp / "data")
    shutil.copytree(data / "retrieval" / "graph_rag", data / "retrieval" / "reference")  # a third method
    path = write_config(tmp, data, "http://127.0.0.1:9/v1", judges)  # no call is made
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    config["inputs"]["methods"] = [*METHODS, "reference"]
    config.update(significance={"permutations": 200}, cache="off")
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@functools.cache
def _schema(model: Any) -> dict[str, Any]:
    return model.model_json_schema()


def _reply(request: ChatRequest) -> Reply:
    """A good verdict drawn from the request's key (the same whenever it is asked)."""
    model: Any = request.response_model
    schema = _schema(model)
    verdict = model.model_validate(_Instance(random.Random(request.key), schema).make(schema))
    draw = random.Random(request.key + ":cost")
    return Reply(request.key, verdict, verdict.model_dump_json(), tokens_in=draw.randint(50, 500),
                 tokens_out=draw.randint(10, 90), usd=draw.uniform(1e-4, 1e-2), usd_provenance="reported",
                 latency_s=draw.uniform(0.1, 2.0), attempts=1, evaluated_at="2026-01-01T00:00:00Z")


def _judged(folder: Path, config_path: Path, order: int) -> Plan:
    """Store every judgment of the config's plan, in an order drawn from ``order``, and write the CSVs."""
    shuffle = random.Random(order).shuffle
    config = load_config(config_path)
    inputs = load_inputs(config)
    plan = build_plan(config, inputs)
    with RunStore(folder, config=config.frozen()) as store:
        store.set_scales(plan.scales())
        store.set_plan(plan.keys)
        for stage in ("requests", "followups"):
            if stage == "followups":
                build_followups(plan, store)
                store.set_plan(plan.keys)
            requests = [r for part in plan.judges for r in getattr(part, stage)]
            shuffle(requests)
            for request in requests:
                reply = _reply(request)
                store.put(request, reply, plan.rows(request, reply), commit=False)
            store.commit()
    write_qed_csvs(plan, inputs, folder)
    write_assertion_csvs(plan, folder)
    return plan


def _stored_order(folder: Path) -> list[str]:
    with sqlite3.connect(folder / STORE_FILENAME) as conn:
        return [k for (k,) in conn.execute("SELECT key FROM judgments ORDER BY rowid")]


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(STORE_FILENAME)}


def _two_stores(tmp: Path, judges: list[dict[str, Any]]) -> tuple[Path, Path]:
    config = _config(tmp, judges)
    first, second = tmp / "first", tmp / "second"
    _judged(first, config, order=1)
    _judged(second, config, order=2)
    a, b = _stored_order(first), _stored_order(second)
    assert sorted(a) == sorted(b) and a != b  # the same judgments, stored in different orders
    return first, second


def _differ(first: Path, second: Path, expected: set[str]) -> list[str]:
    """The files written into both folders whose bytes differ (after checking both wrote the same
    files, ``expected`` among them)."""
    got, want = _files(second), _files(first)
    assert expected <= set(want), sorted(expected - set(want))
    assert sorted(got) == sorted(want)
    return [name for name in want if got[name] != want[name]]


@pytest.fixture(scope="module")
def small_stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A pairwise and a reference judge (their files need no statistics stack: fast)."""
    return _two_stores(tmp_path_factory.mktemp("store_order_small"), [PAIRWISE, REFERENCE])


@pytest.fixture(scope="module")
def every_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _two_stores(tmp_path_factory.mktemp("store_order_every"), EVERY_JUDGE)


def test_score_files_do_not_depend_on_the_order_judgments_were_answered_in(small_stores):
    expected = {"win_rates.csv", "reference_scores.csv", "reference_scores_summary.csv",
                "data_local_vector_rag--graph_rag.csv", "data_global_vector_rag--reference.csv",
                "data_local_inputs--graph_rag.csv"}
    assert _differ(*small_stores, expected) == []


def test_win_rates_csv_lists_judgments_in_plan_order(small_stores):
    """Not only the same in both: the order the config asks for them (pairs as configured,
    questions as the inputs list them, criteria as configured, then trials)."""
    import csv

    with (small_stores[0] / "win_rates.csv").open(encoding="utf-8", newline="") as handle:
        pairwise = list(csv.DictReader(handle))  # answer texts hold commas
    assert list(dict.fromkeys(r["other_name"] for r in pairwise)) == ["reference", "graph_rag"]  # config's
    assert list(dict.fromkeys(r["question_set"] for r in pairwise)) == ["data_local", "data_global"]
    assert [(r["criteria"], r["trial"]) for r in pairwise[:4]] == [
        ("relevance", "1"), ("relevance", "2"), ("diversity", "1"), ("diversity", "2")]


@pytest.mark.slow  # every judge's files, the statistics stack: about 15 s a store on 2 busy cores
def test_every_file_of_a_run_does_not_depend_on_the_order_judgments_were_answered_in(every_store):
    expected = {"win_rates.csv", "reference_scores.csv", "reference_scores_summary.csv",
                "differential_pairwise_scores.csv", "separate_differential_scores.csv",
                "original_pairwise_scores.csv", "original_vs_differential_comparison.csv",
                "joint_vs_separate_by_model.csv", "assertion_scores_by_assertion.csv",
                "assertion_scores_by_question.csv", "assertion_scores_summary.csv",
                "hierarchical_assertion_scores.csv", "hierarchical_assertion_summary.csv",
                "hierarchical_summary_by_question.csv", "eval_summary.json",
                "hierarchical_scores_by_assertion.csv", "hierarchical_scores_by_question.csv",
                "hierarchical_summary.csv", "chunk_coverage.csv", "chunk_coverage_by_question.csv",
                "significance_summary.csv", "data_local_vector_rag--graph_rag.csv",
                "data_global_inputs--graph_rag.csv"}
    assert _differ(*every_store, expected) == []


@pytest.mark.slow  # two reports and four exports: about 10 s on 2 busy cores
def test_reports_and_exports_of_the_store_do_not_depend_on_the_answering_order(small_stores, tmp_path,
                                                                              monkeypatch):
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))  # the view's index, not the user's
    outputs = {}
    for folder in small_stores:
        out = tmp_path / folder.name
        assert run(["report", str(folder), "--kind", "winrate", "--format", "json,latex",
                    "--out", str(out / "report")]) == 0
        assert run(["export", str(folder), "--format", "leaderboard-csv",
                    "-o", str(out / "standings.csv")]) == 0
        assert run(["export", str(folder), "--format", "leaderboard-json",
                    "-o", str(out / "standings.json")]) == 0
        assert run(["cache", "export", str(folder), "-o", str(out / "judgments.parquet")]) == 0
        assert run(["view", str(folder), "--filter", "judge=judge-model", "--export",
                    str(out / "view.html")]) == 0
        page = out / "view.html"  # names its source: the folders' own names differ
        page.write_bytes(page.read_bytes().replace(str(folder).encode(), b"RUN"))
        outputs[folder.name] = _files(out)
    first, second = outputs["first"], outputs["second"]
    assert {"standings.csv", "standings.json", "judgments.parquet", "view.html"} <= set(first), sorted(first)
    assert sorted(first) == sorted(second)
    assert [name for name in first if first[name] != second[name]] == []


@pytest.mark.slow  # uses the whole run's stores
def test_the_notebook_tables_of_two_stores_are_equal(every_store):
    import pandas as pd

    def read(folder: Path, name: str) -> pd.DataFrame:
        return pd.read_csv(folder / name, keep_default_na=False, na_values=[""])

    first, second = every_store
    pd.testing.assert_frame_equal(assay.winrate_summary(read(first, "win_rates.csv")),
                                  assay.winrate_summary(read(second, "win_rates.csv")))

    def mine(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["judge"].str.startswith(MODEL_A + "/")]

    tables = [assay.joint_vs_separate(mine(read(f, "differential_pairwise_scores.csv")),
                                      mine(read(f, "separate_differential_scores.csv"))) for f in every_store]
    pd.testing.assert_frame_equal(tables[0], tables[1])
    assert list(tables[0]["criteria"]) == ["relevance", "diversity", "ALL"]  # the config's order
