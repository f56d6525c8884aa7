"""The judgments a viewer shows, and the answers to its queries: :class:`JudgmentIndex`.

Opened on a run folder (``judgments.sqlite``, read-only) or on a judgments table (any file
:func:`assay.data.io.load` reads); see :mod:`assay.view._build` for the index it queries.
Filters select rows in memory on integer codes (:mod:`assay.view._columns`) and a page's
rows are then read by id, so a million judgments page and filter in well under a second.

A free-text filter (``q``) on a run store looks its words up in the store's full-text index
(:data:`assay.view._build.TEXT_TABLE`): the judgments whose text holds the query's words in
a row (the last one may go on: ``point 7`` finds ``point 77``), each then checked to hold
the exact text (case aside, as before). Words are found from their start: ``point`` is
found in ``point 7`` but not in ``checkpoint``. Only when no word matches, or the query has
no word (``%``), is the text searched inside words, by reading every judgment (seconds on
a million). On a table, and in that fallback, the count stops at :data:`TEXT_COUNT_CAP`.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.data.run_store import RAW_MARKER, STORE_FILENAME
from assay.errors import InputError
from assay.view._build import (
    COLUMNS,
    FACETS,
    MAX_FACET_VALUES,
    TEXT_TABLE,
    build_table_index,
    store_index,
    store_uri,
)
from assay.view._columns import FilterColumns
from assay.view._detail import judgment_sections, table_sections
from assay.view._query import Query, like_pattern, where_clause

if TYPE_CHECKING:
    from assay.data.table import Judgments

TEXT_COUNT_CAP = 1000
"""A free-text filter counts its matches up to this many (then the page says "1,000 or more")."""

LIST_COLUMNS: tuple[str, ...] = ("id", *COLUMNS)
"""The columns of a page's rows."""

_STORE_FIELDS = ("key", "config_hash", "failed", "failure_kind", "error", "rows", "verdict",
                 "raw_response", "model", "prompt_hash", "tokens_in", "tokens_out", "usd",
                 "usd_provenance", "latency_s", "attempts", "cached", "evaluated_at", "tries")


@dataclass(frozen=True)
class Page:
    """One page of rows matching a query."""

    rows: list[dict[str, Any]]
    """The rows, each with the columns of :data:`LIST_COLUMNS`."""
    total: int
    """Rows matching the query (all of them, or :data:`TEXT_COUNT_CAP` when ``capped``)."""
    capped: bool
    """Whether ``total`` is a lower bound (a free-text filter stopped counting)."""
    offset: int
    limit: int

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "total": self.total, "capped": self.capped,
                "offset": self.offset, "limit": self.limit}


class JudgmentIndex:
    """The judgments of a run folder or a judgments table, ready to query from any thread.

    Parameters
    ----------
    source
        A run folder of ``assay judge`` (holding ``judgments.sqlite``) or a judgments table
        file (CSV, TSV, JSONL, JSON, Parquet, or another run folder :func:`assay.data.io.load`
        reads).
    on_build
        Told, with a sentence to show, when a run store is about to be indexed (the first
        open of a store, or of one that changed since).
    table
        The judgments of ``source`` already loaded (a table read with ``--map``, ``--set`` or
        ``--scale``); ``source`` then only names them.

    Raises
    ------
    InputError
        When ``source`` does not exist or cannot be read as judgments.
    """

    def __init__(self, source: str | Path, *, on_build: Callable[[str], None] | None = None,
                 table: Judgments | None = None) -> None:
        self.source = Path(source)
        self._temporary: Path | None = None
        if not self.source.exists():
            raise InputError(str(self.source), "no such file or folder")
        self.kind = "store" if table is None and (self.source / STORE_FILENAME).is_file() else "table"
        if self.kind == "store":
            path = store_index(self.source, on_build=on_build)
        else:
            if table is None:
                from assay.data.io import load

                table = load(self.source)
            frame = table.frame
            self._temporary = Path(tempfile.mkdtemp(prefix="assay-view-"))
            path = self._temporary / "index.sqlite"
            build_table_index(frame, path)
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        if self.kind == "store":
            self._conn.execute("ATTACH DATABASE ? AS s", (store_uri(self.source / STORE_FILENAME),))
        self._lock = threading.Lock()
        self._prompts = self.kind == "store" and bool(self._all(
            "SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'prompts'"))
        """Whether the store keeps rendered prompts (one written before they were kept does not)."""
        self.count = int(self._one("SELECT count(*) FROM rows")[0])
        with self._lock:
            self._columns = FilterColumns.read(self._conn)
        self._facets: dict[str, list[list[Any]]] | None = None

    def _one(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> tuple[Any, ...]:
        with self._lock:
            return tuple(self._conn.execute(sql, args).fetchone())

    def _all(self, sql: str, args: list[Any] | tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._conn.execute(sql, args).fetchall()

    # -- what the page offers
    def facets(self) -> dict[str, list[list[Any]]]:
        """Filter name -> its values with their row counts, most frequent first."""
        if self._facets is None:  # computed once: the rows do not change while the index is open
            self._facets = self._columns.facets(FACETS, most=MAX_FACET_VALUES)
        return self._facets

    def summary(self) -> dict[str, Any]:
        """What the page's header says: the source, its kind and how many rows it holds."""
        return {"source": str(self.source), "kind": self.kind, "rows": self.count}

    # -- pages
    def _text_condition(self, query: Query) -> tuple[str, str, list[Any]]:
        """(join, condition, args) of the free-text filter."""
        text = query.text
        if text is None:
            return "", "", []
        pattern = like_pattern(text)
        if self.kind == "store":
            return ("JOIN s.judgments j ON j.rowid = r.record",
                    " AND (j.rows LIKE ? ESCAPE '\\' OR j.raw_response LIKE ? ESCAPE '\\' "
                    "OR j.error LIKE ? ESCAPE '\\')", [pattern] * 3)
        return "", " AND r.detail LIKE ? ESCAPE '\\'", [pattern]

    def page(self, query: Query) -> Page:
        """The rows of ``query``'s page, in storing order, and how many match.

        Filters but the text select rows in memory (:class:`FilterColumns`); the page's rows
        are then read by id. A free-text filter reads the judgments' text in SQL and stops
        counting at :data:`TEXT_COUNT_CAP`.
        """
        if query.text is not None:
            return self._text_page(query)
        keep = self._columns.mask(query)
        if keep is None:
            total = self.count
            ids = list(range(query.offset + 1, min(query.offset + query.limit, total) + 1))
        else:
            matching = np.flatnonzero(keep)
            total = int(matching.size)
            ids = [int(i) + 1 for i in matching[query.offset:query.offset + query.limit]]
        columns = ", ".join(LIST_COLUMNS)
        found = self._all(f"SELECT {columns} FROM rows WHERE id IN ({', '.join('?' * len(ids))}) "
                          "ORDER BY id", ids) if ids else []
        rows = [dict(zip(LIST_COLUMNS, values, strict=True)) for values in found]
        return Page(rows, total, False, query.offset, query.limit)

    def _text_page(self, query: Query) -> Page:
        words = word_query(query.text or "")
        if self.kind == "store" and words is not None:
            page = self._word_page(query, words)
            if page.total:
                return page
        return self._scan_page(query)

    def _word_page(self, query: Query, words: str) -> Page:
        """The page of a free-text filter through the store's word index (see the module)."""
        where, args = where_clause(query)
        _, text, text_args = self._text_condition(query)
        # CROSS JOIN keeps this order: the words, the rows' filters, then the stored text
        base = (f"FROM {TEXT_TABLE} CROSS JOIN rows r ON r.record = {TEXT_TABLE}.rowid "
                f"CROSS JOIN s.judgments j ON j.rowid = r.record WHERE {TEXT_TABLE} MATCH ? "
                f"AND {where}{text}")
        every = [words, *args, *text_args]
        total = int(self._one(f"SELECT count(*) FROM (SELECT 1 {base} LIMIT ?)",
                              [*every, TEXT_COUNT_CAP])[0])
        columns = ", ".join(f"r.{c}" for c in LIST_COLUMNS)
        # judgments in the store's order, each one's rows by id from the rows_record index
        # (record, then id): the rows' id order, with no sort of every match
        found = self._all(f"SELECT {columns} {base} ORDER BY {TEXT_TABLE}.rowid "
                          "LIMIT ? OFFSET ?", [*every, query.limit, query.offset])
        rows = [dict(zip(LIST_COLUMNS, values, strict=True)) for values in found]
        return Page(rows, total, total >= TEXT_COUNT_CAP, query.offset, query.limit)

    def _scan_page(self, query: Query) -> Page:
        """The page of a free-text filter by reading every row's text."""
        where, args = where_clause(query)
        join, text, text_args = self._text_condition(query)
        base = f"FROM rows r {join} WHERE {where}{text}"
        total = int(self._one(f"SELECT count(*) FROM (SELECT 1 {base} LIMIT ?)",
                              [*args, *text_args, TEXT_COUNT_CAP])[0])
        columns = ", ".join(f"r.{c}" for c in LIST_COLUMNS)
        found = self._all(f"SELECT {columns} {base} ORDER BY r.id LIMIT ? OFFSET ?",
                          [*args, *text_args, query.limit, query.offset])
        rows = [dict(zip(LIST_COLUMNS, values, strict=True)) for values in found]
        return Page(rows, total, total >= TEXT_COUNT_CAP, query.offset, query.limit)

    # -- one judgment
    def detail(self, row_id: int) -> dict[str, Any] | None:
        """Everything known of one row's judgment, as titled sections of labelled fields
        (see :mod:`assay.view._detail`); None when there is no such row."""
        found = self._all(f"SELECT {', '.join(LIST_COLUMNS)}, record, part, detail FROM rows "
                          "WHERE id = ?", (row_id,))
        if not found:
            return None
        *values, record, part, detail = found[0]
        listed = dict(zip(LIST_COLUMNS, values, strict=True))
        partners = self._partners(listed)
        if self.kind == "table":
            sections = table_sections(json.loads(detail))
            siblings: list[int] = []
        else:
            stored = self._all(f"SELECT {', '.join(_STORE_FIELDS)} FROM s.judgments WHERE rowid = ?",
                               (record,))
            fields = dict(zip(_STORE_FIELDS, stored[0], strict=True))
            prompt = self._all("SELECT messages FROM s.prompts WHERE key = ?",
                               (fields["key"],)) if self._prompts else []
            fields["messages"] = prompt[0][0] if prompt else None
            rows = json.loads(fields.pop("rows"))
            for stored_row in rows:
                if stored_row.pop(RAW_MARKER, None):
                    stored_row["raw_response"] = fields["raw_response"]
            sections = judgment_sections(rows[part], fields)
            first = row_id - part  # a judgment's rows are indexed one after another
            siblings = [first + i for i in range(len(rows)) if first + i != row_id]
        return {"id": row_id, "row": listed, "sections": sections, "partners": partners,
                "same_call": siblings}

    def _partners(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """The counterbalanced partners of a pairwise row: the same pair judged with the
        arms shown the other way round."""
        if row["opponent"] is None or row["position"] is None:
            return []
        found = self._all(
            "SELECT id, position, run, score, failure_kind FROM rows WHERE item IS ? AND arm IS ? "
            "AND opponent IS ? AND judge IS ? AND criterion IS ? AND position IS NOT ? "
            "ORDER BY abs(coalesce(run, 0) - ?), id LIMIT 20",
            (row["item"], row["arm"], row["opponent"], row["judge"], row["criterion"],
             row["position"], row["run"] or 0))
        names = ("id", "position", "run", "score", "failure_kind")
        return [dict(zip(names, f, strict=True)) for f in found]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    def __enter__(self) -> JudgmentIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def word_query(text: str) -> str | None:
    """The full-text query of a free-text filter: its text as one phrase, the last word a
    prefix (FTS5 syntax); None when the text has no word (letters or digits) to look up.

    >>> word_query('say "hi" to ev')
    '"say ""hi"" to ev" *'
    >>> word_query("%_") is None
    True
    """
    if not re.search(r"[^\W_]", text):
        return None
    return '"' + text.replace('"', '""') + '" *'
