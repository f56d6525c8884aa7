"""``assay run``: the whole evaluation from one config (docs/run.md's, as written) on the
stand-in server: datapoints sampled by strata from a local table, two systems answering, a
rubric judge, native scores, a G-Eval baseline, reports (calibration and the teacher page
included) and an export; killed half-way and resumed exactly."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli._judge_helpers import child_env, run
from tests.judge.llm_server import Behaviour

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "run"


def docs_config() -> str:
    """The config block of docs/run.md."""
    text = (ROOT / "docs" / "run.md").read_text(encoding="utf-8")
    return re.search(r"```yaml\n(.*?)```", text, re.S).group(1)


@pytest.fixture()
def example(tmp_path, server, monkeypatch):
    """docs/run.md's config beside the example's items, pointed at the stand-in server."""
    folder = tmp_path / "example"
    folder.mkdir()
    shutil.copy(EXAMPLE / "items.csv", folder / "items.csv")
    (folder / "eval.yaml").write_text(docs_config(), encoding="utf-8")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return folder / "eval.yaml"


def test_the_docs_config_is_the_example_file():
    assert docs_config() == (EXAMPLE / "eval.yaml").read_text(encoding="utf-8")


def approx_tree(value):
    """``value`` with every float compared to 1e-12 (pytest.approx, through dicts and lists)."""
    if isinstance(value, dict):
        return {k: approx_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [approx_tree(v) for v in value]
    return pytest.approx(value, rel=1e-12, abs=1e-15) if isinstance(value, float) else value


def lines(path: Path, drop: tuple[str, ...] = ()) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k not in drop}
            for line in path.read_text(encoding="utf-8").splitlines()]


def judgments(folder: Path) -> list[dict]:
    from assay import load

    frame = load(folder).frame.drop(columns=["evaluated_at", "latency_s"], errors="ignore")
    frame = frame.sort_values(["item", "arm", "criterion"]).reset_index(drop=True)
    return json.loads(frame.to_json(orient="records"))


ANSWERS = 6 * 2  # 6 datapoints (one per stratum) x 2 systems
JUDGED = 6 * 2  # one rubric criterion per answer
GEVAL = 6 * 2  # one G-Eval call per answer: the stand-in returns the score tokens' logprobs
SCORES = {"1": 0.1, "2": 0.15, "3": 0.25, "4": 0.3, "5": 0.2}  # free-text replies and logprobs


@pytest.mark.slow  # two interpreter starts and two whole runs: about 30 s
def test_whole_evaluation_killed_half_way_resumes_exactly(example, server, tmp_path, capsys):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    server.configure(scores=SCORES)
    assert run(["describe", str(example), "--out", str(tmp_path / "plan.html")]) == 0
    assert re.search(r"^  mini +answers +gpt-4\.1-mini +6 ", capsys.readouterr().out, re.M)
    assert "Generation phase" in (tmp_path / "plan.html").read_text()
    assert run(["run", str(example), "--out", str(whole)]) == 0
    printed = capsys.readouterr().out
    for step in ("datapoints", "generate", "judge", "native-scores", "baselines", "report", "export"):
        assert re.search(rf"\[\d/7\] {step}: assay ", printed), step
    assert "6 of 12 items (stratified, seed 42), 6 of 6 strata sampled" in printed
    # Two systems may give one question the same answer: the second judge and G-Eval call
    # of that answer are the same request, answered from the cache. No prompt went twice.
    first = server.stats.requests
    assert ANSWERS + JUDGED < first <= ANSWERS + JUDGED + GEVAL
    assert sorted(server.stats.prompts.values()) == [1] * first
    points = lines(whole / "datapoints.jsonl")
    assert sorted((p["attributes"]["difficulty"], p["attributes"]["domain"]) for p in points) == sorted(
        (d, s) for d in ("easy", "hard") for s in ("geography", "history", "science"))
    assert {r["arm"] for r in lines(whole / "responses.jsonl")} == {"mini", "nano"}
    assert all(r["reference_score"] is not None for r in lines(whole / "native_scores.jsonl"))
    standings = json.loads((whole / "standings.json").read_text())
    assert {row["system"] for row in standings["standings"]} == {"mini", "nano"}
    assert (whole / "report" / "scores.json").is_file()
    # G-Eval's score is the expectation over the score tokens: sum s p(s) = 3.35 here
    geval = [r for r in lines(whole / "baselines.jsonl") if r["method"] == "geval"]
    assert len(geval) == GEVAL and {r["how"] for r in geval} == {"logprob_expectation"}
    assert {round(r["score"], 10) for r in geval} == {3.35}
    assert "geval" in (whole / "baselines.csv").read_text()
    written = {p.name for p in (whole / "report").iterdir()}
    assert {"teachers.json", "calibration.json", "calibration_curves.json"} <= written, written
    assert run(["describe", str(example), "--run", str(whole)]) == 0  # all stored: nothing to ask
    assert re.search(r"^  mini +answers +gpt-4\.1-mini +0 +0 +0 ", capsys.readouterr().out, re.M)

    # The same run in a child process, killed (SIGKILL) while four judgments hang on the wire.
    in_flight = 4  # the example's max_concurrency
    stop_at = ANSWERS + 4  # every answer and four judgments answered, then four hang
    server.reset(Behaviour(script=["ok"] * stop_at + ["hang"] * in_flight, hang_s=120, scores=SCORES))
    env = child_env(tmp_path, OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-test")
    proc = subprocess.Popen([sys.executable, "-m", "assay", "run", str(example), "--out", str(killed)],
                            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not (
                server.stats.requests == stop_at + in_flight and server.stats.in_flight == in_flight):
            time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read().decode()
        assert server.stats.requests == stop_at + in_flight
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stderr.close()
    assert not (killed / "native_scores.jsonl").exists()  # killed half-way: in the judge step
    assert run(["run", str(example), "--out", str(killed)]) == 0
    # No call answered before the kill was asked again: only the four that hung (never
    # answered) were sent twice.
    assert server.stats.requests == first + in_flight
    assert sorted(server.stats.prompts.values()) == [1] * (first - in_flight) + [2] * in_flight
    # ... and the tables are those of the run that was never interrupted.
    assert lines(killed / "datapoints.jsonl") == points
    for name in ("responses.jsonl", "answers.jsonl"):
        assert lines(killed / name, drop=("latency_s",)) == lines(whole / name, drop=("latency_s",))
    assert lines(killed / "native_scores.jsonl") == lines(whole / "native_scores.jsonl")
    assert judgments(killed) == judgments(whole)
    # The resumed store holds its rows in another order: sums may differ in the last bit.
    assert json.loads((killed / "standings.json").read_text()) == approx_tree(standings)
    assert lines(killed / "baselines.jsonl") == lines(whole / "baselines.jsonl")
