"""The judgments a viewer shows, and the answers to its queries: :class:`JudgmentIndex`.

Opened on a run folder (``judgments.sqlite``, read-only) or on a judgments table (any file
:func:`assay.data.io.load` reads); see :mod:`assay.view._build` for the index it queries.
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

import itertools
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
from assay.view._build import COLUMNS, FACETS, MAX_FACET_VALUES, Progress
from assay.view._build_store import store_uri
from assay.view._build_table import build_table_index
from assay.view._build_text import TERMS_TABLE, TEXT_PAD, TEXT_SEARCH, TEXT_TABLE
from assay.view._cache import store_index, table_index
from assay.view._columns import FilterColumns
from assay.view._compare import compare_item
from assay.view._detail import judgment_sections, store_judged, table_judged, table_sections
from assay.view._query import FLIPPED, REPORTABLE, Query

if TYPE_CHECKING:
    from assay.data.table import Judgments

TEXT_COUNT_CAP = 1000
"""A free-text filter counts its matches up to this many (then the page says "1,000 or more")."""
MAX_SHORT_TERMS = 500
"""A text of one or two characters starting more trigrams than this reads the judgments."""
FEW_ROWS = 20_000
"""When the other filters leave at most this many rows, a free-text filter reads their text."""

LIST_COLUMNS: tuple[str, ...] = ("id", *(c for c in COLUMNS if c != "reportable"))
"""The columns of a page's rows (whether a row is reportable, as the filter reads it, is
:meth:`JudgmentIndex.reportable`)."""

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
    progress
        Told how far each phase of building the index is (a store's first open, or any
        table's), as :class:`assay.view._build.BuildProgress`.
    table
        The judgments of ``source`` already loaded (a table read with ``--map``, ``--set`` or
        ``--scale``); ``source`` then only names them.
    loader
        Reads the judgments table ``source`` when its index must be built (default:
        :func:`assay.data.io.load`). The index of a table file (not a folder, and not given as
        ``table``) is kept in the cache folder as a store's is, and rebuilt when the file or
        its ``.assay.json`` changes, so the next open neither reads nor checks the table.

    Raises
    ------
    InputError
        When ``source`` does not exist or cannot be read as judgments.
    """

    def __init__(self, source: str | Path, *, on_build: Callable[[str], None] | None = None,
                 progress: Progress | None = None, table: Judgments | None = None,
                 loader: Callable[[], Judgments] | None = None) -> None:
        self.source = Path(source)
        self._temporary: Path | None = None
        if not self.source.exists():
            raise InputError(str(self.source), "no such file or folder")
        self.kind = "store" if table is None and (self.source / STORE_FILENAME).is_file() else "table"
        if self.kind == "store":
            path = store_index(self.source, on_build=on_build, progress=progress)
        elif table is None and self.source.is_file():
            path = table_index(self.source, loader or (lambda: _load(self.source)), progress=progress)
        else:
            if table is None:
                table = (loader or (lambda: _load(self.source)))()
            frame = table.frame
            self._temporary = Path(tempfile.mkdtemp(prefix="assay-view-"))
            path = self._temporary / "index.sqlite"
            build_table_index(frame, path, progress=progress, scales=table.scales)
        self._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        if self.kind == "store":
            self._conn.execute("ATTACH DATABASE ? AS s", (store_uri(self.source / STORE_FILENAME),))
        self._lock = threading.Lock()
        self._prompts = self.kind == "store" and bool(self._all(
            "SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'prompts'"))
        """Whether the store keeps rendered prompts (one written before they were kept does not)."""
        self._shown = self.kind == "store" and bool(self._all(
            "SELECT 1 FROM s.sqlite_master WHERE type = 'table' AND name = 'shown'"))
        """Whether the store keeps what each judgment judged (the question, the answers)."""
        self._positions: np.ndarray | None = None
        self.count = int(self._one("SELECT count(*) FROM rows")[0])
        found = self._all("SELECT value FROM info WHERE name = 'text'")
        self.text_search = str(found[0][0]) if found else "scan"
        """How the free-text filter finds text: a key of :data:`TEXT_SEARCH`."""
        self._fold: sqlite3.Connection | None = None
        self._masks: dict[int, np.ndarray | None] = {}
        self._tokens = itertools.count()
        self._conn.create_function("in_view", 2, self._in_view, deterministic=True)
        with self._lock:
            self._columns = FilterColumns.read(self._conn)
        self._facets: dict[str, list[list[Any]]] | None = None
        self._systems: dict[str, Any] | None = None

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
        """What the page's header says: the source, its kind, how many rows it holds, and per
        system its rows, failures and mean score per criterion (``systems``)."""
        if self._systems is None:  # computed once, as the facets
            self._systems = self._columns.systems()
        return {"source": str(self.source), "kind": self.kind, "rows": self.count,
                "text_search": TEXT_SEARCH[self.text_search], "systems": self._systems}

    def systems_of(self, ids: list[int]) -> dict[str, Any]:
        """The header's per-system counts and means (:meth:`FilterColumns.systems`) over the
        rows ``ids`` only (an export's)."""
        within = np.zeros(self.count, dtype=bool)
        within[np.asarray(ids, dtype=np.int64) - 1] = True
        return self._columns.systems(within=within)

    # -- pages
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

    def flipped(self, row_id: int) -> str | None:
        """``yes`` when the row is in a counterbalanced trial pair that flips, ``no`` in one
        that does not, None in none (the ``flipped`` filter)."""
        code = int(self._columns.flipped[row_id - 1])
        return next((word for word, c in FLIPPED.items() if c == code), None)

    def reportable(self, row_id: int) -> str:
        """``yes`` when a report reads the row, ``no`` when not (the ``reportable`` filter)."""
        code = int(self._columns.reportable[row_id - 1])
        return next(word for word, c in REPORTABLE.items() if c == code)

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
            table_row = json.loads(detail)
            sections = table_sections(table_row)
            judged = table_judged(table_row)
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
            judged = store_judged(rows[part], self._shown_of([fields["key"]]).get(fields["key"]),
                                  fields["messages"])
            first = row_id - part  # a judgment's rows are indexed one after another
            siblings = [first + i for i in range(len(rows)) if first + i != row_id]
        return {"id": row_id, "row": listed, "judged": judged, "sections": sections,
                "partners": partners, "same_call": siblings}

    def _shown_of(self, keys: list[str]) -> dict[str, str]:
        """Judgment key -> its ``shown`` record (JSON) in the store, for those that have one."""
        if not self._shown or not keys:
            return {}
        found = self._all(f"SELECT key, shown FROM s.shown WHERE key IN ({', '.join('?' * len(keys))})",
                          keys)
        return {str(k): str(v) for k, v in found}

    def compare(self, item: str, run: int | None = None) -> dict[str, Any] | None:
        """One item's judgments side by side: the question, the reference, and per system its
        answer and its scores in ``run`` (default: the first run judged); None when no row has
        that item (:func:`assay.view._compare.compare_item`)."""
        keep = self._columns.mask(Query({"item": (item,)}))
        ids = [] if keep is None else [int(i) + 1 for i in np.flatnonzero(keep)]
        if not ids:
            return None
        found = self._all(f"SELECT {', '.join(LIST_COLUMNS)}, record, detail FROM rows WHERE id IN "
                          f"(SELECT value FROM json_each(?)) ORDER BY id", (json.dumps(ids),))
        rows = [dict(zip(LIST_COLUMNS, values[:-2], strict=True)) for values in found]
        if self.kind == "table":
            judged = [table_judged(json.loads(values[-1])) for values in found]
        else:
            records = sorted({int(values[-2]) for values in found})
            keys = dict(self._all("SELECT rowid, key FROM s.judgments WHERE rowid IN "
                                  "(SELECT value FROM json_each(?))", (json.dumps(records),)))
            shown = self._shown_of(sorted({str(k) for k in keys.values()}))
            judged = [store_judged(row, shown.get(str(keys.get(values[-2]))), None)
                      for row, values in zip(rows, found, strict=True)]
        return compare_item(item, rows, judged, run)

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
            if self._fold is not None:
                self._fold.close()
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)

    def __enter__(self) -> JudgmentIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _order_by(sort: str | None) -> str | None:
    """The SQL order of a sort (a name of :data:`assay.view._query.SORTABLE`, checked when the
    query was parsed) over the index's rows ``r``: no value last, ties by id."""
    if sort is None:
        return None
    name = sort.removeprefix("-")
    direction = "DESC" if sort.startswith("-") else "ASC"
    return f"r.{name} IS NULL, r.{name} {direction}, r.id"


def _load(source: Path) -> Judgments:
    from assay.data.io import load

    return load(source)


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
