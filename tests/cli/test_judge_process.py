"""``assay judge`` as a shell runs it: exit statuses, Ctrl-C, and two processes on one run folder
(issue 11, items 5, 6, 16, 17, 25).

Each test starts ``python -m assay`` in a child process with this tree's source first on
``PYTHONPATH``; the stand-in model server runs in the test's process, on 127.0.0.1.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import time

import pytest

from tests.cli._judge_helpers import SRC, assay_popen, assay_process, closed_port, run, write_config

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def stored(folder) -> int:
    try:
        con = sqlite3.connect(f"file:{folder / 'judgments.sqlite'}?mode=ro", uri=True)
    except sqlite3.OperationalError:
        return 0
    try:
        return con.execute("SELECT count(*) FROM judgments").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


@pytest.mark.slow  # three assay processes: 5-8 s on 2 loaded cores
def test_exit_statuses_dead_endpoint_2_failures_3_unpriced_cost_limit_2(server, tmp_path):
    # item 5: nothing listening: retried 60-70 s, "24 failed", exit 0
    url = f"http://127.0.0.1:{closed_port()}/v1"
    dead = write_config(tmp_path, url, name="dead.yaml", backoff_base_s=0.5, backoff_max_s=60.0)
    started = time.monotonic()
    done = assay_process(["judge", dead.name, "--out", "dead", "--display", "plain"], tmp_path)
    assert done.returncode == 2, done.stderr
    assert time.monotonic() - started < 30.0  # the Python start-up and imports take most of it
    assert done.stderr.count("\n") == 1 and "connection refused" in done.stderr
    # a run that ends with failed judgments: exit 3 (it was 0)
    server.configure(script=["refusal"])
    failing = write_config(tmp_path, server.url, name="failing.yaml", max_concurrency=1)
    done = assay_process(["judge", failing.name, "--out", "failing", "--display", "plain"], tmp_path)
    assert done.returncode == 3, done.stderr
    assert "1 of 12 planned judgments are stored as failed" in done.stderr
    # item 6: the dry run passed with an unpriced model and a cost limit; the run then failed
    limited = write_config(tmp_path, server.url, name="limited.yaml", prices={}, cost_limit_usd=1.0)
    done = assay_process(["judge", limited.name, "--dry-run"], tmp_path)
    assert done.returncode == 2 and "cost_limit_usd needs a price" in done.stderr


def test_ctrl_c_says_what_is_stored_and_how_to_resume_then_exits_130(server, tmp_path):
    server.configure(latency_s=1.0)  # 11 calls (11 s) left when the signal comes
    config = write_config(tmp_path, server.url, max_concurrency=1)
    child = assay_popen(["judge", config.name, "--out", "run", "--display", "plain"], tmp_path)
    try:
        wait_for(lambda: stored(tmp_path / "run") >= 1)
        signalled = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
        elapsed = time.monotonic() - signalled
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 130, err
    assert elapsed < 5.0, elapsed  # it stops at once, not after the 11 calls left (room for a loaded machine)
    assert "Traceback" not in err + out
    kept = stored(tmp_path / "run")
    assert f"interrupted: {kept} of 12 planned judgments are stored in run (0 failed); " \
           f"resume with: assay judge {config.name} --out run" in err
    server.configure(latency_s=0.0)
    before = server.stats.requests
    # the command it printed, run here (in this process: one Python start-up less)
    assert run(["judge", str(config), "--out", str(tmp_path / "run"), "--display", "plain"]) == 0
    assert server.stats.requests - before == 12 - kept and stored(tmp_path / "run") == 12


MARK_STARTED = """
import os, sys

class MarkStarted:
    def find_spec(self, name, path=None, target=None):
        if name == "assay.cli":
            open(os.environ["ASSAY_TEST_STARTED"], "w").close()

sys.meta_path.insert(0, MarkStarted())
"""
"""A ``sitecustomize`` for the child: when ``assay.cli`` is first looked for (assay's entry point
starts loading the command line), a file says so."""


@pytest.mark.parametrize("delay_s", [0.0, 0.1, 0.25, 0.4])
def test_sigint_in_the_first_half_second_prints_no_traceback(server, tmp_path, delay_s):
    # item 25: a SIGINT while assay loads printed a traceback and the status was -2. A SIGINT
    # while Python itself starts (its site module, runpy finding assay) is Python's to report,
    # before any of assay runs: the signal is sent from when assay starts loading its CLI.
    server.configure(latency_s=1.0)  # the run lasts long past the signal
    config = write_config(tmp_path, server.url, max_concurrency=1)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(MARK_STARTED, encoding="utf-8")
    started = tmp_path / "started"
    child = assay_popen(["judge", config.name, "--out", "run", "--display", "plain"], tmp_path,
                        PYTHONPATH=f"{hook}{os.pathsep}{SRC}", ASSAY_TEST_STARTED=str(started))
    wait_for(started.exists)
    time.sleep(delay_s)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=30)
    assert child.returncode == 130, (child.returncode, err)
    assert "Traceback" not in err + out and "KeyboardInterrupt" not in err


@pytest.mark.slow  # two judge processes against the test server
def test_a_second_process_on_the_same_run_folder_is_refused(server, tmp_path):
    # item 16: both ran, 41% of judgments paid twice, 22 requests in flight against a limit of 16
    server.configure(latency_s=2.0)  # the first run lasts until the second has been refused ...
    config = write_config(tmp_path, server.url, max_concurrency=1)
    first = assay_popen(["judge", config.name, "--out", "run", "--display", "plain"], tmp_path)
    try:
        wait_for(lambda: server.stats.requests >= 1)
        second = assay_process(["judge", config.name, "--out", "run", "--display", "plain"], tmp_path)
        server.configure(latency_s=0.0)  # ... then finishes quickly
        _, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.communicate()
    assert second.returncode == 2, second.stderr
    assert f"another assay judge is running into this run folder (pid {first.pid} on host" in second.stderr
    assert first.returncode == 0, err
    assert server.stats.requests == 12 and server.stats.max_in_flight == 1  # nothing asked twice
