"""The checks of a judgments table as engine queries, with the messages pandas gives.

:func:`check_table` asks the engine, in one pass over the files, how many rows fail each
check of :func:`assay.data.validate.build_table` that applies to a table of numbers
(missing ids, run numbers, negative costs, unknown splits, scores off their scale, a
missing score with no failure kind), then fetches only the first
``MAX_PROBLEMS_PER_CHECK`` rows of each failing check, with their file and row; then the
duplicate judgment keys and the run numbers 1..R of each judge, criterion and arm. The
problems are raised together as one :class:`~assay.errors.ValidationError`, sorted as
pandas sorts them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.data._limits import MAX_PROBLEMS_PER_CHECK
from assay.data.engine import (
    DUCKDB,
    Dialect,
    TableSource,
    distinct_values,
    partition_columns,
    partition_conflict,
    partition_value_sql,
)
from assay.data.schema import (
    COLUMN_BY_NAME,
    DEFAULT_CRITERION,
    KEY_COLUMNS,
    REQUIRED_COLUMNS,
    SPLITS,
    USD_PROVENANCES,
    Scale,
)
from assay.errors import Problem, ValidationError, quote

_MORE = "... the same problem in {n} more rows"


@dataclass(frozen=True)
class _Check:
    column: str
    condition: str
    """SQL, true on a failing row of the scan."""
    message: Callable[[Any], str]
    """The message, from the failing row's value of ``column`` (or the dict of ``fields``)."""
    fields: tuple[tuple[str, str], ...] = ()
    """(name, SQL) of the values the message shows, when not just the column's."""


def _show(value: object) -> str:
    return quote(value, limit=60)


_NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT",
                  "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
                  "BOOLEAN")
"""Types (DuckDB's, and Spark's in capitals) that cannot hold blank text."""


def _blank_sql(column: str, raw: Mapping[str, str] | None = None,
               dialect: Dialect = DUCKDB) -> str:
    """SQL true where ``column`` is missing: NULL, or blank text.

    A column the engine reads as numbers cannot hold blank text, so it skips the cast to
    text (which formats every number: seconds on millions of rows).
    """
    kind = (raw or {}).get(column, "VARCHAR").upper()
    if kind.startswith(_NUMERIC_TYPES):
        return f"({column} IS NULL)"
    return f"({column} IS NULL OR trim(CAST({column} AS {dialect.string})) = '')"


def row_checks(raw: Mapping[str, str], scales: Mapping[str, Scale],
               dialect: Dialect = DUCKDB) -> list[_Check]:
    """The per-row checks that apply to the columns ``raw`` (name -> engine type)."""
    def _blank(column: str, raw: Mapping[str, str] = raw) -> str:
        return _blank_sql(column, raw, dialect)

    sql_text = dialect.text
    checks: list[_Check] = []
    for name in ("item", "arm"):
        checks.append(_Check(name, _blank(name, raw), lambda v: "required value is missing"))
    if "run" in raw:
        number = "TRY_CAST(run AS DOUBLE)"
        checks += [
            _Check("run", "run IS NULL", lambda v: "required value is missing (a run number 1..R)"),
            _Check("run", f"run IS NOT NULL AND {number} IS NULL",
                   lambda v: f"expected a number, got {_show(v)}"),
            _Check("run", f"{number} IS NOT NULL AND ({dialect.fractional(number)} "
                   f"OR abs({number}) > 2147483648)",
                   lambda v: f"expected a whole number, got {_show(v)}"),
            _Check("run", f"NOT {dialect.fractional(number)} AND {number} < 1",
                   lambda v: "expected a run number >= 1")]
    for name in ("usd", "tokens_in", "tokens_out", "latency_s"):
        if name in raw:
            number = f"TRY_CAST({name} AS DOUBLE)"
            checks += [
                _Check(name, f"NOT {_blank(name, raw)} AND {number} IS NULL",
                       lambda v: f"expected a number, got {_show(v)}"),
                _Check(name, f"{number} < 0", lambda v: "expected a number >= 0")]
    if "position" in raw:
        position = "TRY_CAST(position AS DOUBLE)"
        checks.append(_Check("position", f"NOT {_blank('position', raw)} AND {position} IS NULL",
                             lambda v: f"expected a number, got {_show(v)}"))
        checks.append(_Check("position", f"{position} IS NOT NULL AND {position} NOT IN (1, 2)",
                             lambda v: "expected 1 or 2 (where arm was shown to the judge)"))
        opponent = "opponent" if "opponent" in raw else "NULL"
        checks.append(_Check("opponent", f"{position} IS NOT NULL AND {_blank(opponent, raw)}",
                             lambda v: "a pairwise row (with a position) needs the opponent arm"))
    if "weight" in raw:
        number = "TRY_CAST(weight AS DOUBLE)"
        checks += [
            _Check("weight", f"NOT {_blank('weight', raw)} AND {number} IS NULL",
                   lambda v: f"expected a number, got {_show(v)}"),
            _Check("weight", f"NOT ({number} > 0)",
                   lambda v: "expected a number > 0 (how many times the row counts in a mean)")]
    if "usd_provenance" in raw:
        allowed = ", ".join(sql_text(s) for s in USD_PROVENANCES)
        checks.append(_Check("usd_provenance", f"NOT {_blank('usd_provenance', raw)} AND "
                             f"usd_provenance NOT IN ({allowed})",
                             lambda v: "expected 'reported' or 'estimated'"))
    if "split" in raw:
        allowed = ", ".join(sql_text(s) for s in SPLITS)
        checks.append(_Check("split", f"NOT {_blank('split', raw)} AND split NOT IN ({allowed})",
                             lambda v: f"expected one of {', '.join(SPLITS)}"))
    if "score" in raw:
        checks += _score_checks(raw, scales, dialect, _blank)
    for name in ("score", "run", "usd", "tokens_in", "tokens_out", "latency_s", "weight",
                 "position"):
        stored = dialect.stored_text(name)
        if name in raw and stored is not None and raw[name].upper().startswith(_NUMERIC_TYPES):
            checks.insert(0, _Check(name, stored, lambda v: f"expected a number, got {_show(v)}"))
    return checks


def _score_checks(raw: Mapping[str, str], scales: Mapping[str, Scale], dialect: Dialect,
                  _blank: Callable[..., str]) -> list[_Check]:
    sql_text = dialect.text
    criterion = (f"coalesce(CAST(criterion AS {dialect.string}), {sql_text(DEFAULT_CRITERION)})"
                 if "criterion" in raw else sql_text(DEFAULT_CRITERION))
    shown = (("c", criterion), ("v", "score"))
    number = "TRY_CAST(score AS DOUBLE)"
    declared = ", ".join(sql_text(name) for name in scales) or "NULL"
    checks = [_Check("score", f"NOT {_blank('score', raw)} AND {number} IS NULL AND {criterion} IN "
                     f"({declared})", lambda v: f"criterion {quote(v['c'])}: expected a number, "
                     f"got {_show(v['v'])}", fields=shown),
              _Check("score", f"NOT {_blank('score', raw)} AND {number} IS NULL AND "
                     f"{criterion} NOT IN "
                     f"({declared})", lambda v: f"non numeric score for criterion {quote(v['c'])} "
                     f"(e.g. {_show(v['v'])}): the engine reads numbers; declare the criterion's "
                     "scale and read it with --engine pandas",
                     fields=shown),
              _Check("score", f"score IS NOT NULL AND NOT {dialect.isfinite(number)}",
                     lambda v: f"criterion {quote(v['c'])}: expected a finite number, "
                     f"got {_show(v['v'])}", fields=shown)]
    for name, scale in scales.items():
        if scale.kind == "binary":
            condition = f"{number} NOT IN (0, 1)"
            expected = "expected 0 or 1 (binary scale)"
        elif scale.kind == "range":
            condition = f"({number} < {scale.minimum!r} OR {number} > {scale.maximum!r})"
            expected = f"outside its scale {scale.spelling()}"
        else:
            continue

        def message(v: Any, expected: str = expected) -> str:
            return f"criterion {quote(v['c'])}: {expected}, got {_show(v['v'])}"

        checks.append(_Check("score", f"{criterion} = {sql_text(name)} AND "
                             f"{dialect.isfinite(number)} AND {condition}", message,
                             fields=shown))
    failure = "failure_kind" if "failure_kind" in raw else "NULL"
    checks.append(_Check("score", f"score IS NULL AND {_blank(failure, raw)}",
                         lambda v: "missing score: a row without a score needs a failure_kind "
                         "saying why"))
    return checks


def partition_checks(source: TableSource, files_raw: Mapping[str, str],
                     dialect: Dialect = DUCKDB) -> list[_Check]:
    """A hive key naming a column the files also have must agree with it on every row.

    The two agree when both are null, both read as the same number (``run=2`` and a run
    of 2), or the column's text is the key's; a row that disagrees is named with the file
    and the folder's value (which one is right, the reader knows, not assay).
    """
    known, _ = partition_columns(source)
    checks = []
    for key, files in known.items():
        if key not in files_raw:
            continue
        value = partition_value_sql(dialect, files)
        listed = ", ".join(dialect.text(f) for f in files)
        agree = (f"(({key} IS NULL AND {value} IS NULL) OR coalesce(TRY_CAST({key} AS DOUBLE) "
                 f"= TRY_CAST({value} AS DOUBLE), trim(CAST({key} AS {dialect.string})) = "
                 f"{value}, false))")
        checks.append(_Check(
            key, f"__file IN ({listed}) AND NOT {agree}",
            lambda v, key=key: partition_conflict(key, v["k"], v["v"]),
            fields=(("k", value), ("v", f"CAST({key} AS {dialect.string})"))))
    return checks


def check_table(engine: Any, source: TableSource, raw: Mapping[str, str],
                scales: Mapping[str, Scale], *, scan: str, files_raw: Mapping[str, str],
                view: str = "judgments", prior: Sequence[Problem] = (),
                stop: bool = False) -> None:
    """Raise the problems of the table, as :func:`~assay.data.validate.build_table` words them.

    ``raw`` are the table's columns (those of the files, and the hive keys naming a
    column), ``files_raw`` those of the files alone, ``scan`` the engine's ``FROM``
    expression reading the files with their keys. ``prior`` are the problems of the
    table options (:func:`~assay.analysis.pushdown._options.options_scan`), listed first;
    with ``stop`` (two columns mapped to one) the rows are not checked, as in pandas.

    Raises
    ------
    ValidationError
        Every problem found, the first ``MAX_PROBLEMS_PER_CHECK`` rows of each check.
    """
    problems: list[Problem] = list(prior)
    columns = [c for c in raw if not c.startswith("__")]
    for column in columns:
        if column not in COLUMN_BY_NAME:
            problems.append(Problem(
                source.given, None, column,
                "unknown column: map it to a column of the judgments table with "
                f"--map {column}=COLUMN, or drop it with --map {column}=-"))
    for column in REQUIRED_COLUMNS:
        if column not in raw:
            problems.append(Problem(source.given, None, column, "required column is missing "
                                    "(use --map SOURCE=" + column + " if it has another name)"))
    if len(problems) > len(prior) or stop:
        raise ValidationError(problems)
    dialect = engine.dialect
    checks = row_checks(raw, scales, dialect) + partition_checks(source, files_raw, dialect)
    (counts,) = engine.rows(
        "SELECT " + ", ".join(f"count_if({c.condition})" for c in checks) + f" FROM {scan}")
    place = _Place(engine, source, raw)
    for check, count in zip(checks, counts, strict=True):
        if not count:
            continue
        fields = check.fields or (("", check.column),)
        shown = ", ".join(f"{sql} AS __v{n}" for n, (_, sql) in enumerate(fields))
        for found in engine.rows(
                f"SELECT {', '.join(place.columns)}, {shown} FROM {scan} "
                f"WHERE {check.condition} ORDER BY __file, __row LIMIT {MAX_PROBLEMS_PER_CHECK}"):
            at, values = found[:len(place.columns)], found[len(place.columns):]
            value = values[0] if not check.fields else dict(
                zip((name for name, _ in fields), values, strict=True))
            problems.append(place.problem(at, check.column, check.message(value)))
        if count > MAX_PROBLEMS_PER_CHECK:
            problems.append(Problem(source.given, None, check.column,
                                    _MORE.format(n=count - MAX_PROBLEMS_PER_CHECK)))
    problems += _duplicates(engine, source, raw, view)
    problems += _run_numbers(engine, source, view)
    if problems:
        problems.sort(key=lambda p: (p.row is not None, p.path, p.row or 0))
        raise ValidationError(problems)


class _Place:
    """Where a failing row is: its file and row, or in a table (which has neither, the
    ibis engine's) the table and the row's key (item, arm, run, judge...)."""

    def __init__(self, engine: Any, source: TableSource, raw: Mapping[str, str]) -> None:
        self.source = source
        self.exact = bool(engine.exact_rows)
        self.keys = [c for c in KEY_COLUMNS if c in raw]
        self.columns = ["__file", "__row"] if self.exact else self.keys

    def problem(self, at: tuple[Any, ...], column: str | None, message: str) -> Problem:
        if self.exact:
            return Problem(self.source.label(at[0]), int(at[1]), column, message)
        return Problem(self.source.given, None, column, f"{message} ({self.key(at)})")

    def key(self, values: tuple[Any, ...]) -> str:
        """The row's key as a message shows it: ``at item 'q3', arm 'zeta', run 2``."""
        shown = [f"{name} {_show(value)}" for name, value in zip(self.keys, values, strict=True)
                 if value is not None and value == value]
        return "at " + ", ".join(shown) if shown else "a row with no key"


_MAX_REPEATED_ROWS = 100_000
"""Rows of repeated judgment keys read back to word the problems."""


def _duplicates(engine: Any, source: TableSource, raw: Mapping[str, str],
                view: str) -> list[Problem]:
    keys = [c for c in KEY_COLUMNS if c in raw or c in ("run", "judge", "criterion")]
    listed = ", ".join(keys)
    # Grouping by a 64-bit hash of the key holds 16 bytes per row instead of the strings:
    # equal keys have equal hashes, so no duplicate escapes; a collision is only a
    # candidate, which the exact query below then clears.
    found = engine.rows(
        f"SELECT count(*) FROM (SELECT 1 FROM {view} GROUP BY {engine.dialect.group_key(listed)} "
        "HAVING count(*) > 1) AS d")[0][0]
    if not found:
        return []
    if not engine.exact_rows:
        return _table_duplicates(engine, source, keys, view)
    rows = engine.rows(
        f"SELECT __file, __row, {listed} FROM ("
        f"SELECT __file, __row, {listed}, count(*) OVER (PARTITION BY {listed}) AS n "
        f"FROM {view}) AS d WHERE n > 1 ORDER BY __file, __row LIMIT {_MAX_REPEATED_ROWS + 1}")
    # the messages of the pandas path, built by the same function from the repeated rows
    import numpy as np
    import pandas as pd

    from assay.data.validate import repeat_problems

    cut = len(rows) > _MAX_REPEATED_ROWS
    rows = rows[:_MAX_REPEATED_ROWS]
    frame = pd.DataFrame([r[2:] for r in rows], columns=keys)
    problems = repeat_problems(frame, np.asarray([int(r[1]) for r in rows]),
                               np.asarray([source.label(r[0]) for r in rows], dtype=object))
    if cut:
        problems.append(Problem(source.given, None, None, "... and more duplicate judgments "
                                f"(listing stopped after {_MAX_REPEATED_ROWS} repeated rows)"))
    return problems


def _table_duplicates(engine: Any, source: TableSource, keys: list[str],
                      view: str) -> list[Problem]:
    """Duplicate keys of a table (no file, no row): each key once, with its count."""
    listed = ", ".join(keys)
    rows = engine.rows(f"SELECT {listed}, count(*) AS n, count(*) OVER () AS n_keys FROM {view} "
                       f"GROUP BY {listed} HAVING count(*) > 1 ORDER BY {listed} "
                       f"LIMIT {MAX_PROBLEMS_PER_CHECK}")
    place = _Place(engine, source, dict.fromkeys(keys, ""))
    problems = [Problem(source.given, None, None, f"duplicate judgment: {n} rows share "
                        f"{listed} ({place.key(tuple(key))})")
                for *key, n, _ in rows]
    if rows and rows[0][-1] > MAX_PROBLEMS_PER_CHECK:
        problems.append(Problem(source.given, None, None, f"... and "
                                f"{rows[0][-1] - MAX_PROBLEMS_PER_CHECK} more duplicated keys"))
    return problems


def _run_numbers(engine: Any, source: TableSource, view: str) -> list[Problem]:
    dialect = engine.dialect
    gaps = engine.rows(
        # the first row is selected to order by it: Spark orders a HAVING query only so
        f"SELECT judge, criterion, arm, {dialect.distinct_list('run')}, {dialect.first_row()} "
        f"AS first FROM {view} WHERE run IS NOT NULL AND arm IS NOT NULL "
        f"GROUP BY judge, criterion, arm HAVING count(DISTINCT run) <> max(run) OR min(run) < 1 "
        "ORDER BY first")
    problems = []
    for judge, criterion, arm, runs, _ in gaps:
        present = {int(float(r)) for r in distinct_values(runs)}
        missing = sorted(set(range(1, max(present) + 1)) - present)
        problems.append(Problem(
            source.given, None, "run",
            f"run numbers of arm {quote(arm)} (judge {quote(judge)}, criterion "
            f"{quote(criterion)}) must be 1..R with none missing; missing: "
            f"{', '.join(map(str, missing[:10]))}"))
    return problems
