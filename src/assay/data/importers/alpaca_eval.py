"""Import AlpacaEval annotations: ``results/<model>/<annotator>/annotations.json``.

One pairwise row per record: ``arm`` = generator_2 (the model evaluated),
``opponent`` = generator_1 (the baseline), ``judge`` = annotator, ``task`` = dataset,
``item`` = a stable id of the instruction (the first 12 hex digits of its SHA-256),
``cluster`` = item, ``criterion`` = ``preference``, ``score`` = preference - 1 on the
scale ``range:0,1`` (1 = the model preferred, 0 = the baseline, 0.5 = a draw; the
weighted annotators give a probability). AlpacaEval's older files code a draw as
preference 0; it is read as 0.5, which reproduces the published leaderboards. A null
preference (the judge failed) becomes a row with no score and
``failure_kind = "missing_judgment"``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import source_files
from assay.data.schema import FailureKind, Scale
from assay.data.table import Judgments
from assay.data.validate import judgments_from_records
from assay.errors import InputError, Problem, ValidationError

CRITERION = "preference"


def instruction_id(instruction: str) -> str:
    """A stable id of an instruction's text.

    >>> instruction_id("Say hi.")
    'i-e276e57b8ac9'
    """
    return "i-" + hashlib.sha256(instruction.encode("utf-8")).hexdigest()[:12]


def annotation_files(sources: str | Path | Sequence[str | Path]) -> list[Path]:
    """Every ``annotations.json`` under the given file or folder (or files and folders), sorted.

    One path may be given as it is: a string is never read as a sequence of one-letter paths.
    """
    return source_files(sources, "annotations.json",
                        "results/<model>/<annotator>/annotations.json")


def import_alpaca_eval(sources: str | Path | Sequence[str | Path], *,
                       scales: Mapping[str, Scale] | None = None,
                       duplicates: str = "error") -> Judgments:
    """Read AlpacaEval annotation files into a pairwise judgments table."""
    if isinstance(sources, str | Path):
        sources = [sources]
    rows: list[dict[str, Any]] = []
    row_numbers: list[int] = []
    problems: list[Problem] = []
    for file in annotation_files(sources):
        records = _read_list(file)
        for number, rec in enumerate(records, start=1):
            if not isinstance(rec, dict):
                problems.append(Problem(str(file), number, None, "expected a JSON object"))
                continue
            missing = [k for k in ("instruction", "generator_1", "generator_2", "annotator")
                       if not isinstance(rec.get(k), str)]
            if missing:
                problems.extend(Problem(str(file), number, k, "required text field is missing")
                                for k in missing)
                continue
            preference = rec.get("preference")
            if preference is not None and not isinstance(preference, (int, float)):
                problems.append(Problem(str(file), number, "preference",
                                        f"expected a number or null, got {preference!r}"))
                continue
            if preference is None:
                score, failure = None, FailureKind.MISSING_JUDGMENT.value
            else:
                score = 0.5 if preference == 0 else float(preference) - 1.0
                failure = None
            raw = rec.get("raw_completion")
            item = instruction_id(rec["instruction"])
            rows.append({
                "item": item, "cluster": item, "arm": rec["generator_2"],
                "opponent": rec["generator_1"], "run": 1, "judge": rec["annotator"],
                "criterion": CRITERION, "score": score, "failure_kind": failure,
                "task": rec.get("dataset"),
                "outcome": _digest(rec.get("output_2")),
                "raw_response": raw if isinstance(raw, str) or raw is None
                else json.dumps(raw, sort_keys=True),
            })
            row_numbers.append(number)
    if problems:
        raise ValidationError(problems)
    if not rows:
        raise InputError(", ".join(map(str, sources)), "no annotations found")
    return judgments_from_records(
        rows, row_numbers, path=", ".join(map(str, sources)), sources=[str(s) for s in sources],
        scales={CRITERION: Scale.parse("range:0,1"), **(scales or {})}, duplicates=duplicates)


def _read_list(file: Path) -> list[Any]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(str(file), "is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(str(file), f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(data, list):
        raise InputError(str(file), "expected a JSON list of annotations")
    return data


def _digest(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
