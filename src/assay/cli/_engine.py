"""Which engine reads the table of ``assay report``, and the reports made through DuckDB.

``--engine auto`` (the default) reads a folder, a glob, or a table file of more than
``AUTO_BYTES`` through DuckDB when every report asked for can be made there, and a
smaller file through pandas as before. Whenever the engine is DuckDB, or pandas is used
although DuckDB was asked for or the input is big, the choice and its reason are printed:
a fallback is never silent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from assay.errors import AssayError, ConfigError

Engine = Literal["auto", "duckdb", "pandas"]
ENGINES = ("auto", "duckdb", "pandas")
ENGINE_KINDS = ("scores", "benchmark")
"""Reports made from sufficient statistics computed by the engine."""
ENGINE_FORMATS = ("text", "json", "latex", "png")
"""Formats written from the results alone (HTML and the workbook read the whole table)."""
AUTO_BYTES = 64 * 2**20
"""Above this size a table file is read by DuckDB under ``--engine auto``."""


def choose_engine(engine: str, src: Sequence[Path], kinds: Sequence[str],
                  formats: Sequence[str], *, table_options: Mapping[str, bool],
                  scales: Mapping[str, Any]) -> tuple[str, str | None]:
    """(engine, line to print or None) for the inputs and options of ``assay report``.

    Raises
    ------
    ConfigError
        ``--engine duckdb`` with something only pandas does, or an unknown engine.
    """
    from assay.analysis.pushdown._table import engine_reason
    from assay.data.engine import duckdb_available, resolve_source

    if engine not in ENGINES:
        raise ConfigError(f"--engine {engine!r}: expected one of {', '.join(ENGINES)}")
    if engine == "pandas":
        return "pandas", "engine: pandas (asked for with --engine pandas)"
    blockers = [f"{name} reads the whole table" for name, used in table_options.items() if used]
    if len(src) != 1:
        blockers.append("several inputs are stacked by pandas")
    else:
        reason = engine_reason(src[0], scales)
        if reason is not None:
            blockers.append(reason)
    if not any(kind in ENGINE_KINDS for kind in kinds):
        blockers.append(f"the engine makes the {' and '.join(ENGINE_KINDS)} reports only")
    other = [f for f in formats if f not in ENGINE_FORMATS]
    if other:
        blockers.append(f"--format {','.join(other)} reads the whole table")
    if not duckdb_available():
        blockers.append("duckdb is not installed (pip install duckdb)")
    if engine == "duckdb":
        if blockers:
            raise ConfigError(f"--engine duckdb: {'; '.join(blockers)}; use --engine pandas")
        return "duckdb", "engine: duckdb (asked for with --engine duckdb)"
    big = False
    if len(src) == 1:
        try:
            source = resolve_source(src[0])
        except AssayError:
            source = None
        if source is not None:
            big = len(source.files) > 1 or source.files[0] != str(src[0]) or \
                source.size_bytes > AUTO_BYTES
    if not big:
        return "pandas", None
    if blockers:
        return "pandas", f"engine: pandas, not duckdb: {'; '.join(blockers)}"
    return "duckdb", (f"engine: duckdb ({src[0]}: a folder, a glob or a file of more than "
                      f"{AUTO_BYTES // 2**20} MiB)")


def engine_outcome(path: Path, kinds: Sequence[Any], options: Mapping[str, Any],
                   scales: Mapping[str, Any]) -> Any:
    """The reports of ``kinds`` made through DuckDB, as an Outcome; the others skipped."""
    from assay.analysis.pushdown import engine_benchmark_report, engine_score_summary, open_table
    from assay.report.kinds import Made, Outcome, parse_contrasts

    table = open_table(path, scales=scales)
    made: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for kind in kinds:
        option = options.get(kind.name) or kind.options()
        try:
            if kind.name == "scores":
                made[kind.name] = Made(engine_score_summary(table, conf=option.conf))
            elif kind.name == "benchmark":
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
