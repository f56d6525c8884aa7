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
PAGE_EXAMPLES = [p for p in EXAMPLES if p.name != "notebook_pairwise.py"]
"""The examples that write report pages (the notebook example judges: it needs a model server)."""


def run(script: Path, out: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO)]), **extra}
    return subprocess.run([sys.executable, str(script), str(out)], capture_output=True,
                          text=True, env=env, timeout=300, cwd=out.parent)


def test_there_are_examples():
    assert [p.name for p in EXAMPLES] == ["custom_page.py", "notebook_pairwise.py", "score_a_table.py"]


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
@pytest.mark.parametrize("script", PAGE_EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_and_writes_its_pages(script, tmp_path):
    done = run(script, tmp_path / "out")
    assert done.returncode == 0, done.stderr[-3000:]
    index = tmp_path / "out" / "html" / "index.html"
    assert f"Open {index}" in done.stdout
    assert index.is_file() and (tmp_path / "out" / "html" / "glossary.html").is_file()


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_score_a_table_prints_the_reports(tmp_path):
    done = run(REPO / "examples" / "score_a_table.py", tmp_path / "out")
    assert done.returncode == 0, done.stderr[-3000:]
    for heading in ("Accuracy (arms in benchmark order, not ranked; failures count as wrong):",
                    "Reliability:"):
        assert heading in done.stdout
    assert (tmp_path / "out" / "html" / "benchmark.html").is_file()


@pytest.mark.slow  # a child process judging against the test server, with pandas and scipy: about 6 s
def test_notebook_example_judges_and_prints_the_summary(server, tmp_path):
    (tmp_path / "out").mkdir()
    env = {"OPENAI_BASE_URL": server.url, "ASSAY_JUDGE_MODEL": "judge-model", "OPENAI_API_KEY": "test-key",
           "ASSAY_CACHE_DIR": str(tmp_path / "cache")}
    done = run(REPO / "examples" / "notebook_pairwise.py", tmp_path / "out" / "run", **env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert server.stats.requests == 12  # 3 questions x 2 criteria x 2 trials
    assert "12 pairwise scores (win_rates.csv's columns)" in done.stdout
    assert "tokens: " in done.stdout and "formatted_corrected_p_value" in done.stdout
    assert (tmp_path / "out" / "run" / "win_rates.csv").is_file()
    again = run(REPO / "examples" / "notebook_pairwise.py", tmp_path / "out" / "run", **env)
    assert again.returncode == 0 and server.stats.requests == 12  # resumed: nothing asked twice
