"""Bounded replies: a body over ``max_reply_bytes`` is abandoned as it arrives, a failure of
its own kind (``reply_too_large``), retried like a timeout; memory stays bounded with 32
requests in flight against a server sending 200 MB bodies (issue 22, item 7).

Oracles: the server's counters (requests received, bodies it was writing at once) and the
peak resident memory of the judging process (``ru_maxrss``) against the same run answered
normally.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from assay.judge import RunStore, run_requests
from assay.llm import ClientConfig, LLMClient
from tests.cli._judge_helpers import child_env, write_config
from tests.judge.conftest import score_requests

REQ = score_requests(1)[0]
MiB = 1 << 20


def ask(client, request):
    async def go():
        async with client:
            return await client.complete(request)
    return asyncio.run(go())


@pytest.mark.parametrize("fault", ["huge_body", "huge_body_chunked"])
def test_a_reply_over_the_limit_is_abandoned_and_fails_as_reply_too_large(server, make_client, fault):
    server.configure(rates={fault: 1.0})  # 200 MB bodies, with and without Content-Length
    reply = ask(make_client(max_reply_bytes=MiB, max_retries=2), REQ)
    assert reply.failure_kind == "reply_too_large" and not reply.ok
    assert "over max_reply_bytes (1,048,576 bytes)" in (reply.error or "")
    assert reply.attempts == 3 and server.stats.requests == 3  # retried like other failures
    assert server.stats.faults[fault] == 3


def test_a_reply_over_the_limit_is_retried_and_a_good_one_is_kept(server, make_client):
    server.configure(script=["huge_body_chunked", "ok"])
    client = make_client(max_reply_bytes=MiB)
    reply = ask(client, REQ)
    assert reply.ok and reply.attempts == 2 and server.stats.requests == 2
    assert client.stats.retries == 1


def test_a_reply_just_under_the_limit_is_read(server, make_client):
    server.configure(script=["huge_body"], huge_body_bytes=MiB)  # a whole completion of exactly 1 MiB
    reply = ask(make_client(max_reply_bytes=MiB, max_parse_retries=0), REQ)
    assert reply.failure_kind == "parse_error"  # read whole: its content is no verdict
    assert server.stats.requests == 1


def test_the_limit_is_a_config_key_with_a_16_mib_default():
    assert ClientConfig(model="m").max_reply_bytes == 16 * MiB
    with pytest.raises(ValueError):
        ClientConfig(model="m", max_reply_bytes=10)


def test_a_batch_output_line_over_the_limit_is_its_judgments_failure(server, tmp_path):
    server.configure(batch_huge_every=3, huge_body_bytes=3 * MiB)
    config = ClientConfig(model="judge-model", base_url=server.url, api_key_env=None, transport="batch",
                          batch_poll_s=0.01, batch_poll_max_s=0.02, max_reply_bytes=MiB)
    requests = score_requests(9)

    async def go():
        with RunStore(tmp_path / "run") as store:
            async with LLMClient(config) as client:
                return await run_requests(requests, client, store)

    summary = asyncio.run(go())
    assert summary.done == 9 and summary.failed == 3 and server.batches.created == 1
    with sqlite3.connect(tmp_path / "run" / "judgments.sqlite") as db:
        rows = db.execute("SELECT key, failure_kind, error FROM judgments ORDER BY key").fetchall()
    failed = [(key, error) for key, kind, error in rows if kind == "reply_too_large"]
    assert [key for key, _ in failed] == [requests[i].key for i in (2, 5, 8)]  # lines 3, 6 and 9
    assert sum(kind is None for _, kind, _ in rows) == 6  # the other lines are read and judged
    assert failed[0][1].endswith("output file file-batch_1-output line 3: the result is over max_reply_bytes "
                                 "(1,048,576 bytes) and was not read")


# -- memory: 32 in flight against 200 MB bodies ----------------------------------------------
QUESTIONS = 16
"""16 questions x 2 criteria x 2 trials: 64 judgments, 32 in flight."""

PEAKS = """
import json, resource, sys, urllib.request
from assay.cli import main

def judge(out):
    try:
        main(["judge", config, "--out", out, "--display", "plain", "--allow-failures", "1"])
    except SystemExit as exc:
        assert not exc.code, exc.code
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

control, config, normal, huge, faults = sys.argv[1:]
first = judge(normal)  # everything imported, one whole run's memory
urllib.request.urlopen(urllib.request.Request(control + "/_configure", data=faults.encode(),
                                              method="POST")).read()
print("peak_rss_kib", first, judge(huge), file=sys.stderr)
"""
"""``assay judge CONFIG`` twice in one child process, the server's faults changed in between:
the peak resident memory (KiB) after the first run, and after the second."""


def _judge_peaks(folder: Path, config: Path, control: str, faults: dict[str, object]
                 ) -> tuple[int, int, str]:
    """(peak RSS after a normal run, peak after a run with ``faults``, stderr), in KiB, of a
    child process whose address space is capped (a run that reads whole bodies fails, not
    the machine)."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    done = subprocess.run([sys.executable, "-c", PEAKS, control, str(config), str(folder / "normal"),
                           str(folder / "huge"), json.dumps(faults)],
                          cwd=folder, env=child_env(folder), capture_output=True, text=True,
                          timeout=300, preexec_fn=cap)
    lines = [line for line in done.stderr.splitlines() if line.startswith("peak_rss_kib ")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    _, first, second = lines[-1].split()
    return int(first), int(second), done.stderr


def _write_answers(root: Path) -> None:
    for method in ("short", "long"):
        (root / method).mkdir(parents=True, exist_ok=True)
        records = [{"question_id": f"q{i}", "question": f"Question {i}?",
                    "answer": f"The {method} answer {i}."} for i in range(QUESTIONS)]
        (root / method / "health_answers.json").write_text(json.dumps(records), encoding="utf-8")


def test_memory_stays_bounded_with_32_in_flight_against_200_mb_bodies(server, tmp_path):
    _write_answers(tmp_path / "answers")
    config = write_config(tmp_path, server.url, max_concurrency=32, max_retries=1,
                          max_reply_bytes=2 * MiB, timeout_s=60.0)
    # 200 MB bodies; each waits until 24 are open at once (or 10 s), so the peak below is
    # measured with that many in flight, not with however many the machine's load allowed
    faults = {"rates": {"huge_body_chunked": 0.5, "huge_body": 0.5}, "huge_gather": 24}
    normal_kib, huge_kib, _ = _judge_peaks(tmp_path, config, server.url.removesuffix("/v1"), faults)
    plan = 4 * QUESTIONS
    assert server.stats.requests == plan + 2 * plan  # the normal run, then each retried once
    assert server.stats.max_huge_in_flight >= 24  # bodies being written at once
    with sqlite3.connect(tmp_path / "huge" / "judgments.sqlite") as db:
        kinds = dict(db.execute("SELECT failure_kind, count(*) FROM judgments GROUP BY failure_kind"))
    assert kinds == {"reply_too_large": plan}
    growth_mib = (huge_kib - normal_kib) / 1024
    # at most 32 x 2 MiB held at once, plus what reading in chunks costs; reading the bodies
    # whole would take 32 x 200 MB
    assert growth_mib < 100, f"peak RSS grew {growth_mib:.0f} MiB over the normal run"
