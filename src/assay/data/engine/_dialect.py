"""The few spellings in which DuckDB's SQL and Spark SQL differ, so every query is written once.

The reduction and the checks are one text each (:mod:`assay.analysis.pushdown`); where the
two engines name a function or a type differently, the text asks its :class:`Dialect`:

============================  ==============================  ================================
what                          DuckDB                          Spark SQL
============================  ==============================  ================================
a string literal              ``'it''s'``                     ``'it\\'s'`` (backslash escapes)
the text type                 ``VARCHAR``                     ``STRING``
a record of named values      ``struct_pack(a := x)``         ``named_struct('a', x)``
a 64-bit hash of values       ``hash(x, y)`` (UBIGINT)        ``xxhash64(x, y)`` (BIGINT)
a finite number               ``isfinite(x)``                 ``x NOT IN (inf, -inf) AND NOT
                                                              isnan(x)``
the distinct values, a list   ``list(DISTINCT x)``            ``collect_set(x)``
============================  ==============================  ================================

Everything else the queries use (``count_if``, ``TRY_CAST``, window functions, ``WINDOW``
clauses, ``CASE``, ``coalesce``, ``trim``, ``%``) is spelled alike.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """How one engine spells what the others spell differently."""

    name: str
    """duckdb or spark."""

    def text(self, value: str) -> str:
        """``value`` as a string literal."""
        if self.name == "spark":
            return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return "'" + value.replace("'", "''") + "'"

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

    def isfinite(self, value: str) -> str:
        """True for a finite number, false for an infinity or NaN, null for null."""
        if self.name == "spark":
            return (f"({value} NOT IN (double('inf'), double('-inf')) AND NOT isnan({value}))")
        return f"isfinite({value})"

    def distinct_list(self, value: str) -> str:
        """The distinct non-null values of a group as a list (in no given order)."""
        return f"collect_set({value})" if self.name == "spark" else f"list(DISTINCT {value})"

    def first_row(self) -> str:
        """The first (file, row) of a group: ``ORDER BY`` it keeps the order of the files."""
        return f"min({self.struct(f='__file', r='__row')})"


DUCKDB = Dialect("duckdb")
SPARK = Dialect("spark")
