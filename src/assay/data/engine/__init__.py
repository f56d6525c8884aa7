"""Reading a judgments table through a query engine (DuckDB, Spark) instead of pandas.

A :class:`TableSource` names the files of one table (a file, a folder, a glob or a
hive-partitioned dataset of Parquet, CSV or JSONL, or a database table for the ibis
engine); :func:`connect` opens an in-process
DuckDB connection and :func:`scan_sql` gives the ``FROM`` expression that reads the files
with each row's file and 1-based row number, so a query can name where a problem is.
:class:`DuckDBEngine`, :class:`SparkEngine` and :class:`IbisEngine` (a table in a
database or warehouse, ``--engine ibis://...``) run the same query text, spelled through
their :class:`Dialect`. The queries themselves (the reduction to sufficient statistics,
the checks) belong to the analyses that know the columns (:mod:`assay.analysis.pushdown`).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._source": ["ENGINE_FORMATS", "UNREAD_KEYS", "TableSource", "partition_agrees",
                 "partition_columns", "partition_conflict", "partition_keys_of",
                 "partition_value_sql", "resolve_source", "stored_metadata"],
    "._dialect": ["DUCKDB", "SPARK", "Dialect", "distinct_values"],
    "._duckdb": ["MEMORY_LIMIT", "DuckDBEngine", "connect", "duckdb_available", "scan_sql",
                 "sql_text"],
    "._spark": ["DEFAULT_MASTER", "SparkEngine", "spark_missing", "spark_session"],
    "._ibis": ["IbisEngine", "backend_url", "ibis_missing"],
})
