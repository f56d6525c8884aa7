"""The pages of a viewer's queries: :class:`Page`, and :class:`Pages`, which
:class:`~assay.view._index.JudgmentIndex` answers them with (the filters, the sort, the
free-text filter).

Filters select rows in memory on integer codes (:mod:`assay.view._columns`) and a page's
rows are then read by id, so a million judgments page and filter in well under a second.

A free-text filter (``q``) on a run store is looked up in the store's full-text index
(:data:`assay.view._build_text.TEXT_TABLE`, SQLite's trigram tokenizer): text of three characters
or more as a phrase of its trigrams, which finds it wherever it starts (``oint 7`` finds
``point 77``); text of one or two characters as every indexed trigram that starts with it
(from the index's list of terms; each text is indexed with padding after it, so its last
characters start trigrams too). Either way the index answers a superset (it folds case
beyond ASCII, and a phrase may hold across JSON escapes), and each judgment it names is
then checked with the exact substring test (``LIKE``: case-insensitive for ASCII letters
only), so the rows are exactly those of reading every judgment's text, without reading it.
A text absent from the index is answered from it: no rows. Only a one- or two-character
text that starts more than :data:`MAX_SHORT_TERMS` trigrams reads the judgments (such text
is common, so a page fills at once), and when filters leave at most :data:`FEW_ROWS` rows,
their text is read directly. An index built without the trigram tokenizer (an older SQLite)
looks words up from their start instead and reads the judgments for text inside a word;
:data:`assay.view._build_text.TEXT_SEARCH` names each way, and the page says which applies. On
a table, and in a read of the judgments, the count stops at :data:`TEXT_COUNT_CAP`, as in
the index.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.view._build import COLUMNS
from assay.view._build_text import TERMS_TABLE, TEXT_PAD, TEXT_TABLE
from assay.view._columns import FilterColumns
from assay.view._query import Query

TEXT_COUNT_CAP = 1000
"""A free-text filter counts its matches up to this many (then the page says "1,000 or more")."""
MAX_SHORT_TERMS = 500
"""A text of one or two characters starting more trigrams than this reads the judgments."""
FEW_ROWS = 20_000
"""When the other filters leave at most this many rows, a free-text filter reads their text."""

LIST_COLUMNS: tuple[str, ...] = ("id", *(c for c in COLUMNS if c != "reportable"))
"""The columns of a page's rows (whether a row is reportable, as the filter reads it, is
:meth:`~assay.view._index.JudgmentIndex.reportable`)."""


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


class Pages:
    """The pages of :class:`~assay.view._index.JudgmentIndex`, and its free-text filter (read
    through the index's ``_one`` and ``_all``)."""

    count: int
    kind: str
    text_search: str
    _lock: threading.Lock
    _columns: FilterColumns
    _positions: np.ndarray | None
    _fold: sqlite3.Connection | None
    _masks: dict[int, np.ndarray | None]
    _tokens: Iterator[int]

    def _text_condition(self, query: Query) -> tuple[str, str, list[Any]]:
        """(join, condition, args) of the free-text filter: the exact substring test, ASCII
        letters in either case (SQLite's ``lower`` folds only those), over the whole text (a
        ``LIKE`` stops at a NUL character, so text after one was never found)."""
        text = query.text
        if text is None:
            return "", "", []
        needle = ascii_lower(text)
        if self.kind == "store":
            return ("JOIN s.judgments j ON j.rowid = r.record",
                    " AND (instr(lower(j.rows), ?) OR instr(lower(j.raw_response), ?) "
                    "OR instr(lower(j.error), ?))", [needle] * 3)
        return "", " AND instr(lower(r.detail), ?)", [needle]

    def _sort_key(self, name: str) -> np.ndarray:
        if name != "position":
            return self._columns.sort_key(name)
        if self._positions is None:  # not a filter column: read once, when first sorted by
            found = self._all("SELECT position FROM rows ORDER BY id")
            self._positions = np.array([np.nan if p is None else p for (p,) in found], dtype=np.float64)
        return self._positions

    def _sorted(self, matching: np.ndarray, sort: str) -> np.ndarray:
        """``matching`` (row positions, ascending) in ``sort``'s order: rows without a value
        last, ties in storing order."""
        keys = self._sort_key(sort.removeprefix("-"))[matching]
        return matching[np.argsort(-keys if sort.startswith("-") else keys, kind="stable")]

    def page(self, query: Query) -> Page:
        """The rows of ``query``'s page, in storing order (or ``query.sort``'s), and how many
        match.

        Filters but the text select rows in memory (:class:`FilterColumns`); the page's rows
        are then read by id. A free-text filter is looked up in the text index (see the
        module) and stops counting at :data:`TEXT_COUNT_CAP`.
        """
        keep = self._columns.mask(query)
        if query.text is not None:
            token = next(self._tokens)
            self._masks[token] = keep
            try:
                return self._text_page(query, keep, token)
            finally:
                del self._masks[token]
        if keep is None and query.sort is None:
            total = self.count
            ids = list(range(query.offset + 1, min(query.offset + query.limit, total) + 1))
        else:
            matching = np.arange(self.count) if keep is None else np.flatnonzero(keep)
            if query.sort is not None:
                matching = self._sorted(matching, query.sort)
            total = int(matching.size)
            ids = [int(i) + 1 for i in matching[query.offset:query.offset + query.limit]]
        columns = ", ".join(LIST_COLUMNS)
        found = self._all(f"SELECT {columns} FROM rows WHERE id IN ({', '.join('?' * len(ids))}) "
                          "ORDER BY id", ids) if ids else []
        by_id = {values[0]: dict(zip(LIST_COLUMNS, values, strict=True)) for values in found}
        return Page([by_id[i] for i in ids if i in by_id], total, False, query.offset, query.limit)

    def _text_page(self, query: Query, keep: np.ndarray | None, token: int) -> Page:
        """The page of a free-text filter; the other filters' rows are ``keep`` (None: all),
        which SQL reads as ``in_view(token, r.id)``."""
        text = query.text or ""
        where = "1" if keep is None else f"in_view({token}, r.id)"
        if keep is not None and int(keep.sum()) <= FEW_ROWS:
            ids = json.dumps([int(i) + 1 for i in np.flatnonzero(keep)])
            return self._scan_page(query, "r.id IN (SELECT value FROM json_each(?))", [ids])
        if self.text_search == "trigram":
            indexed = text.replace("\x00", "\x01")  # as the index holds a NUL
            match = trigram_query(indexed) if len(text) >= 3 else self._short_match(indexed)
            if match is not None:
                return self._indexed_page(query, match, where)
        elif self.text_search == "words":
            words = word_query(text)
            if words is not None:
                page = self._indexed_page(query, words, where)
                if page.total:
                    return page
        return self._scan_page(query, where, [])

    def _in_view(self, token: int, row: int) -> bool:
        keep = self._masks[token]
        return keep is None or bool(keep[row - 1])

    def _short_match(self, text: str) -> str | None:
        """The index query of a text of one or two characters: any trigram starting with it
        (case folded as the index folds); ``'""'`` (no row) when none does, None when more
        than :data:`MAX_SHORT_TERMS` do."""
        start = self._folded(text)
        last = start + "\U0010ffff" * (3 - len(start))  # every trigram is 3 characters
        terms = self._all(f"SELECT term FROM {TERMS_TABLE} WHERE term >= ? AND term <= ? LIMIT ?",
                          (start, last, MAX_SHORT_TERMS + 1))
        if len(terms) > MAX_SHORT_TERMS:
            return None
        return " OR ".join(_phrase(term) for (term,) in terms) or '""'

    def _folded(self, text: str) -> str:
        """``text`` case folded by the trigram tokenizer itself (SQLite folds some letters
        differently from Python's ``str.lower``)."""
        with self._lock:
            if self._fold is None:
                self._fold = sqlite3.connect(":memory:", check_same_thread=False)
                self._fold.executescript(
                    "CREATE VIRTUAL TABLE f USING fts5(x, tokenize='trigram');"
                    "CREATE VIRTUAL TABLE f_terms USING fts5vocab(f, 'instance');")
            self._fold.execute("DELETE FROM f")
            self._fold.execute("INSERT INTO f (x) VALUES (?)", (text + TEXT_PAD,))
            first = self._fold.execute("SELECT term FROM f_terms WHERE offset = 0").fetchone()
        return str(first[0])[:len(text)]

    def _indexed_page(self, query: Query, match: str, where: str) -> Page:
        """The page of a free-text filter through the store's text index (see the module);
        ``where``: the other filters' condition on the index's rows ``r``."""
        _, text, text_args = self._text_condition(query)
        # CROSS JOIN keeps this order: the index, the rows' filters, then the stored text
        base = (f"FROM {TEXT_TABLE} CROSS JOIN rows r ON r.record = {TEXT_TABLE}.rowid "
                f"CROSS JOIN s.judgments j ON j.rowid = r.record WHERE {TEXT_TABLE} MATCH ? "
                f"AND {where}{text}")
        every = [match, *text_args]
        total = int(self._one(f"SELECT count(*) FROM (SELECT 1 {base} LIMIT ?)",
                              [*every, TEXT_COUNT_CAP])[0])
        columns = ", ".join(f"r.{c}" for c in LIST_COLUMNS)
        # judgments in the store's order, each one's rows by id from the rows_record index
        # (record, then id): the rows' id order, with no sort of every match
        order = _order_by(query.sort) or f"{TEXT_TABLE}.rowid"
        found = self._all(f"SELECT {columns} {base} ORDER BY {order} "
                          "LIMIT ? OFFSET ?", [*every, query.limit, query.offset])
        rows = [dict(zip(LIST_COLUMNS, values, strict=True)) for values in found]
        return Page(rows, total, total >= TEXT_COUNT_CAP, query.offset, query.limit)

    def _scan_page(self, query: Query, where: str, args: list[Any]) -> Page:
        """The page of a free-text filter by reading the text of every row that ``where``
        (with ``args``) keeps."""
        join, text, text_args = self._text_condition(query)
        base = f"FROM rows r {join} WHERE {where}{text}"
        total = int(self._one(f"SELECT count(*) FROM (SELECT 1 {base} LIMIT ?)",
                              [*args, *text_args, TEXT_COUNT_CAP])[0])
        columns = ", ".join(f"r.{c}" for c in LIST_COLUMNS)
        found = self._all(f"SELECT {columns} {base} ORDER BY {_order_by(query.sort) or 'r.id'} "
                          "LIMIT ? OFFSET ?",
                          [*args, *text_args, query.limit, query.offset])
        rows = [dict(zip(LIST_COLUMNS, values, strict=True)) for values in found]
        return Page(rows, total, total >= TEXT_COUNT_CAP, query.offset, query.limit)


def _order_by(sort: str | None) -> str | None:
    """The SQL order of a sort (a name of :data:`assay.view._query.SORTABLE`, checked when the
    query was parsed) over the index's rows ``r``: no value last, ties by id."""
    if sort is None:
        return None
    name = sort.removeprefix("-")
    direction = "DESC" if sort.startswith("-") else "ASC"
    return f"r.{name} IS NULL, r.{name} {direction}, r.id"


def ascii_lower(text: str) -> str:
    """``text`` with its ASCII capitals in lower case, as SQLite's ``lower`` (without ICU)
    writes it; other letters are left as they are.

    >>> ascii_lower("ÉCLAIR Éclair")
    'Éclair Éclair'
    """
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def trigram_query(text: str) -> str:
    """The trigram index query of a text of three characters or more: the text as one
    phrase (FTS5 syntax; the tokenizer turns it into its trigrams).

    >>> trigram_query('say "hi" now')
    '"say ""hi"" now"'
    """
    return _phrase(text)


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
