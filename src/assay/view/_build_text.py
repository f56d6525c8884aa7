"""The full-text index of a run store's judgments (what the free-text filter searches).

A store's index also holds a full-text index of each judgment's text (the rows as stored,
the raw reply and the error: what the free-text filter searches): an FTS5 table with
SQLite's ``trigram`` tokenizer (SQLite 3.34+), which indexes every three-character window of
the text, case folded, so any text of three characters or more is looked up, wherever it
starts (:mod:`assay.view._pages` says how a query uses it, and how text of one or two
characters is found through the index's list of trigrams). Each column is indexed with two
``\x01`` characters after it, so that a character near the end of a text still starts a
trigram, and with each NUL character as ``\x01`` (the tokenizer stops at a NUL; a query's
NUL is looked up as ``\x01`` too, and the exact test then tells them apart). The index is
written in one transaction with large in-memory segments and no merging (``hashsize``,
``automerge``), which took 100,000 judgments from 6.5 s to 2.3 s on this machine (the word
index it replaces: 1.5 s, but it found text inside a word only by reading every judgment). A
million judgments index in 70 s into 1.1 GB on an idle machine with 2 cores
(``bench/bench_view.py``; the whole index was 31.9 s with the word index). When the user's
SQLite has no trigram tokenizer, the index falls back to the ``unicode61`` word index, and
when it has no FTS5 at all, to none; :data:`TEXT_SEARCH` names each, and the page says which
one it uses. A table's index (kept in the cache like a store's, rebuilt at every open of a table
read with ``--map`` and the like) has no text index: its free-text filter
reads the rows (on 200,000 rows, 0.3-0.5 s a filter under a load of 4, where a text index
would add some 6 s to every open).
"""

from __future__ import annotations

import sqlite3

from assay.view._build import CHUNK, PHASES, BuildProgress, Progress

TEXT_TABLE = "text"
"""The full-text index of a store's judgments (rowid = the judgment's rowid in the store)."""
TERMS_TABLE = "text_terms"
"""The list of the full-text index's terms (an ``fts5vocab`` table)."""
TEXT_COLUMNS: tuple[str, ...] = ("rows", "raw_response", "error")
"""The store's columns the free-text filter searches."""
TEXT_PAD = "\x01\x01"
"""Indexed after each column's text (see the module docstring)."""
TRIGRAM = "trigram"
"""The tokenizer of the full-text index when SQLite has it (a test names a missing one)."""
TEXT_SEARCH: dict[str, str] = {
    "trigram": "any text of 3 characters or more is looked up in the trigram index; "
               "1 or 2 characters through its list of trigrams",
    "words": "words are looked up in a word index (this SQLite has no trigram tokenizer, "
             "SQLite 3.34 or later has): text inside a word reads every judgment",
    "none": "every free-text filter reads every judgment (this SQLite has no FTS5)",
    "scan": "a judgments table has no text index: every free-text filter reads the text of "
            "every row (its index is rebuilt whenever the table changes, where indexing the "
            "text would take longer than the reads it saves)",
}
"""How the free-text filter of an index finds text, by the kind recorded in its ``info``."""
_HASH_BYTES = 64 * 1024 * 1024


def _text_kind(conn: sqlite3.Connection) -> str:
    """``trigram`` when this SQLite's FTS5 has the trigram tokenizer, else ``words`` (FTS5
    without it) or ``none`` (no FTS5)."""
    for kind, tokenizer in (("trigram", TRIGRAM), ("words", "unicode61")):
        try:
            conn.execute(f"CREATE VIRTUAL TABLE temp.probe USING fts5(x, tokenize='{tokenizer}')")
        except sqlite3.OperationalError:
            continue
        conn.execute("DROP TABLE temp.probe")
        return kind
    return "none"


def _nul_free(text: str | None) -> str | None:
    return text.replace("\x00", "\x01") if text is not None and "\x00" in text else text


def _index_text(conn: sqlite3.Connection, total: int, progress: Progress) -> str:
    """The full-text index of every judgment of the attached store ``s`` (contentless: it
    points at the store's rows, whose text stays in the store); returns its kind."""
    kind = _text_kind(conn)
    conn.execute("CREATE INDEX rows_record ON rows (record)")  # a text match's rows
    if kind == "none":
        return kind
    progress(BuildProgress("text index", 0, total, PHASES["text index"]))
    columns = ", ".join(TEXT_COLUMNS)
    tokenizer = TRIGRAM if kind == "trigram" else "unicode61"
    conn.execute(f"CREATE VIRTUAL TABLE {TEXT_TABLE} USING fts5({columns}, content='', "
                 f"tokenize='{tokenizer}')")
    # one bulk load: large in-memory segments, merged never (a query reads a few dozen)
    conn.execute(f"INSERT INTO {TEXT_TABLE} ({TEXT_TABLE}, rank) VALUES ('automerge', 0)")
    conn.execute(f"INSERT INTO {TEXT_TABLE} ({TEXT_TABLE}, rank) VALUES ('hashsize', ?)",
                 (_HASH_BYTES,))
    # the trigram tokenizer stops at a NUL: index it as \x01 (a query's NUL looks up \x01);
    # SQLite's replace() cannot name a NUL (char(0) has length 0), so Python replaces it
    conn.create_function("nul_free", 1, _nul_free, deterministic=True)
    # One statement, counted from inside it: FTS5 flushes its in-memory segment at the end of
    # every statement (a statement savepoint), so a statement per CHUNK judgments wrote one small
    # segment each (1 M judgments: 63.7 s and 1,333 MiB, against 43.8 s and 1,072 MiB at once)
    done = 0

    def counted(rowid: int) -> int:
        nonlocal done
        done += 1
        if done % CHUNK == 0 and done < total:  # the last count is told once, below
            progress(BuildProgress("text index", done, total, PHASES["text index"]))
        return rowid

    conn.create_function("counted", 1, counted)
    padded = ", ".join(f"nul_free({c}) || :pad" for c in TEXT_COLUMNS)
    done = conn.execute(f"INSERT INTO {TEXT_TABLE} (rowid, {columns}) SELECT counted(rowid), {padded} "
                        "FROM s.judgments", {"pad": TEXT_PAD}).rowcount
    progress(BuildProgress("text index", done, total, PHASES["text index"]))
    conn.execute(f"CREATE VIRTUAL TABLE {TERMS_TABLE} USING fts5vocab({TEXT_TABLE}, 'row')")
    return kind
