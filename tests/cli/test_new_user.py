"""A new user's first hour: every ``assay`` command of the README's shell blocks, run as
written (in this process, the same code path as the console script) in a folder holding the
files the README names, and ``assay judge --init`` judging for real against the stand-in
server on 127.0.0.1 (the generated config reads its base URL from ``OPENAI_BASE_URL``).

Left out, each for its reason: ``pip install`` and ``pytest`` (not assay's commands),
``assay demo`` (its own tests run it: tests/cli/conftest.py ``demo_run``), and the AlpacaEval
import when the real AlpacaEval data are not on this machine.
"""

from __future__ import annotations

import json
import random
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from tests.cli._judge_helpers import run

README = Path(__file__).resolve().parents[2] / "README.md"
ALPACA = Path("/work/shared/data/alpaca_eval/results")
NOT_ASSAY = ("pip ", "pytest")


def readme_commands() -> list[str]:
    """The README's shell commands, continuation lines joined and comments dropped."""
    text = README.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                command = part.split("  #")[0].strip()
                if command and not command.startswith("#"):  # a whole-line comment shows output
                    commands.append(command)
    return commands


def _files(folder: Path) -> None:
    """The files the README's commands name, as a new user would bring them."""
    rng = random.Random(1)
    rows = []
    for q in range(24):
        for model in ("small", "large"):
            rows.append({"question_id": f"q{q}", "model": model, "doc": f"d{q // 4}",
                         "criterion": "quality", "score": rng.randint(40, 95)})
            rows.append({"question_id": f"q{q}", "model": model, "doc": f"d{q // 4}",
                         "criterion": "helpfulness", "score": rng.choice(["Low", "Medium", "High"])})
    pd.DataFrame(rows).to_csv(folder / "scores.csv", index=False)
    results = [{"benchmark_id": "b1", "quiz_id": f"quiz{q // 3}", "question_id": f"q{q}",
                "run_number": run_number,
                "metrics": [{"metric_name": "clarity", "metric_version": "1.0",
                             "score": float(rng.randint(50, 100)), "evaluator_model": "gpt-4-0613",
                             "evaluated_at": "2025-05-12T12:45:22Z"}]}
               for q in range(9) for run_number in (1, 2)]
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    bench = [{"cluster": f"c{i // 5}", "item": f"i{i}", "arm": arm, "run": r,
              "correct": int(rng.random() < p), "usd": 0.001 * (1 + (arm == "long")),
              "split": "test"}
             for i in range(60) for arm, p in (("long", 0.8), ("short", 0.7), ("small", 0.6),
                                               ("large", 0.75)) for r in range(1, 6)]
    pd.DataFrame(bench).to_csv(folder / "bench.csv", index=False)
    reference = [{**row, "arm": row["arm"]} for row in bench if row["arm"] in ("small", "large")]
    frame = pd.DataFrame(reference).rename(columns={"correct": "score"})
    frame["split"] = "dev"
    frame.to_csv(folder / "reference.csv", index=False)
    (folder / "runs").mkdir()
    _runs(folder, rng, top=1)


def _runs(folder: Path, rng: random.Random, *, top: int) -> None:
    """runs/before.parquet and runs/after.parquet: scores 0..top, run B a little higher."""
    before = pd.DataFrame([{"item": f"q{q}", "cluster": f"d{q // 4}", "arm": arm,
                            "score": rng.randint(0, top)} for q in range(24) for arm in ("a", "b")])
    before.to_parquet(folder / "runs" / "before.parquet")
    step = max(1, top // 3)
    after = before.assign(score=[min(top, s + rng.randint(0, step)) for s in before["score"]])
    after.to_parquet(folder / "runs" / "after.parquet")


@pytest.mark.slow  # about 50 s on a loaded 2-core machine: 15 commands and a 234-call judge run
def test_the_readme_commands_run_as_written(server, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    _files(tmp_path)
    # the README's register line reads a Parquet reference table: a new user imports theirs
    assert run(["import", "bench", "reference.csv", "-o", "reference.parquet"]) in (0, 2)
    if not (tmp_path / "reference.parquet").exists():
        assert run(["import", "table", "reference.csv", "--scale", "score=binary",
                    "-o", "reference.parquet"]) == 0, capsys.readouterr().err
    # the README's import examples name the files a user brings: the bundled fixtures of
    # each format (tests/fixtures, sources in its README) stand in at those paths
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    for target, source in (("data/mt_bench/model_judgment/gpt-4_single.jsonl", "mt_bench/gpt-4_single.jsonl"),
                           ("data/mt_bench/question.jsonl", "mt_bench/question.jsonl"),
                           ("data/arena-hard-v0.1/model_judgment/gpt-4-1106-preview/gpt-4-0613.jsonl",
                            "arena_hard/gpt-4-0613.jsonl"),
                           ("output/win_rates.csv", "qed/win_rates.csv"),
                           ("output/reference_scores-graph_rag.csv", "qed/reference_scores-graph_rag.csv"),
                           ("output/EleutherAI__pythia-160m", "lm_eval/EleutherAI__pythia-160m")):
        (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / target).symlink_to(fixtures / source)
    ran = []
    for command in readme_commands():
        if command.startswith(NOT_ASSAY) or command.startswith("assay demo"):
            continue
        if "alpaca_eval" in command:
            if not ALPACA.is_dir():
                continue
            (tmp_path / "path" / "to" / "alpaca_eval").mkdir(parents=True)
            (tmp_path / "path" / "to" / "alpaca_eval" / "results").symlink_to(ALPACA)
        argv = shlex.split(command)
        assert argv[0] == "assay", command
        code = run(argv[1:])
        captured = capsys.readouterr()
        assert code == 0, f"{command}\n{captured.err[-2000:]}"
        ran.append(command)
    assert any(c.startswith("assay judge --init") for c in ran)
    assert any(c.startswith("assay compare") for c in ran)
    assert len(ran) >= 13, ran
    assert (tmp_path / "exp1" / "assay.yaml").is_file()
    assert (tmp_path / "report" / "cost.json").is_file()
    assert json.loads((tmp_path / "report" / "cost.json").read_text())["judge_spend_total"]["usd"] > 0


@pytest.mark.parametrize("command", ["assay --version", "assay -h", "assay report -h"])
def test_the_first_commands_a_user_types(command, capsys):
    assert run(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.strip()


def test_the_readme_compare_on_scores_from_1_to_10(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    _runs(tmp_path, random.Random(1), top=10)
    command = next(c for c in readme_commands() if c.startswith("assay compare"))
    assert run(shlex.split(command)[1:]) == 0
