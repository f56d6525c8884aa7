"""assay's judges and BenchmarkQED 0.4.0's AutoE side by side on the same data and server (issue 5, "Speed").

Run by hand, not by the tests (it installs BenchmarkQED into its own venv the first time):

    python bench/bench_judges_vs_qed.py
    python bench/bench_judges_vs_qed.py --stages pairwise,reference,assertion,hierarchical --rerun 10000

What it does:

1. writes the dataset with ``../shared/bench/qed/make_dataset.py`` (2 methods x 3 question
   sets x 30 questions, reference answers, 3 assertions a question) under ``--out``;
2. starts ``../shared/bench/qed/mock_llm_server.py`` in its own process (``--latency-ms``),
   so the server's CPU is not counted against either tool;
3. creates ``bench/.venv-qed`` (git-ignored) and installs ``benchmark-qed==0.4.0`` in it
   when it is not there yet;
4. for each stage runs ``benchmark-qed autoe ...`` and ``assay judge`` (a config this script
   writes, with the same criteria, trials, scale and concurrency, and a fresh response
   cache, so every call reaches the server), each as one child process: wall time, LLM
   calls (counted by the server), calls/s over the wall time and over the server's active
   span (first request to last reply, i.e. without start-up), CPU user+sys of the child
   and per call (also net of the tool's import cost, measured by an ``import`` stage),
   peak RSS of the child (``os.wait4``), and the most requests the server saw in flight;
   then the ratios assay / BenchmarkQED;
5. ``--rerun N``: assay judges N pairwise judgments fresh into one run folder, then again
   into a new folder with the same response cache (no call reaches the server: the target
   is under 2 s), then resumes the first folder (everything stored, all skipped).

Stages: pairwise (base vector_rag vs graph_rag, 4 criteria x ``--trials``: 1,440 calls),
reference (reference answers vs both methods, correctness and completeness, scale 1-10:
1,440 calls), assertion (2 methods x 3 sets x 3 assertions x ``--trials``: 2,160 calls),
hierarchical (STAGED, data_global; optional). BenchmarkQED's ``concurrent_requests`` is a
requests-per-second limit, assay's ``max_concurrency`` a bound on requests in flight; both
are set to ``--concurrency``. Results go to ``<out>/results.json`` and are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QED_DIR = (ROOT.parent / "shared" / "bench" / "qed") if (ROOT.parent / "shared").is_dir() \
    else Path("/work/shared/bench/qed")
VENV = ROOT / "bench" / ".venv-qed"
QED_VERSION = "0.4.0"
QSETS = ["data_local", "data_global", "activity_local"]
METHODS = ["vector_rag", "graph_rag"]
MODEL = "gpt-4.1"
KEY = "sk-mock-not-a-secret"


# -- processes and the server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url: str, data: dict | None = None) -> dict:
    body = None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"},
                                 method="GET" if data is None else "POST")
    with urllib.request.urlopen(req, timeout=10) as reply:
        return json.loads(reply.read())


def wait_health(base: str, timeout: float = 20.0) -> None:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        try:
            http_json(base + "/health")
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the mock server did not come up")


def measured(cmd: list[str], *, cwd: Path, env: dict[str, str], log: Path) -> dict[str, Any]:
    """Run one child to its end; its wall time, CPU, peak RSS and exit code (``os.wait4``)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=str(cwd), env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"exit": proc.returncode, "wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "max_rss_mb": usage.ru_maxrss / 1024}


def ensure_qed(python: str) -> Path:
    """bench/.venv-qed with benchmark-qed==0.4.0 (created and installed when missing)."""
    qed = VENV / "bin" / "benchmark-qed"
    if qed.exists():
        return qed
    print(f"installing benchmark-qed=={QED_VERSION} into {VENV} (once) ...", flush=True)
    if not (VENV / "bin" / "python").exists():
        subprocess.run([python, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", f"benchmark-qed=={QED_VERSION}"], check=True)
    return qed


def assay_command() -> list[str]:
    script = Path(sys.executable).parent / "assay"
    if script.exists():
        return [str(script)]
    found = shutil.which("assay")
    if found is None:
        raise SystemExit("the assay command is not installed (pip install -e .)")
    return [found]


# -- the two tools' configs
def qed_llm(args: argparse.Namespace, port: int) -> dict:
    return {"model": MODEL, "auth_type": "api_key", "api_key": KEY, "llm_provider": "openai.chat",
            "concurrent_requests": args.concurrency,
            "init_args": {"api_base": f"http://127.0.0.1:{port}/v1"},
            "call_args": {"temperature": 0.0, "seed": 42}}


def qed_stage(args: argparse.Namespace, stage: str, data: Path, sdir: Path, port: int,
              qed: Path) -> list[str]:
    ans = data / "answers"
    llm = qed_llm(args, port)
    common = {"trials": args.trials, "llm_config": llm}
    out = sdir / "output"
    if stage == "pairwise":
        cfg = {"base": {"name": METHODS[0], "answer_base_path": str(ans / METHODS[0])},
               "others": [{"name": METHODS[1], "answer_base_path": str(ans / METHODS[1])}],
               "question_sets": QSETS, **common}
        cmd = ["autoe", "pairwise-scores", "CFG", str(out)]
    elif stage == "reference":
        cfg = {"reference": {"name": "reference",
                             "answer_base_path": str(ans / "reference" / "all_sets.json")},
               "generated": [{"name": m, "answer_base_path": str(ans / m / "all_sets.json")}
                             for m in METHODS],
               "score_min": 1, "score_max": 10, **common}
        cmd = ["autoe", "reference-scores", "CFG", str(out)]
    elif stage == "assertion":
        # 0.4.0's default answers template names {rag_method} but is formatted with
        # generated_rag=..., so it must be given with {generated_rag}.
        cfg = {"input_dir": str(data), "output_dir": str(out), "rag_methods": METHODS, "question_sets": QSETS,
               "assertions_filename_template": "assertions/{question_set}_assertions.json",
               "answers_path_template": "{input_dir}/answers/{generated_rag}/{question_set}.json",
               "pass_threshold": 0.5, "run_significance_test": True, "significance_alpha": 0.05,
               "significance_correction": "holm", "run_clustered_permutation": False, **common}
        cmd = ["autoe", "assertion-scores", "CFG"]
    elif stage == "hierarchical":
        cfg = {"input_dir": str(data), "output_dir": str(out), "rag_methods": METHODS,
               "assertions_file": str(data / "assertions" / "data_global_assertions.json"),
               "answers_path_template": "{input_dir}/answers/{generated_rag}/data_global.json",
               "mode": "staged", "pass_threshold": 0.5, "run_significance_test": True,
               "run_clustered_permutation": False, **common}
        cmd = ["autoe", "hierarchical-assertion-scores", "CFG"]
    else:
        raise ValueError(stage)
    path = sdir / "config.json"
    path.write_text(json.dumps(cfg, indent=2))
    return [str(qed), *(str(path) if c == "CFG" else c for c in cmd), "--print-model-usage"]


def assay_judge_section(args: argparse.Namespace, stage: str) -> dict:
    if stage == "pairwise":
        return {"kind": "pairwise", "label": "pairwise", "base": METHODS[0], "others": [METHODS[1]],
                "trials": args.trials,
                "criteria": ["comprehensiveness", "diversity", "empowerment", "relevance"]}
    if stage == "reference":
        return {"kind": "reference", "label": "reference", "reference": "reference", "generated": METHODS,
                "trials": args.trials, "score_min": 1, "score_max": 10,
                "criteria": ["correctness", "completeness"]}
    if stage == "assertion":
        return {"kind": "assertion", "label": "assertion", "trials": args.trials, "pass_threshold": 0.5,
                "arms": METHODS}
    if stage == "hierarchical":
        return {"kind": "assertion_hierarchical", "label": "hierarchical", "mode": "staged",
                "trials": args.trials, "pass_threshold": 0.5, "arms": METHODS,
                "question_sets": ["data_global"]}
    raise ValueError(stage)


def assay_config(args: argparse.Namespace, judge: dict, data: Path, port: int, cache: Path,
                 question_sets: list[str]) -> dict:
    return {
        "version": 1,
        "llm": {"model": MODEL, "base_url": f"http://127.0.0.1:{port}/v1", "api_key_env": None,
                "max_concurrency": args.concurrency, "timeout_s": 60,
                "params": {"temperature": 0.0, "seed": 42}},
        "inputs": {"input_dir": str(data / "answers"), "methods": [*METHODS, "reference"],
                   "question_sets": question_sets, "answers_path": "{input_dir}/{method}/{question_set}.json",
                   "question_text_key": "question_text",
                   "assertions_path": str(data / "assertions") + "/{question_set}_assertions.json"},
        "judges": [judge],
        "cache": str(cache),
    }


def assay_stage(args: argparse.Namespace, stage: str, data: Path, sdir: Path, port: int,
                cache: Path | None = None, question_sets: list[str] | None = None,
                run: Path | None = None, judge: dict | None = None) -> list[str]:
    """The ``assay judge`` command of one stage; a fresh cache and run folder unless given."""
    cache = cache or sdir / "cache.sqlite"
    run = run or sdir / "run"
    if cache == sdir / "cache.sqlite":
        cache.unlink(missing_ok=True)
    if run == sdir / "run":
        shutil.rmtree(run, ignore_errors=True)
    cfg = assay_config(args, judge or assay_judge_section(args, stage), data, port, cache,
                       question_sets or QSETS)
    path = sdir / "config.json"  # JSON is YAML
    path.write_text(json.dumps(cfg, indent=2))
    return [*assay_command(), "judge", str(path), "--out", str(run), "--display", "plain"]


# -- one measured stage
def run_stage(tool: str, stage: str, cmd: list[str], sdir: Path, base: str, env: dict[str, str],
              net_cpu_s: float) -> dict[str, Any]:
    http_json(base + "/mock/reset", {})
    print(f"[{tool} {stage}] {' '.join(cmd)}", flush=True)
    row: dict[str, Any] = {"tool": tool, "stage": stage,
                           **measured(cmd, cwd=sdir, env=env, log=sdir / "output.log")}
    stats = http_json(base + "/mock/stats")
    calls, span = stats["requests"], stats.get("active_span_s")
    row.update(calls=calls, span_s=span, max_in_flight=stats["max_inflight"],
               calls_per_s=calls / row["wall_s"] if calls else 0.0,
               calls_per_s_span=calls / span if calls and span else None,
               cpu_ms_per_call=1000 * row["cpu_s"] / calls if calls else None,
               cpu_ms_per_call_net=1000 * max(row["cpu_s"] - net_cpu_s, 0.0) / calls if calls else None)
    if row["exit"] != 0:
        print(f"[{tool} {stage}] FAILED (exit {row['exit']}), see {sdir / 'output.log'}", flush=True)
    return row


def fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| tool | stage | exit | wall s | LLM calls | calls/s (wall) | calls/s (LLM span) | CPU s | "
             "CPU ms/call | CPU ms/call net of import | peak RSS MB | max in flight |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['tool']} | {r['stage']} | {r['exit']} | {r['wall_s']:.2f} | "
                     f"{r.get('calls', 0)} | "
                     f"{fmt(r.get('calls_per_s'), '.1f')} | {fmt(r.get('calls_per_s_span'), '.1f')} | "
                     f"{r['cpu_s']:.2f} | {fmt(r.get('cpu_ms_per_call'), '.3f')} | "
                     f"{fmt(r.get('cpu_ms_per_call_net'), '.3f')} | {r['max_rss_mb']:.0f} | "
                     f"{r.get('max_in_flight', '-')} |")
    return lines


def ratios(rows: list[dict[str, Any]], stages: list[str]) -> list[str]:
    lines = ["| stage | wall assay/qed | calls/s assay/qed | calls/s (span) assay/qed | "
             "CPU ms/call assay/qed | peak RSS assay/qed |", "|---|---|---|---|---|---|"]

    def ratio(a: float | None, b: float | None) -> str:
        return "-" if not a or not b else f"{a / b:.3f}"

    for stage in ["import", *stages]:
        got = {r["tool"]: r for r in rows if r["stage"] == stage}
        if len(got) != 2:
            continue
        a, q = got["assay"], got["qed"]
        lines.append(f"| {stage} | {ratio(a['wall_s'], q['wall_s'])} | "
                     f"{ratio(a.get('calls_per_s'), q.get('calls_per_s'))} | "
                     f"{ratio(a.get('calls_per_s_span'), q.get('calls_per_s_span'))} | "
                     f"{ratio(a.get('cpu_ms_per_call'), q.get('cpu_ms_per_call'))} | "
                     f"{ratio(a['max_rss_mb'], q['max_rss_mb'])} |")
    return lines


def rerun_10k(args: argparse.Namespace, out: Path, base: str, port: int, env: dict[str, str],
              import_cpu: float) -> list[dict[str, Any]]:
    """N pairwise judgments fresh, then cached into a new folder, then resumed (assay only)."""
    n_questions = -(-args.rerun // (4 * args.trials))
    data = out / f"data-{n_questions}q"
    if not (data / "answers").exists():
        subprocess.run([sys.executable, str(QED_DIR / "make_dataset.py"), "--out", str(data),
                        "--questions", str(n_questions)], check=True, stdout=subprocess.DEVNULL)
    sdir = out / "assay" / "rerun"
    sdir.mkdir(parents=True, exist_ok=True)
    cache = sdir / "cache-rerun.sqlite"
    cache.unlink(missing_ok=True)
    runs = [sdir / "run-1", sdir / "run-2"]
    for run in runs:
        shutil.rmtree(run, ignore_errors=True)
    judge = assay_judge_section(args, "pairwise")
    rows = []
    for name, run in (("fresh", runs[0]), ("cached, new folder", runs[1]), ("resumed, same folder", runs[0])):
        cmd = assay_stage(args, "pairwise", data, sdir, port, cache=cache, question_sets=["data_local"],
                          run=run, judge=judge)
        row = run_stage("assay", f"{n_questions * 4 * args.trials} pairwise: {name}", cmd, sdir, base,
                        env, import_cpu)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--stages", default="pairwise,reference,assertion",
                        help="comma-separated: pairwise, reference, assertion, hierarchical")
    parser.add_argument("--tools", default="qed,assay")
    parser.add_argument("--rerun", type=int, default=10_000, help="judgments of the cached rerun (0: none)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "qed"))
    parser.add_argument("--python", default=sys.executable, help="the Python that makes the qed venv")
    args = parser.parse_args()
    stages = [s for s in args.stages.split(",") if s]
    tools = [t for t in args.tools.split(",") if t]
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    data = out / "data"
    if not (data / "answers").exists():
        subprocess.run([sys.executable, str(QED_DIR / "make_dataset.py"), "--out", str(data)], check=True)
    qed = ensure_qed(args.python) if "qed" in tools else None

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(out / "mock_server.log", "w") as mock_log:
        mock = subprocess.Popen([sys.executable, str(QED_DIR / "mock_llm_server.py"), "--port", str(port),
                                 "--latency-ms", str(args.latency_ms)],
                                stdout=mock_log, stderr=subprocess.STDOUT)
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONUNBUFFERED": "1",
           "OPENAI_API_KEY": KEY, "COLUMNS": "160"}
    rows: list[dict[str, Any]] = []
    try:
        wait_health(base)
        print(f"mock {base} (own process), latency {args.latency_ms:g} ms, concurrency {args.concurrency}, "
              f"trials {args.trials}; {os.cpu_count()} CPUs; ideal "
              f"{args.concurrency * 1000 / args.latency_ms:.0f} calls/s", flush=True)
        import_cpu: dict[str, float] = {}
        for tool in tools:
            sdir = out / tool / "import"
            sdir.mkdir(parents=True, exist_ok=True)
            python = str(VENV / "bin" / "python") if tool == "qed" else sys.executable
            module = "benchmark_qed.autoe.cli" if tool == "qed" else "assay.cli"
            row = run_stage(tool, "import", [python, "-c", f"import {module}"], sdir, base, env, 0.0)
            import_cpu[tool] = row["cpu_s"]
            rows.append(row)
        for stage in stages:
            for tool in tools:
                sdir = out / tool / stage
                shutil.rmtree(sdir, ignore_errors=True)
                sdir.mkdir(parents=True)
                cmd = (qed_stage(args, stage, data, sdir, port, qed) if tool == "qed" and qed is not None
                       else assay_stage(args, stage, data, sdir, port))
                rows.append(run_stage(tool, stage, cmd, sdir, base, env, import_cpu[tool]))
                print(json.dumps({k: v for k, v in rows[-1].items()}, default=str), flush=True)
        if args.rerun and "assay" in tools:
            rows.extend(rerun_10k(args, out, base, port, env, import_cpu["assay"]))
    finally:
        mock.send_signal(signal.SIGINT)
        try:
            mock.wait(timeout=5)
        except subprocess.TimeoutExpired:
            mock.kill()
            mock.wait()

    meta = {"concurrency": args.concurrency, "latency_ms": args.latency_ms, "trials": args.trials,
            "ideal_calls_per_s": args.concurrency * 1000 / args.latency_ms, "cpu_count": os.cpu_count(),
            "python": sys.version.split()[0], "benchmark_qed": QED_VERSION}
    (out / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2, default=str))
    print()
    print(f"meta: {json.dumps(meta)}")
    print("\n".join(table(rows)))
    print()
    print("\n".join(ratios(rows, stages)))
    print(f"\nresults: {out / 'results.json'}")


if __name__ == "__main__":
    main()
