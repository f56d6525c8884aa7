"""The free-text filter of a run store goes through the store's trigram index: exactly the
rows of the substring test (``LIKE``: case-insensitive for ASCII letters only) on every
judgment's text, without reading it, for text of any length, hostile or not ASCII."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.llm import RunStore
from assay.view import JudgmentIndex, parse_query
from assay.view._build_text import TEXT_TABLE
from assay.view._cache import cache_folder
from tests.view.big_store import write_big_store
from tests.view.conftest import HOSTILE_ITEM, _put, write_small_store

ODD_REPLIES = ["Éclair ÉCLAIR éclair", "straße STRASSE", "İstanbul ıi", "ΣΊΣΥΦΟΣ σίσυφος ς",
               "emoji 🙂🙃 end🙂", 'NEAR(a b) AND "x" OR y* ^col: -z', "back\\slash 50% a_b",
               "e\u0301 combining", "ends in ab", "x", "\x1b[31mred\x1b[0m",
               "before\x00after the NUL"]

QUERIES = ["trial 2", "TRIAL", "reply is not", "<script>", 'winner": 1', "window.pwned = 3",
           "100% fine", "is fine", "q2", "of q", "fine_ish", "pwned", "e_is", "ial 2 of", "%",
           "rial", "zebra", "éclair", "ÉCLAIR", "Éclair", "eclair", "STRASSE", "straße", "ß",
           "İst", "ıi", "istanbul", "σίσυφος", "ΣΊΣΥΦΟΣ", "ς", "Σ", "🙂", "🙂🙃", "d🙂", "NEAR(a",
           'AND "x"', "y*", "^col:", "-z", "\\", "\\s", "50%", "a_b", "_", "e\u0301", "\u0301",
           "ab", "b", "AB", "x", "X", "n", "nd", "zz", "\x1b", "\\u001b", '"', '""', "'", "*",
           "\x00", "e\x00a", "after the nul", "\x00\x01", "1", "\\u0000", "}]", "]", " ", "a"]


def _ascii_folded(text: str) -> str:
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _brute_force(folder: Path, index: JudgmentIndex, text: str) -> list[int]:
    """The index rows whose judgment holds ``text`` in its stored text, ASCII case aside:
    read from the store by Python, not by the viewer."""
    needle = _ascii_folded(text)
    with sqlite3.connect(folder / "judgments.sqlite") as conn:
        records = {rowid for rowid, *fields in
                   conn.execute("SELECT rowid, rows, raw_response, error FROM judgments")
                   if any(f is not None and needle in _ascii_folded(f) for f in fields)}
    cached = next(cache_folder().glob("*.sqlite"))
    with sqlite3.connect(cached) as conn:
        return sorted(i for i, record in conn.execute("SELECT id, record FROM rows")
                      if record in records)


def _no_scan(index: JudgmentIndex):
    """Fail on a read of every judgment's text (reading the few rows other filters leave,
    at most FEW_ROWS of them, is allowed)."""
    scan = index._scan_page

    def refuse(query, where, args):
        if "json_each" not in where:
            raise AssertionError(f"read every judgment for {query.text!r}")
        return scan(query, where, args)
    index._scan_page = refuse  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def odd_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_small_store(tmp_path_factory.mktemp("odd") / "run")
    with RunStore(folder) as store:
        for n, reply in enumerate(ODD_REPLIES):
            _put(store, f"odd{n}", reply, [{"item": f"o{n}", "arm": "ärm", "criterion": "c",
                                            "score": 1.0, "reasoning": reply[::-1]}])
    return folder


def test_every_query_finds_exactly_what_reading_every_judgment_finds(odd_store, monkeypatch,
                                                                     tmp_path):
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    with JudgmentIndex(odd_store) as index:
        assert index.text_search == "trigram"
        _no_scan(index)
        for text in QUERIES:
            page = index.page(parse_query({"q": [text], "limit": ["500"]}))
            expected = _brute_force(odd_store, index, text)
            assert [r["id"] for r in page.rows] == expected, text
            assert page.total == len(expected) and not page.capped, text
    found = {text for text in QUERIES if _brute_force_count(odd_store, text)}
    assert {"éclair", "ß", "🙂", "ab", "x", "_", "\\"} <= found  # the test holds matches
    assert not {"eclair", "zebra", "zz"} & found  # and queries without


def _brute_force_count(folder: Path, text: str) -> int:
    needle = _ascii_folded(text)
    with sqlite3.connect(folder / "judgments.sqlite") as conn:
        return sum(any(f is not None and needle in _ascii_folded(f) for f in fields)
                   for fields in conn.execute("SELECT rows, raw_response, error FROM judgments"))


def test_a_query_among_many_judgments_is_looked_up_not_scanned(tmp_path, monkeypatch):
    folder = write_big_store(tmp_path / "run", 3000)
    with JudgmentIndex(folder) as index:
        cached = next(cache_folder().glob("*.sqlite"))
        with sqlite3.connect(cached) as conn:
            assert conn.execute(f"SELECT count(*) FROM {TEXT_TABLE} WHERE {TEXT_TABLE} MATCH "
                                "'\"oint 2345\"'").fetchone() == (1,)
        _no_scan(index)
        rare = index.page(parse_query({"q": ["POINT 2345 of"]}))
        inside = index.page(parse_query({"q": ["oint 2345 o"]}))
        absent = index.page(parse_query({"q": ["zebra crossing"]}))
        short = index.page(parse_query({"q": ["Q3"], "limit": ["500"]}))
        common = index.page(parse_query({"q": ["covers point"], "judge": ["judge1"],
                                         "offset": ["10"], "limit": ["5"]}))
        monkeypatch.setattr("assay.view._pages.FEW_ROWS", 10)  # a filter leaving many rows
        many = index.page(parse_query({"q": ["oint 2345 of"], "judge": ["judge2"]}))
        other = index.page(parse_query({"q": ["oint 2345 of"], "judge": ["judge1"]}))
    assert rare.total == 1 and rare.rows[0]["id"] == 2346 and not rare.capped
    assert inside.rows == rare.rows and absent.total == 0 and not absent.capped
    assert short.total == _brute_force_count(folder, "Q3") == 2 * 96  # item q3's 96 pairs
    assert common.total == 1000 and common.capped  # the count stops at the cap, as before
    assert len(common.rows) == 5 and {r["judge"] for r in common.rows} == {"judge1"}
    assert many.rows == rare.rows and rare.rows[0]["judge"] == "judge2" and other.total == 0


def test_a_changed_store_has_its_new_text_indexed(small_store):
    with JudgmentIndex(small_store) as index:
        assert index.page(parse_query({"q": ["zebra"]})).total == 0
    with RunStore(small_store) as store:
        _put(store, "new", "t", [{"item": HOSTILE_ITEM, "arm": "rag", "criterion": "c",
                                  "score": 1.0, "reasoning": "a zebra crossing"}])
    with JudgmentIndex(small_store) as index:
        _no_scan(index)
        page = index.page(parse_query({"q": ["ebra cross"]}))
    assert page.total == 1 and page.rows[0]["item"] == HOSTILE_ITEM


def test_without_the_trigram_tokenizer_the_word_index_is_named(small_store, monkeypatch):
    monkeypatch.setattr("assay.view._build_text.TRIGRAM", "no_such_tokenizer")
    with JudgmentIndex(small_store) as index:
        assert index.text_search == "words"
        assert "no trigram tokenizer" in index.summary()["text_search"]
        assert index.page(parse_query({"q": ["ial 2 of"]})).total == 2  # read, still right
        _no_scan(index)
        assert index.page(parse_query({"q": ["trial 2"]})).total == 2


def test_the_index_file_holds_no_copy_of_the_text(small_store):
    with JudgmentIndex(small_store):
        pass
    cached = next(cache_folder().glob("*.sqlite"))
    assert b"trial 1 of q2" not in Path(cached).read_bytes()  # contentless: trigrams only
