"""Throughput and overhead of assay's LLM engine against the stand-in server (issue 5, "Speed").

Run by hand, not by the tests:

    python bench/bench_engine.py                    # both workloads
    python bench/bench_engine.py --calls 1440 --rerun 10000 --concurrency 32 --latency-ms 50

The server (tests/judge/llm_server.py) runs in its own process, so its CPU is not
counted; this process is the client. Workloads:

* A: ``--calls`` pairwise-shaped judgments (question + two answers ~1.5 kB, the
  PairwiseVerdict JSON schema as response_format) at ``--concurrency`` against a
  server that answers after ``--latency-ms``: wall time, judgments/s against the ideal
  concurrency / latency (640/s at 32 and 50 ms; the issue's target is 90% of it,
  576/s), CPU ms per call (getrusage of this process over the run), peak RSS, and the
  most requests the server saw in flight. Every judgment goes through the whole engine:
  cache lookup and write, the HTTP call through openai.AsyncOpenAI, validation, and a
  commit to the run store.
* S: the same calls made by the OpenAI SDK alone (an asyncio.Semaphore, no cache,
  store or validation), once through ``chat.completions.create`` and once through the
  low-level ``post`` the engine uses: the SDK's own ceiling on this machine, so the
  engine's overhead can be read off against it.
* B: a cached rerun of ``--rerun`` judgments. First they are judged for real into
  folder B1 (a second throughput figure, at scale), then judged again into a fresh
  folder B2 with the same response cache (no request reaches the server; target under
  2 s), then resumed in B1 (everything already stored: the plan is recorded and all is
  skipped).

* P (``--process``): the whole ``assay judge`` process, as a user runs it (a child
  ``python -m assay judge CONFIG``), on ``--process-calls`` pairwise calls (90 questions x
  4 criteria x 4 trials = 1,440 by default) at ``--concurrency``, beside a bare aiohttp
  client (one session, an asyncio.Semaphore, the same number of requests of the same
  shape: the ceiling) in the same run. Prints the throughput ratio over the whole process
  (target >= 85% of the bare client), the CPU of the child per call (getrusage of the
  children: user + sys, start-up included; target < 2 ms), and the CPU per call by phase
  read from the child's ``ASSAY_PROFILE_PHASES`` file (``time.process_time()``
  checkpoints: start-up = imports and config, plan, calls, store writes, output files;
  see src/assay/llm/_phases.py). ``--src`` (repeated) runs the process of each source tree in
  turn, the ratio against the bare client measured before them (it is measured again after
  them). Then the same config into a fresh folder sharing the response cache: 0 calls to
  the server, target under 3 s wall. Both runs share a user cache
  folder (``ASSAY_CACHE_DIR``) made anew for each invocation: the first finds it empty.

Output folders go under bench/out/engine/ (git-ignored) and are replaced on each run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Literal

import aiohttp
import openai
from pydantic import BaseModel, ConfigDict

from assay.judge import ChatRequest, ResponseCache, RunStore, judgment_key, run_requests
from assay.llm import ClientConfig, LLMClient

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "engine"
SERVER = ROOT / "tests" / "judge" / "llm_server.py"
CRITERIA = ("comprehensiveness", "diversity", "empowerment", "relevance")


class PairwiseVerdict(BaseModel):
    """The pairwise judge's verdict (seed 004's output format)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    reasoning: str
    winner: Literal[0, 1, 2]


def pairwise_plan(n: int, prefix: str) -> list[ChatRequest]:
    """n pairwise requests: 4 criteria x 4 trials per question, order swapped by trial parity."""
    plan = []
    answer = ("The report describes the outbreak's spread, the agencies involved, the vaccines "
              "offered and the advice given to travellers, with dates and sources. ") * 4
    for i in range(n):
        question, rest = divmod(i, len(CRITERIA) * 4)
        criterion, trial = CRITERIA[rest // 4], rest % 4 + 1
        first, second = ("base", "other") if trial % 2 else ("other", "base")
        item = f"{prefix}{question}"
        key = judgment_key("bench", item, ("base", "other"), criterion, trial, judge="judge-model")
        user = (f"Question {item}: what happened, and what should people do?\n\n"
                f"---Start of Answer 1---\n{first}: {answer}\n---End of Answer 1---\n\n"
                f"---Start of Answer 2---\n{second}: {answer[::-1]}\n---End of Answer 2---\n\n"
                f"Criterion: {criterion}. Score ID: {key}")
        plan.append(ChatRequest(
            key=key, messages=(("system", "You are an impartial judge of two answers."), ("user", user)),
            response_model=PairwiseVerdict, sample=trial,
            meta={"item": item, "arm": "other", "opponent": "base", "position": 2 - trial % 2,
                  "run": trial, "judge": "judge-model", "criterion": criterion}))
    return plan


def pairwise_rows(request: ChatRequest, reply) -> list[dict]:
    row = dict(request.meta)
    if reply.ok:
        winner = reply.verdict.winner
        shown = row["position"]
        row["score"] = 0.5 if winner == 0 else float(winner == shown)
    else:
        row["score"] = None
    row["failure_kind"] = reply.failure_kind
    return [row]


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(SERVER), "--latency-ms", str(latency_ms)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise SystemExit(f"server did not start: {line!r}")
    return proc, line.removeprefix("READY ")


def server_call(url: str, path: str, body: dict | None = None) -> dict:
    base = url.removesuffix("/v1")
    data = None if body is None else json.dumps(body).encode()
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data), timeout=10) as r:
        return json.loads(r.read())


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def timed_run(plan: list[ChatRequest], url: str, folder: Path, cache_path: Path,
                    concurrency: int) -> dict:
    config = ClientConfig(model="judge-model", base_url=url, api_key_env=None,
                          max_concurrency=concurrency, timeout_s=30.0)
    with ResponseCache(cache_path) as cache, RunStore(folder, config={"bench": "engine"}) as store:
        async with LLMClient(config, cache=cache) as client:
            await client.connect()  # the SDK client is made once a process (0.2 s), not timed here
            server_call(url, "/_reset", {})
            cpu0, t0 = cpu_s(), time.perf_counter()
            summary = await run_requests(plan, client, store, rows=pairwise_rows)
            wall, cpu = time.perf_counter() - t0, cpu_s() - cpu0
        stats = server_call(url, "/_stats")
        counts = store.counts()
    return {"wall_s": wall, "cpu_s": cpu, "summary": summary, "server": stats, "stored": counts.stored,
            "failed": counts.failed, "client_max_in_flight": client.max_in_flight}


async def sdk_only(plan: list[ChatRequest], url: str, concurrency: int, how: str) -> dict:

    from assay.llm import response_format

    client = openai.AsyncOpenAI(base_url=url, api_key="not-needed", max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def one(request: ChatRequest) -> None:
        body = {"model": "judge-model", "messages": [{"role": r, "content": c} for r, c in request.messages],
                "response_format": response_format(PairwiseVerdict)}
        async with gate:
            if how == "create":
                done = await client.chat.completions.create(**body)
                PairwiseVerdict.model_validate_json(done.choices[0].message.content)
            else:
                raw = await client.post("/chat/completions", cast_to=bytes, body=body)
                PairwiseVerdict.model_validate_json(json.loads(raw)["choices"][0]["message"]["content"])

    server_call(url, "/_reset", {})
    cpu0, t0 = cpu_s(), time.perf_counter()
    await asyncio.gather(*(one(r) for r in plan))
    wall, cpu = time.perf_counter() - t0, cpu_s() - cpu0
    await client.close()
    return {"wall_s": wall, "cpu_s": cpu, "summary": None, "server": server_call(url, "/_stats"),
            "stored": 0, "failed": 0}


def write_judge_config(folder: Path, url: str, calls: int, concurrency: int) -> Path:
    """Answers of two methods (BenchmarkQED's layout) and a pairwise config of ``calls`` calls."""
    import yaml

    per_question = len(CRITERIA) * 4
    questions = -(-calls // per_question)
    answer = ("The report describes the outbreak's spread, the agencies involved, the vaccines "
              "offered and the advice given to travellers, with dates and sources. ") * 4
    for method in ("base", "other"):
        (folder / "answers" / method).mkdir(parents=True, exist_ok=True)
        records = [{"question_id": f"q{i}", "question": f"Question {i}: what happened, and what should "
                    "people do?", "answer": f"{method}: {answer if method == 'base' else answer[::-1]}"}
                   for i in range(questions)]
        (folder / "answers" / method / "health_answers.json").write_text(json.dumps(records), "utf-8")
    config = {"version": 1,
              "inputs": {"input_dir": "answers", "methods": ["base", "other"], "question_sets": ["health"]},
              "judges": [{"kind": "pairwise", "base": "base", "others": ["other"], "trials": 4,
                          "criteria": list(CRITERIA)}],
              "llm": {"model": "judge-model", "base_url": url, "api_key_env": None,
                      "max_concurrency": concurrency, "timeout_s": 30.0}}
    path = folder / "judge.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def judge_process(config: Path, folder: Path, cache: Path, phases: Path, src: Path) -> dict:
    """``python -m assay judge CONFIG`` in a child (assay from ``src``); its wall and CPU
    (getrusage of children)."""
    env = {**os.environ, "PYTHONPATH": str(src), "ASSAY_PROFILE_PHASES": str(phases),
           # a user cache folder of this bench's own (made anew each invocation): nothing of an
           # earlier invocation is found; the readability memo (judge/_readable.py) is kept in the
           # --cache file, which the first run makes and the rerun shares
           "ASSAY_CACHE_DIR": str(folder.parent / "user-cache")}
    env.pop("ASSAY_DEBUG", None)
    cpu0, t0 = children_cpu_s(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "assay", "judge", str(config), "--out", str(folder),
                           "--cache", str(cache), "--display", "plain"],
                          cwd=config.parent, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, children_cpu_s() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"assay judge exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return {"wall_s": wall, "cpu_s": cpu, "phases": json.loads(phases.read_text(encoding="utf-8"))}


async def bare_aiohttp(plan: list[ChatRequest], url: str, concurrency: int) -> dict:
    """The ceiling: one aiohttp session posting the plan's bodies, at most ``concurrency`` at once."""

    from assay.llm import response_format

    bodies = [json.dumps({"model": "judge-model",
                          "messages": [{"role": r, "content": c} for r, c in request.messages],
                          "response_format": response_format(PairwiseVerdict)}).encode()
              for request in plan]
    gate = asyncio.Semaphore(concurrency)
    server_call(url, "/_reset", {})
    cpu0, t0 = cpu_s(), time.perf_counter()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:

        async def one(body: bytes) -> None:
            async with gate, session.post(url + "/chat/completions", data=body,
                                          headers={"Content-Type": "application/json"}) as response:
                data = json.loads(await response.read())
                PairwiseVerdict.model_validate_json(data["choices"][0]["message"]["content"])

        await asyncio.gather(*(one(body) for body in bodies))
    wall, cpu = time.perf_counter() - t0, cpu_s() - cpu0
    return {"wall_s": wall, "cpu_s": cpu, "server": server_call(url, "/_stats")}


def whole_process(url: str, calls: int, concurrency: int, sources: list[Path]) -> None:
    """Workload P: the ``assay judge`` process of each source tree against the bare client,
    then a cached rerun; the bare client first and again after the last tree."""
    config = write_judge_config(OUT / "P", url, calls, concurrency)
    bare = asyncio.run(bare_aiohttp(pairwise_plan(calls, "p"), url, concurrency))
    show_bare(bare, calls)
    for n, src in enumerate(sources):
        folder = OUT / "P" / f"src{n}"
        cache = folder / "cache.sqlite"
        server_call(url, "/_reset", {})
        run = judge_process(config, folder / "run1", cache, folder / "phases1.json", src)
        stats = server_call(url, "/_stats")
        server_call(url, "/_reset", {})
        rerun = judge_process(config, folder / "run2", cache, folder / "phases2.json", src)
        again = server_call(url, "/_stats")
        load = os.getloadavg()
        bare_rate, rate = calls / bare["wall_s"], calls / run["wall_s"]
        print(f"P  assay judge, {src}", flush=True)
        print(f"   whole process  {calls:>6} calls  wall {run['wall_s']:7.3f} s  "
              f"{rate:8.1f} /s  ({rate / bare_rate:6.1%} of the bare client; target >= 85%)  "
              f"CPU {1000 * run['cpu_s'] / calls:6.3f} ms/call (getrusage of the child, start-up included; "
              f"target < 2)  HTTP calls {stats['requests']}  max in flight {stats['max_in_flight']}",
              flush=True)
        phases = run["phases"]["cpu"]
        split = "  ".join(f"{name} {1000 * cpu / calls:.3f}" for name, cpu in phases.items())
        total = 1000 * sum(phases.values()) / calls
        print(f"   CPU ms per call by phase (process_time checkpoints, sum {total:.3f}): {split}", flush=True)
        walls = "  ".join(f"{name} {wall:.3f}" for name, wall in run["phases"]["wall"].items())
        print(f"   wall s by phase: {walls}", flush=True)
        steady = phases.get("calls", 0.0) + phases.get("store", 0.0)
        print(f"   steady state (calls + store): {1000 * steady / calls:.3f} ms/call (target < 1)",
              flush=True)
        print(f"   rerun, new folder, shared cache: wall {rerun['wall_s']:7.3f} s (target < 3)  "
              f"CPU {rerun['cpu_s']:.3f} s  HTTP calls {again['requests']} (target 0)", flush=True)
        split = "  ".join(f"{name} {cpu:.3f}" for name, cpu in rerun["phases"]["cpu"].items())
        print(f"   rerun CPU s by phase: {split}", flush=True)
        print(f"   load average after it: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)", flush=True)
    show_bare(asyncio.run(bare_aiohttp(pairwise_plan(calls, "p"), url, concurrency)), calls)


def show_bare(bare: dict, calls: int) -> None:
    print(f"P  bare aiohttp client            {calls:>6} calls  wall {bare['wall_s']:7.3f} s  "
          f"{calls / bare['wall_s']:8.1f} /s  CPU {1000 * bare['cpu_s'] / calls:6.3f} ms/call  "
          f"HTTP calls {bare['server']['requests']}  max in flight {bare['server']['max_in_flight']}  "
          f"(load {os.getloadavg()[0]:.2f})", flush=True)


def show(name: str, result: dict, n: int, ideal: float | None) -> None:
    s = result["summary"]
    rate = n / result["wall_s"]
    tail = "" if s is None else f", cached {s.cached}, skipped {s.skipped}"
    line = (f"{name:<34} {n:>6} judgments  wall {result['wall_s']:7.3f} s  {rate:8.1f} /s")
    if ideal:
        line += f" ({rate / ideal:6.1%} of ideal {ideal:.0f}/s)"
    line += (f"  CPU {1000 * result['cpu_s'] / max(n, 1):6.3f} ms/judgment"
             f"  HTTP calls {result['server']['requests']:>6}  server max in flight "
             f"{result['server']['max_in_flight']:>3}  stored {result['stored']} (failed {result['failed']})"
             + tail)
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1440)
    parser.add_argument("--rerun", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--no-sdk", action="store_true", help="skip the SDK-alone baselines")
    parser.add_argument("--process", action="store_true",
                        help="run only workload P (the whole assay judge process beside a bare "
                        "aiohttp client)")
    parser.add_argument("--process-calls", type=int, default=1440)
    parser.add_argument("--src", type=Path, action="append",
                        help="the assay source tree the judge process imports (repeat to compare "
                        "trees in one run; default: this tree's src)")
    args = parser.parse_args()
    ideal = args.concurrency / (args.latency_ms / 1000)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    proc, url = start_server(args.latency_ms)
    try:
        print(f"server {url} (own process), latency {args.latency_ms:g} ms, concurrency "
              f"{args.concurrency}; python {sys.version.split()[0]}", flush=True)
        if args.process:
            sources = [p.resolve() for p in args.src or [ROOT / "src"]]
            whole_process(url, args.process_calls, args.concurrency, sources)
            return
        plan = pairwise_plan(args.calls, "a")
        result = asyncio.run(timed_run(plan, url, OUT / "A", OUT / "cache-A.sqlite", args.concurrency))
        show("A  pairwise, fresh", result, args.calls, ideal)
        print(f"   peak RSS after A: {peak_rss_mb():.0f} MB", flush=True)
        if not args.no_sdk:
            for how in ("create", "post"):
                result = asyncio.run(sdk_only(plan, url, args.concurrency, how))
                show(f"S  SDK alone, {how}()", result, args.calls, ideal)
        if args.rerun:
            plan = pairwise_plan(args.rerun, "b")
            cache = OUT / "cache-B.sqlite"
            first = asyncio.run(timed_run(plan, url, OUT / "B1", cache, args.concurrency))
            show("B1 pairwise, fresh", first, args.rerun, ideal)
            cached = asyncio.run(timed_run(plan, url, OUT / "B2", cache, args.concurrency))
            show("B2 rerun, new folder, cached", cached, args.rerun, None)
            resumed = asyncio.run(timed_run(plan, url, OUT / "B1", cache, args.concurrency))
            show("B3 rerun, same folder, resumed", resumed, args.rerun, None)
        print(f"peak RSS: {peak_rss_mb():.0f} MB", flush=True)
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
