"""Spark runs the same queries as DuckDB: the same numbers (1e-9) and the same messages.

Marked ``spark`` and ``slow``: one local Spark session (``local[2]``) serves the module;
skipped, with the reason, when pyspark or Java is missing.
"""

from __future__ import annotations

import pandas as pd
import pytest

import assay
from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.pushdown import engine_benchmark_report, engine_score_summary, open_table
from assay.analysis.scores import score_summary
from assay.data.engine import SparkEngine
from assay.errors import ConfigError
from tests.analysis.pushdown._tables import SCALES, assert_same, problems, rich_table, write
from tests.analysis.pushdown.test_checks import broken

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture(scope="module")
def frame():
    return rich_table(n_items=60, runs=3)


@pytest.mark.parametrize("fmt", ["folder", "hive"])  # one file: the tests below
def test_spark_duckdb_and_pandas_give_the_same_reports(fmt, frame, spark, tmp_path):
    path = write(frame, tmp_path, fmt)
    ordered = frame
    if fmt == "hive":  # rows in the order of the files: judge=claude, then judge=gpt
        ordered = pd.concat([frame[frame["judge"] == "claude"], frame[frame["judge"] == "gpt"]])
    loaded = assay.load(write(ordered, tmp_path / "..", "parquet"), scales=SCALES)
    on_spark = open_table(path, scales=SCALES, engine=spark)  # a SparkSession from Python
    on_duckdb = open_table(path, scales=SCALES)
    expected = benchmark_report(benchmark_rows(loaded), B=200, seed=5).to_dict()
    for table in (on_spark, on_duckdb):
        report, judge, criterion = engine_benchmark_report(table, B=200, seed=5)
        assert (judge, criterion) == ("gpt", "correct")
        assert_same(report.to_dict(), expected)
        assert_same(engine_score_summary(table).to_dict(), score_summary(loaded).to_dict())
    assert report.failures[0]["n_failures"] > 0 and report.cost is not None


def test_every_interval_method_on_spark(frame, spark, tmp_path):
    path = write(frame, tmp_path, "parquet")
    table = open_table(path, scales=SCALES, engine=SparkEngine(spark))
    loaded = assay.load(path, scales=SCALES)
    for method in ("bootstrap", "exact"):
        report, _, _ = engine_benchmark_report(table, B=300, method=method, k=(1, 2))
        expected = benchmark_report(benchmark_rows(loaded), B=300, method=method, k=(1, 2))
        assert_same(report.to_dict(), expected.to_dict())


def test_spark_names_the_file_row_and_column_pandas_names(spark, tmp_path):
    path = write(broken(rich_table(n_items=10)), tmp_path, "parquet")
    engine = problems(lambda: open_table(path, scales=SCALES, engine=spark))
    assert sorted(engine) == sorted(problems(lambda: assay.load(path, scales=SCALES)))
    assert len(engine) == 9
    assert f"{path}, row 11, column 'score': criterion 'correct': expected 0 or 1 (binary " \
        "scale), got 2.0" in engine


def test_spark_duplicates_run_gaps_and_the_file_of_each_problem(spark, tmp_path):
    frame = rich_table(n_items=10)
    frame.loc[len(frame) - 2, "usd"] = -3.0
    frame = pd.concat([frame, frame.iloc[[4]]], ignore_index=True)
    frame = frame[~((frame["arm"] == "mid") & (frame["judge"] == "claude")
                    & (frame["run"] == 2))].reset_index(drop=True)
    folder = write(frame, tmp_path, "folder")
    engine = problems(lambda: open_table(folder, scales=SCALES, engine=spark))
    assert sorted(engine) == sorted(problems(lambda: open_table(folder, scales=SCALES)))
    assert any("duplicate judgment: same item " in p and " as row 5 of" in p for p in engine)
    assert any("run numbers of arm 'mid' (judge 'claude'" in p for p in engine)
    assert any(p.startswith(str(sorted(folder.iterdir())[-1])) and "expected a number >= 0" in p
               for p in engine)


def test_spark_refuses_csv_rather_than_guess_row_numbers(spark, tmp_path):
    path = write(rich_table(n_items=4), tmp_path, "csv")
    with pytest.raises(ConfigError, match=r"no record numbers in Spark.*--engine duckdb"):
        open_table(path, scales=SCALES, engine=spark)


def test_the_report_command_on_spark_writes_the_duckdb_numbers(frame, spark, tmp_path):
    """``assay report DIR --engine spark`` (the session of the module is the active one)."""
    import json

    from typer.testing import CliRunner

    from assay.cli import app

    folder = write(frame, tmp_path, "folder")
    written = {}
    for engine in ("spark", "duckdb"):
        out = tmp_path / engine
        result = CliRunner().invoke(app, [
            "report", str(folder), "--kind", "benchmark,scores", "--engine", engine,
            "--scale", "correct=binary", "--scale", "quality=range:1,5", "--resamples", "200",
            "--format", "json", "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert f"engine: {engine} (asked for with --engine {engine})" in result.output
        written[engine] = {kind: json.loads((out / f"{kind}.json").read_text())
                           for kind in ("benchmark", "scores")}
    assert_same(written["spark"], written["duckdb"])
