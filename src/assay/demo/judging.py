"""The demo's judging step: offline metric judges over the simulated answers.

The simulated run folder holds each system's answer texts and the reference answers, so
the demo can run real judges without a model or a server: ``assay judge`` with the
metric judges (exact match, token F1, ROUGE-L, BLEU) on run 1's answers, into a run
folder of its own that ``assay.load`` reads back like any other.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from assay.judge.config import load_config
from assay.judge.inputs import load_inputs
from assay.judge.plan import build_plan, execute

METRICS = ("exact_match", "token_f1", "rouge_l", "bleu")


def write_metric_inputs(example: Path, out: Path) -> tuple[Path, Path]:
    """Write ``answers.jsonl`` (run 1 of every arm, with its reference) and ``judge.yaml``."""
    out.mkdir(parents=True, exist_ok=True)
    datapoints = {}
    for line in (example / "datapoints.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        datapoints[record["id"]] = record
    answers = out / "answers.jsonl"
    with answers.open("w", encoding="utf-8") as handle:
        for line in (example / "responses.jsonl").read_text(encoding="utf-8").splitlines():
            response = json.loads(line)
            point = datapoints.get(response["datapoint_id"])
            if point is None or response["run"] != 1 or response.get("text") is None:
                continue
            handle.write(json.dumps({
                "item": point["id"], "arm": response["arm"], "question": point["prompt"],
                "answer": response["text"], "reference": point["reference"],
                "task": point["task"], "cluster": point["cluster"]}, sort_keys=True) + "\n")
    config = out / "judge.yaml"
    config.write_text(
        "# Offline metric judges over the demo's simulated answers (no model, no server).\n"
        "version: 1\n"
        "inputs:\n"
        "  jsonl: [answers.jsonl]\n"
        "judges:\n"
        "  - kind: metric\n"
        f"    metrics: [{', '.join(METRICS)}]\n", encoding="utf-8")
    return answers, config


def run_metric_judges(example: Path, out: Path) -> Path:
    """Judge the demo's answers with the offline metrics; return the run folder."""
    _, config_path = write_metric_inputs(example, out)
    config = load_config(config_path)
    plan = build_plan(config, load_inputs(config))
    run = out / "run"
    asyncio.run(execute(plan, run))
    return run
