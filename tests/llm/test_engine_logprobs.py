"""Logprobs through the engine: asked in params, read from OpenAI's shape, cached, stored.

Oracles: the stand-in server's documented tables (``Behaviour.scores``: log of each
probability, most likely first; other tokens: log 0.9 then WORDS at log(0.1 / 2**j)),
and a format-1 store and a cache written with the old schemas by hand.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3

import pytest

from assay.judge import ChatRequest, Reply
from assay.llm import ClientConfig, LLMClient
from assay.llm.cache import CachedResponse, ResponseCache
from assay.llm.store import STORE_FORMAT, RunStore
from tests.judge.llm_server import WORDS

SCORES = {"1": 0.1, "2": 0.2, "3": 0.4, "4": 0.2, "5": 0.1}


@pytest.fixture
def make_client(server):
    """A client of the stand-in server on the direct transport only: the logprobs are read
    from the reply's body after the transport, the same code for both (and half the time)."""

    def make(cache=None):
        return LLMClient(ClientConfig(model="judge-model", base_url=server.url, api_key_env=None,
                                      timeout_s=5.0, backoff_base_s=0.01), cache=cache, rng=0)

    return make


def ask(client, *requests):
    async def go():
        async with client:
            return await asyncio.gather(*(client.complete(r) for r in requests))
    return asyncio.run(go())


def free_text(key="k1", *, k=5, position=0, logprobs=True, text="Score it 1-5."):
    params = {"logprobs": True, "top_logprobs": k} if logprobs else {}
    return ChatRequest(key=key, messages=(("user", text),), params=params, logprob_token=position)


def test_reply_carries_the_first_tokens_top_logprob_table(server, make_client):
    server.configure(scores=SCORES, record_bodies=True)
    [reply] = ask(make_client(), free_text(k=3))
    assert reply.ok and reply.text in SCORES
    # most likely first, at most top_logprobs=3 of them; ties keep the table's order
    assert [t for t, _ in reply.top_logprobs] == ["3", "2", "4"]
    assert [lp for _, lp in reply.top_logprobs] == pytest.approx([math.log(0.4), math.log(0.2),
                                                                  math.log(0.2)])
    body = server.stats.bodies[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 3


def test_no_table_when_not_asked_or_when_the_endpoint_returns_none(server, make_client):
    server.configure(scores=SCORES, record_bodies=True)
    [plain] = ask(make_client(), free_text(logprobs=False))
    assert plain.ok and plain.top_logprobs is None and "logprobs" not in server.stats.bodies[0]
    server.configure(logprobs=False)
    [ignored] = ask(make_client(), free_text(key="k2", text="another prompt"))
    assert ignored.ok and ignored.top_logprobs is None


def test_a_named_token_position(server, make_client):
    # Without scores the reply is a sentence; its 2nd token's table is (token, log 0.9) then WORDS.
    reply, past_end = ask(make_client(), free_text(k=2, position=1),
                          free_text(key="k3", position=999, text="other"))
    second = reply.text.split(" ")[1]
    alternative = next(w for w in WORDS if w != second)
    assert reply.top_logprobs == ((second, pytest.approx(math.log(0.9))),
                                  (alternative, pytest.approx(math.log(0.05))))
    assert past_end.ok and past_end.top_logprobs is None


def test_cache_keeps_the_table_and_the_position_enters_the_key(server, make_client, tmp_path):
    server.configure(scores=SCORES)
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        [first] = ask(make_client(cache=cache), free_text())
        [again] = ask(make_client(cache=cache), free_text())
        assert again.cached and server.stats.requests == 1
        assert again.top_logprobs == first.top_logprobs and len(first.top_logprobs) == 5
        [other] = ask(make_client(cache=cache), free_text(position=1))
        assert not other.cached and server.stats.requests == 2


def test_store_keeps_the_table(tmp_path):
    table = (("4", -0.25), ("3", -1.5))
    with RunStore(tmp_path, config={"judge": "m"}) as store:
        req = ChatRequest(key="k1", messages=(("user", "hi"),))
        store.put(req, Reply(key="k1", verdict=None, text="4", top_logprobs=table), [{"item": "q"}])
        store.put(ChatRequest(key="k2", messages=(("user", "x"),)), Reply(key="k2", verdict=None, text="x"),
                  [{"item": "r"}])
        assert store.top_logprobs(["k1", "k2", "nope"]) == {"k1": table}


# The judgments table of format 1, as stores written before logprobs have it.
_FORMAT_1 = """
CREATE TABLE info (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE configs (hash TEXT PRIMARY KEY, config TEXT NOT NULL, first_used TEXT NOT NULL,
    last_used TEXT NOT NULL);
CREATE TABLE judgments (key TEXT PRIMARY KEY, config_hash TEXT, failed INTEGER NOT NULL,
    failure_kind TEXT, error TEXT, rows TEXT NOT NULL, verdict TEXT, raw_response TEXT, model TEXT,
    prompt_hash TEXT, tokens_in INTEGER, tokens_out INTEGER, usd REAL, usd_provenance TEXT,
    latency_s REAL, attempts INTEGER, cached INTEGER, evaluated_at TEXT,
    tries INTEGER NOT NULL DEFAULT 1);
CREATE TABLE plan (key TEXT PRIMARY KEY);
CREATE TABLE scales (criterion TEXT PRIMARY KEY, scale TEXT NOT NULL);
INSERT INTO info VALUES ('format', '1');
"""


def test_a_format_1_store_is_migrated_without_losing_rows(tmp_path):
    conn = sqlite3.connect(tmp_path / "judgments.sqlite")
    conn.executescript(_FORMAT_1)
    for i in range(3):
        conn.execute("INSERT INTO judgments (key, failed, rows, raw_response, evaluated_at) "
                     "VALUES (?, 0, ?, ?, '2026-01-01T00:00:00Z')",
                     (f"old{i}", json.dumps([{"item": f"q{i}", "score": float(i)}]), str(i)))
    conn.commit()
    conn.close()
    with RunStore(tmp_path) as store:
        assert [r["score"] for r in store.records()] == [0.0, 1.0, 2.0]
        assert store.counts().stored == 3
        store.put(ChatRequest(key="new", messages=(("user", "hi"),)),
                  Reply(key="new", verdict=None, text="4", top_logprobs=(("4", -0.5),)),
                  [{"item": "q9", "score": 4.0}])
        assert store.top_logprobs(["old0", "new"]) == {"new": (("4", -0.5),)}
    conn = sqlite3.connect(tmp_path / "judgments.sqlite")
    assert conn.execute("SELECT value FROM info WHERE name = 'format'").fetchone()[0] == STORE_FORMAT == "2"
    assert conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 4
    conn.close()
    with RunStore(tmp_path) as store:  # opening a migrated store again changes nothing
        assert store.counts().stored == 4


def test_a_cache_from_before_logprobs_keeps_its_replies(tmp_path):
    conn = sqlite3.connect(tmp_path / "c.sqlite")
    conn.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, content TEXT NOT NULL, model TEXT, "
                 "tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, usage_reported INTEGER "
                 "NOT NULL, created_at TEXT NOT NULL, endpoint TEXT)")
    conn.execute("INSERT INTO responses VALUES ('k', 'yes', 'm', 3, 1, 1, '2026-01-01T00:00:00Z', 'e')")
    conn.commit()
    conn.close()
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        old = cache.get("k")
        assert (old.content, old.tokens_in, old.top_logprobs) == ("yes", 3, None)
        cache.put("k2", CachedResponse("4", "m", 1, 1, True, "t", "e", (("4", -0.1),)))
        assert cache.get_many(["k2"])["k2"].top_logprobs == (("4", -0.1),)
