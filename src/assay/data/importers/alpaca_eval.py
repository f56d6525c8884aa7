"""Import AlpacaEval annotations: ``results/<model>/<annotator>/annotations.json``.

One pairwise row per record: ``arm`` = the model evaluated, named as AlpacaEval's leaderboard
names it: the results folder ``<model>`` of ``results/<model>/<annotator>/annotations.json``
(AlpacaEval writes a model's annotations under its leaderboard name; ``generator_2`` can
differ, e.g. ``example`` for ``NullModel``), or ``generator_2`` when the file is not in a
folder named after its annotator; ``opponent`` = generator_1 (the baseline), ``judge`` =
annotator, ``task`` = dataset,
``item`` = a stable id of the instruction (the first 12 hex digits of its SHA-256),
``cluster`` = item, ``criterion`` = ``preference``, ``score`` = preference - 1 on the
scale ``range:0,1`` (1 = the model preferred, 0 = the baseline, 0.5 = a draw; the
weighted annotators give a probability). AlpacaEval's older files code a draw as
preference 0; it is read as 0.5, which reproduces the published leaderboards. A null
preference (the judge failed) becomes a row with no score and
``failure_kind = "missing_judgment"``.

Lengths: ``answer_length`` = the characters of ``output_2`` and ``opponent_length`` those of
``output_1``, as AlpacaEval's length-controlled GLM counts them. With a difficulty file in
AlpacaEval's format (``instruction_difficulty.csv``: the instruction's index, its place in the
annotations file from 0, and a column ``instruction_difficulty``; ``df_gamed.csv``, which has
an ``index`` column, is read too), ``difficulty`` = the difficulty at the record's index.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import RecordFields, source_files
from assay.data.lines import json_file
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


def read_difficulty(path: str | Path) -> dict[int, float]:
    """AlpacaEval's instruction difficulty file: instruction index -> difficulty."""
    import csv

    try:
        with Path(path).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot read the difficulty file ({exc})") from None
    if not rows or "instruction_difficulty" not in rows[0]:
        raise InputError(str(path), "expected a CSV with an instruction_difficulty column "
                         "(AlpacaEval's instruction_difficulty.csv)")
    header = rows[0]
    key = header.index("index") if "index" in header else 0
    value = header.index("instruction_difficulty")
    out: dict[int, float] = {}
    for number, row in enumerate(rows[1:], start=2):
        try:
            index, difficulty = int(row[key]), float(row[value])
        except (ValueError, IndexError):
            raise InputError(str(path), "expected an instruction index and a number",
                             row=number, column=header[value]) from None
        if not math.isfinite(difficulty):
            raise InputError(str(path), "expected a finite number", row=number,
                             column=header[value])
        out.setdefault(index, difficulty)
    return out


def _arm(file: Path, rec: Mapping[str, Any]) -> str:
    """The leaderboard's name of the model: the results folder, when the layout is AlpacaEval's."""
    if file.parent.name == rec["annotator"] and file.parent.parent.name:
        return file.parent.parent.name
    return str(rec["generator_2"])


def _length(text: object) -> float | None:
    return float(len(text)) if isinstance(text, str) else None


def import_alpaca_eval(sources: str | Path | Sequence[str | Path], *,
                       scales: Mapping[str, Scale] | None = None,
                       duplicates: str = "error",
                       difficulty: str | Path | None = None,
                       fields: RecordFields | None = None) -> Judgments:
    """Read AlpacaEval annotation files into a pairwise judgments table.

    `difficulty`: AlpacaEval's instruction difficulty file (``--lc-difficulty``), for its
    length-controlled GLM. `fields` (``--map``, ``--set``) apply to each annotation first.
    """
    if isinstance(sources, str | Path):
        sources = [sources]
    difficulties = read_difficulty(difficulty) if difficulty is not None else None
    rows: list[dict[str, Any]] = []
    row_numbers: list[int] = []
    problems: list[Problem] = []
    fields = fields or RecordFields()
    seen: set[str] = set()
    for file in annotation_files(sources):
        records = _read_list(file)
        for number, rec in enumerate(records, start=1):
            if not isinstance(rec, dict):
                problems.append(Problem(str(file), number, None, "expected a JSON object"))
                continue
            rec = fields.apply(rec, seen)
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
            extra: dict[str, Any] = {}
            if difficulties is not None:
                if number - 1 not in difficulties:
                    problems.append(Problem(str(file), number, "instruction_difficulty",
                                            f"no difficulty for instruction index {number - 1} "
                                            f"in {difficulty}"))
                    continue
                extra["difficulty"] = difficulties[number - 1]
            rows.append({
                "item": item, "cluster": item, "arm": _arm(file, rec),
                "opponent": rec["generator_1"], "run": 1, "judge": rec["annotator"],
                "criterion": CRITERION, "score": score, "failure_kind": failure,
                "task": rec.get("dataset"),
                "outcome": _digest(rec.get("output_2")),
                "answer_length": _length(rec.get("output_2")),
                "opponent_length": _length(rec.get("output_1")), **extra,
                "raw_response": raw if isinstance(raw, str) or raw is None
                else json.dumps(raw, sort_keys=True),
            })
            row_numbers.append(number)
    problems += fields.unused(seen, ", ".join(map(str, sources)))
    if problems:
        raise ValidationError(problems)
    if not rows:
        raise InputError(", ".join(map(str, sources)), "no annotations found")
    return judgments_from_records(
        rows, row_numbers, path=", ".join(map(str, sources)), sources=[str(s) for s in sources],
        scales={CRITERION: Scale.parse("range:0,1"), **(scales or {})}, duplicates=duplicates)


def _read_list(file: Path) -> list[Any]:
    data = json_file(file)
    if not isinstance(data, list):
        raise InputError(str(file), "expected a JSON list of annotations")
    return data


def _digest(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
