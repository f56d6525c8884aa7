"""Whatever a report of the run would refuse, ``assay judge`` refuses before its first call
(issue 22, item 5): exit 2, one line naming the file, row and field (or the config key), and
not one request received by the model server."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.cli._judge_helpers import PAIRWISE, QUESTIONS, run, write_config

RUBRIC = {"kind": "rubric", "criteria": [{"name": "accuracy", "description": "Is it right?"}]}


def _rows(**change: dict[str, str]) -> list[dict[str, str]]:
    rows = [{"item": q, "arm": arm, "question": text, "answer": f"The {arm} answer", "task": "health"}
            for arm in ("short", "long") for q, text in QUESTIONS.items()]
    for index, values in change.items():
        rows[int(index.removeprefix("row"))].update(values)
    return rows


def _table(folder: Path, name: str, rows: list[dict[str, str]]) -> Path:
    path = folder / name
    if path.suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    elif path.suffix == ".parquet":
        pd.DataFrame(rows).to_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _config(folder: Path, url: str, inputs: dict, judges: list | None = None) -> Path:
    config = write_config(folder, url, judges=judges or [PAIRWISE])
    data = yaml.safe_load(config.read_text())
    data["inputs"] = inputs
    config.write_text(yaml.safe_dump(data))
    return config


def _judge_refuses(config: Path, out: Path, capsys, server) -> str:
    capsys.readouterr()
    code = run(["judge", str(config), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert server.stats.requests == 0
    return lines[0]


# (table file, the change to one row, what the line must name: file, row, field)
TABLE_CASES = [
    ("answers.jsonl", {"row1": {"arm": ""}}, ("answers.jsonl", "row 2", "arm")),
    ("answers.csv", {"row4": {"arm": "   "}}, ("answers.csv", "row 5", "arm")),
    ("answers.parquet", {"row0": {"arm": "\t"}}, ("answers.parquet", "row 1", "arm")),
    ("answers.jsonl", {"row3": {"item": ""}}, ("answers.jsonl", "row 4", "item")),
    ("answers.csv", {"row2": {"item": " "}}, ("answers.csv", "row 3", "item")),
]


@pytest.mark.parametrize(("name", "change", "named"), TABLE_CASES,
                         ids=[f"{n}-{next(iter(c.values()))}" for n, c, _ in TABLE_CASES])
def test_a_blank_name_in_an_answers_table_is_refused_before_any_call(
        server, tmp_path, capsys, name, change, named):
    _table(tmp_path, name, _rows(**change))
    config = _config(tmp_path, server.url, {"tables": [name]}, [RUBRIC])
    line = _judge_refuses(config, tmp_path / "run", capsys, server)
    for part in named:
        assert part in line, line
    assert not (tmp_path / "run" / "judgments.sqlite").exists()


def test_a_blank_question_id_in_an_answer_file_is_refused_before_any_call(server, tmp_path, capsys):
    config = write_config(tmp_path, server.url)
    path = tmp_path / "answers" / "long" / "health_answers.json"
    records = json.loads(path.read_text())
    records[1]["question_id"] = "  "
    path.write_text(json.dumps(records))
    line = _judge_refuses(config, tmp_path / "run", capsys, server)
    assert "health_answers.json" in line and "row 2" in line and "question_id" in line, line


def test_a_blank_method_name_is_refused_before_any_call(server, tmp_path, capsys):
    config = write_config(tmp_path, server.url)
    (tmp_path / "answers" / " ").mkdir()
    for f in (tmp_path / "answers" / "long").iterdir():
        (tmp_path / "answers" / " " / f.name).write_bytes(f.read_bytes())
    data = yaml.safe_load(config.read_text())
    data["inputs"]["methods"] = ["short", " "]
    data["judges"] = [{**PAIRWISE, "others": [" "]}]
    config.write_text(yaml.safe_dump(data))
    line = _judge_refuses(config, tmp_path / "run", capsys, server)
    assert "inputs.methods" in line, line


def test_a_blank_criterion_that_a_report_would_rename_is_refused_before_any_call(
        server, tmp_path, capsys):
    """A report reads a blank criterion as the default one (``score``): two criteria then
    clash, and the report refuses the run as duplicate judgments."""
    _table(tmp_path, "answers.jsonl", _rows())
    judges = [{"kind": "rubric", "criteria": [{"name": "score", "description": "Good?"},
                                              {"name": " ", "description": "Bad?"}]}]
    config = _config(tmp_path, server.url, {"tables": ["answers.jsonl"]}, judges)
    line = _judge_refuses(config, tmp_path / "run", capsys, server)
    assert "criterion" in line, line


def test_every_name_a_report_reads_back_passes(server, tmp_path, capsys):
    """The check refuses nothing a report reads: odd but readable names are judged."""
    rows = _rows(row0={"arm": " short"}, row3={"arm": "=long"}, row1={"item": "q 2"})
    _table(tmp_path, "answers.csv", rows)
    config = _config(tmp_path, server.url, {"tables": ["answers.csv"]}, [RUBRIC])
    out = tmp_path / "run"
    assert run(["judge", str(config), "--out", str(out)]) == 0, capsys.readouterr().err
    assert server.stats.requests > 0
    assert run(["report", str(out), "--format", "json", "--out", str(tmp_path / "rep")]) == 0, \
        capsys.readouterr().err


@pytest.mark.parametrize(("column", "value", "message"), [
    ("usd", "a lot", "expected a number"), ("usd", "-1", "expected a number >= 0"),
    ("split", "holdout", "expected one of"), ("attributes", "[1, 2]", "JSON object"),
    ("tokens_in", "-5", ">= 0"), ("reference_score", "inf", "finite number")])
def test_a_value_an_answer_carries_into_its_rows_that_a_report_refuses_is_refused_first(
        server, tmp_path, capsys, column, value, message):
    """Judgments-table fields of an answer (its cost, split, attributes...) go into the rows
    that judge it: one a report would refuse is refused, with its file, row and column."""
    _table(tmp_path, "answers.csv", _rows(row3={column: value}))
    config = _config(tmp_path, server.url, {"tables": ["answers.csv"]}, [RUBRIC])
    line = _judge_refuses(config, tmp_path / "run", capsys, server)
    assert "answers.csv" in line and "row 4" in line and f"'{column}'" in line, line
    assert message in line, line
