"""DuckDB, the embedded engine: a connection and the scan of a :class:`TableSource`.

DuckDB is an optional dependency (``pip install duckdb``); :func:`connect` says how to
install it when it is absent.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path
from typing import Any

from assay.data.engine._source import TableSource
from assay.errors import ConfigError

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
    """``value`` as an SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def scan_sql(source: TableSource) -> str:
    """A subquery reading every file of ``source`` with ``__file`` and ``__row`` columns.

    Parquet gives each row's number in its file directly; CSV and JSONL number the rows
    of each file in the order they are read (DuckDB keeps it: insertion order is kept).
    CSV cells are read as text, as the pandas path reads them, so a message shows a value
    as the file wrote it and an id such as ``007`` stays text.
    """
    files = "[" + ", ".join(sql_text(f) for f in source.files) + "]"
    hive = "true" if source.hive else "false"
    if source.format == "parquet":
        return (f"(SELECT * EXCLUDE (filename, file_row_number), filename AS {FILE}, "
                f"file_row_number + 1 AS {ROW} FROM read_parquet({files}, filename = true, "
                f"file_row_number = true, union_by_name = true, hive_partitioning = {hive}))")
    reader = (f"read_csv({files}, header = true, all_varchar = true, union_by_name = true, "
              f"filename = true, "
              f"hive_partitioning = {hive})" if source.format == "csv" else
              f"read_json({files}, format = 'newline_delimited', union_by_name = true, "
              f"filename = true, hive_partitioning = {hive})")
    return (f"(SELECT * EXCLUDE (filename), filename AS {FILE}, "
            f"row_number() OVER (PARTITION BY filename) AS {ROW} FROM {reader})")
