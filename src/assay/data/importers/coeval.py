"""Import a CoEval run folder (its experiment storage), read as CoEval's analyzer reads it.

A CoEval run ``{storage}/{experiment_id}/`` holds, besides ``meta.json`` and
``config.yaml``::

    phase2_rubric/{task_id}.rubric.json              {factor: description}
    phase3_datapoints/*.datapoints.jsonl             {"id", "task_id", "teacher_model_id",
                                                      "prompt", "reference_response",
                                                      "sampled_target_attributes",
                                                      "benchmark_native_score", ...}
    phase4_responses/*.responses.jsonl               {"id", "datapoint_id", "task_id",
                                                      "teacher_model_id", "student_model_id",
                                                      "response", ...}
    phase5_evaluations/*.evaluations.jsonl           {"id", "response_id", "datapoint_id",
                                                      "task_id", "teacher_model_id",
                                                      "judge_model_id", "scores": {factor:
                                                      "High" | "Medium" | "Low" | "0.8423"},
                                                      "evaluated_at"}

Every valid evaluation gives one row per rubric factor: ``item`` = ``cluster`` = the
datapoint id, ``arm`` = the student (from the response), ``judge`` = ``judge_model_id``,
``criterion`` = the factor, ``score`` = the value on its declared scale (``ordinal:Low,
Medium,High`` for an LLM judge's levels, whose normalised values are CoEval's 0 / 0.5 / 1;
``range:0,1`` for a metric judge's float strings), ``task``, ``teacher``, ``attributes`` =
``sampled_target_attributes``, ``reference_score`` = ``benchmark_native_score``,
``evaluated_at``; ``question`` = the datapoint's ``prompt`` (surface bias reads it from a
saved table), ``reference`` = its ``reference_response``; ``outcome`` a digest of the
response.

Validity follows CoEval's loader: an evaluation whose response is not in phase 4 is
``MISSING_RESPONSE``; whose datapoint is not in phase 3, ``MISSING_DATAPOINT``; that lacks
a factor of its task's rubric (or has no scores object), ``INCOMPLETE_SCORES``; with a
value other than High/Medium/Low or a float in [0, 1], ``INVALID_SCORE_VALUE``. Invalid
records are kept aside (``Judgments.invalid``, the first class in that order) and excluded
from every statistic, as CoEval excludes them from its aggregates.

A benchmark ingested with ``coeval ingest`` is a teacher named for the benchmark
(:func:`benchmark_teachers`); the table lists it in ``Judgments.benchmark_teachers``, which
a saved table keeps, so the teacher report compares synthetic and benchmark items.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from assay.data.importers._records import RecordFields, jsonl_objects
from assay.data.lines import json_object_file
from assay.data.schema import Scale, ValidityClass
from assay.data.table import INVALID_COLUMNS, Judgments
from assay.data.validate import judgments_from_records
from assay.errors import InputError, Problem, ValidationError

PHASES = {"datapoints": ("phase3_datapoints", "*.datapoints.jsonl"),
          "responses": ("phase4_responses", "*.responses.jsonl"),
          "evaluations": ("phase5_evaluations", "*.evaluations.jsonl")}
LEVELS = ("Low", "Medium", "High")
ORDINAL = "ordinal:Low,Medium,High"
READING = ("as CoEval's loader counts a re-evaluated response: every evaluation record is "
           "one judgment")


def is_coeval_run(path: Path) -> bool:
    """Whether `path` is a CoEval run folder (phase 3, 4 and 5 folders)."""
    return path.is_dir() and all((path / folder).is_dir() for folder, _ in PHASES.values())


def _records(folder: Path, part: str, problems: list[Problem]
             ) -> list[tuple[Path, int, dict[str, Any]]]:
    sub, pattern = PHASES[part]
    out = []
    for file in sorted((folder / sub).glob(pattern)):
        out += [(file, n, rec) for n, rec in jsonl_objects(file, problems)]
    return out


def _rubrics(folder: Path) -> dict[str, set[str]]:
    out = {}
    for file in sorted((folder / "phase2_rubric").glob("*.rubric.json")):
        data = json_object_file(file, "expected an object of factor: description")
        out[file.name[:-len(".rubric.json")]] = set(map(str, data))
    return out


def _valid_value(value: object) -> bool:
    if value in LEVELS:
        return True
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return 0.0 <= number <= 1.0


def _validity(ev: Mapping[str, Any], responses: Mapping[str, Any], datapoints: Mapping[str, Any],
              rubrics: Mapping[str, set[str]]) -> tuple[ValidityClass, str] | None:
    """CoEval's first error code of an evaluation, with a detail; None when it is valid."""
    if str(ev.get("response_id")) not in responses:
        return ValidityClass.MISSING_RESPONSE, f"response {ev.get('response_id')!r} is not in phase 4"
    if str(ev.get("datapoint_id")) not in datapoints:
        return ValidityClass.MISSING_DATAPOINT, (f"datapoint {ev.get('datapoint_id')!r} is not "
                                                 "in phase 3")
    scores = ev.get("scores")
    if not isinstance(scores, dict):
        return ValidityClass.INCOMPLETE_SCORES, "scores is not an object of factor: value"
    absent = sorted(rubrics.get(str(ev.get("task_id")), set()) - set(scores))
    if absent:
        return ValidityClass.INCOMPLETE_SCORES, f"no score for {', '.join(absent)}"
    bad = [f"{k}: {v!r}" for k, v in scores.items() if not _valid_value(v)]
    if bad:
        return ValidityClass.INVALID_SCORE_VALUE, "; ".join(bad)
    return None


def benchmark_teachers(folder: Path) -> dict[str, str]:
    """CoEval's ingest convention: ``coeval ingest`` writes a benchmark's items as datapoints
    whose ``teacher_model_id`` is the benchmark's name, adds that name to the run's
    ``config.yaml`` as a model with ``interface: benchmark`` and logs it in ``meta.json``'s
    ``ingest_log`` (``teacher_id``). Name -> where it was declared; files CoEval would
    refuse are left for CoEval to validate (they declare nothing)."""
    import yaml

    from assay.data._limits import MAX_RECORD_BYTES
    from assay.data.lines import json_file

    found: dict[str, str] = {}
    config = folder / "config.yaml"
    try:
        if config.is_file() and config.stat().st_size <= MAX_RECORD_BYTES:
            data = yaml.safe_load(config.read_text(encoding="utf-8"))
            models = data.get("models") if isinstance(data, dict) else None
            for m in models if isinstance(models, list) else []:
                if isinstance(m, dict) and m.get("interface") == "benchmark" and m.get("name"):
                    found.setdefault(str(m["name"]), "config.yaml interface: benchmark")
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, yaml.YAMLError):
        pass
    try:
        meta = json_file(folder / "meta.json") if (folder / "meta.json").is_file() else None
    except (InputError, OSError):
        meta = None
    log = meta.get("ingest_log") if isinstance(meta, dict) else None
    for entry in log if isinstance(log, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("teacher_id"), str):
            found.setdefault(entry["teacher_id"], "meta.json ingest_log")
    return found


def _text(value: object) -> str | None:
    """A text field of a record; None when absent, empty or not text."""
    return value if isinstance(value, str) and value else None


def import_coeval(sources: Sequence[str | Path], *,
                  scales: Mapping[str, Scale] | None = None,
                  duplicates: str = "keep",
                  fields: RecordFields | None = None) -> Judgments:
    """Read a CoEval run folder into one table, invalid evaluations kept aside; `fields`
    (``--map``, ``--set``) apply to each phase 5 evaluation record first."""
    if len(sources) != 1 or not is_coeval_run(Path(sources[0])):
        where = ", ".join(map(str, sources))
        raise InputError(where, "expected one CoEval run folder with phase3_datapoints/, "
                         "phase4_responses/ and phase5_evaluations/")
    folder = Path(sources[0])
    problems: list[Problem] = []
    datapoints = {str(r.get("id")): r for _, _, r in _records(folder, "datapoints", problems)}
    responses = {str(r.get("id")): r for _, _, r in _records(folder, "responses", problems)}
    fields = fields or RecordFields()
    seen: set[str] = set()
    evaluations = [(file, number, fields.apply(rec, seen))
                   for file, number, rec in _records(folder, "evaluations", problems)]
    problems += fields.unused(seen, str(folder / "phase5_evaluations"))
    if problems:
        raise ValidationError(problems)
    rubrics = _rubrics(folder)
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    files: list[str] = []
    invalid: list[dict[str, Any]] = []
    kinds: dict[str, set[str]] = {}
    for file, number, ev in evaluations:
        why = _validity(ev, responses, datapoints, rubrics)
        response = responses.get(str(ev.get("response_id"))) or {}
        if why is not None:
            invalid.append({"validity_class": why[0].value, "file": str(file), "row": number,
                            "record_id": ev.get("id"), "response_id": ev.get("response_id"),
                            "datapoint_id": ev.get("datapoint_id"),
                            "judge": ev.get("judge_model_id"),
                            "arm": response.get("student_model_id"), "detail": why[1]})
            continue
        datapoint = datapoints[str(ev["datapoint_id"])]
        text = response.get("response")
        attributes = datapoint.get("sampled_target_attributes")
        for factor, value in ev["scores"].items():
            level = value in LEVELS
            kinds.setdefault(str(factor), set()).add("ordinal" if level else "metric")
            rows.append({
                "item": str(ev["datapoint_id"]), "cluster": str(ev["datapoint_id"]),
                "arm": response.get("student_model_id"), "run": 1,
                "judge": ev.get("judge_model_id"), "criterion": str(factor),
                "score": value if level else float(value), "task": ev.get("task_id"),
                "teacher": ev.get("teacher_model_id") or datapoint.get("teacher_model_id"),
                "attributes": (json.dumps(attributes, sort_keys=True)
                               if isinstance(attributes, dict) else None),
                "reference_score": datapoint.get("benchmark_native_score"),
                "evaluated_at": ev.get("evaluated_at") or None,
                "question": _text(datapoint.get("prompt")),
                "reference": _text(datapoint.get("reference_response")),
                "outcome": (hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
                            if isinstance(text, str) else None)})
            numbers.append(number)
            files.append(str(file))
    mixed = sorted(f for f, k in kinds.items() if len(k) > 1)
    if mixed:
        raise InputError(str(folder), f"factor {', '.join(mixed)} holds both High/Medium/Low "
                         "levels and metric floats: one scale per factor is needed (give "
                         "the metric judge's factor another name)")
    if not rows:
        raise InputError(str(folder), "the run holds no valid phase 5 evaluations")
    declared = {f: Scale.parse(ORDINAL if k == {"ordinal"} else "range:0,1")
                for f, k in kinds.items()}
    table = judgments_from_records(
        rows, numbers, path=str(folder / "phase5_evaluations"), sources=[str(folder)],
        scales={**declared, **(scales or {})}, files=files, duplicates=duplicates,
        reading=READING,
        invalid=pd.DataFrame(invalid, columns=list(INVALID_COLUMNS)))
    teachers = {str(d.get("teacher_model_id")) for d in datapoints.values()}
    declared_by = {t: how for t, how in benchmark_teachers(folder).items() if t in teachers}
    if not declared_by:
        return table
    note = ("Benchmark teachers (coeval ingest: " + "; ".join(
        f"{t} from {how}" for t, how in sorted(declared_by.items())) + "): their items are the "
        "benchmark side of the teacher report.")
    return replace(table, benchmark_teachers=tuple(sorted(declared_by)),
                   read_notes=(*table.read_notes, note))
