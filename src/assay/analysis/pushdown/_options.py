"""The table options (``--map``, ``--set``, ``--missing``, the self-judging and self-teaching
exclusions) as SQL over the engine's scan, read as :func:`assay.data.validate.build_table`
and :meth:`assay.data.table.Judgments.excluding` read them.

``--map``, ``--set`` and ``--missing`` become one ``SELECT`` over the files' scan: a column
renamed or dropped, a constant column, a value declared missing made null (a score so
declared gets failure_kind ``declared_missing`` unless its row gives one). The checks and
the canonical view then read that select as if the files had been written so, and the
problems of the options themselves (a mapped column not in the file, two columns becoming
one, a constant for a column the file has) are worded as pandas words them. The
exclusions are a ``WHERE`` on the canonical view, applied after the checks and the
scales read from the scores, which pandas applies to the checked table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.data.options import DROP
from assay.data.schema import DEFAULT_JUDGE, FailureKind
from assay.errors import ConfigError, Problem, did_you_mean

_NUMERIC_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "UTINYINT",
                  "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL",
                  "BOOLEAN", "LONG", "SHORT", "BYTE", "REAL")
"""Types (DuckDB's, Spark's) of columns of numbers: a value there is compared as a number."""


@dataclass(frozen=True)
class TableOptions:
    """How to read a table's columns and rows, as the command line's table options say."""

    mapping: Mapping[str, str] = field(default_factory=dict)
    """Source column -> judgments column (``-`` drops the source), ``--map``."""
    constants: Mapping[str, str] = field(default_factory=dict)
    """Column -> one value for every row, ``--set``."""
    missing: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Column -> values that mean "no value" there, ``--missing``."""
    exclude_self_judging: bool = False
    """Leave out rows whose judge is the arm judged."""
    exclude_self_teaching: bool = False
    """Leave out rows whose item's generator (``teacher``) is the arm judged."""

    @property
    def reshape(self) -> bool:
        """Whether the options change the columns or values of the files' rows."""
        return bool(self.mapping or self.constants or self.missing)

    @property
    def excluding(self) -> bool:
        return self.exclude_self_judging or self.exclude_self_teaching


@dataclass
class OptionsScan:
    """The scan with the options applied, the columns it has, and what pandas would say."""

    scan: str
    raw: dict[str, str]
    """Column -> engine type of the scan (the files' columns as renamed, and the new ones)."""
    files_raw: dict[str, str]
    """The columns of ``raw`` that are the files' own, under their own name (the columns a
    hive key is compared with)."""
    problems: list[Problem] = field(default_factory=list)
    """The options' problems, in the order pandas lists them."""
    fatal: bool = False
    """Whether a problem stops the checks (two columns becoming one), as in pandas."""


def options_scan(engine: Any, given: str, scan: str, raw: Mapping[str, str],
                 files_raw: Mapping[str, str], options: TableOptions) -> OptionsScan:
    """``scan`` read through ``options.mapping``, ``constants`` and ``missing``.

    ``raw`` are the scan's columns (the files' and the hive keys naming a column),
    ``files_raw`` the files' alone; ``given`` names the table in a problem.

    Raises
    ------
    ConfigError
        A ``--map`` source naming a field inside a JSON object (``scores.quality``): the
        pandas path reads it.
    """
    if not options.reshape:
        return OptionsScan(scan, dict(raw), dict(files_raw))
    dialect = engine.dialect
    name = dialect.identifier
    problems: list[Problem] = []
    for source in options.mapping:
        if source in raw:
            continue
        if any(source.startswith(column + ".") for column in raw):
            raise ConfigError(f"--map {source}: a field inside a JSON object is read by "
                              "--engine pandas")
        problems.append(Problem(given, None, source, "named in the column mapping but not in "
                                "the file" + did_you_mean(source, [c for c in raw
                                                                   if not c.startswith("__")])))
    renames = {s: t for s, t in options.mapping.items() if t != DROP and s in raw}
    kept = [c for c in raw if options.mapping.get(c) != DROP or c.startswith("__")]
    targets = list(renames.values())
    clashes = {t for t in targets if targets.count(t) > 1 or (t in kept and t not in renames)}
    for target in sorted(clashes):
        problems.append(Problem(given, None, target, "two columns would both become this column"))
    exprs: dict[str, str] = {}
    types: dict[str, str] = {}
    own: dict[str, str] = {}
    for column in kept:
        target = renames.get(column, column)
        if target in exprs:  # a clash: the checks stop before reading it
            continue
        exprs[target], types[target] = name(column), raw[column]
        if target == column and column in files_raw:
            own[column] = files_raw[column]
    for column, value in options.constants.items():
        if column in exprs:
            problems.append(Problem(given, None, column, "given a constant value but the file "
                                    "already has this column"))
            own.pop(column, None)
        exprs[column], types[column] = dialect.text(str(value)), dialect.string
    for column, values in options.missing.items():
        if column not in exprs:
            continue
        declared = _declared_sql(exprs[column], types[column], values, dialect)
        if column == "score":
            failure = exprs.get("failure_kind")
            if failure is not None:
                exprs["failure_kind"] = (f"CASE WHEN {failure} IS NULL AND {declared} THEN "
                                         f"{dialect.text(FailureKind.DECLARED_MISSING.value)} "
                                         f"ELSE {failure} END")
            elif _any(engine, scan, declared):  # pandas adds the column only then
                exprs["failure_kind"] = (f"CASE WHEN {declared} THEN "
                                         f"{dialect.text(FailureKind.DECLARED_MISSING.value)} "
                                         "END")
                types["failure_kind"] = dialect.string
        exprs[column] = f"CASE WHEN {declared} THEN NULL ELSE {exprs[column]} END"
        own.pop(column, None)
    listed = ", ".join(f"{sql} AS {name(column)}" for column, sql in exprs.items())
    # every scan has the file and row; a table's (ibis) does not describe them
    listed += "".join(f", {column}" for column in ("__file", "__row") if column not in exprs)
    return OptionsScan(f"(SELECT {listed} FROM {scan})", types, own, problems, bool(clashes))


def _declared_sql(column: str, kind: str, values: tuple[str, ...], dialect: Any) -> str:
    """SQL true where ``column``'s value is one of ``values`` (as text, or as a number),
    as the pandas path's ``_declare_missing`` compares them."""
    texts = sorted({v.strip() for v in values})
    numbers = []
    for text in texts:
        try:
            number = float(text)
        except ValueError:
            continue
        if number == number and abs(number) != float("inf"):
            numbers.append(repr(number))
    conditions = []
    if kind.upper().startswith(_NUMERIC_TYPES):  # a number is compared as a number only
        if numbers:
            conditions.append(f"TRY_CAST({column} AS DOUBLE) IN ({', '.join(numbers)})")
    else:
        stripped = f"trim(CAST({column} AS {dialect.string}))"
        conditions.append(f"{stripped} IN ({', '.join(dialect.text(t) for t in texts)})")
        if numbers:
            conditions.append(f"TRY_CAST({stripped} AS DOUBLE) IN ({', '.join(numbers)})")
    if not conditions:
        return "false"
    return "coalesce(" + " OR ".join(conditions) + ", false)"


def _any(engine: Any, scan: str, condition: str) -> bool:
    (found,) = engine.rows(f"SELECT count_if({condition}) FROM {scan}")[0]
    return bool(found)


def exclusion_sql(options: TableOptions, columns: frozenset[str], dialect: Any) -> str:
    """The ``WHERE`` clause (on the scan of the canonical view) leaving out the self-judging
    and self-teaching rows, or ``""``."""
    arm = text_sql("arm", dialect)
    conditions = []
    if options.exclude_self_judging:
        judge = (f"coalesce({text_sql('judge', dialect)}, {dialect.text(DEFAULT_JUDGE)})"
                 if "judge" in columns else dialect.text(DEFAULT_JUDGE))
        conditions.append(f"coalesce({judge} = {arm}, false)")
    if options.exclude_self_teaching and "teacher" in columns:
        conditions.append(f"coalesce({text_sql('teacher', dialect)} = {arm}, false)")
    if not conditions:
        return ""
    return " WHERE NOT (" + " OR ".join(conditions) + ")"


def text_sql(column: str, dialect: Any) -> str:
    """A text column as pandas reads it: blank -> null (the value otherwise as given)."""
    return (f"CASE WHEN trim(CAST({column} AS {dialect.string})) = '' THEN NULL "
            f"ELSE CAST({column} AS {dialect.string}) END")
