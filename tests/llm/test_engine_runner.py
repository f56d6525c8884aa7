"""Runs end to end against the stand-in server: faults, resume, SIGKILL, cache, cost, secrets.

Oracles: the server's counters (requests received, distinct prompts), SQLite queried on
its own connection (rows and distinct keys), and assay's judgments-table validation.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from assay.judge import (
    STORE_FILENAME,
    FatalAPIError,
    Price,
    ResponseCache,
    RunStore,
    load_store,
    run_requests,
)
from assay.llm import ClientConfig
from tests.judge.conftest import score_requests, sigkill_when

FAULTS_20 = {"rate_limit": 0.02, "server_error": 0.03, "hang": 0.02, "malformed_body": 0.03,
             "truncated": 0.03, "off_schema": 0.03, "refusal": 0.02, "no_usage": 0.02}
FAILURE_KINDS = {"parse_error", "refusal", "timeout", "api_error"}


def run(client, store, requests, **options):
    async def go():
        async with client:
            return await run_requests(requests, client, store, **options)
    return asyncio.run(go())


def stored(folder: Path) -> tuple[int, int, int]:
    """(judgment records, distinct keys, failed records), read on a separate connection."""
    if not (folder / STORE_FILENAME).exists():
        return (0, 0, 0)
    con = sqlite3.connect(folder / STORE_FILENAME)
    try:
        return con.execute("SELECT count(*), count(DISTINCT key), coalesce(sum(failed), 0) "
                           "FROM judgments").fetchone()
    except sqlite3.OperationalError:  # the child has not created the tables yet
        return (0, 0, 0)
    finally:
        con.close()


def test_run_with_20_percent_faults_loses_and_duplicates_nothing(server, make_client, tmp_path):
    assert sum(FAULTS_20.values()) == pytest.approx(0.20)
    server.configure(latency_s=0.003, rates=FAULTS_20, retry_after="1", retry_after_ms=20)
    plan = score_requests(300)
    with RunStore(tmp_path / "run") as store:
        summary = run(make_client(timeout_s=0.3, max_retries=2, max_parse_retries=1), store, plan)
        status = store.status()
    faults = sum(server.stats.faults.values())
    assert faults >= 40  # about 20% of 300+ requests were faults
    assert set(status) == {r.key for r in plan}
    assert stored(tmp_path / "run") == (300, 300, summary.failed)
    assert summary.done == 300 and summary.complete
    table = load_store(tmp_path / "run").frame
    assert len(table) == 300 and table["item"].is_unique
    failed = table[table["failure_kind"].notna()]
    assert set(failed["failure_kind"]) <= FAILURE_KINDS and failed["score"].isna().all()
    assert table.loc[table["failure_kind"].isna(), "score"].notna().all()
    assert len(failed) == summary.failed > 0

    # --retry-failed with the faults gone: exactly the failed ones are asked again.
    server.reset()
    with RunStore(tmp_path / "run") as store:
        again = run(make_client(), store, plan, retry_failed=True)
    assert server.stats.requests == summary.failed == again.done
    assert stored(tmp_path / "run") == (300, 300, 0)


def test_rerun_resumes_and_a_fresh_folder_is_served_by_the_cache(server, make_client, tmp_path):
    plan = score_requests(40)
    with ResponseCache(tmp_path / "cache.sqlite") as cache:
        with RunStore(tmp_path / "a") as store:
            first = run(make_client(cache), store, plan)
        assert server.stats.requests == 40 and first.cached == 0
        with RunStore(tmp_path / "a") as store:
            resumed = run(make_client(cache), store, plan)
        assert (resumed.skipped, resumed.done, server.stats.requests) == (40, 0, 40)
        with RunStore(tmp_path / "b") as store:
            cached = run(make_client(cache), store, plan)
        assert server.stats.requests == 40  # the cache made the rerun send nothing
        assert (cached.done, cached.cached, cached.calls, cached.usd) == (40, 40, 0, 0.0)
    a, b = (load_store(tmp_path / f).frame for f in "ab")  # plan order, however they were answered
    assert a["item"].tolist() == b["item"].tolist() and len(a) == 40
    assert a["score"].tolist() == b["score"].tolist()
    assert a["raw_response"].tolist() == b["raw_response"].tolist()


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_sigkill_then_resume_ends_with_exactly_the_planned_rows(server, make_client, tmp_path):
    n, concurrency = 400, 8
    server.configure(latency_s=0.01, jitter_s=0.01)
    folder, cache = tmp_path / "run", tmp_path / "cache.sqlite"
    child = [sys.executable, str(Path(__file__).parents[1] / "judge" / "child_run.py"), server.url,
             str(folder),
             str(cache), str(n), str(concurrency)]
    stop_at = n // 3  # one kill: each interpreter start costs seconds (the import of assay)
    sigkill_when(child, lambda: stored(folder)[0] >= stop_at)
    records, keys, _ = stored(folder)
    assert stop_at <= records < n and records == keys
    # Resume in this process (same code as the child's, without another interpreter start).
    config = {"judge": "kill-test"}
    with ResponseCache(cache) as responses, RunStore(folder, config=config) as store:
        summary = run(make_client(responses, max_concurrency=concurrency), store, score_requests(n))
    assert summary.complete and summary.skipped + summary.done == n
    assert stored(folder) == (n, n, 0)
    table = load_store(folder).frame
    assert sorted(table["item"]) == sorted(f"q{i}" for i in range(n))
    # The kill lost at most the requests in flight: they alone were asked twice.
    assert n <= server.stats.requests <= n + concurrency
    assert len(server.stats.prompts) == n


def test_cost_limit_stops_cleanly_and_a_rerun_finishes(server, make_client, tmp_path):
    plan = score_requests(30)
    prices = {"*": Price(input=1000.0, output=1000.0)}  # about $0.05 a call
    with RunStore(tmp_path) as store:
        client = make_client(max_concurrency=2, prices=prices, cost_limit_usd=0.4)
        summary = run(client, store, plan)
        spent, per_call = client.stats.spent_usd, client.stats.spent_usd / client.stats.calls
    assert summary.stopped == "cost_limit" and not summary.complete
    assert 0.4 <= spent < 0.4 + 2 * per_call * 1.5
    assert stored(tmp_path)[:2] == (summary.done, summary.done) and summary.done < 30
    with RunStore(tmp_path) as store:
        rest = run(make_client(prices=prices, cost_limit_usd=100.0), store, plan)
    assert rest.complete and rest.skipped == summary.done
    assert stored(tmp_path) == (30, 30, 0) and server.stats.requests == 30


def test_fatal_error_stores_what_was_answered_then_raises(server, make_client, tmp_path):
    server.configure(script=["ok", "ok", "ok", "unauthorized"])
    with RunStore(tmp_path) as store, pytest.raises(FatalAPIError, match="401"):
        run(make_client(max_concurrency=1), store, score_requests(10))
    assert stored(tmp_path) == (3, 3, 0)


def test_progress_reports_counts_rate_and_eta(server, make_client, tmp_path):
    server.configure(latency_s=0.005, script=["ok"] * 5 + ["refusal"])
    seen = []
    with RunStore(tmp_path) as store:
        run(make_client(max_concurrency=1), store, score_requests(20), progress=seen.append,
            progress_every_s=0.0)
    dones = [p.done for p in seen]
    assert dones == sorted(dones) and seen[-1].done == seen[-1].total == 20
    assert seen[-1].failed == 1 and seen[-1].calls == 20 and seen[-1].eta_s == 0.0
    assert seen[-1].usd > 0 and seen[-1].calls_per_s > 0


def test_judgments_are_committed_during_the_run_not_only_at_its_end(server, make_client, tmp_path):
    server.configure(latency_s=0.2)
    seen = []
    with RunStore(tmp_path) as store:
        run(make_client(max_concurrency=1), store, score_requests(3), progress_every_s=0.0,
            progress=lambda p: seen.append((p.done, stored(tmp_path)[0])),
            commit_every=10_000, commit_every_s=0.05)
    # Progress is reported right after each judgment is written; the judgment before it
    # was written 0.2 s earlier, so the 0.05 s timer has committed it by then.
    assert [done for done, _ in seen] == [1, 2, 3, 3]
    assert seen[1][1] >= 1 and seen[2][1] >= 2
    assert stored(tmp_path)[0] == 3


def test_duplicate_keys_are_refused(make_client, tmp_path):
    plan = score_requests(2)
    with RunStore(tmp_path) as store, pytest.raises(ValueError, match=plan[0].key):
        run(make_client(), store, [plan[0], plan[1], plan[0]])


def test_api_key_never_reaches_disk_or_logs(server, make_client, tmp_path, monkeypatch, caplog, capfd):
    secret = "sk-assay-test-" + os.urandom(12).hex()
    monkeypatch.setenv("ASSAY_TEST_KEY", secret)
    caplog.set_level(logging.DEBUG)
    server.configure(script=["rate_limit", "server_error", "unauthorized"], retry_after="0")
    with ResponseCache(tmp_path / "cache" / "c.sqlite") as cache, RunStore(tmp_path / "run") as store:
        client = make_client(cache, api_key_env="ASSAY_TEST_KEY", max_concurrency=1)
        assert secret not in repr(client) and secret not in client.config.model_dump_json()
        with pytest.raises(FatalAPIError) as info:
            run(client, store, score_requests(5))
        server.reset()
        run(make_client(cache, api_key_env="ASSAY_TEST_KEY"), store, score_requests(5))
    assert server.stats.authorizations == {f"Bearer {secret}"}  # the key was in use
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.endswith("-wal") for p in files) or len(files) >= 2
    for path in files:
        assert secret.encode() not in path.read_bytes(), path
    out, err = capfd.readouterr()
    assert caplog.records and secret not in caplog.text
    assert secret not in out + err + str(info.value)


def test_a_key_pasted_into_the_config_is_refused_without_echoing_it():
    from pydantic import ValidationError

    secret = "sk-assay-test-" + os.urandom(12).hex()
    with pytest.raises(ValidationError) as info:
        ClientConfig(model="m", api_key=secret)
    assert "api_key" in str(info.value) and secret not in str(info.value)


def test_max_failures_stops_starting_requests(server, make_client, tmp_path):
    # issue 11, item 5: --max-failures N stops a run whose judgments keep failing
    server.configure(rates={"refusal": 1.0})
    with RunStore(tmp_path) as store:
        summary = run(make_client(max_concurrency=1), store, score_requests(20), max_failures=3)
    assert summary.stopped == "max_failures"
    # one on the wire at a time, and one more scheduled (2 x max_concurrency) finishes too
    assert summary.failed in (3, 4) and server.stats.requests == summary.failed
    assert stored(tmp_path) == (summary.failed,) * 3


def test_unpriced_replies_are_counted_not_priced_at_zero(server, make_client, tmp_path):
    with RunStore(tmp_path) as store:
        summary = run(make_client(prices={}), store, score_requests(4))
    assert summary.unpriced == 4 and summary.usd == 0.0


def test_a_judgment_the_store_cannot_take_stops_the_run_whichever_commit_writes_it(tmp_path):
    # k0's reply holds an int SQLite cannot store; it is written by the periodic commit
    # (k1's reply is slow, so no put commits before it), whose error must not be lost
    import types

    from assay.judge import ChatRequest, Reply

    class Stub:
        stats = types.SimpleNamespace(calls=0, spent_usd=0.0)
        config = types.SimpleNamespace(max_concurrency=1, transport="direct")

        async def complete(self, request):
            if request.key == "k1":
                await asyncio.sleep(0.3)
            return Reply(key=request.key, verdict=None, text="1",
                         tokens_in=2**64 if request.key == "k0" else 0)

    requests = [ChatRequest(key=f"k{i}", messages=(("user", f"q{i}"),)) for i in range(2)]
    with RunStore(tmp_path / "run") as store, pytest.raises(OverflowError):
        asyncio.run(run_requests(requests, Stub(), store, commit_every=10_000, commit_every_s=0.05))
