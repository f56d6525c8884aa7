"""Read and write the results aggregator's ``results.json``: every score of every run.

Each record is one (benchmark, quiz, question, run) with a list of metrics::

    {"benchmark_id", "quiz_id", "question_id", "run_number",
     "metrics": [{"metric_name", "metric_version", "score", "evaluator_model",
                  "evaluated_at", "raw_response"}]}

Mapping to the judgments table: ``arm`` = benchmark_id, ``task`` = quiz_id (and
``cluster`` = quiz_id: questions of one quiz are not independent), ``item`` =
question_id, ``run`` = run_number, ``criterion`` = metric_name, ``judge`` =
evaluator_model, ``score``, ``metric_version``, ``evaluated_at``, ``raw_response``.
:func:`write_results_json` writes the same file back: records in the order the table
holds them, metrics in row order, so importing and writing gives the file again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from assay.data.atomic import write_text
from assay.data.importers._records import RecordFields
from assay.data.lines import json_file
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import judgments_from_records
from assay.errors import InputError, Problem, ValidationError

RECORD_FIELDS = ("benchmark_id", "quiz_id", "question_id", "run_number")
METRIC_FIELDS = ("metric_name", "metric_version", "score", "evaluator_model", "evaluated_at",
                 "raw_response")


def import_results_json(sources: Sequence[str | Path], *,
                        scales: Mapping[str, Scale] | None = None,
                        duplicates: str = "error",
                        fields: RecordFields | None = None) -> Judgments:
    """Read one or more ``results.json`` files into a judgments table; `fields`
    (``--map``, ``--set``) apply to each run record first."""
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    problems: list[Problem] = []
    fields = fields or RecordFields()
    seen: set[str] = set()
    for source in sources:
        file = Path(source)
        if file.is_dir():
            file = file / "results.json"
        try:
            data = json_file(file)
        except FileNotFoundError:
            raise InputError(str(file), "no such file") from None
        if not isinstance(data, list):
            raise InputError(str(file), "expected a JSON list of run records")
        for number, rec in enumerate(data, start=1):
            if not isinstance(rec, dict):
                problems.append(Problem(str(file), number, None, "expected a JSON object"))
                continue
            rec = fields.apply(rec, seen)
            absent = [f for f in (*RECORD_FIELDS, "metrics") if rec.get(f) is None]
            if absent:
                problems.extend(Problem(str(file), number, f, "required field is missing")
                                for f in absent)
                continue
            if not isinstance(rec["metrics"], list):
                problems.append(Problem(str(file), number, "metrics", "expected a list"))
                continue
            for index, metric in enumerate(rec["metrics"], start=1):
                where = f"metrics[{index}]"
                if not isinstance(metric, dict):
                    problems.append(Problem(str(file), number, where, "expected a JSON object"))
                    continue
                for f in ("metric_name", "evaluator_model"):
                    if not isinstance(metric.get(f), str):
                        problems.append(Problem(str(file), number, f"{where}.{f}",
                                                "required text field is missing"))
                raw = metric.get("raw_response")
                rows.append({
                    "item": rec["question_id"], "cluster": rec["quiz_id"],
                    "arm": rec["benchmark_id"], "run": rec["run_number"],
                    "judge": metric.get("evaluator_model"),
                    "criterion": metric.get("metric_name"), "score": metric.get("score"),
                    "task": rec["quiz_id"], "metric_version": metric.get("metric_version"),
                    "evaluated_at": metric.get("evaluated_at"),
                    "raw_response": raw if raw is None or isinstance(raw, str)
                    else json.dumps(raw),
                })
                numbers.append(number)
    problems += fields.unused(seen, ", ".join(map(str, sources)))
    if problems:
        raise ValidationError(problems)
    if not rows:
        raise InputError(", ".join(map(str, sources)), "no scores found")
    return judgments_from_records(rows, numbers, path=", ".join(map(str, sources)),
                                  sources=[str(s) for s in sources], scales=scales,
                                  duplicates=duplicates)


def results_records(judgments: Judgments) -> list[dict[str, Any]]:
    """The records of ``results.json`` for a table, in the table's order."""
    frame = judgments.frame
    task = frame["task"] if "task" in frame else frame["cluster"]
    records: dict[tuple[Any, ...], dict[str, Any]] = {}
    columns = {name: (frame[name].tolist() if name in frame else [None] * len(frame))
               for name in ("metric_version", "evaluated_at", "raw_response")}
    for i, (arm, quiz, item, run, criterion, judge, score) in enumerate(zip(
            frame["arm"], task, frame["item"], frame["run"], frame["criterion"],
            frame["judge"], frame["score"], strict=True)):
        key = (arm, quiz, item, int(run))
        record = records.get(key)
        if record is None:
            record = {"benchmark_id": arm, "quiz_id": quiz, "question_id": item,
                      "run_number": int(run), "metrics": []}
            records[key] = record
        record["metrics"].append({
            "metric_name": criterion,
            "metric_version": _none(columns["metric_version"][i]),
            "score": None if pd.isna(score) else _number(float(score)),
            "evaluator_model": judge,
            "evaluated_at": _none(columns["evaluated_at"][i]),
            "raw_response": _none(columns["raw_response"][i]),
        })
    return list(records.values())


def write_results_json(judgments: Judgments, path: str | Path) -> Path:
    """Write a table as the results aggregator's ``results.json``."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    return write_text(p, json.dumps(results_records(judgments), indent=2, ensure_ascii=False) + "\n")


def _none(value: Any) -> Any:
    return None if value is None or (isinstance(value, float) and value != value) else value


def _number(value: float) -> float | int:
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
