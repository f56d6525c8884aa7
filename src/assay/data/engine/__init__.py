"""Reading a judgments table through an embedded query engine (DuckDB) instead of pandas.

A :class:`TableSource` names the files of one table (a file, a folder, a glob or a
hive-partitioned dataset of Parquet, CSV or JSONL); :func:`connect` opens an in-process
DuckDB connection and :func:`scan_sql` gives the ``FROM`` expression that reads the files
with each row's file and 1-based row number, so a query can name where a problem is.
The queries themselves (the reduction to sufficient statistics, the checks) belong to
the analyses that know the columns (:mod:`assay.analysis.pushdown`).
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._source": ["ENGINE_FORMATS", "TableSource", "resolve_source", "stored_metadata"],
    "._duckdb": ["MEMORY_LIMIT", "connect", "duckdb_available", "scan_sql", "sql_text"],
})
