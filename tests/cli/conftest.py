"""Fixtures of the command-line tests: ``assay`` run as a user runs it, the demo run once, and
the stand-in model server of tests/judge (``server``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.judge.conftest import _server, server  # noqa: F401  (fixtures re-exported)

ASSAY = shutil.which("assay")


def run_assay(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``assay ARGS`` in a subprocess (the console script, else ``python -m assay.cli``)."""
    command = [ASSAY, *args] if ASSAY else [sys.executable, "-m", "assay.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)


@dataclass(frozen=True)
class DemoRun:
    result: subprocess.CompletedProcess[str]
    out: Path
    """The folder given to ``--out``."""


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """``assay demo --out DIR``, run once for every test that reads its output (about 20 s)."""
    out = tmp_path_factory.mktemp("cli-demo") / "demo"
    return DemoRun(run_assay("demo", "--out", str(out)), out)
