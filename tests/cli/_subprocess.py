"""Run the ``assay`` command of this tree in a child process (``python -m assay``), and make
folders read-only for it.

``PYTHONPATH`` puts this tree's ``src`` first, so the child runs the code under test even
when another checkout is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"


def assay_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_DEBUG"}
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra)
    return env


def run_assay(*args: str, cwd: Path | None = None, timeout: float = 300,
              preexec_fn=None, **env: str) -> subprocess.CompletedProcess[str]:
    """``assay ARGS`` in a child process: its exit status, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, env=assay_env(**env), preexec_fn=preexec_fn)


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single ``error: ...`` line of a failed command (asserting there is exactly one,
    no traceback and no internal error)."""
    text = result.stdout + result.stderr
    assert "Traceback" not in text and "internal error" not in text, text[-2000:]
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    return lines[0]


@contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` and the files in it cannot be written, created or deleted inside."""
    files = [p for p in folder.iterdir() if p.is_file()]
    immutable: list[Path] = []
    try:
        for path in files:
            path.chmod(0o444)
        folder.chmod(0o555)
        if os.geteuid() == 0:
            for path in [*files, folder]:
                if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
                    pytest.skip("running as root and chattr +i is not available here")
                immutable.append(path)
        yield
    finally:
        for path in reversed(immutable):
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)
        folder.chmod(0o755)
        for path in files:
            path.chmod(0o644)
