"""A judgments table in an engine: the canonical view over the files, its scales, its checks.

:func:`open_table` creates the view ``judgments`` with the columns of the judgments table
(DESIGN.md, "The spine"), typed and defaulted as :func:`assay.data.validate.build_table`
does (cluster defaults to item, run to 1, judge to ``unspecified``, criterion to
``score``, reportable from split), then runs the checks of
:mod:`assay.analysis.pushdown._checks` and raises their problems as pandas would.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.engine import (
    MEMORY_LIMIT,
    TableSource,
    connect,
    resolve_source,
    scan_sql,
    sql_text,
    stored_metadata,
)
from assay.data.schema import (
    COLUMN_BY_NAME,
    DEFAULT_CRITERION,
    DEFAULT_JUDGE,
    NON_REPORTABLE_SPLITS,
    REQUIRED_COLUMNS,
    Scale,
    scales_from_metadata,
)
from assay.errors import ConfigError, InputError

VIEW = "judgments"
"""Name of the canonical view of the table in the engine."""

ENGINE_SCALES = ("binary", "range", "interval")
"""Scales whose scores the engine codes (numbers); labelled scales are read by pandas."""


@dataclass
class EngineTable:
    """An open engine connection holding the canonical view of one table."""

    connection: Any
    source: TableSource
    columns: frozenset[str]
    """The judgments columns the files have."""
    scales: dict[str, Scale]
    """Criterion -> scale: given, else stored with the table, else interval."""
    criteria: list[str] = field(default_factory=list)
    """The criteria of the table, in order of first appearance."""

    def scale(self, criterion: str) -> Scale:
        return self.scales.get(criterion, Scale("interval"))

    def query(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        return list(self.connection.execute(sql, list(args) if args else None).fetchall())

    def value_sql(self) -> str:
        """SQL of each row's score on [0, 1] (the raw score for an interval criterion)."""
        cases = []
        for criterion in self.criteria:
            scale = self.scale(criterion)
            if scale.kind == "range":
                assert scale.minimum is not None and scale.maximum is not None
                expr = f"(score - {scale.minimum!r}) / ({scale.maximum!r} - {scale.minimum!r})"
            else:
                expr = "score"
            cases.append(f"WHEN {sql_text(criterion)} THEN {expr}")
        return "CASE criterion " + " ".join(cases) + " END" if cases else "score"


def engine_reason(path: str | Path, scales: Mapping[str, Scale] | None = None) -> str | None:
    """Why the engine cannot read ``path`` (the pandas path reads it), or None when it can."""
    try:
        source = resolve_source(path)
    except InputError:
        return None
    if source is None:
        return "a run folder or a format the engine does not read (JSON list, TSV)"
    for name, scale in (scales or {}).items():
        if scale.kind not in ENGINE_SCALES:
            return f"criterion {name!r} has a labelled scale ({scale.spelling()})"
    return None


def open_table(path: str | Path, *, scales: Mapping[str, Scale] | None = None,
               threads: int | None = None,
               memory_limit: str | None = MEMORY_LIMIT) -> EngineTable:
    """Open a table file, folder, glob or hive dataset in DuckDB and check it.

    DuckDB holds at most ``memory_limit`` and spills the rest to disk (None: DuckDB's own
    default, 80% of the machine).

    Raises
    ------
    ValidationError
        The problems pandas would find (file, row, column), the first 200 per check.
    InputError
        No table files, or files the engine cannot read.
    ConfigError
        duckdb is not installed, or the table needs the pandas path (a labelled scale).
    """
    import duckdb

    from assay.analysis.pushdown._checks import check_table

    source = resolve_source(path)
    if source is None:
        raise ConfigError(f"{path}: the engine reads Parquet, CSV or JSONL files, folders and "
                          "globs; use --engine pandas for a run folder")
    connection = connect(threads=threads, memory_limit=memory_limit)
    try:
        described = connection.execute(f"DESCRIBE SELECT * FROM {scan_sql(source)}").fetchall()
    except duckdb.Error as exc:
        raise InputError(source.given, f"cannot be read: {str(exc).splitlines()[0]}") from None
    raw = {str(name): str(kind) for name, kind, *_ in described}
    stored = scales_from_metadata(stored_metadata(source, connection), source.given)
    stored.update(scales or {})
    for name, scale in stored.items():
        if scale.kind not in ENGINE_SCALES:
            raise ConfigError(f"criterion {name!r} has a labelled scale ({scale.spelling()}): "
                              "use --engine pandas")
    columns = frozenset(c for c in raw if c in COLUMN_BY_NAME)
    if all(c in columns for c in REQUIRED_COLUMNS):
        connection.execute(f"CREATE TEMP VIEW {VIEW} AS {_canonical_sql(source, columns)}")
    check_table(connection, source, raw, stored)
    table = EngineTable(connection, source, columns, stored)
    table.criteria = [str(r[0]) for r in table.query(
        f"SELECT criterion FROM {VIEW} GROUP BY criterion ORDER BY min(struct_pack(f := __file, "
        "r := __row))")]
    return table


def text_sql(column: str) -> str:
    """A text column as pandas reads it: blank -> null (the value otherwise as given)."""
    return (f"CASE WHEN trim(CAST({column} AS VARCHAR)) = '' THEN NULL "
            f"ELSE CAST({column} AS VARCHAR) END")


def _canonical_sql(source: TableSource, columns: frozenset[str]) -> str:
    def col(name: str, sql: str, default: str = "NULL") -> str:
        return f"{sql if name in columns else default} AS {name}"

    non_reportable = ", ".join(sql_text(s) for s in sorted(NON_REPORTABLE_SPLITS))
    split_reportable = f"coalesce({text_sql('split')} NOT IN ({non_reportable}), true)"
    parts = [
        col("item", text_sql("item")),
        f"coalesce({text_sql('cluster')}, {text_sql('item')}) AS cluster"
        if "cluster" in columns else f"{text_sql('item')} AS cluster",
        col("arm", text_sql("arm")),
        col("opponent", text_sql("opponent")),
        col("position", "TRY_CAST(position AS BIGINT)"),
        col("run", "TRY_CAST(run AS BIGINT)", "CAST(1 AS BIGINT)"),
        f"coalesce({text_sql('judge')}, {sql_text(DEFAULT_JUDGE)}) AS judge"
        if "judge" in columns else f"{sql_text(DEFAULT_JUDGE)} AS judge",
        f"coalesce({text_sql('criterion')}, {sql_text(DEFAULT_CRITERION)}) AS criterion"
        if "criterion" in columns else f"{sql_text(DEFAULT_CRITERION)} AS criterion",
        col("score", "TRY_CAST(score AS DOUBLE)"),
        col("split", text_sql("split")),
        "coalesce(TRY_CAST(reportable AS BOOLEAN), true) AS reportable" if "reportable" in columns
        else (f"{split_reportable} AS reportable" if "split" in columns else "true AS reportable"),
        col("failure_kind", text_sql("failure_kind")),
        col("task", text_sql("task")),
        col("outcome", text_sql("outcome")),
        col("weight", "coalesce(TRY_CAST(weight AS DOUBLE), 1.0)", "1.0"),
        col("usd", "TRY_CAST(usd AS DOUBLE)"),
        col("usd_provenance", text_sql("usd_provenance")),
        col("tokens_in", "TRY_CAST(tokens_in AS DOUBLE)"),
        col("tokens_out", "TRY_CAST(tokens_out AS DOUBLE)"),
        "__file", "__row",
    ]
    return f"SELECT {', '.join(parts)} FROM {scan_sql(source)}"
