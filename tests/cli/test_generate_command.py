"""``assay generate``, ``assay run`` and ``assay describe`` on a config with systems: the user's
errors in one line (exit 2), the plan of the generation phase, dry run, the step list."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.cli._judge_helpers import run

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "run"


@pytest.fixture()
def example(tmp_path, monkeypatch):
    """examples/run, its systems at an address nothing listens on (nothing may be sent)."""
    for name in ("eval.yaml", "items.csv"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return tmp_path / "eval.yaml"


def test_describe_counts_the_generation_phase_per_system(example, capsys):
    assert run(["describe", str(example)]) == 0
    printed = capsys.readouterr().out
    rows = {m.group(1): m.groups()[1:] for m in re.finditer(
        r"^  (mini|nano) +answers +\S+ +(\d+) +([\d,]+) +([\d,]+) +\$([\d.]+)$", printed, re.M)}
    # 6 datapoints (one per stratum); max_tokens 200 an answer
    assert rows["mini"][0] == "6" and rows["nano"][0] == "6"
    assert rows["mini"][2] == rows["nano"][2] == "1,200"
    tokens_in = int(rows["nano"][1])
    assert float(rows["nano"][3]) == pytest.approx((tokens_in * 0.1 + 1200 * 0.4) / 1e6, abs=5e-5)
    # the judge phase counts one rubric judgment per answer to come: 2 systems x 6 items
    assert re.search(r"gpt-4\.1/rubric +rubric +gpt-4\.1 +12 ", printed)
    # and G-Eval's baseline one logprob call per answer (12), its second stage at most 20 samples
    # an answer (240): 12 + 12 + 12 + 240
    assert re.search(r"^  geval +gpt-4\.1 +12 +240 ", printed, re.M)
    assert re.search(r"Total: 276 calls", printed)


def test_generate_dry_run_sends_and_writes_nothing(example, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(["generate", str(example), "--out", str(out), "--dry-run", "--limit", "2"]) == 0
    printed = capsys.readouterr().out
    assert "dry run: 2 datapoints x 2 systems; nothing sent" in printed
    assert "mini (http://127.0.0.1:9/v1): 2 answers, 0 stored, 2 to ask" in printed
    assert not out.exists()


def test_a_missing_key_stops_generate_before_any_system_is_asked(example, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY")
    assert run(["generate", str(example), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: systems[0] (mini): environment variable OPENAI_API_KEY is not set")
    assert "\n" not in err and not (tmp_path / "run" / "responses.jsonl").exists()


def test_generate_reads_the_key_from_the_configs_dotenv(example, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY")
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv\n")
    assert run(["generate", str(example), "--out", str(tmp_path / "run"), "--dry-run"]) == 0
    assert "nothing sent" in capsys.readouterr().out


def test_generate_needs_systems(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("version: 1\njudges: []\n")
    assert run(["generate", str(config), "--out", str(tmp_path / "run")]) == 2
    assert "systems: the config declares no systems" in capsys.readouterr().err


def test_a_command_system_answers_through_generate(tmp_path, capsys):
    (tmp_path / "points.jsonl").write_text('{"id": "a", "prompt": "hello"}\n{"id": "b", "prompt": "fail"}\n')
    (tmp_path / "echo.py").write_text("import sys\ntext = sys.stdin.read()\n"
                                      "sys.exit(3) if text == 'fail' else print(text.upper())\n")
    config = tmp_path / "c.yaml"
    config.write_text(f"version: 1\ndatapoints: points.jsonl\njudges: []\nsystems:\n"
                      f"  - {{name: shout, command: [{sys.executable}, echo.py]}}\n")
    assert run(["generate", str(config), "--out", str(tmp_path / "run")]) == 3  # one answer failed
    printed = capsys.readouterr().out
    assert "shout (command:" in printed and "1 of 2 answers good, 1 failed (1 api_error)" in printed
    assert (tmp_path / "run" / "answers.jsonl").read_text().count('"answer": "HELLO"') == 1


def test_run_names_an_unknown_step_and_a_baselines_method_it_does_not_know(example, tmp_path, capsys):
    assert run(["run", str(example), "--out", str(tmp_path / "run"), "--steps", "judging"]) == 2
    assert "--steps 'judging': expected some of datapoints, generate" in capsys.readouterr().err
    text = example.read_text() + "baselines: {methods: [gevl]}\n"
    example.write_text(text)
    assert run(["run", str(example), "--out", str(tmp_path / "run"), "--steps", "baselines"]) == 2
    captured = capsys.readouterr()
    assert "[1/1] baselines:" in captured.out
    err = captured.err.strip()
    assert err.startswith("error: ") and "gevl" in err and "\n" not in err
