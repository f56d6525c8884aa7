"""Spark, the engine for clusters: a session and the scan of a :class:`TableSource`.

:class:`SparkEngine` runs the same query text as :class:`~assay.data.engine.DuckDBEngine`
(spelled through :data:`~assay.data.engine._dialect.SPARK`) on a Spark session: one
started here (``local[2]`` by default, or any ``--spark-master``) or one the caller
already has (``SparkEngine(spark)`` from Python). pyspark is an optional dependency
(``pip install assay[spark]``) and needs Java 17 or later.

Spark reads Parquet here (a file, a folder, a glob, a hive dataset). Each row's file and
record number come from Spark's ``_metadata`` column (``file_path`` and ``row_index``,
Spark 3.5 or later), so a message names the same file and row as DuckDB and pandas.
CSV and JSONL have no record number in Spark (a record may span lines, and a file may
be split between tasks), so Spark refuses them rather than print a guessed row: DuckDB
reads them.
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from assay.data.engine._dialect import SPARK, Dialect
from assay.data.engine._source import TableSource, partition_sql
from assay.errors import ConfigError, InputError

DEFAULT_MASTER = "local[2]"
"""The Spark master of ``--engine spark`` when none is given: two local cores."""

_counter = itertools.count()


def spark_missing() -> str | None:
    """Why Spark cannot run here (no pyspark, no Java), or None when it can."""
    if importlib.util.find_spec("pyspark") is None:
        return "the spark engine needs pyspark: pip install 'assay[spark]'"
    java_home = os.environ.get("JAVA_HOME")
    if shutil.which("java") is None and not (java_home and
                                             (Path(java_home) / "bin" / "java").exists()):
        return ("the spark engine needs Java 17 or later (apt-get install "
                "openjdk-17-jre-headless, or set JAVA_HOME)")
    return None


def spark_session(master: str = DEFAULT_MASTER) -> Any:
    """A Spark session on ``master`` (the active one when it already runs there).

    A session started here has no web UI and few shuffle partitions: the queries group
    labels and sums, not rows, and small tasks cost more than they save on a few cores.

    Raises
    ------
    ConfigError
        pyspark or Java is missing.
    """
    missing = spark_missing()
    if missing is not None:
        raise ConfigError(missing + " (or choose --engine duckdb)")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master(master).appName("assay")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(_cores(master)))
               .config("spark.sql.session.timeZone", "UTC")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def _cores(master: str) -> int:
    """Shuffle partitions for a session started here: the local cores, else 8."""
    if master.startswith("local["):
        inside = master[len("local["):].split(",")[0].rstrip("]")
        return int(inside) if inside.isdigit() else (os.cpu_count() or 8)
    return 8


class SparkEngine:
    """The queries of the reports, run by Spark SQL on a session."""

    name = "spark"
    dialect: Dialect = SPARK
    exact_rows = True

    def __init__(self, session: Any | None = None, *, master: str = DEFAULT_MASTER) -> None:
        self.session = session if session is not None else spark_session(master)
        self._scans: dict[str, str] = {}

    def execute(self, sql: str) -> None:
        self.session.sql(sql)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.session.sql(sql).collect()]

    def numpy(self, sql: str) -> dict[str, Any]:
        table = self._arrow(sql)
        return {name: table.column(name).to_numpy(zero_copy_only=False)
                for name in table.column_names}

    def batches(self, sql: str, size: int) -> Iterator[Any]:
        """The rows of a query as Arrow record batches of ``size`` rows.

        Spark gathers the query's rows in the driver first (about 40 bytes a row for the
        benchmark's cells), then hands them over in batches.
        """
        yield from self._arrow(sql).to_batches(size)

    def view(self, name: str, sql: str) -> None:
        self.session.sql(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")

    def materialize(self, name: str, sql: str) -> None:
        """A temporary view computed once: its rows are kept by the executors."""
        self.session.sql(sql).localCheckpoint().createOrReplaceTempView(name)

    def release(self, tables: tuple[str, ...]) -> None:
        """Drop the temporary views ``tables`` (their checkpointed rows with them)."""
        for name in tables:
            self.session.catalog.dropTempView(name)

    def scan(self, source: TableSource, raw: dict[str, str] | None = None) -> str:
        """The name of a temporary view reading ``source`` with ``__file`` and ``__row``."""
        if source.given not in self._scans:
            self._scans[source.given] = self._register(source)
        scan = self._scans[source.given]
        return scan if raw is None else partition_sql(self.dialect, scan, source, raw)

    def describe(self, source: TableSource) -> dict[str, str]:
        scan = self.scan(source)
        return {f.name: f.dataType.simpleString()
                for f in self.session.table(scan).schema.fields}

    def _register(self, source: TableSource) -> str:
        if source.format != "parquet":
            raise ConfigError(f"{source.given}: the spark engine reads Parquet; a {source.format} "
                              "file has no record numbers in Spark to name a row by: use "
                              "--engine duckdb")
        from pyspark.errors import PySparkException
        from pyspark.sql import functions as F

        try:
            frame = self.session.read.option("mergeSchema", "true").parquet(*source.files)
            located = frame.select("*", F.col("_metadata.file_path").alias("__uri"),
                                   (F.col("_metadata.row_index") + 1).alias("__row"))
            uris = [row[0] for row in located.select("__uri").distinct().collect()]
        except PySparkException as exc:
            raise InputError(source.given, "cannot be read: "
                             f"{str(exc).strip().splitlines()[0]}") from None
        # Spark names a file by its URI; messages and first appearance use the file as the
        # source lists it, so each URI is mapped back (a small table, broadcast).
        by_path = {str(Path(f).resolve()): f for f in source.files}
        pairs = [(uri, by_path.get(str(Path(unquote(urlparse(uri).path)).resolve()), uri))
                 for uri in uris]
        names = self.session.createDataFrame(pairs or [("", "")], "__uri string, __file string")
        scan = f"assay_scan_{next(_counter)}"
        (located.join(F.broadcast(names), "__uri").drop("__uri")
         .createOrReplaceTempView(scan))
        return scan

    def _arrow(self, sql: str) -> Any:
        import pyarrow as pa

        frame = self.session.sql(sql)
        if hasattr(frame, "toArrow"):
            return frame.toArrow()
        return pa.Table.from_pandas(frame.toPandas(), preserve_index=False)
