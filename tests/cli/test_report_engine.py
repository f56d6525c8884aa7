"""``assay report --engine``: DuckDB for folders and big files, the engine always named."""

from __future__ import annotations

import json

import pytest

from assay.cli import main
from tests.analysis.pushdown._tables import assert_same, rich_table, write

SCALE = ["--scale", "correct=binary", "--scale", "quality=range:1,5"]


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


@pytest.fixture(scope="module")
def frame():
    return rich_table(n_items=60)


def test_a_folder_goes_through_duckdb_and_equals_pandas_on_the_same_rows(frame, tmp_path,
                                                                         capsys):
    folder = write(frame, tmp_path, "folder")
    single = write(frame, tmp_path, "parquet")
    outs = {}
    for name, source, engine in (("duckdb", folder, "auto"), ("pandas", single, "auto")):
        code, out, err = run(["report", str(source), "--kind", "benchmark,scores", *SCALE,
                              "--B", "200", "--engine", engine, "--format", "text,json",
                              "--out", str(tmp_path / name)], capsys)
        assert code == 0, err
        outs[name] = out
    first = outs["duckdb"].splitlines()[0]
    assert first.startswith("engine: duckdb (") and "a folder, a glob" in first
    assert "engine:" not in outs["pandas"]  # a small file: pandas, as before
    for kind in ("benchmark", "scores"):
        engine = json.loads((tmp_path / "duckdb" / f"{kind}.json").read_text())
        pandas = json.loads((tmp_path / "pandas" / f"{kind}.json").read_text())
        assert_same(engine, pandas)


def test_reports_the_engine_does_not_make_are_skipped_with_the_reason(frame, tmp_path, capsys):
    folder = write(frame, tmp_path, "folder")
    code, out, _ = run(["report", str(folder), "--kind", "benchmark,agreement", *SCALE,
                        "--B", "200"], capsys)
    assert code == 0
    assert "agreement report skipped: made by the pandas engine only" in out


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_a_fallback_is_named(frame, tmp_path, capsys):
    folder = write(frame, tmp_path, "folder")
    code, out, err = run(["report", str(folder), "--kind", "scores", *SCALE, "--format",
                          "html", "--out", str(tmp_path / "o")], capsys)
    assert out.splitlines()[0] == ("engine: pandas, not duckdb: --format html reads the whole "
                                   "table")
    assert "Traceback" not in err and code in (0, 2)  # pandas made it, or said why not


def test_asking_duckdb_for_what_it_cannot_do_is_one_line(frame, tmp_path, capsys):
    path = write(frame, tmp_path, "parquet")
    code, _, err = run(["report", str(path), "--kind", "scores", *SCALE, "--engine", "duckdb",
                        "--map", "scores.quality=score"], capsys)
    assert code == 2
    assert ("--engine duckdb: --map scores.quality (a field inside a JSON object) reads the "
            "whole table; use --engine pandas") in err
    assert len(err.strip().splitlines()) == 1


def test_a_problem_in_a_folder_is_one_line_with_file_row_and_column(frame, tmp_path, capsys):
    bad = frame.copy()
    bad.loc[400, "score"] = 7.0
    folder = write(bad, tmp_path, "folder")
    code, _, err = run(["report", str(folder), "--kind", "scores", *SCALE], capsys)
    assert code == 2
    assert "Traceback" not in err
    assert f"{folder}/part-002.parquet, row 101, column 'score': criterion " in err


def test_asking_spark_for_what_only_pandas_does_is_one_line(frame, tmp_path, capsys):
    folder = write(frame, tmp_path, "folder")
    code, _, err = run(["report", str(folder), "--kind", "scores", "--engine", "spark",
                        "--format", "html", "--out", str(tmp_path / "o"), *SCALE], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--engine spark: --format html reads the whole table" in err
    assert "use --engine duckdb or pandas" in err
