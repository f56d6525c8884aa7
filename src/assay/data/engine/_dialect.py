"""The few spellings in which DuckDB's SQL and Spark SQL differ, so every query is written once.

The reduction and the checks are one text each (:mod:`assay.analysis.pushdown`); where the
engines name a function or a type differently, the text asks its :class:`Dialect`:

============================  ==============================  ================================
what                          DuckDB                          Spark SQL
============================  ==============================  ================================
a string literal              ``'it''s'``                     ``'it\\'s'`` (backslash escapes)
a column name                 ``"a b"``                       the name in backticks
the text type                 ``VARCHAR``                     ``STRING``
a record of named values      ``struct_pack(a := x)``         ``named_struct('a', x)``
a 64-bit hash of values       ``hash(x, y)`` (UBIGINT)        ``xxhash64(x, y)`` (BIGINT)
a finite number               ``isfinite(x)``                 ``x NOT IN (inf, -inf) AND NOT
                                                              isnan(x)``
the distinct values, a list   ``list(DISTINCT x)``            ``collect_set(x)``
============================  ==============================  ================================

Everything else the queries use (``count_if``, ``TRY_CAST``, window functions, ``WINDOW``
clauses, ``CASE``, ``coalesce``, ``trim``, ``%``) is spelled alike.

The ibis engine (``--engine ibis://...``) writes the same text in DuckDB's spelling and
has sqlglot translate it for its backend (SQLite, Postgres, Snowflake, ...), so its
dialect spells portably what sqlglot cannot translate: no records, no hash (a group is
keyed by its columns; an output is coded by ``dense_rank``), a finite number as a
comparison with the largest double, a whole number with ``floor`` (SQLite's ``%`` is an
integer remainder), the distinct values as a comma-separated ``string_agg``, and a
table's first row as its smallest ordinal (a table has no file).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """How one engine spells what the others spell differently."""

    name: str
    """duckdb, spark or ibis."""
    backend: str = ""
    """ibis: the backend's name (sqlite, duckdb, postgres...), for what only it spells."""

    def text(self, value: str) -> str:
        """``value`` as a string literal."""
        if self.name == "spark":
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + value.replace("'", "''") + "'"

    def identifier(self, name: str) -> str:
        """``name`` as a quoted column name (any name a file may give a column)."""
        if self.name == "spark":
            return "`" + name.replace("`", "``") + "`"
        return '"' + name.replace('"', '""') + '"'

    @property
    def string(self) -> str:
        """The text type, for ``CAST(x AS ...)``."""
        return "STRING" if self.name == "spark" else "VARCHAR"

    @property
    def hash_type(self) -> str:
        """The type :meth:`hash` returns (64 bits: unsigned in DuckDB, signed in Spark)."""
        return "BIGINT" if self.name == "spark" else "UBIGINT"

    def struct(self, **fields: str) -> str:
        """A record of the named SQL values (ordered by its fields, in order)."""
        if self.name == "spark":
            return "named_struct(" + ", ".join(f"'{k}', {v}" for k, v in fields.items()) + ")"
        return "struct_pack(" + ", ".join(f"{k} := {v}" for k, v in fields.items()) + ")"

    def hash(self, *values: str) -> str:
        """A 64-bit hash of the values: equal values, equal hashes."""
        return f"{'xxhash64' if self.name == 'spark' else 'hash'}({', '.join(values)})"

    def group_key(self, columns: str) -> str:
        """What to ``GROUP BY`` to group rows by ``columns`` (a comma-separated list): their
        64-bit hash (16 bytes a row; a collision only makes a candidate), or on ibis the
        columns themselves (no portable hash)."""
        return columns if self.name == "ibis" else self.hash(columns)

    def output_code(self, outcome: str, failure: str, score: str) -> str:
        """A 64-bit code of a run's scored output, equal for equal outputs: the outcome,
        else the failure kind, else the score (each tagged with its kind)."""
        if self.name == "ibis":
            tagged = (f"CASE WHEN {outcome} IS NOT NULL THEN 'o' || CAST({outcome} AS VARCHAR) "
                      f"WHEN {failure} IS NOT NULL THEN 'f' || {failure} "
                      f"ELSE 's' || CAST({score} AS VARCHAR) END")
            return f"CAST(dense_rank() OVER (ORDER BY {tagged}) AS BIGINT)"
        return (f"CAST(CASE WHEN {outcome} IS NOT NULL THEN {self.hash(repr('o'), outcome)} "
                f"WHEN {failure} IS NOT NULL THEN {self.hash(repr('f'), failure)} "
                f"ELSE {self.hash(repr('s'), score)} END AS {self.hash_type})")

    def isfinite(self, value: str) -> str:
        """True for a finite number, false for an infinity or NaN, null for null."""
        if self.name == "spark":
            return (f"({value} NOT IN (double('inf'), double('-inf')) AND NOT isnan({value}))")
        if self.name == "ibis":  # NaN compares false, an infinity lies outside
            return f"({value} >= -{_MAX_DOUBLE} AND {value} <= {_MAX_DOUBLE})"
        return f"isfinite({value})"

    def fractional(self, value: str) -> str:
        """True for a number with a fractional part (SQLite's ``%`` is on integers)."""
        return f"(floor({value}) <> {value})" if self.name == "ibis" else f"({value} % 1 <> 0)"

    def distinct_list(self, value: str) -> str:
        """The distinct non-null values of a group as a list (in no given order); on ibis
        a comma-separated text (read by :func:`distinct_values`)."""
        if self.name == "ibis":  # SQLite's DISTINCT takes no separator (its own is ',')
            separator = "" if self.backend == "sqlite" else ", ','"
            return f"string_agg(DISTINCT CAST({value} AS VARCHAR){separator})"
        return f"collect_set({value})" if self.name == "spark" else f"list(DISTINCT {value})"

    def first_row(self) -> str:
        """The first (file, row) of a group: ``ORDER BY`` it keeps the order of the files
        (a table's rows have one ordinal, ``__row``)."""
        if self.name == "ibis":
            return "min(__row)"
        return f"min({self.struct(f='__file', r='__row')})"

    def stored_text(self, column: str) -> str | None:
        """SQL true where a column of numbers holds text, for a backend that lets it (SQLite
        stores any value in any column, and its CAST reads ``'abc'`` as 0); else None."""
        if self.name == "ibis" and self.backend == "sqlite":
            return f"typeof({column}) = 'text'"
        return None


def distinct_values(values: object) -> list[str]:
    """The values of :meth:`Dialect.distinct_list` (a list, or ibis's comma-separated text)."""
    if isinstance(values, str):
        return values.split(",")
    return [str(v) for v in values]  # type: ignore[attr-defined]


_MAX_DOUBLE = "1.7976931348623157e308"


DUCKDB = Dialect("duckdb")
SPARK = Dialect("spark")
