"""The viewer's HTTP answers and its command line: queries, refusals, errors in one line."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys

import pytest

from assay.view._index import JudgmentIndex
from assay.view._server import ViewServer
from tests.cli._subprocess import assay_env, one_error_line, run_assay


def _get(server, path: str, host: str | None = None) -> tuple[int, dict | str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    try:
        connection.request("GET", path, headers={"Host": host} if host else {})
        reply = connection.getresponse()
        body = reply.read().decode("utf-8")
        kind = reply.getheader("Content-Type", "")
    finally:
        connection.close()
    return reply.status, json.loads(body) if kind.startswith("application/json") else body


def test_the_server_answers_pages_details_and_the_summary(served):
    status, page = _get(served, "/api/rows?judge=gpt-j&verdict=failed")
    assert status == 200 and page["total"] == 1 and page["rows"][0]["item"] == "q2"
    status, detail = _get(served, f"/api/judgment?id={page['rows'][0]['id']}")
    assert status == 200 and detail["row"]["failure_kind"] == "parse_error"
    status, summary = _get(served, "/api/summary")
    assert summary["rows"] == 8 and ["gpt-j", 6] in summary["facets"]["judge"]
    status, html = _get(served, "/?judge=gpt-j")
    assert status == 200 and "<title>assay view</title>" in html


@pytest.mark.parametrize(("path", "status", "message"), [
    ("/api/rows?jugde=x", 400, "unknown filter 'jugde'"),
    ("/api/rows?limit=0", 400, "limit=0: expected 1 to 500"),
    ("/api/judgment?id=999", 404, "no row 999"),
    ("/api/judgment?id=x", 400, "open='x': expected a whole number"),
    ("/etc/passwd", 404, "no page /etc/passwd"),
])
def test_bad_requests_get_a_reason(served, path, status, message):
    got, body = _get(served, path)
    assert got == status and message in body["error"]


def test_a_request_for_another_host_is_refused(served):
    status, body = _get(served, "/api/rows", host="evil.example:80")
    assert status == 403 and "127.0.0.1 only" in body["error"]


def test_the_command_serves_on_the_port_asked_and_prints_the_address(small_store, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with subprocess.Popen([sys.executable, "-m", "assay", "view", str(small_store), "--port", str(port),
                           "--no-browser", "--filter", "judge=gpt-j"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=assay_env()) as child:
        try:
            assert "assay view: indexing" in child.stdout.readline()
            line = child.stdout.readline()
            assert f"8 rows of {small_store} at http://127.0.0.1:{port}/?judge=gpt-j" in line
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/api/rows?item=q1")
                assert json.loads(connection.getresponse().read())["total"] == 4
            finally:
                connection.close()
        finally:
            child.terminate()
            child.wait(timeout=10)


def test_a_busy_port_is_one_line(small_store):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        result = run_assay("view", str(small_store), "--port", str(busy.getsockname()[1]), "--no-browser")
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in one_error_line(result)


@pytest.mark.parametrize(("args", "message"), [
    (["missing-run"], "missing-run: no such file or folder"),
    (["RUN", "--filter", "jugde=x"], "--filter jugde=...: unknown filter"),
    (["RUN", "--filter", "verdict=great", "--export", "out.html"], "verdict='great': expected a score"),
    (["RUN", "--export", "out.txt"], "give a file name ending in .html"),
    (["RUN", "--filter", "item=nothing", "--export", "out.html"], "no judgment matches the filters"),
])
def test_user_errors_are_one_line_and_exit_2(small_store, tmp_path, args, message):
    args = [str(small_store) if a == "RUN" else str(tmp_path / a) if a.startswith("out") else a
            for a in args]
    result = run_assay("view", *args)
    assert result.returncode == 2 and message in one_error_line(result)
    assert not list(tmp_path.glob("out*"))


def test_export_writes_one_file_with_the_filtered_rows(small_store, tmp_path):
    out = tmp_path / "share" / "q1.html"
    result = run_assay("view", str(small_store), "--filter", "item=q1,judge=gpt-j", "--export", str(out))
    assert result.returncode == 0, result.stderr
    assert f"wrote {out} (2 rows)" in result.stdout
    assert "assay view: indexing" in result.stdout  # the first open says why it takes a while
    again = run_assay("view", str(small_store), "--filter", "item=q2", "--export", str(tmp_path / "q2.html"))
    assert again.returncode == 0 and "indexing" not in again.stdout  # the index is cached
    html = out.read_text(encoding="utf-8")
    assert "trial 1 of q1" in html and "trial 1 of q2" not in html


@pytest.mark.parametrize(("path", "statuses"), [
    ("/reports/%00", (400,)),
    ("/reports/a%00b/index.html", (400,)),
    ("/reports/" + "x" * 300, (404,)),
    ("/reports/" + "x" * 300 + "/index.html", (404,)),
    ("/reports/" + "%C3%A9" * 200, (404,)),
], ids=["nul", "nul_in_folder", "300_bytes", "300_byte_folder", "400_bytes_utf8"])
def test_a_report_file_name_that_cannot_be_one_is_answered_not_dropped(small_store, tmp_path,
                                                                       path, statuses):
    """Issue 22 item 8: /reports/%00 and a path part over 255 bytes dropped the connection
    with a traceback; they are answered 400 or 404, and the server keeps serving."""
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "index.html").write_text("<p>reports</p>")
    with JudgmentIndex(small_store) as index, ViewServer(index, reports=reports) as server:
        server.start()
        status, body = _get(server, path)
        assert status in statuses and isinstance(body, dict) and body["error"], (status, body)
        assert _get(server, "/reports/index.html") == (200, "<p>reports</p>")
