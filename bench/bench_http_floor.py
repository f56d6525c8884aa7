"""The CPU floor of the HTTP client under assay's engine: aiohttp against a bare asyncio protocol.

Run by hand, not by the tests:

    python bench/bench_http_floor.py --latency-ms 200 --calls 1440 --concurrency 32

Each client runs in a child process of its own against the stand-in server
(tests/judge/llm_server.py, in its own process) and posts the same pairwise bodies
(bench/bench_engine.py's plan, ``--concurrency`` in flight), reading each reply as JSON and
validating the verdict, as the bare client of ``bench_engine.py --process`` does:

* ``aiohttp``: one ClientSession (what ``transport: direct`` posts through);
* ``protocol``: a keep-alive HTTP/1.1 exchange written on ``asyncio.Protocol``
  (Content-Length replies only: enough for the stand-in server, not a client to ship).

Printed per client: CPU of the child per call (getrusage: user + sys, its start-up and
imports included), the CPU of the import of the HTTP stack alone, and of the calls alone
(``time.process_time`` around the event loop). The difference between the two clients'
calls is what assay's calls phase pays to aiohttp's request machinery beyond the socket
work any client does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


OUT = ROOT / "bench" / "out" / "http_floor"


def write_bodies(calls: int) -> Path:
    """The plan's request bodies, one JSON a line, for the children (which import no assay)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_engine import PairwiseVerdict, pairwise_plan

    from assay.llm import response_format

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "bodies.jsonl"
    path.write_text("".join(json.dumps({"model": "judge-model", "messages": [
        {"role": r, "content": c} for r, c in request.messages],
        "response_format": response_format(PairwiseVerdict)}) + "\n"
        for request in pairwise_plan(calls, "f")), encoding="utf-8")
    return path


def child(kind: str, url: str, concurrency: int) -> None:
    """Post the bodies with client ``kind``; print a JSON line of CPU seconds."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict

    class PairwiseVerdict(BaseModel):
        model_config = ConfigDict(extra="forbid", frozen=True)
        reasoning: str
        winner: Literal[0, 1, 2]

    bodies = [line.encode() for line in (OUT / "bodies.jsonl").read_text(encoding="utf-8").splitlines()]
    t0 = time.process_time()
    if kind == "aiohttp":
        import aiohttp
    t1 = time.process_time()

    def check(raw: bytes) -> None:
        data = json.loads(raw)
        PairwiseVerdict.model_validate_json(data["choices"][0]["message"]["content"])

    async def with_aiohttp() -> None:
        gate = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
            async def one(body: bytes) -> None:
                async with gate, session.post(url + "/chat/completions", data=body,
                                              headers={"Content-Type": "application/json"}) as response:
                    check(await response.read())

            await asyncio.gather(*(one(body) for body in bodies))

    async def with_protocol() -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        head = (f"POST {parts.path}/chat/completions HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                "Content-Type: application/json\r\nContent-Length: ").encode()
        loop = asyncio.get_running_loop()

        class Exchange(asyncio.Protocol):
            def __init__(self) -> None:
                self.buffer = bytearray()
                self.waiter: asyncio.Future[bytes] | None = None
                self.transport: asyncio.Transport | None = None

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self.transport = transport  # type: ignore[assignment]

            def data_received(self, data: bytes) -> None:
                self.buffer += data
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0 or self.waiter is None:
                    return
                length = next(int(line[15:]) for line in bytes(self.buffer[:end]).lower().split(b"\r\n")
                              if line.startswith(b"content-length:"))
                if len(self.buffer) >= end + 4 + length:
                    body = bytes(self.buffer[end + 4:end + 4 + length])
                    del self.buffer[:end + 4 + length]
                    self.waiter.set_result(body)

        idle: list[Exchange] = []

        async def one(body: bytes) -> None:
            exchange = idle.pop() if idle else (await loop.create_connection(
                Exchange, parts.hostname, parts.port))[1]
            exchange.waiter = loop.create_future()
            assert exchange.transport is not None
            exchange.transport.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
            check(await exchange.waiter)
            exchange.waiter = None
            idle.append(exchange)

        gate = asyncio.Semaphore(concurrency)

        async def gated(body: bytes) -> None:
            async with gate:
                await one(body)

        await asyncio.gather(*(gated(body) for body in bodies))
        for exchange in idle:
            assert exchange.transport is not None
            exchange.transport.close()

    asyncio.run(with_aiohttp() if kind == "aiohttp" else with_protocol())
    t2 = time.process_time()
    print(json.dumps({"import_s": t1 - t0, "calls_s": t2 - t1}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1440)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.concurrency)
        return
    write_bodies(args.calls)
    from bench_engine import server_call, start_server

    proc, url = start_server(args.latency_ms)
    try:
        print(f"server {url} (own process), latency {args.latency_ms:g} ms, {args.calls} calls, "
              f"concurrency {args.concurrency}; load average {os.getloadavg()[0]:.2f}", flush=True)
        for _ in range(args.repeat):
            for kind in ("aiohttp", "protocol"):
                server_call(url, "/_reset", {})
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                done = subprocess.run([sys.executable, __file__,
                                       "--concurrency", str(args.concurrency), "--child", kind, url],
                                      capture_output=True, text=True, check=True)
                wall = time.perf_counter() - t0
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                inner = json.loads(done.stdout.strip().splitlines()[-1])
                served = server_call(url, "/_stats")
                print(f"{kind:<9} wall {wall:6.3f} s  CPU of the child {1000 * cpu / args.calls:6.3f} "
                      "ms/call  "
                      f"import of the HTTP stack {1000 * inner['import_s'] / args.calls:6.3f} ms/call  "
                      f"calls {1000 * inner['calls_s'] / args.calls:6.3f} ms/call  "
                      f"HTTP calls {served['requests']}  max in flight {served['max_in_flight']}  "
                      f"(load {os.getloadavg()[0]:.2f})", flush=True)
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
