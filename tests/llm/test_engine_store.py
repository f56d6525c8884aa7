"""The run store and the response cache: keys, insert-or-ignore, plan, export, reload.

Oracles: hashlib over canonical JSON written out by hand, SQLite queried directly (a
separate connection), and assay's own judgments-table validation for the export.
"""

from __future__ import annotations

import hashlib
import sqlite3

import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.errors import InputError, ValidationError
from assay.judge import (
    STORE_FILENAME,
    CachedResponse,
    ChatRequest,
    Reply,
    ResponseCache,
    RunStore,
    cache_key,
    config_hash,
    judgment_key,
    load_store,
)


def test_judgment_key_is_sha256_of_the_canonical_json():
    text = '["c0ffee","gpt-4o","p1","q1",["rag","base"],"relevance",3]'
    expected = hashlib.sha256(text.encode()).hexdigest()[:32]
    assert judgment_key("c0ffee", "q1", ("rag", "base"), "relevance", 3, judge="gpt-4o",
                        prompt_hash="p1") == expected


def test_judgment_key_separates_every_part():
    base = dict(config_hash="h", item="q1", arms=("a", "b"), criterion="c", trial=1)
    keys = {judgment_key(**base)}
    for change in ({"config_hash": "h2"}, {"item": "q2"}, {"arms": ("b", "a")}, {"arms": ("a",)},
                   {"criterion": "d"}, {"trial": 2}):
        keys.add(judgment_key(**{**base, **change}))
    keys.add(judgment_key(**base, judge="j"))
    keys.add(judgment_key(**base, prompt_hash="p"))
    assert len(keys) == 9


def test_config_hash_ignores_key_order():
    assert config_hash({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()


def test_cache_key_covers_model_messages_params_schema_prompt_and_sample():
    args = ("m", [("user", "hi")], {"temperature": 0}, {"type": "object"}, "p", 0)
    keys = {cache_key(*args)}
    for i, other in enumerate(("m2", [("user", "ho")], {"temperature": 1}, None, "p2", 1)):
        changed = list(args)
        changed[i] = other
        keys.add(cache_key(*changed))
    assert len(keys) == 7
    assert cache_key("m", [("user", "hi")], {"a": 1, "b": 2}, None) == \
        cache_key("m", [("user", "hi")], {"b": 2, "a": 1}, None)


def _request(key: str) -> ChatRequest:
    return ChatRequest(key=key, messages=(("user", "x"),))


def _row(item: str, score: float | None, failure: str | None = None) -> dict:
    return {"item": item, "arm": "a", "judge": "j", "criterion": "c", "score": score,
            "failure_kind": failure}


def test_good_judgments_are_never_replaced_failed_ones_are(tmp_path):
    with RunStore(tmp_path, config={"v": 1}) as store:
        assert store.put(_request("k1"), Reply("k1", None, "bad", failure_kind="parse_error"),
                         [_row("q1", None, "parse_error")])
        assert store.put(_request("k1"), Reply("k1", None, "bad again", failure_kind="timeout"),
                         [_row("q1", None, "timeout")])
        assert store.put(_request("k1"), Reply("k1", None, "7"), [_row("q1", 7.0)])
        assert not store.put(_request("k1"), Reply("k1", None, "8"), [_row("q1", 8.0)])
        assert store.status() == {"k1": False}
    con = sqlite3.connect(tmp_path / STORE_FILENAME)
    assert con.execute("SELECT count(*), max(tries), max(raw_response) FROM judgments").fetchone() == \
        (1, 3, "7")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_plan_decides_what_is_exported(tmp_path):
    with RunStore(tmp_path) as store:
        for i in range(4):
            key = f"k{i}"
            store.put(_request(key), Reply(key, None, str(i)), [_row(f"q{i}", float(i))])
        assert store.to_frame()["item"].tolist() == ["q0", "q1", "q2", "q3"]  # no plan: all
        store.set_plan(["k3", "k1", "k9"])
        assert store.to_frame()["item"].tolist() == ["q3", "q1"]  # plan order, planned only
        assert store.to_frame(keys=["k0"])["item"].tolist() == ["q0"]
        assert store.counts().planned == 3 and store.counts().stored == 4


def test_configs_are_kept_and_the_last_is_current(tmp_path):
    with RunStore(tmp_path, config={"model": "a"}) as store:
        first = store.config_hash
    with RunStore(tmp_path, config={"model": "b"}) as store:
        assert store.config == {"model": "b"} and store.config_hash != first
    with RunStore(tmp_path) as store:
        assert store.config == {"model": "b"}
    con = sqlite3.connect(tmp_path / STORE_FILENAME)
    assert con.execute("SELECT count(*) FROM configs").fetchone()[0] == 2


def test_load_store_validates_and_keeps_scales_and_judge_cost_apart(tmp_path):
    with RunStore(tmp_path) as store:
        store.set_scales({"helpfulness": Scale.parse("ordinal:Low,Medium,High")})
        for i, (score, failure) in enumerate([(2.0, None), (0.0, None), (None, "refusal")]):
            key = f"k{i}"
            reply = Reply(key, None, "t", failure_kind=failure, tokens_in=100, tokens_out=10,
                          usd=0.5, usd_provenance="reported")
            store.put(_request(key), reply, [{"item": f"q{i}", "arm": "a", "judge": "j",
                                              "criterion": "helpfulness", "score": score,
                                              "failure_kind": failure, "usd": 0.01}])
        costs = store.judge_costs()
    table = load_store(tmp_path)
    assert table.scale("helpfulness").kind == "ordinal"
    assert table.normalised_scores()[:2].tolist() == [1.0, 0.0]
    assert table.frame["failure_kind"].tolist()[2] == "refusal"
    # the table's usd is the answer's (from the rows); the judge's 0.5 per call is apart
    assert table.frame["usd"].tolist() == [0.01] * 3
    assert costs["usd"].tolist() == [0.5] * 3 and costs["failed"].tolist() == [False, False, True]


def test_load_store_reports_bad_rows_and_missing_stores(tmp_path):
    with pytest.raises(InputError, match="no run store"):
        load_store(tmp_path)
    with RunStore(tmp_path) as store:
        pass
    with pytest.raises(InputError, match="no judgments"):
        load_store(tmp_path)
    with RunStore(tmp_path) as store:
        store.put(_request("k"), Reply("k", None, "t"), [{"item": "q", "arm": "a", "score": None}])
    with pytest.raises(ValidationError, match="failure_kind"):
        load_store(tmp_path)


def test_cache_survives_reopening(tmp_path):
    path = tmp_path / "cache.sqlite"
    with ResponseCache(path) as cache:
        cache.put("k", CachedResponse('{"score": 1}', "m", 10, 2, False, "2026-01-01T00:00:00Z"))
    with ResponseCache(path) as cache:
        hit = cache.get("k")
        assert (hit.content, hit.tokens_in, hit.usage_reported) == ('{"score": 1}', 10, False)
        assert (cache.hits, cache.misses) == (1, 0)


def test_export_has_judgments_table_columns_in_order(tmp_path):
    with RunStore(tmp_path) as store:
        row = {"score": 1.0, "criterion": "c", "arm": "a", "item": "q", "run": 2, "judge": "j"}
        store.put(_request("k"), Reply("k", None, "t"), [row])
        frame = store.to_frame()
    assert list(frame.columns) == ["item", "arm", "run", "judge", "criterion", "score"]
    assert isinstance(frame, pd.DataFrame)


@pytest.mark.parametrize("opener", ["store", "cache"])
def test_a_corrupt_store_or_cache_is_a_storage_error_naming_it(tmp_path, opener):
    from assay.errors import StorageError

    path = tmp_path / (STORE_FILENAME if opener == "store" else "cache.sqlite")
    path.write_bytes(b"not a database at all\n" * 500)
    with pytest.raises(StorageError, match="is corrupt or truncated") as info:
        if opener == "store":
            RunStore(tmp_path)
        else:
            ResponseCache(path)
    assert str(info.value).startswith(f"{path}: ")


def test_a_batch_is_written_at_commit_read_before_it_and_kept_when_a_write_fails(tmp_path):
    store = RunStore(tmp_path, config={"judge": "m"})
    replies = [(ChatRequest(key=f"k{i}", messages=(("user", f"q{i}"),)),
                Reply(key=f"k{i}", verdict=None, text=str(i))) for i in range(3)]
    for request, reply in replies[:2]:
        assert store.put(request, reply, [{"item": request.key, "score": 1.0}], commit=False)
    with sqlite3.connect(tmp_path / STORE_FILENAME) as other:  # nothing committed yet
        assert other.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0
    assert set(store.status()) == {"k0", "k1"}  # a read sees what was put

    class Failing:  # the connection, failing the first insert it is given
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn, self.failed = conn, False

        def execute(self, sql: str, *args):
            if sql.lstrip().startswith("INSERT INTO judgments") and not self.failed:
                self.failed = True
                raise sqlite3.OperationalError("disk I/O error")
            return self.conn.execute(sql, *args)

        def __getattr__(self, name: str):
            return getattr(self.conn, name)

    request, reply = replies[2]
    store.put(request, reply, [{"item": "k2", "score": 1.0}], commit=False)
    real = store._conn
    store._conn = Failing(real)  # type: ignore[assignment]
    with pytest.raises(Exception, match="disk I/O error"):
        store.commit()
    store._conn = real
    store.commit()  # the judgment that failed to be written is written now
    store.close()
    with sqlite3.connect(tmp_path / STORE_FILENAME) as other:
        keys = [k for (k,) in other.execute("SELECT key FROM judgments ORDER BY key")]
        prompts = other.execute("SELECT count(*) FROM prompts").fetchone()[0]
    assert keys == ["k0", "k1", "k2"] and prompts == 3  # k2 kept through the failed write


def test_a_judgment_sqlite_cannot_take_raises_and_the_rest_of_the_batch_is_kept(tmp_path):
    store = RunStore(tmp_path, config={"judge": "m"})
    request = [ChatRequest(key=f"k{i}", messages=(("user", f"q{i}"),)) for i in range(3)]
    store.put(request[0], Reply(key="k0", verdict=None, text="0"), [{"item": "k0"}], commit=False)
    with pytest.raises(OverflowError):  # at the put, or at the commit that writes it
        store.put(request[1], Reply(key="k1", verdict=None, text="1", tokens_in=2**64), [{"item": "k1"}],
                  commit=False)
        store.commit()
    store.put(request[2], Reply(key="k2", verdict=None, text="2"), [{"item": "k2"}], commit=False)
    store.close()
    with sqlite3.connect(tmp_path / STORE_FILENAME) as other:
        keys = [k for (k,) in other.execute("SELECT key FROM judgments ORDER BY key")]
    assert keys == ["k0", "k2"]
