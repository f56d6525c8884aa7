"""Planning needs no key: ``assay judge --dry-run``, ``assay describe`` and ``assay generate
--dry-run`` send nothing, so they run without ``OPENAI_API_KEY`` and name it as a note; a
real run still refuses with today's message, exit 2, before any request reaches the
server (issue 23, item 6).

Oracles: the stand-in server's request counter, the exit status, the plan's figures worked
by hand (3 questions x 2 criteria x 2 trials = 12 pairwise judgments) and the exact text
of the refusal.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.cli._judge_helpers import run, write_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "run"


@pytest.fixture
def no_key(tmp_path, monkeypatch):
    """No OPENAI_API_KEY in the environment and no .env to supply one."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def refusal(url: str) -> str:
    """Today's message of a run without the key."""
    return (f"error: environment variable OPENAI_API_KEY is not set: it should hold the API key for "
            f"{url} (or set api_key_env: null)")


def test_judge_dry_run_prints_the_plan_and_its_cost_without_a_key(server, no_key, capsys):
    config = write_config(no_key, server.url, api_key_env="OPENAI_API_KEY")
    assert run(["judge", str(config), "--out", str(no_key / "run"), "--dry-run"]) == 0
    printed = capsys.readouterr()
    assert re.search(r"^total: 12 judgments, about \$\d+\.\d{4} ", printed.out, re.M), printed.out
    assert "every check of the run passed but the key, see the note below" in printed.out
    assert ("note: environment variable OPENAI_API_KEY is not set: it should hold the API key for "
            f"{server.url} (or set api_key_env: null); the run needs it, the dry run does not"
            ) in printed.err
    assert server.stats.requests == 0 and not (no_key / "run").exists()


def test_describe_prints_the_plan_and_its_cost_without_a_key(server, no_key, capsys):
    config = write_config(no_key, server.url, api_key_env="OPENAI_API_KEY")
    assert run(["describe", str(config)]) == 0
    printed = capsys.readouterr()
    assert re.search(r"^  judge-model\s+12\s+[\d,]+\s+[\d,]+\s+\$\d+\.\d{4}$", printed.out, re.M), printed.out
    assert "environment variable OPENAI_API_KEY is not set" in printed.err
    assert server.stats.requests == 0


def test_a_run_without_the_key_still_refuses_before_any_request(server, no_key, capsys):
    config = write_config(no_key, server.url, api_key_env="OPENAI_API_KEY")
    assert run(["judge", str(config), "--out", str(no_key / "run"), "--display", "plain"]) == 2
    assert capsys.readouterr().err.strip() == refusal(server.url)
    assert server.stats.requests == 0 and not (no_key / "run").exists()


def test_a_run_without_an_entra_token_still_refuses(server, no_key, capsys, monkeypatch):
    monkeypatch.delenv("ASSAY_TEST_ENTRA", raising=False)
    config = write_config(no_key, server.url, api_key_env="OPENAI_API_KEY",
                          azure_ad_token_env="ASSAY_TEST_ENTRA")
    assert run(["judge", str(config), "--out", str(no_key / "run"), "--dry-run"]) == 0
    assert "note: environment variable ASSAY_TEST_ENTRA is not set" in capsys.readouterr().err
    assert run(["judge", str(config), "--out", str(no_key / "run")]) == 2
    assert "error: environment variable ASSAY_TEST_ENTRA is not set" in capsys.readouterr().err
    assert server.stats.requests == 0


def test_a_dry_run_still_refuses_what_a_key_would_not_fix(server, no_key, capsys):
    config = write_config(no_key, server.url, api_key_env="OPENAI_API_KEY", prices={}, cost_limit_usd=5.0)
    assert run(["judge", str(config), "--out", str(no_key / "run"), "--dry-run"]) == 2
    assert "cost_limit_usd needs a price for model 'judge-model'" in capsys.readouterr().err


@pytest.fixture
def example(no_key, monkeypatch):
    """examples/run (two systems and a judge, all on OPENAI_API_KEY), at an address nothing
    listens on (nothing may be sent)."""
    for name in ("eval.yaml", "items.csv"):
        shutil.copy(EXAMPLE / name, no_key / name)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    return no_key / "eval.yaml"


def test_generate_dry_run_and_describe_of_systems_need_no_key(example, no_key, capsys):
    out = no_key / "run"
    assert run(["generate", str(example), "--out", str(out), "--dry-run", "--limit", "2"]) == 0
    printed = capsys.readouterr()
    assert "mini (http://127.0.0.1:9/v1): 2 answers, 0 stored, 2 to ask" in printed.out
    assert "note: systems[0] (mini): environment variable OPENAI_API_KEY is not set" in printed.err
    assert not out.exists()
    assert run(["describe", str(example)]) == 0
    assert re.search(r"Total: 276 calls", capsys.readouterr().out)  # 24, and G-Eval's 12 + 240 at most
    assert run(["generate", str(example), "--out", str(out)]) == 2  # the run refuses, as today
    assert capsys.readouterr().err.startswith(
        "error: systems[0] (mini): environment variable OPENAI_API_KEY is not set")
