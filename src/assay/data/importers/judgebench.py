"""Import JudgeBench output files: a judge's verdicts on response pairs with a gold label.

``run_judge.py`` writes ``outputs/dataset=...,response_model=...,judge_name=NAME,
judge_model=MODEL.jsonl``, one pair per line::

    {"pair_id", "original_id", "source", "question", "response_model", "response_A",
     "response_B", "label": "A>B" | "B>A",
     "judgments": [{"judgment": {...}, "decision": "A>B"}, {"decision": "B>A", ...}]}

The second judgment (when the judge ran both orders) saw the responses swapped, so its
decision is read flipped. The system evaluated is the judge: ``arm`` = ``NAME:MODEL`` from
the file name (``judge_name``/``judge_model`` fields of the records when present), ``judge``
= ``label`` (correctness is read off the gold label), ``item`` = ``cluster`` = pair_id,
``task`` = source. Two criteria, both ``binary``:

``correct``
    One row per game (``run`` 1 = the original order, 2 = swapped): 1 when the game's
    decision (flipped for game 2) is the label; a game without a decision is a failed
    judgment (``parse_error``).
``pair_correct``
    One row per pair, JudgeBench's metric: each game's decision counts +1 when it is the
    label and -1 when it is the opposite; the pair is correct when the sum is positive, so
    inconsistent verdicts (one right, one wrong) count as wrong. Its mean x 100 is the
    ``Overall`` accuracy ``run_judge.py`` prints.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import (
    RecordFields,
    build,
    is_id,
    is_text,
    jsonl_rows,
    require,
    source_files,
)
from assay.data.schema import FailureKind, Scale
from assay.data.table import Judgments
from assay.errors import Problem

GAME, PAIR = "correct", "pair_correct"
JUDGE = "label"
LAYOUT = "JudgeBench's outputs/dataset=...,judge_name=...,judge_model=....jsonl"
_LABELS = ("A>B", "B>A")
_NAME = re.compile(r"judge_name=(?P<name>[^,]+),judge_model=(?P<model>.+)$")


def flip(decision: object) -> object:
    """A decision read from the other order: ``A>B`` <-> ``B>A``; anything else unchanged."""
    return {"A>B": "B>A", "B>A": "A>B"}.get(decision, decision)  # type: ignore[call-overload]


def looks_like_judgebench(first: Mapping[str, Any]) -> bool:
    """Whether a JSONL file's first record is a judged JudgeBench pair."""
    return {"pair_id", "label", "judgments"} <= first.keys()


def import_judgebench(sources: Sequence[str | Path], *,
                      scales: Mapping[str, Scale] | None = None,
                      duplicates: str = "error",
                      fields: RecordFields | None = None) -> Judgments:
    """Read JudgeBench output files into per-game and per-pair correctness rows."""
    files = source_files(sources, "*.jsonl", LAYOUT)
    problems: list[Problem] = []
    rows, numbers = jsonl_rows(files, _rows, problems, fields)
    binary = Scale.parse("binary")
    return build(rows, numbers, problems, files, {GAME: binary, PAIR: binary, **(scales or {})},
                 duplicates=duplicates)


def _judgments(value: object) -> bool:
    return isinstance(value, list) and 1 <= len(value) <= 2


def judge_of(file: Path) -> str:
    """``NAME:MODEL`` of a JudgeBench output file's name, else the name itself.

    >>> judge_of(Path("dataset=judgebench,judge_name=arena_hard,judge_model=gpt-4o.jsonl"))
    'arena_hard:gpt-4o'
    """
    match = _NAME.search(file.stem)
    return f"{match.group('name')}:{match.group('model')}" if match else file.stem


def _rows(rec: dict[str, Any], file: Path, number: int,
          problems: list[Problem]) -> list[dict[str, Any]]:
    if not require(rec, {"pair_id": is_id, "label": lambda v: v in _LABELS,
                         "judgments": _judgments}, file, number, problems):
        return []
    arm = judge_of(file)
    if is_text(rec.get("judge_name")) and is_text(rec.get("judge_model")):
        arm = f"{rec['judge_name']}:{rec['judge_model']}"
    label = rec["label"]
    base = {"item": str(rec["pair_id"]), "cluster": str(rec["pair_id"]), "arm": arm,
            "judge": JUDGE, "task": rec.get("source") if is_text(rec.get("source")) else None}
    rows = []
    counter = 0
    for game, judgment in enumerate(rec["judgments"], start=1):
        decision = judgment.get("decision") if isinstance(judgment, dict) else None
        if decision is not None and not isinstance(decision, str):
            problems.append(Problem(str(file), number, f"judgments[{game - 1}].decision",
                                    f"expected a verdict such as A>B, got {decision!r}"))
            return []
        read = flip(decision) if game == 2 else decision
        counter += 1 if read == label else -1 if read == flip(label) else 0
        rows.append({**base, "run": game, "criterion": GAME,
                     "score": None if decision is None else float(read == label),
                     "failure_kind": FailureKind.PARSE_ERROR.value if decision is None else None})
    rows.append({**base, "run": 1, "criterion": PAIR, "score": float(counter > 0)})
    return rows
