"""The free-text filter of a run store goes through the store's word index: the same rows
as reading every judgment's text, without reading it (a rare word among a million at once)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.judge.engine import RunStore
from assay.view import JudgmentIndex, parse_query
from assay.view._build import TEXT_TABLE, cache_folder
from tests.view.big_store import write_big_store
from tests.view.conftest import HOSTILE_ITEM, _put

QUERIES = ["trial 2", "TRIAL", "reply is not", "<script>", 'winner": 1', "window.pwned = 3",
           "100% fine", "is fine", "q2", "of q", "fine_ish", "pwned"]


def _no_scan(index: JudgmentIndex):
    def refuse(query):
        raise AssertionError(f"read every judgment for {query.text!r}")
    index._scan_page = refuse  # type: ignore[method-assign]


@pytest.mark.parametrize("text", QUERIES)
def test_words_find_what_reading_every_judgment_finds(small_store, text):
    with JudgmentIndex(small_store) as index:
        query = parse_query({"q": [text]})
        expected = index._scan_page(query)
        _no_scan(index)
        page = index.page(query)
    assert expected.total > 0
    assert page.total == expected.total and page.rows == expected.rows


def test_a_rare_word_among_many_judgments_is_looked_up_not_scanned(tmp_path):
    folder = write_big_store(tmp_path / "run", 3000)
    with JudgmentIndex(folder) as index:
        cached = next(cache_folder().glob("*.sqlite"))
        with sqlite3.connect(cached) as conn:
            assert conn.execute(f"SELECT count(*) FROM {TEXT_TABLE} WHERE {TEXT_TABLE} MATCH "
                                "'\"point 2345\"'").fetchone() == (1,)
        _no_scan(index)
        rare = index.page(parse_query({"q": ["POINT 2345 of"]}))
        common = index.page(parse_query({"q": ["covers point"], "judge": ["judge1"],
                                         "offset": ["10"], "limit": ["5"]}))
    assert rare.total == 1 and rare.rows[0]["id"] == 2346 and not rare.capped
    assert common.total == 1000 and common.capped  # the count stops at the cap, as before
    assert len(common.rows) == 5 and {r["judge"] for r in common.rows} == {"judge1"}


def test_text_inside_a_word_or_without_a_word_reads_the_judgments(small_store):
    with JudgmentIndex(small_store) as index:
        assert index.page(parse_query({"q": ["e_is"]})).total == 2   # fin(e_is)h
        assert index.page(parse_query({"q": ["ial 2 of"]})).total == 2
        assert index.page(parse_query({"q": ["%"]})).total == 2


def test_a_changed_store_has_its_new_text_indexed(small_store):
    with JudgmentIndex(small_store) as index:
        assert index.page(parse_query({"q": ["zebra"]})).total == 0
    with RunStore(small_store) as store:
        _put(store, "new", "t", [{"item": HOSTILE_ITEM, "arm": "rag", "criterion": "c",
                                  "score": 1.0, "reasoning": "a zebra crossing"}])
    with JudgmentIndex(small_store) as index:
        _no_scan(index)
        page = index.page(parse_query({"q": ["Zebra cross"]}))
    assert page.total == 1 and page.rows[0]["item"] == HOSTILE_ITEM


def test_the_index_file_holds_no_copy_of_the_text(small_store):
    with JudgmentIndex(small_store):
        pass
    cached = next(cache_folder().glob("*.sqlite"))
    assert b"trial 1 of q2" not in Path(cached).read_bytes()  # contentless: words only
