"""One judging process per run folder (issue 11, item 16): the lock, its holder, stale locks.

Two ``assay judge`` processes on one run folder both ran: 41% of the judgments were paid
twice. The holder here is a real second process (the lock is per open file, held by the
kernel for the process), killed with SIGKILL to leave a stale lock behind.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay.errors import JudgeError
from assay.llm import LOCK_FILENAME, RunFolderLocked, RunLock

SRC = Path(assay.__file__).resolve().parents[1]
HOLD = """
import sys, time
from assay.llm import RunLock
lock = RunLock(sys.argv[1]).acquire()
print("HOLDING", flush=True)
time.sleep(60)
"""


def hold_in_child(folder: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True,
                             env=env)
    assert child.stdout is not None and child.stdout.readline().strip() == "HOLDING"
    return child


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl locks")
def test_a_second_process_is_refused_naming_the_holder_then_a_stale_lock_is_taken_over(tmp_path):
    child = hold_in_child(tmp_path)
    try:
        with pytest.raises(RunFolderLocked) as info:
            RunLock(tmp_path).acquire()
        message = str(info.value)
        assert f"pid {child.pid} on host {socket.gethostname()}, started 20" in message
        assert str(tmp_path) in message
    finally:
        child.send_signal(signal.SIGKILL)  # dies holding it: no release, the file keeps its holder
        child.wait()
        child.stdout.close()
    assert json.loads((tmp_path / LOCK_FILENAME).read_text())["pid"] == child.pid
    with RunLock(tmp_path) as lock:
        assert lock.note is not None and f"pid {child.pid}" in lock.note and "no longer running" in lock.note
        assert json.loads((tmp_path / LOCK_FILENAME).read_text())["pid"] == os.getpid()
    assert (tmp_path / LOCK_FILENAME).read_text() == ""  # released cleanly: nothing stale left


def test_the_lock_is_held_until_released_within_one_process(tmp_path):
    first = RunLock(tmp_path).acquire()
    with pytest.raises(RunFolderLocked, match=f"pid {os.getpid()}"):
        RunLock(tmp_path).acquire()
    first.release()
    with RunLock(tmp_path) as again:
        assert again.note is None


def test_a_run_folder_that_is_a_file_is_named_in_the_error(tmp_path):
    target = tmp_path / "run"
    target.write_text("not a folder")
    with pytest.raises(JudgeError, match=f"{target}: cannot make the run folder"):
        RunLock(target).acquire()
