"""DuckDB, the embedded engine: a connection and the scan of a :class:`TableSource`.

DuckDB is an optional dependency (``pip install duckdb``); :func:`connect` says how to
install it when it is absent. :class:`DuckDBEngine` is the face the reports talk to; the
Spark engine (:mod:`assay.data.engine._spark`) has the same methods.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay.data.engine._dialect import DUCKDB, Dialect
from assay.data.engine._source import TableSource, partition_sql
from assay.errors import ConfigError, InputError

FILE = "__file"
"""Column of the scan holding the file a row came from."""
ROW = "__row"
"""Column of the scan holding the row's 1-based record number in its file."""


MEMORY_LIMIT = "1GB"
"""DuckDB's memory limit by default: a report's peak follows its clusters, not its rows."""


def duckdb_available() -> bool:
    """Whether the ``duckdb`` package can be imported."""
    return importlib.util.find_spec("duckdb") is not None


def connect(*, threads: int | None = None, memory_limit: str | None = MEMORY_LIMIT) -> Any:
    """An in-memory DuckDB connection that keeps the order rows are read in.

    DuckDB holds at most ``memory_limit`` (its default is 80% of the machine) and spills
    the rest of a large aggregation to a folder under the system's temporary folder.

    Raises
    ------
    ConfigError
        When duckdb is not installed.
    """
    if not duckdb_available():
        raise ConfigError("the duckdb engine needs the duckdb package: pip install duckdb "
                          "(or choose --engine pandas)")
    import duckdb

    connection = duckdb.connect(":memory:")
    spill = Path(tempfile.gettempdir()) / f"assay-duckdb-{os.getpid()}"
    connection.execute(f"SET temp_directory = {sql_text(str(spill))}")
    connection.execute("SET preserve_insertion_order = true")
    connection.execute("SET enable_progress_bar = false")
    if threads is not None:
        connection.execute(f"SET threads = {int(threads)}")
    if memory_limit is not None:
        connection.execute(f"SET memory_limit = {sql_text(memory_limit)}")
    return connection


def sql_text(value: str) -> str:
    """``value`` as an SQL string literal (DuckDB's spelling)."""
    return DUCKDB.text(value)


def scan_sql(source: TableSource) -> str:
    """A subquery reading every file of ``source`` with ``__file`` and ``__row`` columns.

    Parquet gives each row's number in its file directly; CSV and JSONL number the rows
    of each file in the order they are read (DuckDB keeps it: insertion order is kept).
    CSV cells are read as text, as the pandas path reads them, so a message shows a value
    as the file wrote it and an id such as ``007`` stays text (with the spreadsheet quote
    prefix undone, as the pandas path undoes it). Hive partition keys are
    not read by DuckDB: :func:`~assay.data.engine._source.partition_sql` adds those that
    name a column of the table, the same way for every engine.
    """
    files = "[" + ", ".join(sql_text(f) for f in source.files) + "]"
    if source.format == "parquet":
        return (f"(SELECT * EXCLUDE (filename, file_row_number), filename AS {FILE}, "
                f"file_row_number + 1 AS {ROW} FROM read_parquet({files}, filename = true, "
                f"file_row_number = true, union_by_name = true, hive_partitioning = false))")
    reader = (_restored_csv(f"read_csv({files}, header = true, all_varchar = true, "
                            f"union_by_name = true, filename = true, hive_partitioning = false)")
              if source.format == "csv" else
              f"read_json({files}, format = 'newline_delimited', union_by_name = true, "
              f"filename = true, hive_partitioning = false)")
    return (f"(SELECT * EXCLUDE (filename), filename AS {FILE}, "
            f"row_number() OVER (PARTITION BY filename) AS {ROW} FROM {reader})")


def _restored_csv(reader: str) -> str:
    """``reader`` (a CSV scan) with the quote prefix of :func:`assay.data.cells.safe_cell` undone
    in every cell, as the pandas reader undoes it (:func:`assay.data.cells.restore_cell`)."""
    from assay.data.cells import RESTORE_PATTERN

    cells = "COLUMNS(* EXCLUDE (filename))"
    return (f"(SELECT CASE WHEN regexp_matches({cells}, {sql_text(RESTORE_PATTERN)}) "
            f"THEN {cells}[2:] ELSE {cells} END, filename FROM {reader})")


class DuckDBEngine:
    """The queries of the reports, run by an in-process DuckDB connection."""

    name = "duckdb"
    dialect: Dialect = DUCKDB
    exact_rows = True
    """Whether the scan's ``__row`` is each row's record number in its file."""

    def __init__(self, connection: Any | None = None, *, threads: int | None = None,
                 memory_limit: str | None = MEMORY_LIMIT) -> None:
        self.connection = connection if connection is not None else connect(
            threads=threads, memory_limit=memory_limit)

    def execute(self, sql: str) -> None:
        """Run a statement (a view, a table)."""
        self.connection.execute(sql)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Every row of a query, as tuples."""
        return list(self.connection.execute(sql).fetchall())

    def numpy(self, sql: str) -> dict[str, Any]:
        """The columns of a query as numpy arrays."""
        return dict(self.connection.execute(sql).fetchnumpy())

    def batches(self, sql: str, size: int) -> Iterator[Any]:
        """The rows of a query as Arrow record batches of about ``size`` rows, streamed."""
        relation = self.connection.sql(sql)
        reader = (relation.to_arrow_reader(size) if hasattr(relation, "to_arrow_reader")
                  else relation.fetch_arrow_reader(size))
        yield from reader

    def view(self, name: str, sql: str) -> None:
        """A temporary view, computed again by each query that reads it."""
        self.connection.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")

    def materialize(self, name: str, sql: str) -> None:
        """A temporary table, computed once (a small one: labels and their numbers)."""
        self.connection.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS {sql}")

    def release(self, tables: tuple[str, ...]) -> None:
        """Drop the temporary ``tables`` and hand DuckDB's cached buffers back.

        Lowering the memory limit for a moment makes DuckDB free the buffers it keeps
        after a query (about 500 MB after the benchmark's queries on 100 M rows), before
        the report's arrays take their place; the limit is then set back.
        """
        for name in tables:
            self.connection.execute(f"DROP TABLE IF EXISTS {name}")
        (limit,) = self.connection.execute("SELECT current_setting('memory_limit')").fetchone()
        self.connection.execute("SET memory_limit = '16MB'")
        self.connection.execute(f"SET memory_limit = {sql_text(str(limit))}")

    def scan(self, source: TableSource, raw: dict[str, str] | None = None) -> str:
        """The ``FROM`` expression reading ``source`` (with its partition keys once
        ``raw``, the columns of the files, is known)."""
        scan = scan_sql(source)
        return scan if raw is None else partition_sql(self.dialect, scan, source, raw)

    def describe(self, source: TableSource) -> dict[str, str]:
        """Column name -> type of the files of ``source``, as the scan reads them.

        Raises
        ------
        InputError
            The files cannot be read.
        """
        import duckdb

        try:
            described = self.rows(f"DESCRIBE SELECT * FROM {scan_sql(source)}")
        except duckdb.Error as exc:
            raise InputError(source.given, f"cannot be read: {str(exc).splitlines()[0]}") \
                from None
        return {str(name): str(kind) for name, kind, *_ in described}
