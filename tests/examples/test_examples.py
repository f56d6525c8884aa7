"""Every script in ``examples/`` runs as written, against this source tree, and makes what it
says it makes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*.py"))


def run(script: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)])}
    return subprocess.run([sys.executable, str(script), str(out)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=out.parent)


def test_there_are_examples():
    assert [p.name for p in EXAMPLES] == ["custom_page.py", "score_a_table.py"]


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_writes_its_pages(script, tmp_path):
    done = run(script, tmp_path / "out")
    assert done.returncode == 0, done.stderr[-3000:]
    index = tmp_path / "out" / "html" / "index.html"
    assert f"Open {index}" in done.stdout
    assert index.is_file() and (tmp_path / "out" / "html" / "glossary.html").is_file()


def test_score_a_table_prints_the_reports(tmp_path):
    done = run(REPO / "examples" / "score_a_table.py", tmp_path / "out")
    assert done.returncode == 0, done.stderr[-3000:]
    for heading in ("Accuracy (arms in benchmark order, not ranked):", "Reliability:"):
        assert heading in done.stdout
    assert (tmp_path / "out" / "html" / "benchmark.html").is_file()
