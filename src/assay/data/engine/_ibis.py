"""ibis, the engine for a table in a database or warehouse: a connection URL and one table.

``assay report TABLE --engine ibis://BACKEND-URL`` opens ``BACKEND-URL`` with
``ibis.connect`` (``duckdb:///path/db.duckdb``, ``sqlite:///path/db.sqlite``,
``postgres://user:password@host/db``, ``snowflake://...``: every backend ibis has) and
reads the table ``TABLE`` there (``SCHEMA.TABLE`` for another schema).
:class:`IbisEngine` offers the methods of :class:`~assay.data.engine.DuckDBEngine`, and
runs the same query text: written in DuckDB's spelling through the ibis
:class:`~assay.data.engine.Dialect` (portable spellings where sqlglot cannot translate),
translated by sqlglot for the backend, and run there as plain SQL (``raw_sql``), its rows
fetched through the driver's cursor. One text, so no second copy of the arithmetic.

ibis's expression API is not used to run the queries: it would need the reduction
written again as expressions, and its DuckDB backend cannot fetch results with duckdb 2.

A table has no file and no row number, and no order: its rows get an ordinal, sorted by
(criterion, judge, arm, opponent, cluster, item, run, position), which stands for the
order of first appearance (so criteria, judges and arms are listed by name), and a
problem is named by the table and the row's key (item, arm, run, judge...).
Views are kept as text and put in front of each query that reads them (``WITH``), so the
engine never writes to the database. Credentials in the URL are never shown: messages
show it as :func:`~assay._secrets.redact_url` gives it (``ibis://postgres://***@db/evals``,
as the LLM client shows its endpoint), and a driver's message has the URL's secrets
scrubbed by :func:`~assay._secrets.redact_text`.
"""

from __future__ import annotations

import importlib.util
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from assay._secrets import redact_text, redact_url
from assay.data.engine._dialect import Dialect
from assay.data.engine._source import TableSource
from assay.errors import ConfigError, InputError

SCHEME = "ibis://"
"""How ``--engine`` names an ibis connection: ``ibis://`` and the backend's URL."""
FILE_BACKENDS = ("duckdb", "sqlite")
"""Backends whose URL names a database file (which must exist: ibis would create it)."""
ORDER = ("criterion", "judge", "arm", "opponent", "cluster", "item", "run", "position")
"""The columns a table's rows are ordered by (a table has no order of its own)."""
NUMBER_COLUMNS = ("score", "run", "usd", "tokens_in", "tokens_out", "latency_s", "weight",
                  "position", "answer_length", "opponent_length", "difficulty")
"""Columns read as numbers: a table must store them as numbers (see :meth:`IbisEngine.describe`)."""


def ibis_missing() -> str | None:
    """Why the ibis engine cannot run here, or None."""
    if importlib.util.find_spec("ibis") is None or importlib.util.find_spec("sqlglot") is None:
        return "the ibis engine needs ibis-framework: pip install 'assay[ibis]'"
    return None


def backend_url(engine: str) -> str:
    """The backend URL of ``--engine ibis://BACKEND-URL``.

    Raises
    ------
    ConfigError
        No backend URL after ``ibis://``.
    """
    url = engine[len(SCHEME):] if engine.startswith(SCHEME) else engine
    if "://" not in url:
        raise ConfigError(f"--engine {redact_url(engine)}: expected ibis://BACKEND-URL, such as "
                          "ibis://duckdb:///path/db.duckdb or ibis://postgres://user@host/db")
    return url


class IbisEngine:
    """The queries of the reports, translated by sqlglot and run by an ibis backend."""

    name = "ibis"
    exact_rows = False
    """A table has no file or row number: problems are named by the row's key."""

    def __init__(self, url: str) -> None:
        missing = ibis_missing()
        if missing is not None:
            raise ConfigError(missing + " (or choose --engine duckdb)")
        self.url = backend_url(url)
        self.shown = redact_url(SCHEME + self.url)
        self.connection = self._connect()
        self.backend = str(self.connection.name)
        self.dialect = Dialect("ibis", backend=self.backend)
        self._views: dict[str, str] = {}
        self._translated: dict[str, str] = {}

    def _connect(self) -> Any:
        import ibis

        backend = self.url.split("://", 1)[0].lower()
        if backend in FILE_BACKENDS:
            path = urlsplit(self.url).path
            if path and path != "/:memory:" and not Path(path).is_file():
                raise ConfigError(f"{self.shown}: no database file {path}")
        try:
            with _quiet():
                return ibis.connect(self.url)
        except ImportError:
            raise ConfigError(f"{self.shown}: the ibis backend {backend!r} is not installed: "
                              f"pip install 'ibis-framework[{backend}]'") from None
        except Exception as exc:  # each driver raises its own errors
            raise ConfigError(f"{self.shown}: cannot connect: {self._scrub(exc)}") from None

    def _scrub(self, exc: BaseException) -> str:
        """The first line of ``exc`` with the URL's secrets replaced by ``***``."""
        return redact_text((str(exc).strip().splitlines() or [type(exc).__name__])[0], url=self.url)

    # The same six methods as DuckDBEngine and SparkEngine.

    def execute(self, sql: str) -> None:
        """Run a statement (the engine's own queries never write)."""
        self._run(sql)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Every row of a query, as tuples (decimals as floats)."""
        cursor = self._run(sql)
        return [tuple(_plain(v) for v in row) for row in cursor.fetchall()]

    def numpy(self, sql: str) -> dict[str, Any]:
        """The columns of a query as numpy arrays."""
        cursor = self._run(sql)
        names = [d[0] for d in cursor.description]
        batch = _batch(names, cursor.fetchall())
        return {name: batch.column(name).to_numpy(zero_copy_only=False) for name in names}

    def batches(self, sql: str, size: int) -> Iterator[Any]:
        """The rows of a query as Arrow record batches of ``size`` rows (at most 65,536: a
        driver's cursor gives Python tuples, about 300 bytes a row), fetched in turn."""
        size = min(size, 1 << 16)
        cursor = self._run(sql)
        names = [d[0] for d in cursor.description]
        while True:
            rows = cursor.fetchmany(size)
            if not rows:
                return
            yield _batch(names, rows)

    def view(self, name: str, sql: str) -> None:
        """A view, kept as text: each query that reads it gets it as a ``WITH`` clause."""
        self._views[name] = sql

    def materialize(self, name: str, sql: str) -> None:
        """As :meth:`view` (computed again by each query: the engine writes nothing)."""
        self._views[name] = sql

    def release(self, tables: tuple[str, ...]) -> None:
        for name in tables:
            self._views.pop(name, None)

    def resolve(self, table: str) -> TableSource:
        """The source naming ``table`` (``SCHEMA.TABLE`` in another schema) in messages.

        Raises
        ------
        InputError
            The database has no such table.
        """
        name = str(table)
        database = getattr(self.connection, "current_database", None) if "." not in name else None
        # Qualified, the table is never taken for a view of the same name (judgments...).
        qualified = f"{database}.{name}" if isinstance(database, str) and database else name
        source = TableSource(f"table {name} of {self.shown}", (qualified,), "table", hive=False)
        self._schema(source)
        return source

    def scan(self, source: TableSource, raw: dict[str, str] | None = None) -> str:
        """A subquery reading the table with ``__file`` (the table) and ``__row``: an
        ordinal of the rows sorted by :data:`ORDER` (a table has no order of its own)."""
        columns = self._schema(source).names
        order = ", ".join(c for c in ORDER if c in columns) or "1"
        table = ".".join(f'"{part}"' for part in source.files[0].split("."))
        return (f"(SELECT *, 'table' AS __file, row_number() OVER (ORDER BY {order}) AS __row "
                f"FROM {table})")

    def describe(self, source: TableSource) -> dict[str, str]:
        """Column name -> type (DuckDB's names: BIGINT, DOUBLE, VARCHAR...).

        Raises
        ------
        ConfigError
            A column read as numbers (score, run, usd...) holds text, on a backend other
            than DuckDB: sqlglot turns ``TRY_CAST`` into a plain ``CAST`` for SQLite or
            MySQL, which read ``'abc'`` as 0, so the table must store numbers as numbers.
        """
        described = {}
        for name, dtype in self._schema(source).items():
            described[str(name)] = _type_name(dtype)
            if (name in NUMBER_COLUMNS and described[name] == "VARCHAR"
                    and self.backend != "duckdb"):
                raise ConfigError(f"{source.given}: column {name!r} holds text; the ibis engine "
                                  f"reads it as numbers from a numeric column on {self.backend} "
                                  "(cast it in a view, or export the table to Parquet)")
        return described

    def _schema(self, source: TableSource) -> Any:
        *database, table = source.files[0].split(".")
        try:
            with _quiet():
                return self.connection.get_schema(table, database=".".join(database) or None)
        except Exception as exc:  # each backend raises its own "no such table"
            try:
                with _quiet():
                    tables = sorted(self.connection.list_tables())
            except Exception:  # ibis lists DuckDB's tables with an API duckdb 2 removed
                tables = []
            if tables:
                more = ", ..." if len(tables) > 20 else ""
                raise InputError(source.given, f"no such table (it has {', '.join(tables[:20])}"
                                 f"{more})") from None
            raise InputError(source.given, f"cannot be read: {self._scrub(exc)}") from None

    def _run(self, sql: str) -> Any:
        try:
            native = self._with_views(sql)
            return self.connection.raw_sql(native)
        except Exception as exc:  # the driver's and sqlglot's errors, worded for the user
            raise ConfigError(f"{self.shown}: the {self.backend} backend cannot run the "
                              f"engine's query: {self._scrub(exc)}") from None

    def _native(self, sql: str) -> str:
        """``sql`` (DuckDB's spelling) in the backend's, translated once per text."""
        if sql not in self._translated:
            import sqlglot

            self._translated[sql] = sqlglot.transpile(sql, read="duckdb",
                                                      write=self.connection.dialect)[0]
        return self._translated[sql]

    def _with_views(self, sql: str) -> str:
        """``sql`` with the views it reads (and those they read) as a ``WITH`` clause, in
        the backend's spelling (each view translated once: the views are most of the text)."""
        needed: set[str] = set()
        pending = [sql]
        while pending:
            text = pending.pop()
            for name, body in self._views.items():
                if name not in needed and re.search(rf"\b{re.escape(name)}\b", text):
                    needed.add(name)
                    pending.append(body)
        query = self._native(sql)
        if not needed:
            return query
        ctes = ", ".join(f"{name} AS ({self._native(body)})" for name, body in self._views.items()
                         if name in needed)
        head = re.match(r"\s*WITH\s", query, flags=re.IGNORECASE)
        return f"WITH {ctes}, {query[head.end():]}" if head else f"WITH {ctes} {query}"


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence the deprecation warnings ibis's metadata calls raise under duckdb 2."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        yield


def _plain(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else value


def _batch(names: list[str], rows: list[tuple[Any, ...]]) -> Any:
    import pyarrow as pa

    columns = list(zip(*rows, strict=True)) if rows else [() for _ in names]
    return pa.RecordBatch.from_arrays(
        [pa.array([_plain(v) for v in column]) for column in columns], names=names)


def _type_name(dtype: Any) -> str:
    """An ibis data type as DuckDB names it (what the checks look at: numbers or text)."""
    if dtype.is_boolean():
        return "BOOLEAN"
    if dtype.is_integer():
        return "BIGINT"
    if dtype.is_floating():
        return "DOUBLE"
    if dtype.is_decimal():
        return "DECIMAL"
    if dtype.is_string():
        return "VARCHAR"
    return str(dtype).upper()
