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

from assay.analysis.pushdown._options import TableOptions, text_sql
from assay.data.engine import (
    MEMORY_LIMIT,
    UNREAD_KEYS,
    DuckDBEngine,
    IbisEngine,
    SparkEngine,
    TableSource,
    partition_columns,
    resolve_source,
    stored_metadata,
)
from assay.data.schema import (
    COLUMN_BY_NAME,
    DEFAULT_CRITERION,
    DEFAULT_JUDGE,
    NON_REPORTABLE_SPLITS,
    REQUIRED_COLUMNS,
    Scale,
    inferred_scale,
    scales_from_metadata,
)
from assay.errors import ConfigError, InputError

VIEW = "judgments"
"""Name of the canonical view of the table in the engine."""

ENGINE_SCALES = ("binary", "range", "interval")
"""Scales whose scores the engine codes (numbers); labelled scales are read by pandas."""


@dataclass
class EngineTable:
    """An open engine holding the canonical view of one table."""

    engine: Any
    """The :class:`~assay.data.engine.DuckDBEngine`, :class:`~assay.data.engine.SparkEngine`
    or :class:`~assay.data.engine.IbisEngine`."""
    source: TableSource
    columns: frozenset[str]
    """The judgments columns the files have."""
    scales: dict[str, Scale]
    """Criterion -> scale: given, else stored with the table, else read from its scores
    (:func:`~assay.data.schema.inferred_scale`, each reading a note)."""
    criteria: list[str] = field(default_factory=list)
    """The criteria of the table, in order of first appearance."""
    notes: list[str] = field(default_factory=list)
    """What the reader should know about how the table was read (hive keys not read)."""
    raw_columns: frozenset[str] = frozenset()
    """Every column of the files (and hive keys read as columns), judgments' or not."""
    scan: str = ""
    """SQL of the files' rows as they are (before the canonical view)."""

    def scale(self, criterion: str) -> Scale:
        return self.scales.get(criterion, Scale("interval"))

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        return self.engine.rows(sql)

    def text(self, value: str) -> str:
        """``value`` as a string literal of the engine's SQL."""
        return str(self.engine.dialect.text(value))

    @property
    def first_row(self) -> str:
        """SQL of a group's first (file, row), to order groups by first appearance."""
        return str(self.engine.dialect.first_row())

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
            cases.append(f"WHEN {self.text(criterion)} THEN {expr}")
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
               threads: int | None = None, memory_limit: str | None = MEMORY_LIMIT,
               engine: Any = None, materialize: bool = False,
               options: TableOptions | None = None) -> EngineTable:
    """Open a table file, folder, glob or hive dataset in an engine and check it.

    ``engine`` is a :class:`~assay.data.engine.DuckDBEngine` (a new one by default: the
    ``threads`` and ``memory_limit`` apply to it), a
    :class:`~assay.data.engine.SparkEngine`, a running ``SparkSession``, or an
    :class:`~assay.data.engine.IbisEngine` (then ``path`` is the name of a table in its
    database, and a problem is named by the table and the row's key).

    DuckDB holds at most ``memory_limit`` and spills the rest to disk (None: DuckDB's own
    default, 80% of the machine). With ``materialize`` the table's rows, as the reports read
    them, are computed once into a temporary table (a small file: each check and summary
    then reads that table instead of decoding the file again); the results are the same.

    ``options`` are the table options (``--map``, ``--set``, ``--missing``, the
    self-judging and self-teaching exclusions), read in the engine's queries as the pandas
    path reads them (:mod:`assay.analysis.pushdown._options`).

    Raises
    ------
    ValidationError
        The problems pandas would find (file, row, column), the first 200 per check.
    InputError
        No table files, or files the engine cannot read.
    ConfigError
        duckdb (or pyspark) is not installed, or the table needs the pandas path (a
        labelled scale).
    """
    from assay.analysis.pushdown._checks import check_table
    from assay.analysis.pushdown._options import exclusion_sql, options_scan

    source = engine.resolve(str(path)) if isinstance(engine, IbisEngine) else \
        resolve_source(path)
    if source is None:
        raise ConfigError(f"{path}: the engine reads Parquet, CSV or JSONL files, folders and "
                          "globs; use --engine pandas for a run folder")
    if engine is None:
        engine = DuckDBEngine(threads=threads, memory_limit=memory_limit)
    elif not isinstance(engine, (DuckDBEngine, SparkEngine, IbisEngine)):
        engine = SparkEngine(engine)  # a SparkSession
    files_raw = engine.describe(source)
    known, unknown = partition_columns(source)
    # A hive key naming a column the files lack becomes that column (text, as in a CSV).
    raw = dict(files_raw, **{key: "VARCHAR" for key in known if key not in files_raw})
    stored = scales_from_metadata(stored_metadata(source, getattr(engine, "connection", None)), source.given)
    stored.update(scales or {})
    for name, scale in stored.items():
        if scale.kind not in ENGINE_SCALES:
            raise ConfigError(f"criterion {name!r} has a labelled scale ({scale.spelling()}): "
                              "use --engine pandas")
    options = options or TableOptions()
    read = options_scan(engine, source.given, engine.scan(source, files_raw), raw, files_raw,
                        options)
    scan, raw, files_raw = read.scan, read.raw, read.files_raw
    columns = frozenset(c for c in raw if c in COLUMN_BY_NAME)
    if all(c in columns for c in REQUIRED_COLUMNS) and not read.fatal:
        (engine.materialize if materialize else engine.view)(
            VIEW, _canonical_sql(engine.dialect, scan, columns))
    check_table(engine, source, raw, stored, scan=scan, files_raw=files_raw,
                prior=read.problems, stop=read.fatal)
    table = EngineTable(engine, source, columns, stored, raw_columns=frozenset(raw), scan=scan)
    if unknown:
        table.notes.append(f"{source.given}: {UNREAD_KEYS.format(keys=', '.join(unknown))}")
    found = table.query(
        f"SELECT criterion, min(score), max(score), count(score), "
        f"count_if(score IS NOT NULL AND score <> 0 AND score <> 1) FROM {VIEW} "
        f"GROUP BY criterion ORDER BY {table.first_row}")
    table.criteria = [str(r[0]) for r in found]
    boolean = str(raw.get("score", "")).lower().startswith("bool")
    for criterion, low, high, n, other in found:
        if str(criterion) in stored:
            continue
        scale, note = inferred_scale(  # the same reading as the pandas path
            str(criterion), boolean=boolean, zero_one=bool(n) and not other,
            low=None if low is None else float(low), high=None if high is None else float(high))
        table.scales[str(criterion)] = scale
        table.notes.append(note)
    where = exclusion_sql(options, columns, engine.dialect)
    if where:  # pandas leaves the rows out of the checked table, its scales read
        (engine.materialize if materialize else engine.view)(
            VIEW, _canonical_sql(engine.dialect, scan, columns) + where)
        table.criteria = [str(r[0]) for r in table.query(
            f"SELECT criterion FROM {VIEW} GROUP BY criterion ORDER BY {table.first_row}")]
    return table


def _canonical_sql(dialect: Any, scan: str, columns: frozenset[str]) -> str:
    def col(name: str, sql: str, default: str = "") -> str:
        # A column the files lack is a typed null (Spark keeps no untyped column in a view).
        kind = "DOUBLE" if "DOUBLE" in sql else "BIGINT" if "BIGINT" in sql else dialect.string
        return f"{sql if name in columns else default or f'CAST(NULL AS {kind})'} AS {name}"

    def text(column: str) -> str:
        return text_sql(column, dialect)

    sql_text = dialect.text
    non_reportable = ", ".join(sql_text(s) for s in sorted(NON_REPORTABLE_SPLITS))
    split_reportable = f"coalesce({text('split')} NOT IN ({non_reportable}), true)"
    parts = [
        col("item", text("item")),
        f"coalesce({text('cluster')}, {text('item')}) AS cluster"
        if "cluster" in columns else f"{text('item')} AS cluster",
        col("arm", text("arm")),
        col("opponent", text("opponent")),
        col("position", "TRY_CAST(position AS BIGINT)"),
        col("run", "TRY_CAST(run AS BIGINT)", "CAST(1 AS BIGINT)"),
        f"coalesce({text('judge')}, {sql_text(DEFAULT_JUDGE)}) AS judge"
        if "judge" in columns else f"{sql_text(DEFAULT_JUDGE)} AS judge",
        f"coalesce({text('criterion')}, {sql_text(DEFAULT_CRITERION)}) AS criterion"
        if "criterion" in columns else f"{sql_text(DEFAULT_CRITERION)} AS criterion",
        col("score", "TRY_CAST(score AS DOUBLE)"),
        col("split", text("split")),
        "coalesce(TRY_CAST(reportable AS BOOLEAN), true) AS reportable" if "reportable" in columns
        else (f"{split_reportable} AS reportable" if "split" in columns else "true AS reportable"),
        col("failure_kind", text("failure_kind")),
        col("task", text("task")),
        col("outcome", text("outcome")),
        col("weight", "coalesce(TRY_CAST(weight AS DOUBLE), CAST(1 AS DOUBLE))",
            "CAST(1 AS DOUBLE)"),
        col("usd", "TRY_CAST(usd AS DOUBLE)"),
        col("usd_provenance", text("usd_provenance")),
        col("tokens_in", "TRY_CAST(tokens_in AS DOUBLE)"),
        col("tokens_out", "TRY_CAST(tokens_out AS DOUBLE)"),
        "__file", "__row",
    ]
    return f"SELECT {', '.join(parts)} FROM {scan}"
