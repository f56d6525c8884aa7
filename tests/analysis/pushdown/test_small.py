"""The small path of ``assay report --kind scores``: a small Parquet file summarised in DuckDB
without pandas or scipy, with the pandas path's numbers and, for any table it cannot
summarise as pandas does, the pandas path itself (its output and errors unchanged)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import assay
from assay.analysis.pushdown import engine_score_summary, open_table, small_score_summary
from assay.analysis.scores import score_summary
from assay.data.schema import Scale
from assay.errors import ValidationError
from tests.analysis.pushdown._tables import SCALES, assert_same, rich_table, write

SRC = str(Path(__file__).resolve().parents[3] / "src")


def assay_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC, "CI": "true"}
    return subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def frame():
    return rich_table(n_items=60)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_small_path_equals_the_pandas_path(frame, tmp_path, weighted):
    if weighted:
        frame = frame.assign(weight=np.where(frame["run"] == 1, 3.0, 1.0))
    path = write(frame, tmp_path, "parquet")
    small = small_score_summary(path, scales=SCALES)
    assert small is not None
    expected = score_summary(assay.load(path, scales=SCALES)).to_dict()
    assert len(expected["scores"]) == 8
    assert_same(small.to_dict(), expected, rel=1e-12)  # summation order: last digits only
    assert str(small) == str(score_summary(assay.load(path, scales=SCALES)))


def test_a_materialized_table_reads_and_checks_as_the_view(tmp_path):
    """The small path computes the table's rows once into a temporary table: the summary
    (to the last digits, which follow the order of summation) and every check's message
    are those of the view that decodes the file each time."""
    frame = rich_table(n_items=20)
    path = write(frame, tmp_path, "parquet")
    by_view = engine_score_summary(open_table(path, scales=SCALES))
    by_table = engine_score_summary(open_table(path, scales=SCALES, materialize=True))
    assert_same(by_table.to_dict(), by_view.to_dict(), rel=1e-12)  # summation order only
    assert str(by_table) == str(by_view)
    broken = frame.copy()
    broken.loc[3, "run"] = 0
    broken.loc[7, "item"] = " "
    broken = pd.concat([broken, broken.iloc[[20]]], ignore_index=True)  # a duplicate cell
    (tmp_path / "b").mkdir()
    path = write(broken, tmp_path / "b", "parquet")
    messages = []
    for materialize in (False, True):
        with pytest.raises(ValidationError) as error:
            open_table(path, scales=SCALES, materialize=materialize)
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("4 problem(s) found:")
    assert all(f"row {row}" in messages[0] for row in (4, 8, len(frame) + 1)), messages[0]


def test_tables_the_small_path_leaves_to_pandas(frame, tmp_path):
    tasked = frame.assign(task=np.where(frame["item"].str[1:].astype(int) % 2 == 0, "a", "b"))
    assert small_score_summary(write(tasked, tmp_path, "parquet"), scales=SCALES) is None
    notes = engine_score_summary(open_table(tmp_path / "t.parquet", scales=SCALES)).notes
    assert any("per-task breakdown" in note and "--engine pandas" in note for note in notes)
    labelled = {**SCALES, "quality": Scale.parse("ordinal:bad,ok,good")}
    (tmp_path / "l").mkdir()
    path = write(frame.assign(score=frame["score"]), tmp_path / "l", "parquet")
    assert small_score_summary(path, scales=labelled) is None
    broken = frame.copy()
    broken.loc[3, "run"] = 0
    (tmp_path / "b").mkdir()
    assert small_score_summary(write(broken, tmp_path / "b", "parquet"), scales=SCALES) is None


@pytest.mark.slow  # two commands in child processes: about 3 s on an idle machine
def test_the_command_prints_and_writes_what_the_pandas_engine_does(frame, tmp_path):
    path = write(frame, tmp_path, "parquet")
    small = assay_cli("report", str(path), "--kind", "scores", "--format", "text,json",
                      "--out", str(tmp_path / "small"))
    pandas = assay_cli("report", str(path), "--kind", "scores", "--format", "text,json",
                       "--out", str(tmp_path / "pandas"), "--engine", "pandas")
    assert small.returncode == pandas.returncode == 0, small.stderr + pandas.stderr
    assert pandas.stdout.startswith("engine: pandas (asked for with --engine pandas)\n")
    assert small.stdout.replace(str(tmp_path / "small"), "OUT") == \
        pandas.stdout.split("\n", 1)[1].replace(str(tmp_path / "pandas"), "OUT")
    assert "quality" in small.stdout and "[" in small.stdout
    assert_same(json.loads((tmp_path / "small" / "scores.json").read_text()),
                json.loads((tmp_path / "pandas" / "scores.json").read_text()), rel=1e-12)


@pytest.mark.slow  # two commands in child processes
def test_a_broken_table_gets_the_pandas_paths_error(frame, tmp_path):
    broken = frame.copy()
    broken.loc[10, "score"] = 2.0  # 'correct' is binary
    path = write(broken, tmp_path, "parquet")
    small = assay_cli("report", str(path), "--kind", "scores", "--scale", "correct=binary")
    pandas = assay_cli("report", str(path), "--kind", "scores", "--scale", "correct=binary",
                       "--engine", "pandas")
    assert small.returncode == pandas.returncode == 2
    assert small.stderr == pandas.stderr
    assert "row 11, column 'score'" in small.stderr and "Traceback" not in small.stderr


def test_the_small_path_loads_neither_pandas_nor_scipy_nor_pydantic(frame, tmp_path):
    path = write(frame, tmp_path, "parquet")
    code = ("import sys\nfrom assay.cli import main\n"
            f"try:\n    main(['report', {str(path)!r}, '--kind', 'scores'])\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'scipy', "
            "'pyarrow', 'pydantic'}))")  # pydantic: typer's coercion of option values
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": SRC, "CI": "true"}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
