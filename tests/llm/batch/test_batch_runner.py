"""``transport: batch`` end to end against the stand-in server's Batch API: exactly once,
failed lines, expiry, resume after SIGKILL, the discount, the cost limit, no key on disk.

Oracles: the server's counters (batches created, chat requests received), SQLite read on
its own connection, and a direct run of the same requests on the same server.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from assay.judge import FatalAPIError, Price, ResponseCache, RunStore, run_requests
from assay.llm import ClientConfig, LLMClient
from tests.judge.conftest import PRICES, score_requests, sigkill_when


def client_for(server, cache=None, **overrides) -> LLMClient:
    options = {"model": "judge-model", "base_url": server.url, "api_key_env": None, "timeout_s": 5.0,
               "backoff_base_s": 0.01, "prices": PRICES, "transport": "batch",
               "batch_poll_s": 0.01, "batch_poll_max_s": 0.02}
    options.update(overrides)
    return LLMClient(ClientConfig(**options), cache=cache, rng=0)


def run(client, store, requests, **options):
    async def go():
        async with client:
            return await run_requests(requests, client, store, **options)
    return asyncio.run(go())


def stored(folder: Path) -> dict[str, tuple[int, str | None, str | None]]:
    """key -> (failed, error, verdict), read on a connection of its own."""
    conn = sqlite3.connect(folder / "judgments.sqlite")
    try:
        found = conn.execute("SELECT key, failed, error, verdict FROM judgments")
        return {k: (f, e, v) for k, f, e, v in found}
    finally:
        conn.close()


def test_a_batch_run_stores_the_direct_runs_verdicts_once_at_half_price(server, tmp_path):
    requests = score_requests(20)
    with RunStore(tmp_path / "direct") as store:
        direct = run(client_for(server, transport="direct"), store, requests)
    assert server.stats.requests == 20 and server.batches.created == 0
    server.reset()
    with RunStore(tmp_path / "batch") as store:
        summary = run(client_for(server), store, requests)
        again = run(client_for(server), store, requests)  # a rerun has nothing to ask
        prompt = store.prompt(requests[3].key)
    assert summary.complete and summary.done == 20 and summary.failed == 0 and summary.calls == 20
    assert server.stats.requests == 0 and server.batches.created == 1  # no chat call, one batch
    assert again.skipped == 20 and again.done == 0 and server.batches.created == 1
    assert stored(tmp_path / "batch") == stored(tmp_path / "direct")
    assert summary.usd == pytest.approx(direct.usd * 0.5, rel=1e-12) and direct.usd > 0
    assert prompt == requests[3].messages
    with RunStore(tmp_path / "batch") as store:
        assert store.open_batches() == []  # recorded, so forgotten


def test_failed_lines_are_failed_judgments_with_their_error_and_retry_failed_asks_them(server, tmp_path):
    server.configure(batch_fail_every=4)
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, score_requests(20))
        assert summary.done == 20 and summary.failed == 5
        rows = stored(tmp_path / "run")
        errors = {e for f, e, _ in rows.values() if f}
        assert errors == {"HTTP 500: the server had an error"} and sum(f for f, _, _ in rows.values()) == 5
        frame = store.to_frame()
        assert (frame["failure_kind"] == "api_error").sum() == 5 and frame["score"].isna().sum() == 5
        server.configure(batch_fail_every=0)
        retried = run(client_for(server), store, score_requests(20), retry_failed=True)
    assert retried.done == 5 and retried.failed == 0 and server.batches.created == 2
    assert sum(f for f, _, _ in stored(tmp_path / "run").values()) == 0


def test_an_expired_batch_has_its_remainder_submitted_again(server, tmp_path):
    server.configure(batch_expire_after=7)  # each batch answers its first 7 lines, then expires
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, score_requests(20))
    assert summary.complete and summary.done == 20 and summary.failed == 0
    assert server.batches.created == 3 and server.batches.lines_answered == 20
    assert len(stored(tmp_path / "run")) == 20


def test_a_batch_that_answers_nothing_ends_the_run_with_a_note_not_a_loop(server, tmp_path):
    server.configure(batch_expire_after=0)
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, score_requests(6))
    assert not summary.complete and summary.done == 0 and server.batches.created == 1
    assert any("6 judgments were not answered" in note for note in summary.notes)
    assert stored(tmp_path / "run") == {}


def test_a_batch_failed_as_a_whole_is_one_error_and_nothing_is_stored(server, tmp_path):
    server.configure(batch_status="failed")
    with RunStore(tmp_path / "run") as store, pytest.raises(FatalAPIError, match="failed as a whole"):
        run(client_for(server), store, score_requests(4))
    assert stored(tmp_path / "run") == {}


def test_progress_says_what_the_batch_is_doing(server, tmp_path):
    server.configure(batch_delay_s=0.15)
    seen = []
    with RunStore(tmp_path / "run") as store:
        run(client_for(server), store, score_requests(8), progress=seen.append)
    phases = [p.phase for p in seen if p.phase]
    assert any(p.startswith("submitted 8 requests in 1 batch(es): batch_") for p in phases)
    assert any("in_progress" in p and "/8 answered; next check in" in p for p in phases)
    assert seen[-1].done == 8 and seen[-1].phase is None


def test_the_cache_answers_first_and_only_the_rest_is_submitted(server, tmp_path):
    requests = score_requests(12)
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        with RunStore(tmp_path / "first") as store:
            run(client_for(server, cache, transport="direct"), store, requests[:5])
        server.reset()
        with RunStore(tmp_path / "second") as store:
            summary = run(client_for(server, cache), store, requests)
    assert summary.done == 12 and summary.cached == 5 and summary.calls == 7
    assert server.batches.lines_answered == 7


def test_batches_split_at_the_maximum_size_and_are_polled_together(server, tmp_path):
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server, batch_max_requests=4), store, score_requests(10))
    assert summary.done == 10 and server.batches.created == 3


def test_the_cost_limit_submits_only_what_its_estimate_allows(server, tmp_path):
    prices = {"*": Price(input=1000.0, output=1000.0)}
    requests = score_requests(20)  # estimated at ~$0.135 a request at half price (250 tokens out)
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server, prices=prices, cost_limit_usd=1.0), store, requests)
        assert summary.stopped == "cost_limit" and summary.done == 7 and summary.usd <= 1.0
        assert server.batches.lines_answered == 7 and server.batches.created == 1
        finished = run(client_for(server, prices=prices, cost_limit_usd=100.0), store, requests)
    assert finished.complete and len(stored(tmp_path / "run")) == 20


def test_a_run_stopped_between_upload_and_create_finds_its_batch_instead_of_paying_again(server, tmp_path):
    from assay.llm.batch import BatchAPI, batch_body, batch_input

    requests = score_requests(5)
    client = client_for(server)

    async def half_submit(store: RunStore) -> None:  # what a run killed after create did
        api = BatchAPI(client.config)
        try:
            file_id = await api.upload(batch_input((r.key, batch_body(client, r)) for r in requests), "x")
            store.begin_batch(file_id, len(requests), api.endpoint)
            await api.create(file_id, {})
        finally:
            await api.close()

    with RunStore(tmp_path / "run") as store:
        asyncio.run(half_submit(store))
        assert store.open_batches()[0]["batch_id"] is None
        summary = run(client, store, requests)
    assert summary.done == 5 and summary.calls == 0 and server.batches.created == 1


@pytest.mark.slow  # a child interpreter importing assay and the SDK: 3-10 s
def test_a_sigkilled_run_resumes_polling_the_same_batch(server, tmp_path):
    n = 15
    folder, cache = tmp_path / "run", tmp_path / "c.sqlite"
    server.configure(batch_delay_s=1.0)
    child = [sys.executable, str(Path(__file__).parents[2] / "judge" / "child_run.py"), server.url,
             str(folder),
             str(cache), str(n), "4", "batch"]
    sigkill_when(child, lambda: _batch_recorded(folder))
    assert server.batches.created == 1 and stored(folder) == {}  # killed while the batch ran
    with ResponseCache(cache) as responses, RunStore(folder, config={"judge": "kill-test"}) as store:
        summary = run(client_for(server, responses, prices={}), store, score_requests(n))
        assert store.open_batches() == []
    assert summary.complete and summary.done == n and summary.calls == 0
    assert server.batches.created == 1 and server.stats.requests == 0  # polled, never paid twice
    assert len(stored(folder)) == n


def _batch_recorded(folder: Path) -> bool:
    path = folder / "judgments.sqlite"
    if not path.exists():
        return False
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM batches WHERE batch_id IS NOT NULL").fetchone()[0] > 0
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def test_the_api_key_reaches_neither_the_store_nor_the_batch_files(server, tmp_path, monkeypatch, capfd):
    secret = "sk-assay-test-" + os.urandom(12).hex()
    monkeypatch.setenv("ASSAY_TEST_KEY", secret)
    server.configure(batch_fail_every=3)
    with ResponseCache(tmp_path / "c.sqlite") as cache, RunStore(tmp_path / "run") as store:
        summary = run(client_for(server, cache, api_key_env="ASSAY_TEST_KEY"), store, score_requests(6))
        assert store.prompt(score_requests(6)[0].key) is not None  # prompts are kept, the key is not
    assert summary.done == 6 and server.stats.authorizations == {f"Bearer {secret}"}
    for path in [p for p in tmp_path.rglob("*") if p.is_file()]:
        assert secret.encode() not in path.read_bytes(), path
    for data in server.batches.files.values():  # what the server was sent and sent back
        assert secret.encode() not in data
    out, err = capfd.readouterr()
    assert secret not in out + err


def test_a_refused_key_is_one_fatal_error_without_the_key(server, tmp_path, monkeypatch):
    monkeypatch.setenv("ASSAY_TEST_KEY", "sk-bad-0123456789abcdef")
    with RunStore(tmp_path / "run") as store, pytest.raises(FatalAPIError) as info:
        run(client_for(server, api_key_env="ASSAY_TEST_KEY", base_url=server.url + "/nowhere"), store,
            score_requests(2))
    assert "refused to upload the batch input (HTTP 404)" in str(info.value)
    assert "sk-bad" not in str(info.value)


# Issue 22, item 2: what a batch loses is counted, named, sent again once, and said.

def test_unreadable_result_lines_are_named_sent_again_once_and_counted_as_paid_twice(server, tmp_path):
    server.configure(batch_garble_every=4)  # lines 4, 8, 12, 16, 20 of each batch: not JSON
    requests = score_requests(20)
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, requests)
    # first batch: 20 lines, 5 unreadable; second: those 5 sent again, its line 4 unreadable again
    assert server.batches.created == 2 and server.batches.lines_answered == 25
    assert summary.paid_twice == 5 and summary.calls == 25
    assert summary.stored == 19 and not summary.complete and len(stored(tmp_path / "run")) == 19
    notes = "\n".join(summary.notes)
    assert ("batch batch_1 output file file-batch_1-output: 5 result lines could not be read "
            "(line 4: not JSON; line 8: not JSON; line 12: not JSON; line 16: not JSON; "
            "line 20: not JSON)") in notes
    assert "batch batch_1: 5 of its 20 requests have no readable result line: input file file-1 " \
           "(line 4; line 8; line 12; line 16; line 20)" in notes
    assert "1 judgments lost their result line a second time: not sent a third time" in notes
    assert "5 calls paid twice" in notes


def test_a_missing_result_line_is_sent_again_once(server, tmp_path):
    server.configure(batch_drop_every=5)  # lines 5, 10 of each batch: answered, no result line
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, score_requests(10))
    # the 2 lost requests go again in a batch of 2, which loses none (no 5th line)
    assert server.batches.created == 2 and server.batches.lines_answered == 12
    assert summary.paid_twice == 2 and summary.stored == 10 and summary.complete
    assert any("2 of its 10 requests have no readable result line" in n and "(line 5; line 10)" in n
               for n in summary.notes)
    assert any("2 calls paid twice" in n for n in summary.notes)


def test_every_batch_expired_leaves_the_store_short_and_says_so(server, tmp_path):
    server.configure(batch_expire_after=0)
    with RunStore(tmp_path / "run") as store:
        summary = run(client_for(server), store, score_requests(6))
    assert summary.stored == 0 and summary.planned == 6 and summary.stopped is None
    assert summary.stored_line() == "stored 0 of 6 planned judgments"
    assert any("their batch expired" in n for n in summary.notes)
