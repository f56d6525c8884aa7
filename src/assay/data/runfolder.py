"""Load a run folder of datapoints, responses and evaluations (CoEval-style, CoEval).

A run folder holds three JSONL files (or folders of ``*.jsonl`` files with those names),
and optionally ``criteria.json``:

``datapoints.jsonl``
    ``{"id", "task", "cluster", "prompt", "reference", "teacher", "split", "attributes",
    "reference_score"}``: the items.
``responses.jsonl``
    ``{"id", "datapoint_id", "arm", "run", "text", "usd", "usd_provenance", "tokens_in",
    "tokens_out", "latency_s", "failure_kind"}``: each system's answer on each run.
``evaluations.jsonl``
    ``{"id", "response_id", "judge", "scores": {criterion: value}, "opponent_response_id",
    "position", "trial", "reasoning", "failure_kind", "evaluated_at"}``: one judge's scores
    of one response (pairwise: against the opponent's response, shown at ``position``).
``criteria.json``
    ``{"criteria": {name: {"scale": "range:0,100", "description": ...}},
    "judges": {judge: [criteria it scores]}, "rubrics": {task: [criteria]}}``.

Each evaluation becomes one judgments row per criterion. Records that fail CoEval's
validity checks are kept aside in ``Judgments.invalid`` with their class and excluded
from the table: ``MISSING_RESPONSE`` (the response it scores is not in the folder),
``MISSING_DATAPOINT`` (the response's datapoint is not), ``INCOMPLETE_SCORES`` (a
criterion its judge or the task's rubric requires is absent) and ``INVALID_SCORE_VALUE``
(a value off its criterion's scale).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from assay.data.lines import json_lines, json_object_file
from assay.data.schema import FailureKind, Scale, ValidityClass
from assay.data.table import INVALID_COLUMNS, Judgments
from assay.data.validate import judgments_from_records
from assay.errors import InputError, Problem, ValidationError

PARTS = ("datapoints", "responses", "evaluations")
NATIVE_SCORES_FILE = "native_scores.jsonl"
"""Per-response benchmark-native scores (``assay native-scores``): ``response_id``,
``metric``, ``reference_score``; a response's score replaces its datapoint's."""


def is_run_folder(path: Path) -> bool:
    return path.is_dir() and all(_part_files(path, part) for part in PARTS)


def _part_files(folder: Path, part: str) -> list[Path]:
    single = folder / f"{part}.jsonl"
    if single.is_file():
        return [single]
    sub = folder / part
    if sub.is_dir():
        return sorted(sub.glob("*.jsonl"))
    return []


def _read_jsonl_records(files: list[Path]) -> list[tuple[str, int, dict[str, Any]]]:
    records: list[tuple[str, int, dict[str, Any]]] = []
    problems: list[Problem] = []
    for file in files:
        for number, obj, why in json_lines(file):  # lines end at \n only (not at U+2028...)
            if why is not None:
                problems.append(Problem(str(file), number, None, why))
                continue
            if not isinstance(obj, dict):
                problems.append(Problem(str(file), number, None, "expected a JSON object"))
                continue
            records.append((str(file), number, obj))
    if problems:
        raise ValidationError(problems)
    return records


def read_part(folder: Path, part: str) -> list[tuple[str, int, dict[str, Any]]]:
    """The records of one part of a run folder (``datapoints``, ``responses``, ...) as
    (file, line, record); a folder without that part is an error naming it."""
    files = _part_files(Path(folder), part)
    if not files:
        raise InputError(str(folder), f"not a run folder: no {part}.jsonl")
    return _read_jsonl_records(files)


def _native_scores(folder: Path) -> dict[str, float | None]:
    """response id -> native score, from ``native_scores.jsonl`` when the folder has one."""
    path = folder / NATIVE_SCORES_FILE
    if not path.is_file():
        return {}
    out: dict[str, float | None] = {}
    for file, row, rec in _read_jsonl_records([path]):
        value = rec.get("reference_score")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise InputError(file, "expected a number or null", row=row, column="reference_score")
        out[_required("response_id", rec, file, row)] = None if value is None else float(value)
    return out


def native_scores_by_answer(folder: str | Path) -> dict[tuple[str, str], float | None]:
    """(datapoint id, arm) -> native score, from the folder's ``native_scores.jsonl`` (empty
    without one): how a run store's rows, keyed by item and arm, find their ground truth."""
    path = Path(folder) / NATIVE_SCORES_FILE
    if not path.is_file():
        return {}
    out: dict[tuple[str, str], float | None] = {}
    scores = _native_scores(Path(folder))
    for file, row, rec in _read_jsonl_records([path]):
        key = (_required("datapoint_id", rec, file, row), _required("arm", rec, file, row))
        out[key] = scores[_required("response_id", rec, file, row)]
    return out


def prompts_by_item(folder: str | Path) -> dict[str, str]:
    """Datapoint id -> its prompt, from the folder's datapoints (empty without them): how a
    run store's rows, which keep no question text, carry it into a table saved from them."""
    files = _part_files(Path(folder), "datapoints")
    return {str(rec["id"]): rec["prompt"] for _, _, rec in _read_jsonl_records(files)
            if rec.get("id") is not None and isinstance(rec.get("prompt"), str)}


def _read_criteria(folder: Path) -> tuple[dict[str, Scale], dict[str, list[str]], dict[str, list[str]]]:
    path = folder / "criteria.json"
    if not path.exists():
        return {}, {}, {}
    data = json_object_file(path, "expected a JSON object with 'criteria'")
    scales: dict[str, Scale] = {}
    for name, spec in (data.get("criteria") or {}).items():
        spelling = spec.get("scale") if isinstance(spec, dict) else spec
        try:
            scales[str(name)] = Scale.parse(str(spelling or "interval"))
        except ValueError as exc:
            raise InputError(str(path), str(exc), column=f"criteria.{name}.scale") from None
    judges = {str(k): [str(c) for c in v] for k, v in (data.get("judges") or {}).items()}
    rubrics = {str(k): [str(c) for c in v] for k, v in (data.get("rubrics") or {}).items()}
    return scales, judges, rubrics


def _required(field: str, record: dict[str, Any], file: str, row: int) -> str:
    value = record.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(file, "required field is missing", row=row, column=field)
    return str(value)


def load_run_folder(folder: str | Path, *, scales: Mapping[str, Scale] | None = None) -> Judgments:
    """Read a run folder into a :class:`Judgments`, invalid records kept aside."""
    folder = Path(folder)
    missing = [part for part in PARTS if not _part_files(folder, part)]
    if missing:
        raise InputError(str(folder), "not a run folder: no " + ", ".join(
            f"{m}.jsonl" for m in missing) + " (expected datapoints, responses and evaluations)")
    declared, judge_criteria, rubrics = _read_criteria(folder)
    declared.update(scales or {})

    datapoints: dict[str, dict[str, Any]] = {}
    for file, row, rec in _read_jsonl_records(_part_files(folder, "datapoints")):
        datapoints[_required("id", rec, file, row)] = rec
    responses: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for file, row, rec in _read_jsonl_records(_part_files(folder, "responses")):
        responses[_required("id", rec, file, row)] = (file, row, rec)
    native = _native_scores(folder)

    rows: list[dict[str, Any]] = []
    row_numbers: list[int] = []
    invalid: list[dict[str, Any]] = []

    def keep_aside(kind: ValidityClass, file: str, row: int, rec: dict[str, Any],
                   detail: str, response: dict[str, Any] | None = None) -> None:
        invalid.append({
            "validity_class": kind.value, "file": file, "row": row,
            "record_id": rec.get("id"), "response_id": rec.get("response_id"),
            "datapoint_id": (response or {}).get("datapoint_id"), "judge": rec.get("judge"),
            "arm": (response or {}).get("arm"), "detail": detail,
        })

    for file, row, ev in _read_jsonl_records(_part_files(folder, "evaluations")):
        response_id = _required("response_id", ev, file, row)
        judge = _required("judge", ev, file, row)
        found = responses.get(response_id)
        if found is None:
            keep_aside(ValidityClass.MISSING_RESPONSE, file, row, ev,
                       f"response {response_id!r} is not in the run folder")
            continue
        response = found[2]
        datapoint = datapoints.get(str(response.get("datapoint_id")))
        if datapoint is None:
            keep_aside(ValidityClass.MISSING_DATAPOINT, file, row, ev,
                       f"datapoint {response.get('datapoint_id')!r} of response "
                       f"{response_id!r} is not in the run folder", response)
            continue
        opponent_arm = opponent_text = None
        opponent_id = ev.get("opponent_response_id")
        if opponent_id is not None:
            opponent = responses.get(str(opponent_id))
            if opponent is None:
                keep_aside(ValidityClass.MISSING_RESPONSE, file, row, ev,
                           f"opponent response {opponent_id!r} is not in the run folder", response)
                continue
            opponent_arm = opponent[2].get("arm")
            opponent_text = opponent[2].get("text")
        scores = ev.get("scores") or {}
        if not isinstance(scores, dict):
            keep_aside(ValidityClass.INVALID_SCORE_VALUE, file, row, ev,
                       "scores is not an object of criterion: value", response)
            continue
        task = datapoint.get("task")
        # what this judge must score: its declared criteria, else the task's rubric
        required = judge_criteria.get(judge, rubrics.get(str(task), []))
        absent = sorted(c for c in required if c not in scores)
        failure = response.get("failure_kind") or ev.get("failure_kind")
        if absent and not failure:
            keep_aside(ValidityClass.INCOMPLETE_SCORES, file, row, ev,
                       f"no score for {', '.join(absent)}", response)
            continue
        bad = _invalid_scores(scores, declared)
        if bad:
            keep_aside(ValidityClass.INVALID_SCORE_VALUE, file, row, ev, bad, response)
            continue
        criteria = list(scores) or sorted(required)
        for criterion in criteria:
            value = scores.get(criterion)
            row_data = _row(datapoint, response, ev, judge, criterion, value, opponent_arm,
                            failure if value is None else response.get("failure_kind"))
            row_data["opponent_answer"] = _text_or_none(opponent_text)
            if str(response.get("id")) in native:
                row_data["reference_score"] = native[str(response.get("id"))]
            rows.append(row_data)
            row_numbers.append(row)

    if not rows:
        raise InputError(str(folder), "the run folder holds no valid evaluations")
    return judgments_from_records(
        rows, row_numbers, path=str(folder / "evaluations.jsonl"), sources=[str(folder)],
        scales=declared, invalid=pd.DataFrame(invalid, columns=list(INVALID_COLUMNS)))


def _invalid_scores(scores: dict[str, Any], scales: Mapping[str, Scale]) -> str:
    problems = []
    for criterion, value in scores.items():
        if value is None:
            continue
        scale = scales.get(criterion)
        if scale is None:
            # CoEval's rule when nothing is declared: High/Medium/Low or a float in [0, 1]
            scale = (Scale.parse("ordinal:Low,Medium,High") if isinstance(value, str)
                     and not _is_number(value) else Scale.parse("range:0,1"))
        try:
            scale.code(value)
        except ValueError as exc:
            problems.append(f"{criterion}: {exc}")
    return "; ".join(problems)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _row(datapoint: dict[str, Any], response: dict[str, Any], ev: dict[str, Any], judge: str,
         criterion: str, value: Any, opponent_arm: Any, failure: Any) -> dict[str, Any]:
    text = response.get("text")
    attributes = datapoint.get("attributes")
    return {
        "item": datapoint.get("id"),
        "cluster": datapoint.get("cluster") or datapoint.get("id"),
        "arm": response.get("arm"),
        "opponent": opponent_arm,
        "position": ev.get("position"),
        "run": response.get("run", 1),
        "judge": judge,
        "criterion": criterion,
        "score": value,
        "split": datapoint.get("split"),
        "failure_kind": failure if value is None else response.get("failure_kind"),
        "outcome": (hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
                    if isinstance(text, str) else response.get("failure_kind")
                    or FailureKind.MISSING_RESPONSE.value),
        "usd": response.get("usd"),
        "usd_provenance": response.get("usd_provenance"),
        "tokens_in": response.get("tokens_in"),
        "tokens_out": response.get("tokens_out"),
        "latency_s": response.get("latency_s"),
        "reference_score": datapoint.get("reference_score"),
        "task": datapoint.get("task"),
        "teacher": datapoint.get("teacher"),
        "attributes": json.dumps(attributes, sort_keys=True) if isinstance(attributes, dict) else None,
        "reasoning": ev.get("reasoning"),
        "evaluated_at": ev.get("evaluated_at"),
        "question": _text_or_none(datapoint.get("prompt")),
        "answer": text if isinstance(text, str) else None,
        "reference": _text_or_none(datapoint.get("reference")),
    }


def _text_or_none(value: Any) -> str | None:
    """A text field of a record as the table keeps it: a string, else (a list, a number) its
    JSON, None when absent."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
