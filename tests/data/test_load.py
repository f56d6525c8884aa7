import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.data.io import load, load_many
from assay.data.schema import Scale
from assay.errors import InputError, ValidationError

ROWS = [
    {"question_id": "q1", "doc": "d1", "method": "a", "run": 1, "score": 80, "judge": "j"},
    {"question_id": "q1", "doc": "d1", "method": "a", "run": 2, "score": 70, "judge": "j"},
    {"question_id": "q2", "doc": "d1", "method": "b", "run": 1, "score": 60, "judge": "j"},
    {"question_id": "q2", "doc": "d1", "method": "b", "run": 2, "score": 50, "judge": "j"},
]
MAPPING = {"question_id": "item", "doc": "cluster", "method": "arm"}


def write(path: Path, rows: list[dict]) -> Path:
    frame = pd.DataFrame(rows)
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows))
    else:
        frame.to_parquet(path)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".parquet"])
def test_every_format_loads_the_same_table(tmp_path, suffix):
    path = write(tmp_path / f"t{suffix}", ROWS)
    j = load(path, mapping=MAPPING, scales={"score": Scale.parse("range:0,100")})
    f = j.frame
    assert f["item"].tolist() == ["q1", "q1", "q2", "q2"]
    assert f["cluster"].tolist() == ["d1"] * 4
    assert f["run"].tolist() == [1, 2, 1, 2]
    assert f["score"].tolist() == [80.0, 70.0, 60.0, 50.0]
    np.testing.assert_allclose(j.normalised_scores(), [0.8, 0.7, 0.6, 0.5])
    assert f["reportable"].all()


def test_input_file_is_never_modified(tmp_path):
    path = write(tmp_path / "t.csv", [*ROWS, {**ROWS[0], "score": "oops"}])
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(ValidationError):
        load(path, mapping=MAPPING)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_every_problem_is_listed_with_file_row_and_column(tmp_path):
    rows = [
        {"item": "q1", "arm": "a", "score": 1, "run": 1, "extra": 1},
    ]
    path = write(tmp_path / "t.csv", rows)
    with pytest.raises(ValidationError) as info:
        load(path)
    assert [(p.row, p.column) for p in info.value.problems] == [(None, "extra")]

    rows = [
        {"item": "q1", "arm": "a", "score": 1, "run": 1, "criterion": "c"},
        {"item": "q1", "arm": "a", "score": 1, "run": 1, "criterion": "c"},   # duplicate of 1
        {"item": "q2", "arm": "", "score": 1, "run": 1, "criterion": "c"},    # arm missing
        {"item": "q3", "arm": "a", "score": 7, "run": 1, "criterion": "c"},   # off the scale
        {"item": "q4", "arm": "a", "score": "x", "run": 1, "criterion": "c"},  # not a number
        {"item": "q5", "arm": "a", "score": None, "run": 1, "criterion": "c"},  # no score, no why
        {"item": "q6", "arm": "a", "score": 1, "run": 3, "criterion": "c"},   # runs 1, 3: 2 missing
        {"item": "q7", "arm": "a", "score": 1, "run": 1.5, "criterion": "c"},  # not whole
    ]
    path = write(tmp_path / "u.csv", rows)
    with pytest.raises(ValidationError) as info:
        load(path, scales={"c": Scale.parse("binary")})
    found = {(p.row, p.column) for p in info.value.problems}
    assert {(2, None), (3, "arm"), (4, "score"), (5, "score"), (6, "score"), (8, "run"),
            (None, "run")} <= found
    text = str(info.value)
    assert str(path) in text and "row 4, column 'score'" in text and "0 or 1" in text
    assert "duplicate judgment" in text and "same item 'q1', arm 'a'" in text and "row 1" in text


def test_missing_required_column_names_the_column_and_the_fix(tmp_path):
    path = write(tmp_path / "t.jsonl", [{"question": "q1", "arm": "a", "score": 1}])
    with pytest.raises(ValidationError) as info:
        load(path)
    messages = [str(p) for p in info.value.problems]
    assert any("column 'item': required column is missing" in m for m in messages)
    assert any("--map question=item" in m for m in messages)  # question is the text's column


def test_failure_rows_need_no_score(tmp_path):
    path = write(tmp_path / "t.jsonl", [
        {"item": "q1", "arm": "a", "score": None, "failure_kind": "timeout"},
        {"item": "q2", "arm": "a", "score": 1}])
    f = load(path).frame
    assert np.isnan(f["score"].iloc[0]) and f["failure_kind"].iloc[0] == "timeout"


def test_ordinal_labels_are_coded_and_undeclared_labels_are_refused(tmp_path):
    rows = [{"item": "q1", "arm": "a", "criterion": "h", "score": "High"},
            {"item": "q2", "arm": "a", "criterion": "h", "score": "Low"}]
    path = write(tmp_path / "t.json", rows)
    with pytest.raises(ValidationError, match="--scale h=ordinal"):
        load(path)
    j = load(path, scales={"h": Scale.parse("ordinal:Low,Medium,High")})
    assert j.frame["score"].tolist() == [2.0, 0.0]
    np.testing.assert_allclose(j.normalised_scores(), [1.0, 0.0])


def test_save_keeps_scales_with_the_table(tmp_path):
    rows = [{"item": "q1", "arm": "a", "criterion": "h", "score": "Medium"}]
    j = load(write(tmp_path / "t.json", rows), scales={"h": Scale.parse("ordinal:Low,Medium,High")})
    for name in ("out.parquet", "out.csv", "out.jsonl"):
        j.save(tmp_path / name)
        back = load(tmp_path / name)
        assert back.scale("h") == Scale.parse("ordinal:Low,Medium,High")
        assert back.frame["score"].tolist() == [1.0]


def test_mapping_can_drop_and_constants_fill(tmp_path):
    path = write(tmp_path / "t.csv", [{"q": "q1", "model": "a", "s": 1, "note": "x"}])
    j = load(path, mapping={"q": "item", "model": "arm", "s": "score", "note": "-"},
             constants={"judge": "gpt-4o"})
    assert j.frame["judge"].tolist() == ["gpt-4o"]
    assert "note" not in j.frame


def test_split_sets_reportable(tmp_path):
    path = write(tmp_path / "t.csv", [
        {"item": "q1", "arm": "a", "score": 1, "split": "dev"},
        {"item": "q2", "arm": "a", "score": 1, "split": "test"},
        {"item": "q3", "arm": "a", "score": 1, "split": "holdout"}])
    with pytest.raises(ValidationError, match="row 3, column 'split'"):
        load(path)


def test_self_judging_and_teaching_flags(tmp_path):
    path = write(tmp_path / "t.csv", [
        {"item": "q1", "arm": "a", "judge": "a", "teacher": "b", "score": 1},
        {"item": "q1", "arm": "b", "judge": "a", "teacher": "b", "score": 1}])
    j = load(path)
    assert j.self_judging().tolist() == [True, False]
    assert j.self_teaching().tolist() == [False, True]
    assert len(load(path, exclude_self_judging=True, exclude_self_teaching=True)) == 0


def test_unreadable_files_raise_input_errors(tmp_path):
    (tmp_path / "e.csv").write_text("")
    (tmp_path / "t.txt").write_text("x")
    (tmp_path / "b.csv").write_bytes(b"item,arm,score\nq\xe9,a,1\n")
    for name, expected in [("e.csv", "empty"), ("t.txt", "suffix"), ("b.csv", "not UTF-8"),
                           ("missing.csv", "no such file")]:
        with pytest.raises(InputError, match=expected):
            load(tmp_path / name)


def test_stacking_files_refuses_duplicates_across_files(tmp_path):
    a = write(tmp_path / "a.csv", [{"item": "q1", "arm": "a", "score": 1}])
    b = write(tmp_path / "b.csv", [{"item": "q1", "arm": "a", "score": 0}])
    with pytest.raises(ValidationError, match="duplicate judgment"):
        load_many([a, b])
