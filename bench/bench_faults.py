"""Fault figures of assay's LLM engine (issue 5, "Tests"): a run against a server that fails 20% of
requests, with both transports. Run by hand, not by the tests:

    python bench/bench_faults.py [--requests 2000] [--concurrency 32]

The stand-in server (tests/judge/llm_server.py) runs in this process on 127.0.0.1 with 5 ms
latency and, per request, 2% rate limits (429 with Retry-After 1 s and retry-after-ms 20),
3% HTTP 500, 2% hangs past the 0.5 s timeout, 3% malformed bodies, 3% truncated JSON, 3%
off-schema verdicts, 2% refusals, 2% replies without usage (20% in all). Printed per
transport: faults served by kind, HTTP requests, judgments stored, failed by kind, keys
stored twice (must be 0), keys missing (must be 0), the server's most requests in flight
against max_concurrency, wall time; then ``--retry-failed`` with the faults gone, which must
ask exactly the failed judgments again.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.judge.conftest import score_requests  # noqa: E402
from tests.judge.llm_server import Behaviour, LLMServer  # noqa: E402

from assay.judge import ResponseCache, RunStore, run_requests  # noqa: E402
from assay.llm import ClientConfig, LLMClient  # noqa: E402

FAULTS = {"rate_limit": 0.02, "server_error": 0.03, "hang": 0.02, "malformed_body": 0.03,
          "truncated": 0.03, "off_schema": 0.03, "refusal": 0.02, "no_usage": 0.02}


async def judge(server: LLMServer, folder: Path, n: int, concurrency: int, transport: str,
                retry_failed: bool = False) -> dict:
    config = ClientConfig(model="judge-model", base_url=server.url, api_key_env=None,
                          max_concurrency=concurrency, timeout_s=0.5, max_retries=2, max_parse_retries=1,
                          backoff_base_s=0.01, transport=transport)
    with ResponseCache(folder / "cache.sqlite") as cache, RunStore(folder / "run") as store:
        async with LLMClient(config, cache=cache) as client:
            started = time.perf_counter()
            summary = await run_requests(score_requests(n), client, store, retry_failed=retry_failed)
            return {"summary": summary, "wall_s": time.perf_counter() - started}


def stored(folder: Path) -> tuple[int, int, Counter[str]]:
    with sqlite3.connect(folder / "run" / "judgments.sqlite") as conn:
        keys = [k for (k,) in conn.execute("SELECT key FROM judgments")]
        kinds = Counter(k for (k,) in conn.execute("SELECT failure_kind FROM judgments WHERE failed = 1"))
    return len(keys), len(keys) - len(set(keys)), kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    n = args.requests
    with LLMServer(Behaviour(latency_s=0.005, rates=FAULTS, retry_after="1", retry_after_ms=20)) as server:
        for transport in ("direct", "openai"):
            folder = Path(tempfile.mkdtemp(prefix=f"faults-{transport}-"))
            server.reset(Behaviour(latency_s=0.005, rates=FAULTS, retry_after="1", retry_after_ms=20))
            first = asyncio.run(judge(server, folder, n, args.concurrency, transport))
            seen = server.stats.snapshot()
            records, twice, kinds = stored(folder)
            wanted = {r.key for r in score_requests(n)}
            with RunStore(folder / "run") as store:
                missing = len(wanted - set(store.status()))
            s = first["summary"]
            print(f"[{transport}] {n} judgments, max_concurrency {args.concurrency}: "
                  f"{seen['requests']} HTTP requests, faults served {sum(seen['faults'].values())} "
                  f"({', '.join(f'{k} {v}' for k, v in sorted(seen['faults'].items()))}); "
                  f"stored {records}, keys stored twice {twice}, keys missing {missing}; "
                  f"failed {s.failed} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}); "
                  f"server max in flight {seen['max_in_flight']}; wall {first['wall_s']:.1f} s", flush=True)
            server.reset(Behaviour(latency_s=0.005))
            again = asyncio.run(judge(server, folder, n, args.concurrency, transport, retry_failed=True))
            records, twice, kinds = stored(folder)
            print(f"[{transport}] --retry-failed, faults gone: {server.stats.requests} HTTP requests for "
                  f"{s.failed} failed judgments, {again['summary'].done} judged again; stored {records}, "
                  f"keys stored twice {twice}, failed now {sum(kinds.values())}", flush=True)


if __name__ == "__main__":
    main()
