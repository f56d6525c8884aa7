"""The spellings DuckDB and Spark SQL differ in, asked of one Dialect by one query text."""

from __future__ import annotations

from assay.data.engine import DUCKDB, SPARK, DuckDBEngine


def test_string_literals_escape_as_each_engine_reads_them():
    assert DUCKDB.text("it's a\\b") == "'it''s a\\b'"
    assert SPARK.text("it's a\\b") == "'it\\'s a\\\\b'"  # Spark reads backslash escapes


def test_a_literal_with_a_quote_reads_back_in_duckdb():
    engine = DuckDBEngine()
    value = "run's \\ folder"
    assert engine.rows(f"SELECT {DUCKDB.text(value)}") == [(value,)]


def test_the_functions_that_differ():
    assert DUCKDB.struct(f="__file", r="__row") == "struct_pack(f := __file, r := __row)"
    assert SPARK.struct(f="__file", r="__row") == "named_struct('f', __file, 'r', __row)"
    assert (DUCKDB.hash("a", "b"), SPARK.hash("a", "b")) == ("hash(a, b)", "xxhash64(a, b)")
    assert (DUCKDB.distinct_list("run"), SPARK.distinct_list("run")) == (
        "list(DISTINCT run)", "collect_set(run)")
    engine = DuckDBEngine()
    finite = [engine.rows(f"SELECT {DUCKDB.isfinite(x)}")[0][0]
              for x in ("1.5::DOUBLE", "'inf'::DOUBLE", "'nan'::DOUBLE", "NULL::DOUBLE")]
    assert finite == [True, False, False, None]
