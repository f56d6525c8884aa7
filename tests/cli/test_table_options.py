"""The table options of validate, import and report, as a user types them (issue items 9, 18).

Each case runs the command in a child process with this tree first on PYTHONPATH and
checks the exit status, the one error line and the files left behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.cli._subprocess import one_error_line, run_assay

pytestmark = pytest.mark.slow  # child processes per table option: about 36 s (.ci/run runs it)

OK_CSV = "item,arm,score\nq1,a,1\nq1,b,0\n"


@pytest.fixture
def ok_csv(tmp_path: Path) -> Path:
    path = tmp_path / "ok.csv"
    path.write_text(OK_CSV)
    return path


def test_set_splits_on_commas_like_map(ok_csv, tmp_path):
    out = tmp_path / "t.parquet"
    result = run_assay("import", "table", str(ok_csv), "-o", str(out),
                       "--set", "judge=a,criterion=b", "--set", "task=x,y")
    assert result.returncode == 0, result.stderr
    frame = pd.read_parquet(out)
    assert set(frame["judge"]) == {"a"} and set(frame["criterion"]) == {"b"}
    assert set(frame["task"]) == {"x,y"}  # a part without '=' belongs to the value before it


def test_a_scale_for_a_criterion_the_data_lack_is_an_error(ok_csv):
    result = run_assay("validate", str(ok_csv), "--scale", "nosuch=range:0,1")
    assert result.returncode == 2
    line = one_error_line(result)
    assert "--scale nosuch" in line and "no criterion 'nosuch'" in line and "score" in line


def test_validate_lists_the_problems_of_every_file_at_once(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("item,arm,score\nq1,a,banana\nq1,b,0\n")
    also_bad = tmp_path / "also.jsonl"
    also_bad.write_text('{"item": "q1", "arm": "a"}\n')
    missing = tmp_path / "missing.csv"
    result = run_assay("validate", str(bad), str(missing), str(also_bad))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert result.stderr.startswith("error: 3 problem(s) found")
    assert f"{bad}, row 1, column 'score'" in result.stderr
    assert f"{missing}: no such file" in result.stderr
    assert f"{also_bad}, column 'score': required column is missing" in result.stderr


def test_an_option_value_after_a_space_is_not_read_as_a_file(ok_csv):
    result = run_assay("validate", str(ok_csv), "--map", "item=item", "c=d")
    assert result.returncode == 2
    line = one_error_line(result)
    assert line.startswith("error: c=d: no such file") and "--map a=b,c=d" in line


@pytest.mark.parametrize("where", ["under_a_file", "a_folder", "device_folder"])
def test_an_unwritable_out_is_a_user_error_naming_the_path(ok_csv, tmp_path, where):
    out = {"under_a_file": ok_csv / "t.parquet", "a_folder": tmp_path,
           "device_folder": Path("/dev/null/t.csv")}[where]
    result = run_assay("import", "table", str(ok_csv), "-o", str(out))
    assert result.returncode == 2
    line = one_error_line(result)
    assert str(out) in line


def test_report_out_under_a_file_is_a_user_error(ok_csv):
    result = run_assay("report", str(ok_csv), "--kind", "scores", "--format", "json",
                       "--out", str(ok_csv / "reports"))
    assert result.returncode == 2
    assert str(ok_csv) in one_error_line(result)


def test_a_declared_sentinel_score_becomes_a_failed_judgment(tmp_path):
    """MT-Bench writes -1 where the judge's reply could not be parsed."""
    path = tmp_path / "mt.jsonl"
    rows = [{"question_id": 81, "model": "a", "score": 9}, {"question_id": 81, "model": "b", "score": -1},
            {"question_id": 82, "model": "a", "score": -1.0}, {"question_id": 82, "model": "b", "score": 3}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "mt.parquet"
    result = run_assay("import", "table", str(path), "-o", str(out), "--map",
                       "question_id=item,model=arm", "--missing", "score=-1")
    assert result.returncode == 0, result.stderr
    assert "rows without a score: 2 (declared_missing 2)" in result.stdout
    frame = pd.read_parquet(out)
    assert frame["score"].tolist()[::3] == [9.0, 3.0] and frame["score"].isna().tolist() == \
        [False, True, True, False]
    assert frame["failure_kind"].fillna("").tolist() == ["", "declared_missing", "declared_missing", ""]
    plain = run_assay("validate", str(path), "--map", "question_id=item,model=arm",
                      "--scale", "score=range:1,10")
    assert plain.returncode == 2 and "outside its scale" in plain.stderr  # -1 is not a score


def test_a_nested_field_can_be_mapped(tmp_path):
    path = tmp_path / "nested.jsonl"
    path.write_text('{"id": "q1", "arm": "a", "scores": {"quality": 4, "style": 1}}\n'
                    '{"id": "q1", "arm": "b", "scores": {"quality": 2}}\n')
    out = tmp_path / "t.csv"
    result = run_assay("import", "table", str(path), "-o", str(out),
                       "--map", "id=item,scores.quality=score")
    assert result.returncode == 0, result.stderr
    frame = pd.read_csv(out)
    assert frame["score"].tolist() == [4.0, 2.0] and "scores" not in frame
    typo = run_assay("validate", str(path), "--map", "id=item,scores.qualty=score")
    assert typo.returncode == 2
    assert "column 'scores.qualty'" in typo.stderr and "'qualty'" in typo.stderr


@pytest.mark.parametrize("suffix,content", [
    (".csv", "item,arm,score\nq1,a, \nq1,b,0\n"),
    (".jsonl", '{"item": "q1", "arm": "a", "score": ""}\n{"item": "q1", "arm": "b", "score": 0}\n'),
    (".json", '[{"item": "q1", "arm": "a", "score": "  "}, {"item": "q1", "arm": "b", "score": 0}]'),
    (".parquet", None),
])
def test_a_blank_score_is_a_missing_score_and_import_writes_nothing(tmp_path, suffix, content):
    path = tmp_path / f"blank{suffix}"
    if content is None:
        pd.DataFrame({"item": ["q1", "q1"], "arm": ["a", "b"], "score": ["", "0"]}).to_parquet(path)
    else:
        path.write_text(content)
    for command in (["validate", str(path)],
                    ["import", "table", str(path), "-o", str(tmp_path / "out" / "t.parquet")]):
        result = run_assay(*command)
        assert result.returncode == 2, result.stdout
        assert "internal error" not in result.stderr and "Traceback" not in result.stderr
        assert f"{path}, row 1, column 'score': missing score" in result.stderr
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    with_kind = tmp_path / "kind.csv"
    with_kind.write_text("item,arm,score,failure_kind\nq1,a, ,parse_error\nq1,b,0,\n")
    assert run_assay("validate", str(with_kind)).returncode == 0
