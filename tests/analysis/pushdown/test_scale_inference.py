"""A scale no one declared is read from the data, the same way by pandas, DuckDB and Spark.

A boolean column (Parquet boolean) or numbers that are all 0 or 1 are binary; other numbers
stay on their own scale. Each reading is one note, the same words on every path, and a
declared scale (``--scale``) overrides it.
"""

from __future__ import annotations

import pandas as pd
import pytest

from assay.analysis.pushdown import engine_score_summary, open_table
from assay.analysis.scores import score_summary
from assay.data.io import load
from assay.data.schema import Scale
from assay.errors import ValidationError


def _frame(score: list[object]) -> pd.DataFrame:
    n = len(score)
    return pd.DataFrame({"item": [f"q{i // 2}" for i in range(n)],
                         "cluster": [f"t{i // 4}" for i in range(n)],
                         "arm": ["a", "b"] * (n // 2), "score": score})


TABLES = {
    "boolean": ([True, False, True, True, False, True, True, False, False, True, True, True],
                "binary", "a true/false column read as binary"),
    "zero_one": ([1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 1], "binary", "values 0 and 1 read as binary"),
    "one_to_ten": ([7, 3, 9, 10, 1, 6, 8, 2, 5, 9, 4, 7], "interval",
                   "numbers from 1 to 10 read on their own scale"),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_pandas_and_duckdb_read_the_same_scale_and_say_so(name, tmp_path):
    values, kind, words = TABLES[name]
    path = tmp_path / "t.parquet"
    _frame(values).to_parquet(path, index=False)
    on_pandas = load(path)
    on_duckdb = open_table(path)
    assert on_pandas.scale("score").kind == on_duckdb.scale("score").kind == kind
    (note,) = on_pandas.read_notes
    assert words in note and note in on_duckdb.notes
    # and the summaries built on either agree, on the data's own scale
    a = score_summary(on_pandas).rows
    b = engine_score_summary(on_duckdb).rows
    assert [(r.arm, r.scale, r.method) for r in a] == [(r.arm, r.scale, r.method) for r in b]
    assert [r.estimate for r in a] == pytest.approx([r.estimate for r in b], rel=1e-12)


def test_a_declared_scale_overrides_the_reading(tmp_path):
    path = tmp_path / "t.parquet"
    _frame(TABLES["zero_one"][0]).to_parquet(path, index=False)
    declared = {"score": Scale("interval")}
    assert load(path, scales=declared).scale("score").kind == "interval"
    assert load(path, scales=declared).read_notes == ()
    table = open_table(path, scales=declared)
    assert table.scale("score").kind == "interval" and table.notes == []


def test_a_csv_of_zeros_and_ones_is_binary_and_the_benchmark_report_reads_it(tmp_path):
    from assay.analysis.benchmark import benchmark_rows

    path = tmp_path / "t.csv"
    _frame(TABLES["zero_one"][0]).to_csv(path, index=False)
    judgments = load(path)
    assert judgments.scale("score") == Scale("binary")
    assert len(benchmark_rows(judgments)) == 12


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("name", list(TABLES))
def test_spark_reads_the_scale_as_pandas_does(name, spark, tmp_path):
    from assay.data.engine import SparkEngine

    values, kind, _ = TABLES[name]
    path = tmp_path / "t.parquet"
    _frame(values).to_parquet(path, index=False)
    on_spark = open_table(path, engine=SparkEngine(spark))
    assert on_spark.scale("score").kind == kind
    assert on_spark.notes == list(load(path).read_notes)


def test_files_read_together_agree_on_one_scale_as_the_engine_reads_them(tmp_path):
    """One file of 0/1 scores and one of 1-10 scores: pandas stacks them on the numbers'
    own scale, as DuckDB reads the folder of both, with one note for the two."""
    from assay.data.io import load_many

    folder = tmp_path / "d"
    folder.mkdir()
    _frame(TABLES["zero_one"][0]).to_parquet(folder / "a.parquet", index=False)
    _frame(TABLES["one_to_ten"][0]).assign(item=lambda f: "r" + f["item"]).to_parquet(
        folder / "b.parquet", index=False)
    stacked = load_many([folder / "a.parquet", folder / "b.parquet"])
    table = open_table(folder)
    assert stacked.scale("score").kind == table.scale("score").kind == "interval"
    assert stacked.read_notes == ("score: numbers from 0 to 10 read on their own scale; "
                                  "override with --scale score=range:MIN,MAX",)
    assert list(stacked.read_notes) == table.notes
    # a scale declared binary is refused for the 1-10 file, naming it
    with pytest.raises(ValidationError, match=r"b\.parquet.*expected 0 or 1"):
        load_many([folder / "a.parquet", folder / "b.parquet"], scales={"score": Scale("binary")})


def _benchmark_export() -> tuple[pd.DataFrame, dict[str, float]]:
    """Correctness as a benchmark export writes it: a boolean column named ``correct``,
    and each arm's accuracy counted by hand (a: 4 of its 6 rows true, b: 4 of 6)."""
    frame = _frame(TABLES["boolean"][0]).rename(columns={"score": "correct"})
    by_hand = {"a": 4 / 6, "b": 4 / 6}
    for arm, accuracy in by_hand.items():  # the table is what the counts say
        assert frame.loc[frame["arm"] == arm, "correct"].sum() == round(accuracy * 6)
    return frame, by_hand


def test_a_boolean_column_mapped_to_the_score_is_binary_on_pandas_and_duckdb(tmp_path):
    from assay.analysis.pushdown._options import TableOptions

    frame, by_hand = _benchmark_export()
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    on_pandas = load(path, mapping={"correct": "score"})
    on_duckdb = open_table(path, options=TableOptions(mapping={"correct": "score"}))
    assert on_pandas.scale("score").kind == on_duckdb.scale("score").kind == "binary"
    assert list(on_pandas.read_notes) == on_duckdb.notes
    for rows in (score_summary(on_pandas).rows, engine_score_summary(on_duckdb).rows):
        assert {r.arm: r.estimate for r in rows} == pytest.approx(by_hand, rel=1e-12)
        assert {r.scale for r in rows} == {"binary"}


@pytest.mark.spark
@pytest.mark.slow
def test_spark_reads_a_mapped_boolean_column_as_binary(spark, tmp_path):
    from assay.analysis.pushdown._options import TableOptions
    from assay.data.engine import SparkEngine

    frame, by_hand = _benchmark_export()
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    table = open_table(path, engine=SparkEngine(spark), options=TableOptions(mapping={"correct": "score"}))
    assert table.scale("score").kind == "binary"
    assert table.notes == list(load(path, mapping={"correct": "score"}).read_notes)
    assert {r.arm: r.estimate for r in engine_score_summary(table).rows} == pytest.approx(by_hand, rel=1e-12)


@pytest.mark.slow  # importing ibis costs about a second
def test_ibis_reads_a_boolean_column_as_binary(tmp_path):
    pytest.importorskip("ibis")
    import duckdb

    from assay.analysis.pushdown._options import TableOptions
    from assay.data.engine import IbisEngine

    frame, by_hand = _benchmark_export()
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    database = tmp_path / "db.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute(f"CREATE TABLE judgments AS SELECT * FROM '{path}'")
        (kind,) = connection.execute("SELECT data_type FROM information_schema.columns "
                                     "WHERE column_name = 'correct'").fetchone()
    assert kind == "BOOLEAN"
    table = open_table("judgments", engine=IbisEngine(f"duckdb://{database}"),
                       options=TableOptions(mapping={"correct": "score"}))
    assert table.scale("score").kind == "binary"
    assert table.notes == list(load(path, mapping={"correct": "score"}).read_notes)
    assert {r.arm: r.estimate for r in engine_score_summary(table).rows} == pytest.approx(by_hand, rel=1e-12)
