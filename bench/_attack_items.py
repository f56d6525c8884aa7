"""Part 5 of bench_attack.py (per item): formula cells written by an import, config output paths that
would leave the run folder, hostile request paths sent to the viewer."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import yaml
from _attack_common import (
    FOUND,
    assay,
    child_env,
    shell,
)
from tests.cli._judge_helpers import write_config
from tests.judge.llm_server import Behaviour, LLMServer

# -- 5. per item -----------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _formula(cell: str) -> bool:
    """What a spreadsheet reads as a formula: text starting with = + - @ TAB or CR, not a number."""
    return cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBER.fullmatch(cell)


def attack_formulas(work: Path) -> dict:
    import pandas as pd
    from tests.data.test_one_csv_writer import ARMS

    starts = ['=HYPERLINK("http://x/{}","y")', "+cmd|' /C calc'!A{}", "@SUM(A{})", "-x{}+1", "\t=x{}",
              "=1+{}", "'=quoted{}", "-{}e", "=cmd|' /C notepad'!'A{}'", "@{}"]
    rows = [{"item": starts[i % len(starts)].format(i), "cluster": f"=c{i % 7}",
             "arm": ARMS[(2 * i + j) % len(ARMS)], "run": 1, "score": (i + j) % 2,
             "judge": "=judge()" if i % 2 else "@j", "criterion": "@crit"}
            for i in range(150) for j in range(2)]
    source = work / "hostile.csv"
    with source.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    hostile = sum(_formula(str(v)) for r in rows for v in r.values())
    scale = ["--scale", "@crit=binary"]
    base = assay(["import", "table", "hostile.csv", *scale, "-o", "direct.parquet"], work)
    result = {"hostile": hostile, "outputs": []}
    for suffix, sep in ((".csv", ","), (".tsv", "\t")):
        done = assay(["import", "table", "hostile.csv", *scale, "-o", f"out{suffix}"], work)
        cells, formulas, same = 0, 0, False
        if done.code == 0:
            with (work / f"out{suffix}").open(newline="", encoding="utf-8") as handle:
                found = [c for row in csv.reader(handle, delimiter=sep) for c in row]
            cells, formulas = len(found), sum(_formula(c) for c in found)
            back = assay(["import", "table", f"out{suffix}", "-o", f"back{suffix}.parquet"], work)
            if back.code == 0 and base.code == 0:
                a = pd.read_parquet(work / "direct.parquet")
                b = pd.read_parquet(work / f"back{suffix}.parquet")
                cols = ["item", "cluster", "arm", "judge", "criterion", "score"]
                same = a[cols].astype(str).equals(b[cols].astype(str))
        if done.code != 0 or formulas:
            FOUND.add("formulas", f"import table to {suffix}: exit {done.code}, {formulas} formula cells: "
                      f"{done.text.strip()[-200:]!r}", shell(done, work))
        result["outputs"].append((suffix, done.code, cells, formulas, same))
    return result


def attack_paths(server: LLMServer, work: Path, quick: bool) -> dict:
    rubric = {"kind": "rubric", "criteria": [{"name": "accuracy", "description": "Is it right?"}]}
    cases: list[tuple[str, dict]] = []
    exports = ["../../outside/x.json", "a/../../../outside/x.json", "ABS", "..", "~/x.json", ""]
    for out in exports[:3 if quick else 6]:
        cases.append((f"export[].out {out!r}", {"export": [{"format": "leaderboard-json", "out": out}]}))
    for out in ["../../outside/rep", "a/../../../outside/rep", "ABS", ".."][:1 if quick else 4]:
        cases.append((f"report.out {out!r}", {"report": {"out": out}}))
    cases.append(("export through a link in the run folder", {"export": [{"format": "leaderboard-json",
                                                                         "out": "exports/x.json"}]}))
    refused, escaped, requests = 0, 0, 0
    for i, (name, section) in enumerate(cases):
        case = work / f"case{i:02d}"
        wk, outside, home = case / "work", case / "outside", case / "home"
        for d in (wk, outside, home):
            d.mkdir(parents=True)
        config = write_config(wk, server.url, judges=[rubric])
        data = yaml.safe_load(config.read_text())
        text = json.dumps(section).replace("ABS", str(outside / "x.json"))
        data.update(json.loads(text))
        data["report"] = {"formats": ["json"], **data.get("report", {})}
        config.write_text(yaml.safe_dump(data))
        if "link" in name:
            (wk / "run").mkdir()
            (wk / "run" / "exports").symlink_to(outside)
        before = _files(case)
        server.reset(Behaviour())
        done = assay(["run", "judge.yaml", "--out", "run"], wk, HOME=str(home))
        new = [p for p in _files(case) - before
               if not p.startswith(str(wk / "run") + os.sep) and "xdg-cache" not in p]
        refused += done.one_line_refusal()
        escaped += bool(new)
        requests += server.stats.requests
        if new or not done.one_line_refusal():
            FOUND.add("paths", f"{name}: exit {done.code}; written outside the run folder: {new}; "
                      f"{done.text.strip()[-200:]!r}", shell(done, wk, f"HOME={home}"))
    # the control: paths inside are written there (so the refusals are not a broken setup)
    ctrl = work / "inside" / "work"
    ctrl.mkdir(parents=True)
    config = write_config(ctrl, server.url, judges=[rubric])
    data = yaml.safe_load(config.read_text())
    data.update(report={"formats": ["json"], "out": "reports/../main-report"},
                export=[{"format": "leaderboard-json", "out": "exports/standings.json"}])
    config.write_text(yaml.safe_dump(data))
    server.reset(Behaviour())
    done = assay(["run", "judge.yaml", "--out", "run"], ctrl)
    inside = done.code == 0 and (ctrl / "run" / "exports" / "standings.json").is_file() \
        and (ctrl / "run" / "main-report").is_dir()
    elsewhere = str(work / "elsewhere.json")
    flag = assay(["export", "run", "--format", "leaderboard-json", "--out", elsewhere], ctrl)
    if not inside:
        FOUND.add("paths", f"the control run with paths inside failed: exit {done.code} "
                  f"{done.text.strip()[-300:]!r}", shell(done, ctrl))
    return {"tried": len(cases), "refused": refused, "escaped": escaped, "requests": requests,
            "inside": inside, "flag": flag.code == 0 and (work / "elsewhere.json").is_file(),
            "run": ctrl / "run"}


def _files(root: Path) -> set[str]:
    return {os.path.join(d, n) for d, _, names in os.walk(root) for n in names}


def _raw(port: int, request: bytes, timeout: float = 15) -> tuple[int | None, bytes, str]:
    """Send ``request`` on a fresh connection; the status (None: no HTTP answer), body, how it ended."""
    chunks, how = [], "closed"
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        try:
            sock.sendall(request)
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            how = "reset"
        except BrokenPipeError:
            how = "broken pipe"
        except TimeoutError:
            how = "no answer in 15 s"
    data = b"".join(chunks)
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    if match:
        return int(match.group(1)), data.partition(b"\r\n\r\n")[2], how
    # http.server answers a request line it cannot read as HTTP/0.9 does: the error page alone
    match = re.search(rb"<p>Error code: (\d{3})</p>", data)
    return (int(match.group(1)) if match else None), data, "an error page without a status line"


def attack_viewer(run: Path, work: Path) -> dict:
    reports, outside = work / "reports", work / "outside.txt"
    (reports / "sub").mkdir(parents=True)
    (reports / "index.html").write_text("<p>reports</p>")
    (reports / "sub" / "page.html").write_text("<p>page</p>")
    mark = "OUTSIDE-4Vq8Zr"
    outside.write_text(mark)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    viewer = subprocess.Popen([sys.executable, "-m", "assay", "view", str(run), "--reports", str(reports),
                               "--port", str(port), "--no-browser"], cwd=work, env=child_env(work),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if viewer.poll() is not None:
                raise SystemExit(f"assay view ended: {viewer.communicate()[1][-500:]}")
            time.sleep(0.1)
        host = f"127.0.0.1:{port}".encode()
        paths = [
            "/reports/%00", "/reports/a%00b/index.html", "/reports/" + "x" * 300,
            "/reports/" + "x" * 300 + "/index.html", "/reports/" + "%C3%A9" * 200,  # the test's five
            "/reports/%ff", "/reports/%ed%a0%80", "/reports/%", "/reports/%zz", "/reports/%u0000",
            "/reports/../outside.txt", "/reports/%2e%2e/outside.txt", "/reports/..%2foutside.txt",
            "/reports/%2e%2e%2foutside.txt", "/reports/sub/../../outside.txt", "/reports/....//outside.txt",
            f"/reports/{outside}", f"/reports//{outside}",
            "/reports/%2F" + str(outside).lstrip("/").replace("/", "%2F"),
            "/reports/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/reports/sub",
            "/reports/" + "a/" * 2000, "/reports/" + "x" * 70_000, "/reports/index.html?%00",
            "/" + "x" * 300, "/%00", "/?open=%00", "/?judge=%ff",
            "/api/rows?limit=-1", "/api/rows?limit=99999999999999999999999", "/api/rows?offset=-5",
            "/api/rows?q=%00", "/api/rows?q=%ff", "/api/rows?q=%ed%a0%80", "/api/rows?judge=%00",
            "/api/rows?q=" + "x" * 20_000, "/api/rows?&&&==&=%", "/api/rows?verdict=%00",
            "/api/judgment?id=-1", "/api/judgment?id=99999999999999999999999", "/api/judgment?id=%00",
            "/api/judgment?id=1e999", "/api/summary?x=%00", "/api/%00", "/api/compare?item=%00",
        ]
        requests = [b"GET " + p.encode() + b" HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
                    for p in paths]
        raw = [b"GET /reports/\x00 HTTP/1.1\r\nHost: " + host + b"\r\n\r\n",
               b"GET /reports/\xff\xfe HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n",
               b"GET /api/rows HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n",
               b"GET /api/rows HTTP/1.0\r\n\r\n",
               b"POST /api/rows HTTP/1.1\r\nHost: " + host
               + b"\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
               b"DELETE /reports/index.html HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n",
               b"OPTIONS * HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n",
               b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\nHost: " + host + b"\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: " + host + b"\r\nX: " + b"y" * 70_000 + b"\r\n\r\n",
               b"GET / HTTP/1.1\r\nHost: " + host + b"\r\n" + b"X: y\r\n" * 150 + b"\r\n"]
        labels = [*paths, "raw NUL in the path", "raw bytes \\xff\\xfe in the path", "Host: evil.example",
                  "HTTP/1.0, no Host", "POST /api/rows", "DELETE", "OPTIONS *", "garbage request line",
                  "HTTP/9.9", "a 70 KB header", "150 headers"]
        answered, dropped, errors, leaked, statuses, bare = 0, 0, 0, 0, {}, 0
        for label, request in zip(labels, requests + raw, strict=True):
            status, body, how = _raw(port, request)
            bare += how == "an error page without a status line"
            if status is None:
                dropped += 1
                FOUND.add("viewer", f"{label[:80]!r}: connection {how} without an answer",
                          f"assay view RUN --reports DIR --port P --no-browser; then send {request[:120]!r}")
                continue
            answered += 1
            statuses[status] = statuses.get(status, 0) + 1
            errors += status >= 500 and status not in (501, 505)  # a method or a version not served
            if mark.encode() in body or b"root:x:0" in body:
                leaked += 1
                FOUND.add("viewer", f"{label[:80]!r}: served a file outside the reports folder",
                          f"send {request[:120]!r}")
            if status >= 500 and status not in (501, 505):
                FOUND.add("viewer", f"{label[:80]!r}: HTTP {status}: {body[:200]!r}",
                          f"send {request[:120]!r}")
        still, body, _ = _raw(port, b"GET /reports/index.html HTTP/1.1\r\nHost: " + host
                              + b"\r\nConnection: close\r\n\r\n")
    finally:
        viewer.terminate()
        try:
            _, err = viewer.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            viewer.kill()
            _, err = viewer.communicate()
    if "Traceback" in err:
        FOUND.add("viewer", f"the viewer printed a traceback: {err[-400:]!r}", "see above")
    return {"tried": len(labels), "answered": answered, "dropped": dropped, "errors": errors,
            "leaked": leaked, "statuses": dict(sorted(statuses.items())), "bare": bare,
            "still": still == 200 and b"reports" in body, "traceback": "Traceback" in err}


