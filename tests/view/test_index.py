"""The viewer's queries on a run store and on a judgments table: filters, pages, counts, details."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

import pytest

from assay.errors import ConfigError, InputError
from assay.llm import RunStore
from assay.view import JudgmentIndex, parse_filter_options, parse_query, view_url
from tests.view.conftest import HOSTILE_ARM, HOSTILE_ITEM, HOSTILE_REASONING, _put


def _page(index: JudgmentIndex, **params: list[str]):
    return index.page(parse_query(params))


def _fields(detail: dict) -> dict[str, object]:
    return {f[0]: f[1] for s in detail["sections"] for f in s["fields"]}


def test_a_store_lists_every_row_of_every_judgment_in_storing_order(small_store):
    with JudgmentIndex(small_store) as index:
        page = _page(index)
        assert index.kind == "store" and index.count == 8 and page.total == 8
        assert [r["item"] for r in page.rows] == ["q1", "q1", "q2", "q2", HOSTILE_ITEM, HOSTILE_ITEM,
                                                  "q1", "q1"]
        assert [r["criterion"] for r in page.rows[-2:]] == ["clarity", "depth"]


def test_a_planned_store_lists_its_rows_in_plan_order_whatever_order_they_were_answered_in(tmp_path):
    """A concurrent run stores judgments as they are answered: the index follows the plan."""
    plan = ["k3", "k1", "k2"]
    pages = []
    for name, order in (("a", ["k1", "k2", "k3"]), ("b", ["k2", "k3", "k1"])):
        with RunStore(tmp_path / name, config={"judge": "m"}) as store:
            store.set_plan(plan)
            for key in order:
                rows = [{"item": f"q{key[1]}", "arm": "rag", "run": 1, "judge": "j", "criterion": c,
                         "score": 1.0} for c in ("depth", "clarity")]  # two rows: the json_each path
                _put(store, key, "{}", rows[:1] if key == "k2" else rows)
        with JudgmentIndex(tmp_path / name) as index:
            pages.append([(r["item"], r["criterion"]) for r in _page(index).rows])
    assert pages[0] == [("q3", "depth"), ("q3", "clarity"), ("q1", "depth"), ("q1", "clarity"),
                        ("q2", "depth")]
    assert pages[1] == pages[0]


@pytest.mark.parametrize(("params", "expected"), [
    ({"judge": ["gpt-j"]}, 6),
    ({"judge": ["gpt-j"], "item": ["q1"]}, 2),
    ({"item": ["q1", "q2"]}, 6),                      # a repeated filter: any of its values
    ({"arm": [HOSTILE_ARM]}, 2),
    ({"criterion": ["depth"]}, 1),
    ({"task": ["t1"]}, 6),
    ({"verdict": ["failed"]}, 1),
    ({"verdict": ["scored"]}, 7),
    ({"verdict": ["win"]}, 3),                        # pairwise 1: not the rubric's scores
    ({"verdict": ["tie"]}, 2),
    ({"verdict": ["4"]}, 1),
    ({"failure_kind": ["parse_error"]}, 1),
    ({"failure_kind": ["none"]}, 7),
    ({"q": ["TRIAL 2"]}, 2),                          # free text, any case
    ({"q": ["100%"]}, 2),                             # % and _ are literal, not wildcards
    ({"q": ["e_is"]}, 2),
    ({"q": ["1_0"]}, 0),
    ({"q": ["reply is not json"]}, 1),                # the stored error is searched too
    ({"opponent": ["base"], "verdict": ["failed", "win"]}, 4),
])
def test_filters_count_what_they_match(small_store, params, expected):
    with JudgmentIndex(small_store) as index:
        page = _page(index, **params)
    assert page.total == expected and len(page.rows) == expected and not page.capped


def test_pages_follow_offset_and_limit(small_store):
    with JudgmentIndex(small_store) as index:
        ids = [r["id"] for r in _page(index).rows]
        second = _page(index, offset=["3"], limit=["3"])
    assert [r["id"] for r in second.rows] == ids[3:6] and second.total == 8


def test_a_pairwise_row_shows_its_counterbalanced_partner_and_the_judge_call(small_store):
    with JudgmentIndex(small_store) as index:
        first = _page(index, item=["q2"]).rows[0]
        detail = index.detail(first["id"])
    partner = detail["partners"]
    assert [(p["position"], p["run"], p["score"], p["failure_kind"]) for p in partner] == [
        (2, 2, None, "parse_error")]
    fields = _fields(detail)
    assert fields["Prompt tokens"] == 121 and fields["Cost (USD)"] == 0.0021
    assert fields["Attempts"] == 1 and fields["Retries"] == 0 and fields["Position of the system"] == 1
    assert fields["Raw reply"] == "reply 1.1" and fields["Reasoning"] == "trial 1 of q2"
    assert fields["Rendered prompt"] == "[system]\nYou are a judge.\n\n[user]\njudge q2 trial 1"
    assert fields["Split"] is None  # not in the store: the page says "not recorded"


def test_a_failed_judgment_shows_its_error_and_retries(small_store):
    with JudgmentIndex(small_store) as index:
        failed = _page(index, verdict=["failed"]).rows[0]
        fields = _fields(index.detail(failed["id"]))
    assert fields["Error"] == "reply is not JSON" and fields["Failure kind"] == "parse_error"
    assert fields["Parsed score"] is None and fields["Retries"] == 2


def test_the_rows_of_one_call_point_at_each_other(small_store):
    with JudgmentIndex(small_store) as index:
        clarity, depth = _page(index, judge=["rubric-j"]).rows
        detail = index.detail(clarity["id"])
    assert detail["same_call"] == [depth["id"]] and detail["partners"] == []
    assert _fields(detail)["Parsed score"] == 4.0


def test_hostile_text_comes_back_as_stored(small_store):
    with JudgmentIndex(small_store) as index:
        row = _page(index, arm=[HOSTILE_ARM]).rows[0]
        assert _fields(index.detail(row["id"]))["Reasoning"] == HOSTILE_REASONING


def test_a_table_is_indexed_with_all_its_columns(tmp_path):
    table = tmp_path / "scores.csv"
    table.write_text("item,arm,judge,score,reasoning,usd,teacher\nq1,a,j,1,fine,0.5,x\n"
                     "q2,a,j,0,wrong 50%,,y\nq1,b,j,1,ok,,z\n")
    with JudgmentIndex(table) as index:
        assert index.kind == "table" and index.count == 3
        assert _page(index, q=["50%"]).total == 1
        fields = _fields(index.detail(_page(index, arm=["a"]).rows[0]["id"]))
        assert {s for s in ("Prompt tokens", "Raw reply") if s in fields} == {"Raw reply"}
        assert fields["Reasoning"] == "fine" and fields["Cost of the answer (USD)"] == 0.5
        assert fields["Raw reply"] is None and fields["Item generated by"] == "x"
        assert fields["Rendered prompt, tokens, cost, latency, retries"] is None
        assert index.facets()["arm"] == [["a", 2], ["b", 1]]


def test_a_second_open_reads_the_cached_index_and_a_changed_store_is_indexed_again(small_store, tmp_path):
    with JudgmentIndex(small_store) as index:
        assert index.count == 8
    cached = list((Path(os.environ["ASSAY_CACHE_DIR"]) / "view").glob("*.sqlite"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    with JudgmentIndex(small_store) as index:
        assert index.count == 8
    assert cached[0].stat().st_mtime_ns == stamp  # not rebuilt
    with RunStore(small_store) as store:
        _put(store, "new", "t", [{"item": "q9", "arm": "rag", "criterion": "c", "score": 1.0}])
    with JudgmentIndex(small_store) as index:
        assert index.count == 9 and _page(index, item=["q9"]).total == 1


def test_the_store_is_left_as_it_was(small_store):
    before = {p.name: p.read_bytes() for p in small_store.iterdir()}
    with JudgmentIndex(small_store) as index:
        _page(index, q=["x"])
        index.detail(1)
    assert {p.name: p.read_bytes() for p in small_store.iterdir()} == before


def test_sources_that_cannot_be_read_name_the_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        JudgmentIndex(tmp_path / "missing")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "judgments.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(InputError, match=r"judgments\.sqlite: is not a readable run store"):
        JudgmentIndex(bad)


@pytest.mark.parametrize(("params", "message"), [
    ({"judges": ["x"]}, "unknown filter 'judges'"),
    ({"offset": ["-1"]}, "offset=-1: expected 0 to"),
    ({"limit": ["lots"]}, "limit='lots': expected a whole number"),
    ({"verdict": ["great"]}, "verdict='great': expected a score"),
])
def test_bad_queries_are_refused_with_one_line(small_store, params, message):
    with JudgmentIndex(small_store) as index, pytest.raises(ConfigError, match=message):
        _page(index, **params)


def test_filter_options_and_links_use_the_same_names():
    assert parse_filter_options(["judge=a,item=q1", "item=q 2"]) == {"judge": ["a"], "item": ["q1", "q 2"]}
    with pytest.raises(ConfigError, match=r"--filter jugde=\.\.\.: unknown filter"):
        parse_filter_options(["jugde=a"])
    with pytest.raises(ConfigError, match="expected NAME=VALUE"):
        parse_filter_options(["judge"])
    assert view_url("http://127.0.0.1:1/", item=["a&b", "c"]) == "http://127.0.0.1:1/?item=a%26b&item=c"


def _old_store(folder: Path) -> Path:
    """A run store as assay wrote it before prompts were kept: no ``prompts`` table."""
    import json
    import sqlite3

    from assay.data.run_store import STORE_TABLES

    folder.mkdir()
    old_tables = STORE_TABLES.replace(
        "CREATE TABLE IF NOT EXISTS prompts (key TEXT PRIMARY KEY, messages TEXT NOT NULL);", "")
    assert "prompts" not in old_tables
    conn = sqlite3.connect(folder / "judgments.sqlite")
    conn.executescript(old_tables)
    conn.execute("INSERT INTO info VALUES ('format', '1')")
    conn.execute("INSERT INTO judgments (key, failed, rows, raw_response, tokens_in) VALUES (?, 0, ?, ?, 7)",
                 ("old1", json.dumps([{"item": "q1", "arm": "a", "criterion": "c", "score": 3.0,
                                       "$raw_response": 1}]), "3"))
    conn.commit()
    conn.close()
    return folder


def test_an_old_store_without_prompts_opens_keeps_its_rows_and_says_not_recorded(tmp_path):
    from assay.llm import ChatRequest, Reply

    old = _old_store(tmp_path / "old")
    with JudgmentIndex(old) as index:  # read-only: the old file is not changed to show it
        assert _fields(index.detail(1))["Rendered prompt"].startswith("not recorded")
    with RunStore(old) as store:  # opened for writing: gains the table, keeps every row
        assert store.counts().stored == 1 and store.prompt("old1") is None
        store.put(ChatRequest(key="new1", messages=(("user", "rate <q2>"),)), Reply("new1", None, "4"),
                  [{"item": "q2", "arm": "a", "criterion": "c", "score": 4.0}])
        assert store.prompt("new1") == (("user", "rate <q2>"),)
        assert store.to_frame()["score"].tolist() == [3.0, 4.0]
    with JudgmentIndex(old) as index:
        assert _fields(index.detail(1))["Rendered prompt"].startswith("not recorded")
        assert _fields(index.detail(2))["Rendered prompt"] == "[user]\nrate <q2>"


def test_the_flipped_filter_keeps_the_trial_pairs_whose_verdict_changes(small_store):
    # the small store's pairs: q1 and the hostile item win at position 1 and tie at 2 (a
    # flip: win -> tie); q2's second trial failed (no pair); the rubric rows have no order
    with JudgmentIndex(small_store) as index:
        flipped = index.page(parse_query({"flipped": ["yes"]}))
        held = index.page(parse_query({"flipped": ["no"]}))
        facets = index.facets()["flipped"]
        with pytest.raises(ConfigError, match="flipped='maybe': expected yes or no"):
            index.page(parse_query({"flipped": ["maybe"]}))
    assert sorted((r["item"], r["run"]) for r in flipped.rows) == sorted(
        (item, run) for item in ("q1", HOSTILE_ITEM) for run in (1, 2))
    assert held.total == 0 and facets == [["yes", 4]]


def test_split_and_reportable_filters_and_the_header_follow_the_reports_rule(tmp_path):
    from assay.data.io import load
    from assay.data.schema import Scale
    from tests.view.conftest import write_csv

    rows = []
    for i, (split, level) in enumerate([("test", 0), ("test", 2), ("test", 2), ("dev", 0)]):
        for run in (1, 2):  # q1 has one failed run: its unit's mean is of the other
            failed = i == 0 and run == 2
            rows.append({"item": f"q{i}", "arm": "a", "opponent": "", "position": "", "run": run,
                         "split": split, "judge": "J", "criterion": "help",
                         "score": "" if failed else level, "failure_kind": "timeout" if failed else ""})
    # a trial pair whose second trial is of the dev split: no pair for a report, nor here
    for run, split, score in ((1, "test", 1.0), (2, "dev", 0.0)):
        rows.append({"item": "p1", "arm": "a", "opponent": "b", "position": run, "run": run,
                     "split": split, "judge": "P", "criterion": "pref", "score": score,
                     "failure_kind": ""})
    path = write_csv(tmp_path / "t.csv", rows)
    table = load(path, scales={"help": Scale.parse("ordinal:bad,ok,good"),
                               "pref": Scale.parse("range:0,1")})
    with JudgmentIndex(path, table=table) as index:
        total = {q: index.page(parse_query(urllib.parse.parse_qs(q))).total for q in (
            "reportable=yes", "reportable=no", "split=dev", "verdict=failed&reportable=yes",
            "flipped=yes", "flipped=yes&reportable=yes")}
        header = index.summary()["systems"]
    assert total == {"reportable=yes": 7, "reportable=no": 3, "split=dev": 3,
                     "verdict=failed&reportable=yes": 1, "flipped=yes": 0,
                     "flipped=yes&reportable=yes": 0}
    a = next(s for s in header["systems"] if s["arm"] == "a")
    help_at = [c["name"] for c in header["criteria"]].index("help")
    # reportable units q0 (one run, level 0), q1 and q2 (level 2 twice): on [0, 1] 0, 1, 1
    assert a["scores"][help_at] == [pytest.approx(2 / 3), 5]
    assert a["rows"] == 7 and a["failed"] == 1 and header["left_out"] == 3
    assert header["criteria"][help_at]["scale"] == "[0, 1]"
