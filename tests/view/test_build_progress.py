"""The first open of a store shows how far its index is, phase by phase; building it a few
judgments at a time (for those reports) writes the same index as building it at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.cli import _terminal, main
from assay.view import PHASES, JudgmentIndex, _build_store, _build_table, _build_text, parse_query
from assay.view import _build as build
from tests.view.conftest import write_csv


def _view(args: list[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["view", *args])
    assert done.value.code in (0, None)


def test_plain_mode_names_every_phase_with_its_count_then_nothing_on_reopen(
        small_store, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    monkeypatch.setattr(_terminal, "PLAIN_AFTER_S", 0.0)  # a small store indexes in milliseconds
    _view([str(small_store), "--filter", "item=q1", "--export", str(tmp_path / "a.html")])
    first = capsys.readouterr()
    lines = [line for line in first.err.splitlines() if line.strip()]
    # one line per phase (each ends at once), in order, with its count: 7 judgments, 8 rows
    assert [line.split(":")[1].strip() for line in lines] == list(PHASES)
    assert lines[0].startswith("assay view: reading rows: 7 judgments in ")
    assert lines[1].startswith("assay view: filter columns: 8 rows in ")
    assert lines[3].startswith("assay view: text index: 7 judgments in ")
    assert "wrote" in first.out and "indexing" in first.out
    _view([str(small_store), "--filter", "item=q2", "--export", str(tmp_path / "b.html")])
    assert capsys.readouterr().err == ""  # the cached index: nothing to build


def test_a_quick_build_prints_no_progress_in_plain_mode(small_store, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CI", "true")
    _view([str(small_store), "--export", str(tmp_path / "a.html")])
    assert capsys.readouterr().err == ""  # under PLAIN_AFTER_S: the user waited for nothing


def test_a_slow_phase_prints_a_line_every_few_seconds_with_its_eta(monkeypatch, capsys):
    clock = iter([0.0, 6.0, 12.0, 13.0])
    monkeypatch.setattr(_terminal.time, "monotonic", lambda: next(clock))
    monkeypatch.setenv("CI", "true")
    with _terminal.counted("x: ") as show:
        show("text index", 0, 400, "judgments")
        show("text index", 100, 400, "judgments")  # 6 s in: a line, 3 times as long to go
        show("text index", 200, 400, "judgments")
        show("text index", 300, 400, "judgments")  # 13 s: under 5 s since the last line
    assert capsys.readouterr().err.splitlines() == [
        "x: text index: 100 of 400 judgments, 17 judgments/s, ETA 18 s",
        "x: text index: 200 of 400 judgments, 17 judgments/s, ETA 12 s"]


def _contents(path: Path) -> dict[str, object]:
    conn = sqlite3.connect(path)
    try:
        return {
            "rows": conn.execute("SELECT * FROM rows ORDER BY id").fetchall(),
            "codes": conn.execute("SELECT name, data FROM codes ORDER BY name").fetchall(),
            "vocabulary": conn.execute("SELECT * FROM vocabulary ORDER BY name, code").fetchall(),
            "terms": conn.execute(f"SELECT term, doc, cnt FROM {_build_text.TERMS_TABLE} ORDER BY term")
            .fetchall() if _build_text.TERMS_TABLE in {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master")} else None,
        }
    finally:
        conn.close()


def test_a_store_built_two_judgments_at_a_time_is_the_store_built_at_once(small_store, tmp_path,
                                                                          monkeypatch):
    store = small_store / "judgments.sqlite"
    with sqlite3.connect(store) as conn:  # a gap in the rowids, as a replaced judgment leaves
        conn.execute("DELETE FROM judgments WHERE key = 'k11'")
    whole = tmp_path / "whole.sqlite"
    _build_store.build_store_index(store, whole)
    for module in (build, _build_store, _build_text):  # each phase reads its own CHUNK
        monkeypatch.setattr(module, "CHUNK", 2)
    seen: list[build.BuildProgress] = []
    parts = tmp_path / "parts.sqlite"
    _build_store.build_store_index(store, parts, progress=seen.append)
    assert _contents(parts) == _contents(whole)
    assert len(_contents(whole)["rows"]) == 7
    # rowids 1, 2, 4, 5, 6, 7 (3 deleted) in ranges of two ids: 2, 1, 2 and 1 judgments
    assert [p.done for p in seen if p.phase == "reading rows"] == [0, 2, 3, 5, 6]
    # the text index is one statement (FTS5 writes a segment per statement), counted every 2
    assert [p.done for p in seen if p.phase == "text index"] == [0, 2, 4, 6]


def test_a_table_built_a_few_rows_at_a_time_is_the_table_built_at_once(tmp_path, monkeypatch):
    rows = [{"item": f"q{i}", "arm": "ab"[i % 2], "judge": "J", "criterion": "c",
             "score": i % 3, "reasoning": f"row {i}"} for i in range(7)]
    table = write_csv(tmp_path / "t.csv", rows)
    seen: list[build.BuildProgress] = []
    with JudgmentIndex(table, progress=seen.append) as index:
        whole = index.page(parse_query({"limit": ["50"]})).rows
    for module in (build, _build_table):  # each phase reads its own CHUNK
        monkeypatch.setattr(module, "CHUNK", 3)
    with JudgmentIndex(table) as index:
        assert index.page(parse_query({"limit": ["50"]})).rows == whole
    assert [(p.phase, p.done) for p in seen if p.done == p.total] == [
        ("reading rows", 7), ("filter columns", 7), ("order flips", 7)]


def test_a_table_says_its_text_filter_reads_every_row_and_finds_text_inside_a_word(tmp_path):
    rows = [{"item": f"q{i}", "arm": "a", "judge": "J", "criterion": "c", "score": 1,
             "reasoning": f"covers point {i}7 of it"} for i in range(30)]
    with JudgmentIndex(write_csv(tmp_path / "t.csv", rows)) as index:
        said = index.summary()["text_search"]
        found = index.page(parse_query({"q": ["OINT 17"]})).rows  # inside a word, any case
        tables = {name for (name,) in index._all("SELECT name FROM sqlite_master")}
    assert index.kind == "table" and index.text_search == "scan"
    assert "no text index" in said and "reads the text of every row" in said
    assert _build_text.TEXT_TABLE not in tables  # as the page says: nothing but the rows to read
    assert [r["item"] for r in found] == ["q1", "q17"]  # point 17, point 177


def test_a_terminal_draws_a_bar_per_phase_with_its_count(small_store, monkeypatch):
    import io

    from rich.console import Console

    buffer = io.StringIO()
    monkeypatch.setattr(_terminal, "err_console", Console(file=buffer, force_terminal=True,
                                                          width=120))
    monkeypatch.delenv("CI", raising=False)
    with _terminal.counted("assay view: ") as show:
        JudgmentIndex(small_store, progress=lambda p: show(p.phase, p.done, p.total,
                                                           p.unit)).close()
    drawn = buffer.getvalue()
    assert all(phase in drawn for phase in PHASES)
    assert "7/7" in drawn and "8/8" in drawn and "judgments/s" in drawn
