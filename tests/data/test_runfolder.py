import json
from pathlib import Path

import numpy as np
import pytest

from assay.data.io import load
from assay.errors import InputError


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def run_folder(tmp_path: Path) -> Path:
    write_jsonl(tmp_path / "datapoints.jsonl", [
        {"id": "d1", "task": "qa", "cluster": "doc1", "teacher": "m2", "split": "test",
         "attributes": {"difficulty": "easy"}},
        {"id": "d2", "task": "qa", "cluster": "doc1", "teacher": "m1", "split": "dev"},
    ])
    write_jsonl(tmp_path / "responses.jsonl", [
        {"id": "r1", "datapoint_id": "d1", "arm": "m1", "run": 1, "text": "Paris", "usd": 0.01},
        {"id": "r2", "datapoint_id": "d1", "arm": "m2", "run": 1, "text": "Lyon", "usd": 0.02},
        {"id": "r3", "datapoint_id": "d2", "arm": "m1", "run": 1, "text": None,
         "failure_kind": "timeout"},
        {"id": "r4", "datapoint_id": "gone", "arm": "m1", "run": 1, "text": "x"},
    ])
    write_jsonl(tmp_path / "evaluations.jsonl", [
        {"id": "e1", "response_id": "r1", "judge": "j1", "scores": {"clarity": "High", "acc": 1}},
        {"id": "e2", "response_id": "r2", "judge": "j1", "scores": {"clarity": "Low", "acc": 0}},
        {"id": "e3", "response_id": "r3", "judge": "j1", "scores": {"clarity": None, "acc": None}},
        {"id": "e4", "response_id": "missing", "judge": "j1", "scores": {"clarity": "Low"}},
        {"id": "e5", "response_id": "r4", "judge": "j1", "scores": {"clarity": "Low", "acc": 1}},
        {"id": "e6", "response_id": "r2", "judge": "j2", "scores": {"clarity": "Medium"}},
        {"id": "e7", "response_id": "r1", "judge": "j2", "scores": {"clarity": "Great", "acc": 1}},
        {"id": "e8", "response_id": "r1", "judge": "pair", "scores": {"pref": 1},
         "opponent_response_id": "r2", "position": 1},
    ])
    (tmp_path / "criteria.json").write_text(json.dumps({
        "criteria": {"clarity": {"scale": "ordinal:Low,Medium,High"}, "acc": {"scale": "binary"},
                     "pref": {"scale": "range:0,1"}},
        "judges": {"j1": ["clarity", "acc"], "j2": ["clarity", "acc"], "pair": ["pref"]}}))
    return tmp_path


def test_valid_records_become_rows_and_invalid_ones_are_kept_aside(run_folder):
    j = load(run_folder)
    invalid = j.invalid.set_index("record_id")["validity_class"].to_dict()
    assert invalid == {"e4": "MISSING_RESPONSE", "e5": "MISSING_DATAPOINT",
                       "e6": "INCOMPLETE_SCORES", "e7": "INVALID_SCORE_VALUE"}
    f = j.frame
    assert len(f) == 2 + 2 + 2 + 1  # e1, e2, e3 (failed, no scores), e8
    e1 = f[(f["arm"] == "m1") & (f["judge"] == "j1") & (f["item"] == "d1")]
    assert dict(zip(e1["criterion"], e1["score"], strict=True)) == {"clarity": 2.0, "acc": 1.0}
    assert e1["cluster"].unique().tolist() == ["doc1"]
    failed = f[f["item"] == "d2"]
    assert failed["score"].isna().all() and (failed["failure_kind"] == "timeout").all()
    assert not failed["reportable"].any()   # dev split
    pair = f[f["judge"] == "pair"].iloc[0]
    assert (pair["arm"], pair["opponent"], pair["position"], pair["score"]) == ("m1", "m2", 1, 1.0)
    np.testing.assert_allclose(j.normalised_scores()[:2], [1.0, 1.0])
    # m2 answered d1, which m2 wrote (e2: 2 rows); m1 answered d2, which m1 wrote (e3: 2 rows)
    assert j.self_teaching().sum() == 4


def test_a_folder_without_the_three_files_is_refused(tmp_path):
    (tmp_path / "datapoints.jsonl").write_text("")
    with pytest.raises(InputError, match=r"not a run folder: no responses\.jsonl"):
        load(tmp_path)


def test_each_row_carries_the_question_the_answers_and_the_reference(tmp_path):
    write_jsonl(tmp_path / "datapoints.jsonl", [
        {"id": "d1", "prompt": "Capital of <b>France</b>?", "reference": "Paris"},
        {"id": "d2", "prompt": "Two plus two?"},
    ])
    write_jsonl(tmp_path / "responses.jsonl", [
        {"id": "r1", "datapoint_id": "d1", "arm": "m1", "run": 1, "text": "Paris"},
        {"id": "r2", "datapoint_id": "d1", "arm": "m2", "run": 1, "text": "Lyon"},
        {"id": "r3", "datapoint_id": "d2", "arm": "m1", "run": 1, "text": None,
         "failure_kind": "timeout"},
    ])
    write_jsonl(tmp_path / "evaluations.jsonl", [
        {"id": "e1", "response_id": "r1", "judge": "j", "scores": {"acc": 1}},
        {"id": "e2", "response_id": "r2", "judge": "p", "scores": {"pref": 0},
         "opponent_response_id": "r1", "position": 2},
        {"id": "e3", "response_id": "r3", "judge": "j", "scores": {"acc": None}},
    ])
    frame = load(tmp_path).frame.set_index("judge")
    assert frame.loc["p", ["question", "answer", "opponent_answer", "reference"]].tolist() == [
        "Capital of <b>France</b>?", "Lyon", "Paris", "Paris"]
    graded = frame.loc["j"].set_index("item")
    assert graded.loc["d1", ["question", "answer", "reference"]].tolist() == [
        "Capital of <b>France</b>?", "Paris", "Paris"]
    assert graded.loc["d2", "question"] == "Two plus two?"
    assert graded.loc[["d2"], ["answer", "opponent_answer", "reference"]].isna().all(axis=None)
