"""The Batch API transport against the normal one, on the same stand-in server (issue 16).

Run by hand, not by the tests:

    python bench/bench_batch.py                       # 2000 requests, 50 ms a chat reply
    python bench/bench_batch.py --requests 20000 --latency-ms 50 --concurrency 32

The server (tests/judge/llm_server.py) runs in its own process. The same N rubric-shaped
requests (a ScoreVerdict JSON schema as response_format) are judged twice into fresh run
folders, with no response cache:

* ``direct``: ``transport: direct`` at ``--concurrency`` requests in flight, each answered
  after ``--latency-ms``;
* ``batch``: ``transport: batch``: one JSONL upload, one batch (completed by the server as
  soon as it is polled: ``batch_delay_s = 0``), polled every 50 ms, the output file
  downloaded and every result validated and stored in one transaction.

Printed: wall time, judgments per second, CPU seconds of this process, and a check that
both runs stored the same verdicts. The batch figure is assay's own cost of a batch
(writing, uploading, reading and storing N results); a real provider adds its queue, up to
the 24 h window, which no benchmark can stand in for.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import sqlite3
import sys
import time
import urllib.request
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from assay.judge import ChatRequest, RunStore, run_requests
from assay.llm import ClientConfig, LLMClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import start_server

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "batch"


class ScoreVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    reasoning: str
    score: int


def requests(n: int) -> list[ChatRequest]:
    return [ChatRequest(key=f"k{i:07d}", messages=(
        ("system", "You grade answers from 1 to 10 for correctness and completeness."),
        ("user", f"Question {i}: what is {i} + {i}? Answer: {2 * i}. " + "Context sentence. " * 20)),
        response_model=ScoreVerdict,
        meta={"item": f"q{i}", "cluster": f"doc{i % 50}", "arm": "rag", "judge": "judge-model",
              "criterion": "correctness", "run": 1}) for i in range(n)]


def server_stats(url: str) -> dict:
    with urllib.request.urlopen(url.removesuffix("/v1") + "/_stats", timeout=10) as reply:
        return json.loads(reply.read())


def judge(url: str, transport: str, plan: list[ChatRequest], folder: Path, concurrency: int) -> dict:
    shutil.rmtree(folder, ignore_errors=True)
    config = ClientConfig(model="judge-model", base_url=url, api_key_env=None, max_concurrency=concurrency,
                          timeout_s=60.0, transport=transport, batch_poll_s=0.05, batch_poll_max_s=0.05)

    async def go() -> object:
        async with LLMClient(config) as client:
            await client.connect()
            with RunStore(folder) as store:
                return await run_requests(plan, client, store)

    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    summary = asyncio.run(go())
    wall = time.perf_counter() - started
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    conn = sqlite3.connect(folder / "judgments.sqlite")
    verdicts = dict(conn.execute("SELECT key, verdict FROM judgments WHERE failed = 0"))
    conn.close()
    return {"transport": transport, "done": summary.done, "failed": summary.failed, "wall_s": wall,
            "per_s": summary.done / wall, "cpu_s": cpu, "verdicts": verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    plan = requests(args.requests)
    proc, url = start_server(args.latency_ms)
    try:
        results = [judge(url, transport, plan, OUT / transport, args.concurrency)
                   for transport in ("direct", "batch")]
        stats = server_stats(url)
    finally:
        proc.kill()
        proc.wait()
    print(f"{args.requests} requests, chat replies after {args.latency_ms:g} ms, "
          f"{args.concurrency} in flight (direct); one batch, polled every 50 ms (batch)")
    print(f"{'transport':<10}{'judged':>8}{'failed':>8}{'wall s':>9}{'judgments/s':>13}{'CPU s':>8}")
    for r in results:
        print(f"{r['transport']:<10}{r['done']:>8}{r['failed']:>8}{r['wall_s']:>9.2f}{r['per_s']:>13.0f}"
              f"{r['cpu_s']:>8.2f}")
    same = results[0]["verdicts"] == results[1]["verdicts"]
    print(f"same verdicts stored by both: {same}; chat requests the server saw: {stats['requests']} "
          f"(all from the direct run)")


if __name__ == "__main__":
    main()
