"""``assay native-scores``: ground truth per response, worked by hand, read back by the run
folder loader as each row's reference_score."""

from __future__ import annotations

import json

import pytest

from assay.data.io import load
from assay.pipeline.native_scores import native_scores
from tests.cli._judge_helpers import run


def _write(folder, name, records):
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.fixture()
def run_folder(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    _write(folder, "datapoints.jsonl", [
        {"id": "d1", "task": "qa", "cluster": "c1", "prompt": "Capital of France?", "reference": "Paris",
         "reference_score": 0.5},
        {"id": "d2", "task": "qa", "cluster": "c2", "prompt": "2+2?", "reference": "four"},
        {"id": "d3", "task": "qa", "cluster": "c2", "prompt": "No key", "reference": None},
    ])
    _write(folder, "responses.jsonl", [
        {"id": "r1", "datapoint_id": "d1", "arm": "a", "text": "The Paris."},
        {"id": "r2", "datapoint_id": "d2", "arm": "a", "text": "five"},
        {"id": "r3", "datapoint_id": "d3", "arm": "a", "text": "whatever"},
        {"id": "r4", "datapoint_id": "d2", "arm": "b", "text": None, "failure_kind": "api_error"},
    ])
    _write(folder, "evaluations.jsonl", [
        {"id": f"e{i}", "response_id": f"r{i}", "judge": "j", "scores": {"ok": 1}} for i in (1, 2, 3)])
    return folder


def test_exact_match_per_response_and_what_is_left_unscored(run_folder):
    scores = native_scores(run_folder, "exact_match")
    by_id = {r["response_id"]: r["reference_score"] for r in scores.records}
    # "The Paris." normalises to "paris" (article and punctuation dropped): a match
    assert by_id == {"r1": 1.0, "r2": 0.0, "r3": None, "r4": None}
    assert (scores.no_reference, scores.no_text, scores.scored) == (1, 1, 2)


def test_the_loader_reads_native_scores_in_place_of_the_datapoints(run_folder, capsys):
    before = load(run_folder).frame.set_index("item")["reference_score"]
    assert before["d1"] == 0.5 and before.isna()["d2"]
    assert run(["native-scores", str(run_folder), "--metric", "exact_match"]) == 0
    assert "2 of 4 responses scored (exact_match)" in capsys.readouterr().out
    after = load(run_folder).frame.set_index("item")["reference_score"]
    assert after["d1"] == 1.0 and after["d2"] == 0.0
    assert after.isna()["d3"]  # no reference: no native score, and none invented


def test_a_batch_metric_gets_predictions_and_references_in_order(run_folder):
    seen = []

    def stand_in(predictions, references):  # BERTScore's shape: lists in, a list out
        seen.append((list(predictions), list(references)))
        return [0.25 * (i + 1) for i in range(len(predictions))]

    scores = native_scores(run_folder, "bertscore", batch=stand_in)
    assert seen == [(["The Paris.", "five"], ["Paris", "four"])]
    assert [r["reference_score"] for r in scores.records] == [0.25, 0.5, None, None]


def test_bertscore_without_a_local_model_is_one_clear_error(run_folder, capsys):
    assert run(["native-scores", str(run_folder), "--metric", "bertscore"]) == 2
    assert "give --model-path" in capsys.readouterr().err
    assert run(["native-scores", str(run_folder), "--metric", "bertscore", "--model-path",
                str(run_folder / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_unknown_metric_and_bad_scores_file_are_user_errors(run_folder, capsys):
    assert run(["native-scores", str(run_folder), "--metric", "meteor"]) == 2
    assert "expected one of exact_match" in capsys.readouterr().err
    (run_folder / "native_scores.jsonl").write_text('{"response_id": "r1", "reference_score": "high"}\n')
    assert run(["validate", str(run_folder)]) == 2
    err = capsys.readouterr().err
    assert "native_scores.jsonl" in err and "reference_score" in err
