"""Fixtures of the command-line tests: ``assay`` run as a user runs it, the demo run once
(``demo_run``, of tests/conftest.py), and the stand-in model server of tests/judge (``server``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import DemoRun  # noqa: F401  (demo_run is in tests/conftest.py, shared with tests/view)
from tests.judge.conftest import _server, server  # noqa: F401  (fixtures re-exported)

ASSAY = shutil.which("assay")


def run_assay(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``assay ARGS`` in a subprocess (the console script, else ``python -m assay.cli``)."""
    command = [ASSAY, *args] if ASSAY else [sys.executable, "-m", "assay.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)
