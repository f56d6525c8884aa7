"""``assay judge`` with names no file system or spreadsheet should take from data.

Item 15 of the robustness issue: the per-pair CSVs were named ``{task}_{base}--{other}.csv``
from input values, so a question set ``../../ESCAPED`` or an absolute path wrote model output
outside the run folder, and an arm ``openai/gpt-4o`` crashed the command after every judgment
was paid for. A pairwise judge (base A, other B) and a reference judge (reference A,
generated B) both wrote ``{set}_A--B.csv``, the second overwriting the first. Item 20: text
from data that starts with ``= + - @`` was written into the CSVs as is.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import yaml

import assay.cli.judge  # noqa: F401  (registers ``assay judge``)
from tests.judge.llm_server import Behaviour, LLMServer
from tests.judge.workflow.test_notebook_workflow import run, write_config
from tests.report.files._cells import inert

ARMS = ("A", "openai/gpt-4o", "=HYPERLINK(\"http://x\")")
QUESTION_SETS = ("../../ESCAPED", "/abs/qs", "@set")


def _dataset(root: Path) -> Path:
    for qs in QUESTION_SETS:
        rows = lambda shift: [{"question_id": f"q{i}", "question_text": f"Question {i}?",  # noqa: E731
                               "answer": f"Answer {i + shift}."} for i in range(3)]
        for k, arm in enumerate((*ARMS, "reference")):
            path = root / "answers" / arm / "x" / "y" / f"{qs.lstrip('/')}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(rows(k)), encoding="utf-8")
    return root


def _config(tmp: Path, url: str) -> Path:
    judges = [{"kind": "pairwise", "base": "A", "others": list(ARMS[1:]), "trials": 2,
               "criteria": ["relevance"]},
              {"kind": "reference", "label": "reference", "reference": "A", "trials": 2,
               "criteria": ["correctness"]}]
    config = write_config(tmp, _dataset(tmp / "data"), url, judges)
    settings = yaml.safe_load(config.read_text(encoding="utf-8"))
    settings["inputs"] = {
        "input_dir": str(tmp / "data"), "methods": list(ARMS), "question_sets": list(QUESTION_SETS),
        "answers_path": "{input_dir}/answers/{method}/x/y/{question_set}.json",
        "question_text_key": "question_text"}
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    return config


def test_judge_writes_every_file_inside_its_folder_once(_server: LLMServer, tmp_path):
    config = _config(tmp_path, _server.url)
    before = {p for p in Path("/abs").rglob("*")} if Path("/abs").exists() else set()
    folder = tmp_path / "deep" / "run"
    _server.reset(Behaviour())
    assert run(["judge", str(config), "--out", str(folder), "--display", "plain"]) == 0
    outside = [p for p in tmp_path.rglob("*") if p.is_file()
               and not p.is_relative_to(folder) and not p.is_relative_to(tmp_path / "data")
               and p.name not in ("judge.yaml", "cache.sqlite")]
    assert outside == []
    assert ({p for p in Path("/abs").rglob("*")} if Path("/abs").exists() else set()) == before
    pairs = sorted(p.name for p in folder.glob("*--*.csv"))
    # per question set, the pairwise judge (base A) and the reference judge (reference A) judge
    # the same two pairs: four files, none overwriting another
    assert len(pairs) == len(QUESTION_SETS) * 4 == len(set(n.casefold() for n in pairs))
    rows = {name: list(csv.DictReader(_lines(folder / name))) for name in pairs}
    pairwise = [r for rs in rows.values() for r in rs if "base_name" in r]
    reference = [r for rs in rows.values() for r in rs if "generated" in r]
    assert len(pairwise) == len(reference) == len(QUESTION_SETS) * 3 * 2 * 2  # questions, pairs, trials
    names = {r["base_name"] for r in pairwise} | {r["other_name"] for r in pairwise}
    assert names == {"A", "openai/gpt-4o", "'=HYPERLINK(\"http://x\")"}  # the value, made inert
    for path in folder.glob("*.csv"):
        for row in csv.reader(_lines(path)):
            for cell in row:
                assert inert(cell), (path.name, cell)


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)
