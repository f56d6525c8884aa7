"""Which engine reads the table of ``assay report``, and the reports made through DuckDB,
Spark or ibis.

``--engine auto`` (the default) reads a folder, a glob, or a table file of more than
``AUTO_BYTES`` through DuckDB when every report asked for can be made there, and a
smaller file through pandas as before. Whenever the engine is DuckDB, or pandas is used
although DuckDB was asked for or the input is big, the choice and its reason are printed:
a fallback is never silent. One quiet exception, for speed alone: a small Parquet file
asked for the score summary only ("small") is summarised by DuckDB without importing
pandas, with the pandas path's numbers, and by pandas whenever the table needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from assay.cli._app import _check_scales_used, console
from assay.errors import AssayError, ConfigError

Engine = Literal["auto", "duckdb", "spark", "pandas"]
ENGINES = ("auto", "duckdb", "spark", "pandas")
ENGINE_NAMES = {"duckdb": "DuckDB", "spark": "Spark", "ibis": "ibis"}
ENGINE_KINDS = ("answer", "scores", "benchmark")
"""Reports made from sufficient statistics computed by the engine."""
ENGINE_FORMATS = ("text", "json", "latex", "png")
"""Formats written from the results alone (HTML and the workbook read the whole table)."""
AUTO_BYTES = 64 * 2**20
"""Above this size a table file is read by DuckDB under ``--engine auto``."""


def choose_engine(engine: str, src: Sequence[Path], kinds: Sequence[str],
                  formats: Sequence[str], *, table_options: Any = None,
                  scales: Mapping[str, Any]) -> tuple[str, str | None]:
    """(engine, line to print or None) for the inputs and options of ``assay report``;
    the engine is pandas, duckdb, spark, ibis or small (see the module docstring).
    ``table_options`` (a :class:`~assay.analysis.pushdown._options.TableOptions`) are read
    by every engine but for a ``--map`` source naming a field inside a JSON object.

    Raises
    ------
    ConfigError
        ``--engine duckdb``, ``spark`` or ``ibis://...`` with something only pandas does,
        or an unknown engine.
    """
    from assay._secrets import redact_url
    from assay.analysis.pushdown._table import ENGINE_SCALES, engine_reason
    from assay.data.engine import (
        duckdb_available,
        ibis_missing,
        resolve_source,
        spark_missing,
    )

    ibis = engine.startswith("ibis://")
    if engine not in ENGINES and not ibis:
        shown = repr(engine) if engine.isidentifier() else "(not shown: it may hold a password)"
        raise ConfigError(f"--engine {shown}: expected one of {', '.join(ENGINES)} or "
                          "ibis://BACKEND-URL")
    if engine == "pandas":
        return "pandas", "engine: pandas (asked for with --engine pandas)"
    mapping = table_options.mapping if table_options is not None else {}
    blockers = [f"--map {source} (a field inside a JSON object) reads the whole table"
                for source in mapping if "." in source]
    optioned = table_options is not None and (table_options.reshape or table_options.excluding)
    if len(src) != 1:
        blockers.append("several inputs are stacked by pandas")
    elif ibis:  # SRC names a table: only its scales can stop the engine
        blockers += [f"criterion {name!r} has a labelled scale ({scale.spelling()})"
                     for name, scale in scales.items() if scale.kind not in ENGINE_SCALES]
    else:
        reason = engine_reason(src[0], scales)
        if reason is not None:
            blockers.append(reason)
    if not any(kind in ENGINE_KINDS for kind in kinds):
        blockers.append(f"the engine makes the {', '.join(ENGINE_KINDS[:-1])} and "
                        f"{ENGINE_KINDS[-1]} reports only")
    other = [f for f in formats if f not in ENGINE_FORMATS]
    if other:
        blockers.append(f"--format {','.join(other)} reads the whole table")
    if ibis:
        missing = ibis_missing()
        reasons = blockers + ([missing] if missing else [])
        if reasons:
            raise ConfigError(f"--engine ibis: {'; '.join(reasons)}; export the table to "
                              "Parquet for --engine duckdb, or use --engine pandas")
        return "ibis", f"engine: ibis ({redact_url(engine)}, table {src[0]})"
    if engine == "spark":
        missing = spark_missing()
        reasons = blockers + ([missing] if missing else [])
        if reasons:
            raise ConfigError(f"--engine spark: {'; '.join(reasons)}; use --engine duckdb or "
                              "pandas")
        return "spark", "engine: spark (asked for with --engine spark)"
    if not duckdb_available():
        blockers.append("duckdb is not installed (pip install duckdb)")
    if engine == "duckdb":
        if blockers:
            raise ConfigError(f"--engine duckdb: {'; '.join(blockers)}; use --engine pandas")
        return "duckdb", "engine: duckdb (asked for with --engine duckdb)"
    big = False
    source = None
    if len(src) == 1:
        try:
            source = resolve_source(src[0])
        except AssayError:
            source = None
        if source is not None:
            big = len(source.files) > 1 or source.files[0] != str(src[0]) or \
                source.size_bytes > AUTO_BYTES
    if not big:
        small = (not blockers and not optioned and list(kinds) == ["scores"] and len(src) == 1
                 and source is not None and source.format == "parquet")
        return ("small" if small else "pandas"), None
    if blockers:
        return "pandas", f"engine: pandas, not duckdb: {'; '.join(blockers)}"
    return "duckdb", (f"engine: duckdb ({src[0]}: a folder, a glob or a file of more than "
                      f"{AUTO_BYTES // 2**20} MiB)")


def engine_outcome(path: Path, kinds: Sequence[Any], options: Mapping[str, Any],
                   scales: Mapping[str, Any], *, engine: str = "duckdb",
                   spark_master: str = "local[2]", ibis_url: str | None = None,
                   table_options: Any = None) -> Any:
    """The reports of ``kinds`` made through DuckDB, Spark or ibis (the table ``path`` in
    the database of ``ibis_url``), the table read through ``table_options``, as an
    Outcome; the others skipped. How the table was read (hive keys left out) is printed
    first."""
    from assay.analysis.pushdown import open_table
    from assay.data.engine import IbisEngine, SparkEngine
    from assay.report.kinds import Made, Outcome, parse_contrasts

    chosen = (SparkEngine(master=spark_master) if engine == "spark" else
              IbisEngine(ibis_url or "") if engine == "ibis" else None)
    table = open_table(path, scales=scales, engine=chosen, options=table_options)
    _check_scales_used(table, dict(scales))  # a --scale naming no criterion: refused, as by pandas
    for note in table.notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    made: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for kind in kinds:
        option = options.get(kind.name) or kind.options()
        try:
            if kind.name == "answer":
                from assay.analysis.pushdown import engine_answer, engine_table_facts
                from assay.report.kinds import with_available

                made[kind.name] = Made(with_available(engine_answer(table, conf=option.conf),
                                                      engine_table_facts(table)))
            elif kind.name == "scores":
                from assay.analysis.pushdown import engine_score_summary

                made[kind.name] = Made(engine_score_summary(table, conf=option.conf))
            elif kind.name == "benchmark":
                from assay.analysis.pushdown import engine_benchmark_report  # scipy.stats

                report, judge, criterion = engine_benchmark_report(
                    table, judge=option.judge, criterion=option.criterion,
                    contrasts=lambda arms, text=option.contrasts: parse_contrasts(text, arms),
                    B=option.resamples, conf=option.conf, k=list(option.k), seed=option.seed,
                    method=option.method, confirmatory=option.confirmatory,
                    registration=option.registration)
                made[kind.name] = Made(report, f"judge {judge}, criterion {criterion}")
            else:
                skipped[kind.name] = ("made by the pandas engine only: rerun with "
                                      "--engine pandas on a table that fits in memory")
        except AssayError as exc:
            skipped[kind.name] = str(exc)
    return Outcome(made, skipped)
