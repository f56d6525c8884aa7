"""The attack of issue 22, run again end to end, for the figures of its closing note.

Each figure is obtained by doing the attack, not by reading test results. Run by hand from
the repository root, not by the tests:

    python bench/bench_attack.py            # everything: about 3 minutes of CPU (this process and
                                            # its children), 5-6 minutes wall on 2 cores at load 4
    python bench/bench_attack.py --quick    # a subset of each part: about 1 minute of CPU
    python bench/bench_attack.py --mutant-seeds 22 2027   # and a fresh set of mutated files
    python bench/bench_attack.py --keep /tmp/attack       # keep the working folders to look at

The stand-in model server (tests/judge/llm_server.py) runs in this process on 127.0.0.1 (a
free port); every config points at it or at the closed port 127.0.0.1:9, so nothing leaves
the machine. Every ``assay`` command runs as a child process (``python -m assay``, this
tree's ``src`` first on ``PYTHONPATH``), as a user's shell runs it, except the mutated files,
which go through ``assay.cli.main`` in this process as their test does. Parts:

1. **Template payloads**: each escape of ``tests/judge/prompts/test_sandbox.py``'s
   ``PAYLOADS`` in a shared prompt folder's ``user.md``, through ``assay describe``, ``assay
   judge --dry-run`` and a real ``assay judge`` against the recording server. A payload is
   *executed* when its marker file appears or what it leaks shows in any output or in any
   request the server received; first, each payload is shown live in a plain jinja2
   environment with the same detector (else its 0 would mean nothing).
2. **Mutated files**: every mutant of ``tests/robustness/_mutants.py`` (24 per seed file, all
   importers and config readers) for each ``--mutant-seeds`` value: 22 (the default) is the set
   of the slow test, another value a fresh set no fix has seen. Outcomes by the test's rules: read
   (exit 0), refused in one line (exit 2, one ``error:`` line naming a file of the mutant,
   configs excepted), refused otherwise (more lines, or no file named), internal error (any
   other exit, ``internal error``, a traceback, an exception escaping ``main``).
3. **Secrets**: the command list of ``tests/cli/test_secrets_on_disk.py`` (describe, judge
   ``--dry-run``, generate, judge, teacher, G-Eval, a server echoing the Authorization header
   and the query, the Batch API, report, export, ``view --export``, ``cache info``; in full
   mode also its slow list: ``assay run`` and every report format) with the key in the
   environment and a query token in every base URL. Every file under the working folder is
   scanned (its bytes, the SQLite stores and caches included; zip members such as xlsx,
   gzip and Parquet values decoded too) and both streams of every command.
4. **Unstored runs**: ``assay judge`` (batch: every batch expired, garbled and dropped result
   lines, failed lines; direct: faults, a cost limit, Ctrl-C, a store write lost),
   ``generate``, the teacher, G-Eval and ``assay run``. Planned counts come from each
   config's design, stored counts from the run store on its own connection; a run whose store
   holds fewer than planned and that exited 0 is the figure (must be 0).
5. **Per item**: formula cells written by ``assay import table`` to CSV and TSV; config output
   paths (``report.out``, ``export[].out``) escaping the run folder; hostile request paths
   sent to ``assay view --reports`` on raw sockets, answered or dropped.

Printed: a line per case where it tells something, the findings with how to reproduce
them, then the table of the four figures and the per-item lines.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml
from _attack_common import (
    BATCH,
    EXAMPLE,
    FOUND,
    GEVAL_SCORES,
    KEY,
    ROOT,
    STORED,
    TOKEN,
    Done,
    assay,
    child_env,
    count_rows,
    shell,
)
from _attack_items import attack_formulas, attack_paths, attack_viewer
from tests.cli._judge_helpers import PAIRWISE, write_config, write_systems_config, write_teacher_config
from tests.judge.llm_server import Behaviour, LLMServer

# -- 1. template payloads --------------------------------------------------------------------

LEAK_SEEN = {"mutate": "'injected']"}
"""What a leak looks like once evaluated, where the test's string is in the payload itself."""


def _shown(name: str, text: str, payload: str) -> bool:
    """Whether ``text`` shows what payload ``name`` leaks (its own text quoted does not count)."""
    from tests.judge.prompts.test_sandbox import PAYLOADS

    leaked = PAYLOADS[name][1]
    if leaked is None:
        return False
    return LEAK_SEEN.get(name, leaked) in text.replace(payload, "")


def attack_payloads(server: LLMServer, work: Path, quick: bool) -> dict:
    import jinja2
    from tests.judge.prompts.test_sandbox import PAYLOADS, _text, _values

    names = sorted(PAYLOADS)
    if quick:
        names = ["cycler", "self", "attr-filter", "key-computed", "format", "mro", "mutate"]
    live = 0
    for name in names:  # the detector first, on main's plain environment (test_payload_is_live_...)
        mark = work / "live" / name / "PWNED"
        mark.parent.mkdir(parents=True)
        payload = _text(PAYLOADS[name][0], mark)
        values = _values()
        if name == "config":
            values[name] = jinja2.utils.Cycler(1)
        if name == "request":
            values[name] = type("Request", (), {"application": _values})()
        try:
            out = jinja2.Environment().from_string(payload).render(**values)
        except Exception as exc:  # whether the marker was made is the point
            out = repr(exc)
        live += mark.exists() or _shown(name, out, payload.splitlines()[2])
    executed, runs, refused, requests = [], 0, 0, 0
    for name in names:
        folder = work / name
        (folder / "shared_prompt").mkdir(parents=True)
        mark = folder / "PWNED"
        text = _text(PAYLOADS[name][0], mark)
        (folder / "shared_prompt" / "user.md").write_text(text, encoding="utf-8")
        write_config(folder, server.url, judges=[{**PAIRWISE, "prompt": "shared_prompt"}])
        server.reset(Behaviour(record_bodies=True))
        commands = [["describe", "judge.yaml"], ["judge", "judge.yaml", "--out", "run", "--dry-run"],
                    ["judge", "judge.yaml", "--out", "run", "--display", "plain"]]
        dones = [assay(argv, folder) for argv in commands]
        runs += len(dones)
        refused += sum(d.one_line_refusal() for d in dones)
        requests += server.stats.requests
        sent = json.dumps(server.stats.bodies)
        line = text.splitlines()[2]
        ran = mark.exists()
        leaks = [d for d in dones if _shown(name, d.text, line)] + \
            ([Done(["(the server received it)"], 0, sent, "")] if _shown(name, sent, line) else [])
        if ran or leaks:
            executed.append(name)
            FOUND.add("payloads", f"payload {name!r} {'made its marker file' if ran else 'leaked'}",
                      "bench/bench_attack.py --keep DIR, then " + shell(dones[0], folder))
        for d in dones:
            if not d.one_line_refusal():
                FOUND.add("payloads", f"payload {name!r}: {d.argv[0]} exited {d.code}, not one line: "
                          f"{d.text.strip()[-200:]!r}", shell(d, folder))
        if server.stats.requests:
            FOUND.add("payloads", f"payload {name!r}: the server received {server.stats.requests} "
                      "requests", shell(dones[2], folder))
    print(f"payloads: {len(names)} escapes of tests/judge/prompts/test_sandbox.py; live in a plain jinja2 "
          f"environment with the same detector: {live} of {len(names)}")
    print(f"  describe, judge --dry-run, judge against the server: {runs} runs, {refused} refused in one "
          f"line (exit 2); executed: {len(executed)}{' ' + ', '.join(executed) if executed else ''}; "
          f"requests the server received: {requests}")
    return {"tried": len(names), "executed": len(executed), "live": live, "runs": runs, "refused": refused}


# -- 2. mutated files ------------------------------------------------------------------------

def _mutant_recipe(name: str, per_seed: int, seed: int) -> str:
    return ("python -c \"import sys; sys.path.insert(0, '.'); from pathlib import Path; "
            "from tests.robustness._mutants import mutants; "
            f"m = next(m for m in mutants({per_seed}, seed={seed}) if m.name == {name!r}); "
            "root = Path('/tmp/mutant'); m.write(root); print(' '.join(m.seed.argv(root)))\" "
            "(from the repository root), then OPENAI_API_KEY=sk-test assay with the arguments printed")


def attack_mutants(work: Path, seeds: list[int], quick: bool) -> dict:
    import importlib.util

    from tests.robustness._mutants import mutants, take

    per_seed = 6 if quick else 24
    old = os.environ.get("OPENAI_API_KEY"), os.environ.get("XDG_CACHE_HOME")
    os.environ["OPENAI_API_KEY"] = "sk-test"
    os.environ["XDG_CACHE_HOME"] = str(work / "xdg-cache")
    totals = {"tried": 0, "read": 0, "refused": 0, "refused_badly": 0, "internal": 0}
    try:
        for seed in seeds:
            counts = dict.fromkeys(totals, 0)
            started = time.perf_counter()
            for mutant in mutants(per_seed, seed=seed):
                counts["tried"] += 1
                with tempfile.TemporaryDirectory(dir=work) as folder:
                    taken = take(mutant, Path(folder))
                    counts[taken.kind] += 1
                    if taken.why:
                        FOUND.add("mutants", f"{mutant.name} (seed {seed}): {taken.why!r}",
                                  _mutant_recipe(mutant.name, per_seed, seed))
            for k in totals:
                totals[k] += counts[k]
            slow_set = " (the slow test set)" if seed == 22 and per_seed == 24 else ""
            print(f"mutated files, seed {seed}{slow_set}: "
                  f"{counts['tried']} tried ({per_seed} per seed file), {counts['read']} read, "
                  f"{counts['refused']} refused in one line, {counts['refused_badly']} refused otherwise, "
                  f"{counts['internal']} internal errors; {time.perf_counter() - started:.0f} s")
    finally:
        for name, value in zip(("OPENAI_API_KEY", "XDG_CACHE_HOME"), old, strict=True):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    if importlib.util.find_spec("inspect_ai") is None:
        print("  (inspect-ai is not installed: its mutants are refused as needing it)")
    return totals


# -- 3. secrets ------------------------------------------------------------------------------

def scan(root: Path, secrets: tuple[str, ...]) -> tuple[int, int, dict[str, int], list[str]]:
    """Files under ``root`` (links not followed), bytes, files by kind, and where a secret is."""
    found, files, size, kinds = [], 0, 0, {"sqlite": 0, "zip": 0, "parquet": 0, "gzip": 0}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            files += 1
            size += len(data)
            texts = [data]
            if data.startswith(b"SQLite format 3\0"):
                kinds["sqlite"] += 1
            if data[:4] == b"PK\x03\x04":
                kinds["zip"] += 1
                with contextlib.suppress(zipfile.BadZipFile), zipfile.ZipFile(path) as archive:
                    texts += [archive.read(member) for member in archive.namelist()]
            if data[:2] == b"\x1f\x8b":
                kinds["gzip"] += 1
                with contextlib.suppress(OSError, EOFError):
                    texts.append(gzip.decompress(data))
            if data[:4] == b"PAR1":
                kinds["parquet"] += 1
                import pyarrow.parquet as pq

                table = pq.read_table(path)
                texts.append(json.dumps(table.to_pylist(), default=str).encode())
                texts.append(str(table.schema.metadata).encode())
            for secret in secrets:
                if any(secret.encode() in t for t in texts):
                    found.append(f"{path.relative_to(root)}: {secret}")
    return files, size, kinds, found


def attack_secrets(server: LLMServer, work: Path, quick: bool) -> dict:
    from tests.cli.test_secrets_on_disk import SCORES, teacher_config

    planted = work / "planted"  # the scanner finds a secret where it is, or its 0 means nothing
    planted.mkdir(parents=True)
    (planted / "a.txt").write_text(f"x{KEY}x")
    with zipfile.ZipFile(planted / "b.xlsx", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("sheet.xml", f"<c>{TOKEN}</c>" * 50)
    planted_found = len(scan(planted, (KEY, TOKEN))[3])
    shutil.rmtree(planted)

    folder = work / "secrets"
    folder.mkdir()
    for name in ("eval.yaml", "items.csv"):
        shutil.copy(EXAMPLE / name, folder / name)
    (folder / "tmp").mkdir()
    server.reset(Behaviour(scores=SCORES))
    url = f"{server.url}?token={TOKEN}"
    env = {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url, "TMPDIR": str(folder / "tmp")}
    write_config(folder / "judge", "${OPENAI_BASE_URL}", api_key_env="OPENAI_API_KEY")
    write_config(folder / "judge", "${OPENAI_BASE_URL}", api_key_env="OPENAI_API_KEY", name="batch.yaml",
                 **BATCH)
    (folder / "baselines.yaml").write_text(yaml.safe_dump({
        "llm": {"model": "judge-model", "base_url": "${OPENAI_BASE_URL}", "api_key_env": "OPENAI_API_KEY"},
        "geval": {"criterion": "correctness", "score_max": 5}}), encoding="utf-8")
    teacher_config(folder)
    steps = [
        ("describe", "eval.yaml", "--out", "plan.html"),
        ("judge", "judge/judge.yaml", "--dry-run"),
        ("generate", "eval.yaml", "--out", "dry", "--dry-run"),
        ("generate", "eval.yaml", "--out", "whole"),
        ("judge", "eval.yaml", "--out", "whole", "--display", "plain"),
        ("describe", "eval.yaml", "--run", "whole"),
        *([] if quick else [("generate", "teacher.yaml", "--out", "taught"),
                            ("baselines", "whole", "--methods", "geval", "--config", "baselines.yaml")]),
        ("judge", "judge/judge.yaml", "--out", "judged", "--display", "plain", "exit=3"),
        ("judge", "judge/batch.yaml", "--out", "batched", "--display", "plain"),
        ("report", "whole", "--kind", "scores", "--format", "json,html", "--out", "reports"),
        ("export", "whole", "--format", "leaderboard-csv", "-o", "standings.csv"),
        ("view", "whole", "--export", "view.html"),
        ("view", "judged", "--export", "judged.html"),
        ("cache", "info", "whole"),
        *([] if quick else [("run", "eval.yaml", "--out", "run"),  # the slow test's list
                            ("report", "run", "--format", "json,html,xlsx,text,latex",
                             "--out", "run-reports"),
                            ("export", "run", "--format", "leaderboard-csv", "-o", "run-standings.csv"),
                            ("view", "run", "--export", "run-view.html")]),
    ]
    printed, streams, echoes = [], 0, 0
    for step in steps:
        argv, code = list(step), 0
        if argv[-1].startswith("exit="):
            code = int(argv.pop()[5:])
        if argv[:3] == ["judge", "judge/judge.yaml", "--out"]:
            server.configure(script=["echo_auth"])  # its error echoes the Authorization header and the query
            echoes += 1
        done = assay(argv, folder, **env)
        printed.append(done.text)
        streams += 2
        if done.code != code:
            FOUND.add("secrets", f"assay {' '.join(argv)} exited {done.code} (expected {code}): "
                      f"{done.text.strip()[-300:]!r}",
                      shell(done, folder, f"OPENAI_API_KEY={KEY} OPENAI_BASE_URL='{url}'"))
    sent_key = f"Bearer {KEY}" in server.stats.authorizations
    sent_token = any(f"token={TOKEN}" in path for path in server.stats.paths)
    files, size, kinds, found = scan(folder, (KEY, TOKEN))
    found += [f"printed by assay {' '.join(s[:3])}...: {secret}"
              for s, text in zip(steps, printed, strict=True) for secret in (KEY, TOKEN) if secret in text]
    for where in found:
        FOUND.add("secrets", f"a secret reached {where}",
                  f"bench/bench_attack.py --keep DIR; grep -rlaF -e {KEY} -e {TOKEN} DIR/secrets")
    lists = "" if quick else " and its slow list"
    print(f"secrets: {len(steps)} commands (tests/cli/test_secrets_on_disk.py{lists}) "
          f"with the key in OPENAI_API_KEY and ?token= in every base URL; the key reached the server as a "
          f"bearer: {'yes' if sent_key else 'NO'}, the token in the query: {'yes' if sent_token else 'NO'}; "
          f"echo_auth replies served: {server.stats.faults.get('echo_auth', 0)} of {echoes}")
    print(f"  scanned {files} files ({size / 1e6:.1f} MB; {kinds['sqlite']} SQLite, {kinds['zip']} zip, "
          f"{kinds['parquet']} Parquet, {kinds['gzip']} gzip decoded too) and {streams} printed streams: "
          f"{len(found)} secrets found (the scanner on planted files: {planted_found} of 2 found)")
    return {"files": files, "streams": streams, "found": len(found), "commands": len(steps)}


# -- 4. unstored runs ------------------------------------------------------------------------

@dataclass
class Case:
    name: str
    behaviour: Behaviour
    planned: int
    argv: list[str]
    store: str
    setup: object  # folder, url -> None: writes the config




def _geval(folder: Path, url: str) -> None:
    run = folder / "run"
    run.mkdir()
    (run / "datapoints.jsonl").write_text("".join(json.dumps(
        {"id": f"d{i}", "prompt": f"Q{i}?", "reference_score": i / 4}) + "\n" for i in range(4)))
    (run / "responses.jsonl").write_text("".join(json.dumps(
        {"id": f"r{i}", "datapoint_id": f"d{i}", "arm": "a", "text": f"reply {i}"}) + "\n" for i in range(4)))
    (folder / "baselines.yaml").write_text(
        f"llm: {{model: judge-model, base_url: '{url}', api_key_env: null, transport: batch, "
        "batch_poll_s: 0.02}\ngeval: {samples: 2}\n", encoding="utf-8")


def unstored_cases(quick: bool) -> list[Case]:
    judge = ["judge", "judge.yaml", "--out", "run", "--display", "plain"]
    teacher = ["generate", "teacher.yaml", "--out", "run", "--datapoints-only"]
    b = Behaviour
    # pairwise, 3 questions x 2 criteria x 2 trials: 12 planned; --limit 1: 4
    cases = [
        Case("judge batch, every batch expired, --limit 1", b(batch_expire_after=0), 4,
             [*judge, "--limit", "1"], "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge batch, every 4th result line garbled", b(batch_garble_every=4), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge batch, every result line garbled, --limit 1", b(batch_garble_every=1), 4,
             [*judge, "--limit", "1"], "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge direct, store write lost (in process)", b(), 12, judge, "run/judgments.sqlite",
             lambda f, u: write_config(f, u)),
    ]
    if quick:
        return cases
    return [*cases[:3],
        Case("judge batch, every 3rd result line missing", b(batch_drop_every=3), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge batch, every 2nd line HTTP 500", b(batch_fail_every=2), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge batch, half expired (first 6 lines answered)", b(batch_expire_after=6), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u, **BATCH)),
        Case("judge direct, 40% faults, no retries", b(rates={"server_error": 0.15, "malformed_body": 0.1,
                                                               "truncated": 0.1, "refusal": 0.05}),
             12, judge, "run/judgments.sqlite",
             lambda f, u: write_config(f, u, max_retries=0, max_parse_retries=0)),
        Case("judge direct, every call 401", b(rates={"unauthorized": 1.0}), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u)),
        Case("judge direct, cost limit after 1 call", b(), 12, judge, "run/judgments.sqlite",
             lambda f, u: write_config(f, u, max_concurrency=1, cost_limit_usd=0.0001)),
        Case("judge direct, Ctrl-C after the first judgment", b(latency_s=0.3), 12, judge,
             "run/judgments.sqlite", lambda f, u: write_config(f, u, max_concurrency=1)),
        cases[3],
        Case("generate batch, every batch expired", b(batch_expire_after=0), 3,
             ["generate", "gen.yaml", "--out", "run"], "run/generation/judgments.sqlite",
             lambda f, u: write_systems_config(f, u, transport="batch")),
        Case("teacher batch, every batch expired", b(batch_expire_after=0), 3,
             teacher, "run/teacher/judgments.sqlite",
             lambda f, u: write_teacher_config(f, u, transport="batch")),
        Case("teacher direct, cost limit after 1 call", b(), 3,
             teacher, "run/teacher/judgments.sqlite",
             lambda f, u: write_teacher_config(f, u, teacher={"price": {"input": 1000.0, "output": 1000.0}},
                                               max_concurrency=1, cost_limit_usd=0.01)),
        Case("G-Eval batch, every batch expired", b(scores=GEVAL_SCORES, batch_expire_after=0), 12,
             ["baselines", "run", "--methods", "geval", "--config", "baselines.yaml"],
             "run/baselines/judgments.sqlite", lambda f, u: _geval(f, u)),
        Case("assay run batch, every batch expired", b(batch_expire_after=0), 12,
             ["run", "judge.yaml", "--out", "run"], "run/judgments.sqlite",
             lambda f, u: write_config(f, u, **BATCH)),
    ]


def _in_process(argv: list[str], cwd: Path) -> Done:
    """The direct run of tests/cli/test_stored_exit_status.py whose first good store write never
    lands (``RunStore.put`` patched), through ``assay.cli.main`` in this process."""
    from unittest import mock

    from assay.cli import main
    from assay.llm.store import RunStore

    put, dropped = RunStore.put, []

    def losing_put(self, request, reply, rows, *, commit=True):
        if not dropped and reply.ok:
            dropped.append(request.key)
            return False
        return put(self, request, reply, rows, commit=commit)

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    os.chdir(cwd)
    cache = {"XDG_CACHE_HOME": str(cwd / "xdg-cache")}
    try:
        with mock.patch.object(RunStore, "put", losing_put), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err), mock.patch.dict(os.environ, cache):
            try:
                main(argv)
                code = 0
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        os.chdir(here)
    return Done(argv, code, out.getvalue(), err.getvalue())


def _interrupted(argv: list[str], cwd: Path, store: Path) -> Done:
    """``argv`` as a child process, sent SIGINT once its store holds a judgment."""
    child = subprocess.Popen([sys.executable, "-m", "assay", *argv], cwd=cwd, env=child_env(cwd),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and child.poll() is None:
        with contextlib.suppress(sqlite3.Error):
            if count_rows(store)[0] >= 1:
                break
        time.sleep(0.05)
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    return Done(argv, child.returncode, out, err)


def attack_unstored(server: LLMServer, work: Path, quick: bool) -> dict:
    rows, bad = [], 0
    print("unstored runs: planned (by the config's design) / stored (the run store) / exit; the "
          "command's own 'stored S of P' line")
    for i, case in enumerate(unstored_cases(quick)):
        folder = work / f"case{i:02d}"
        folder.mkdir()
        server.reset(case.behaviour)
        case.setup(folder, server.url)
        store = folder / case.store
        if case.name.startswith("judge direct, store write lost"):
            done = _in_process(case.argv, folder)
        elif "Ctrl-C" in case.name:
            done = _interrupted(case.argv, folder, store)
        else:
            done = assay(case.argv, folder)
        stored, failed = count_rows(store)
        said = STORED.findall(done.out + done.err)
        claim = f"stored {said[-1][0]} of {said[-1][1]}" if said else "no 'stored' line"
        quiet = stored < case.planned and done.code == 0
        bad += quiet
        rows.append(case.name)
        print(f"  {case.name:<52} planned {case.planned:>2}  stored {stored:>2} ({failed:>2} failed)  "
              f"exit {done.code:>3}  [{claim}; {server.stats.requests} chat requests, "
              f"{server.batches.created} batches]{'  <- UNSTORED, EXIT 0' if quiet else ''}")
        if quiet:
            FOUND.add("unstored", f"{case.name}: {stored} of {case.planned} stored, exit 0",
                      f"bench/bench_attack.py --keep DIR, then {shell(done, folder)} "
                      f"(server Behaviour {case.behaviour})")
        if "Traceback" in done.text or "internal error" in done.text:
            FOUND.add("unstored", f"{case.name}: {done.text.strip()[-300:]!r}", shell(done, folder))
        if said and int(said[-1][0]) != stored:
            FOUND.add("unstored", f"{case.name}: says {claim}, the store holds {stored}", shell(done, folder))
    return {"runs": len(rows), "quiet": bad}
# -- the whole attack ------------------------------------------------------------------------

def _head() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a subset of each part (about 1 minute of CPU)")
    parser.add_argument("--mutant-seeds", type=int, nargs="+", default=None, metavar="SEED",
                        help="seeds of the mutated files (default: 22, the slow test's set; another "
                             "seed makes a fresh set)")
    parser.add_argument("--keep", type=Path, default=None, metavar="DIR",
                        help="work in DIR (made, must not exist) and keep it; default: a temp folder, "
                             "removed")
    args = parser.parse_args()
    seeds = args.mutant_seeds or [22]
    if args.keep:
        args.keep.mkdir(parents=True)
        work = args.keep.resolve()
    else:
        work = Path(tempfile.mkdtemp(prefix="assay-attack-")).resolve()
    commit = _head()
    dirty = bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                                capture_output=True, text=True).stdout.strip())
    print(f"attack of issue 22 on {commit or 'a tree outside git'}{' (with changes)' if dirty else ''}, "
          f"{'quick' if args.quick else 'full'}; python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}; working in {work}", flush=True)
    started, times = time.perf_counter(), {}

    def part(name: str, fn, *a):
        t = time.perf_counter()
        (work / name).mkdir()
        result = fn(*a)
        times[name] = time.perf_counter() - t
        sys.stdout.flush()
        return result

    try:
        with LLMServer(Behaviour()) as server:
            payloads = part("payloads", attack_payloads, server, work / "payloads", args.quick)
            mutated = part("mutants", attack_mutants, work / "mutants", seeds, args.quick)
            secrets = part("secrets", attack_secrets, server, work / "secrets", args.quick)
            unstored = part("unstored", attack_unstored, server, work / "unstored", args.quick)
            formulas = part("formulas", attack_formulas, work / "formulas")
            paths = part("paths", attack_paths, server, work / "paths", args.quick)
        viewer = part("viewer", attack_viewer, paths["run"], work / "viewer")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    wall = time.perf_counter() - started
    if _head() != commit:  # another session committed or merged into this tree meanwhile
        FOUND.add("bench", f"HEAD moved from {commit} to {_head()} during the run: the figures may mix "
                  "two trees",
                  "run again on a tree nobody changes (a copy: git archive HEAD | tar -x -C DIR)")

    print()
    if FOUND.lines:
        print(f"findings ({len(FOUND.lines)}):")
        for line in FOUND.lines:
            print(f"  {line}")
    else:
        print("findings: none")
    print()
    print(f"{'figure':<46}{'tried':>8}{'bad':>6}  (bad must be 0)")
    print(f"{'template payloads: tried vs executed':<46}{payloads['tried']:>8}{payloads['executed']:>6}")
    print(f"{'mutated files: tried vs internal errors':<46}{mutated['tried']:>8}{mutated['internal']:>6}"
          f"  ({mutated['refused_badly']} refused not in one line)")
    print(f"{'files scanned vs secrets found':<46}{secrets['files']:>8}{secrets['found']:>6}"
          f"  (and {secrets['streams']} printed streams)")
    print(f"{'runs with an unstored judgment that exited 0':<46}{unstored['runs']:>8}{unstored['quiet']:>6}"
          f"  (runs tried vs those)")
    print()
    for suffix, code, cells, n, same in formulas["outputs"]:
        print(f"formula cells: assay import table hostile.csv -o out{suffix}: exit {code}, {n} of {cells} "
              f"cells start a formula (the source has {formulas['hostile']}); read back as the source reads: "
              f"{'yes' if same else 'NO'}")
    print(f"config output paths: {paths['tried']} escaping report.out/export[].out: {paths['refused']} "
          f"refused in one line, {paths['escaped']} wrote outside the run folder, {paths['requests']} "
          f"requests sent; paths inside written there: {'yes' if paths['inside'] else 'NO'}; an absolute "
          f"--out by flag: {'yes' if paths['flag'] else 'NO'}")
    print(f"viewer: {viewer['tried']} hostile requests: {viewer['answered']} answered, "
          f"{viewer['dropped']} dropped connections, {viewer['errors']} server errors (5xx but 501/505: a "
          f"method or an HTTP version not served), {viewer['leaked']} files served from outside the "
          f"reports folder; statuses "
          f"{viewer['statuses']} ({viewer['bare']} of them http.server's error page without a status line, "
          f"for a request line it cannot read); still serving after: {'yes' if viewer['still'] else 'NO'}; "
          f"traceback: {'YES' if viewer['traceback'] else 'no'}")
    print(f"wall time {wall:.0f} s ({', '.join(f'{k} {v:.0f} s' for k, v in times.items())}); "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

