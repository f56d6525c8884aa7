"""Import FastChat ``llm_judge`` (MT-Bench) judgments: ``*_single.jsonl`` and ``*_pair.jsonl``.

Single-answer grading, one record per (question, turn, model)::

    {"question_id", "model", "judge": [JUDGE_MODEL, PROMPT_NAME], "judgment", "score",
     "turn", "tstamp"}

becomes one row: ``item`` = ``{question_id}/turn{turn}``, ``cluster`` = question_id (the
two turns of a question are not independent), ``arm`` = model, ``judge`` = the judge
model, ``metric_version`` = the prompt name, ``criterion`` = ``rating`` on the scale
``interval`` (the rating as the judge gave it, 1-10 by the prompt, so that means print
unchanged), ``attributes`` = ``{"turn": T}``, ``raw_response`` = judgment. A score of -1
is FastChat's mark of a judge reply it could not parse: a failed judgment
(``failure_kind = "parse_error"``), not a score, as ``show_result.py`` drops it.

Pairwise, one record per (question, turn, model_1, model_2) holding two games, the
second with the answers' positions swapped (``g2_winner`` already names the model)::

    {"question_id", "model_1", "model_2", "g1_winner", "g2_winner", "judge", "g1_judgment",
     "g2_judgment", "turn", "tstamp"}

becomes two rows of criterion ``preference`` (``arm`` = model_1, ``opponent`` = model_2,
``position`` 1 for game 1 and 2 for game 2, score 1 / 0.5 / 0 for a win / tie / loss of
model_1, ``error`` a ``parse_error``) and one row of criterion ``preference_both_orders``
without a position: FastChat's own reading, a win only when both games agree, anything
else a tie (failed when either game is an error), whose mean is ``show_result.py``'s
``win_rate_adjusted``.

A ``question.jsonl`` among the sources (records with ``question_id``, ``category``,
``turns``) gives each item its ``task`` = category.

Layouts. Every record ``gen_judgment.py`` has written, from ``llm_judge``'s first release
(FastChat b494d0c6, 2023-06-16) to 0e6d3e4 (2025-04), carries ``turn``. One code path of
``common.play_a_match_pair`` writes a pairwise record without it: a judge prompt of type
``single`` in pairwise mode, which rates each answer alone and writes ``m1_score``,
``m2_score`` and one winner in both ``g1_winner`` and ``g2_winner``. ``show_result.py``'s
pairwise modes do not read ``turn``, so a pairwise record without it is read: its item is
the question alone (no ``/turn``), and a record with ``m1_score`` gives only the
``preference_both_orders`` row (its two "games" are one comparison, not two orders). A
single-answer record without ``turn`` is refused: ``show_result.py --mode single`` cannot
read it either (it selects the ``turn`` column); ``--set turn=1`` reads a first-turn file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import (
    RecordFields,
    build,
    first_line_problem,
    first_object,
    is_id,
    is_number,
    is_text,
    jsonl_objects,
    jsonl_rows,
    require,
    source_files,
    timestamp,
)
from assay.data.schema import FailureKind, Scale
from assay.data.table import Judgments
from assay.errors import InputError, Problem, ValidationError

RATING = "rating"
PREFERENCE = "preference"
BOTH_ORDERS = "preference_both_orders"
UNPARSED = -1
LAYOUT = "FastChat's data/mt_bench/model_judgment/*_single.jsonl or *_pair.jsonl"
_WINNERS = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}
READING = ("as FastChat's show_result.py reads an appended re-run: its means count every "
           "scored record once")


def file_kind(path: Path) -> str | None:
    """``single``, ``pair`` or ``questions`` by the fields of a file's first record."""
    first = first_object(path)
    if first is None:
        return None
    if {"question_id", "model", "score"} <= first.keys() and ("turn" in first or "judge" in first):
        return "single"  # a record without turn is refused by the reader, naming the field
    if {"question_id", "model_1", "model_2", "g1_winner", "g2_winner"} <= first.keys():
        return "pair"
    if {"question_id", "turns"} <= first.keys():
        return "questions"
    return None


def import_mt_bench(sources: Sequence[str | Path], *,
                    scales: Mapping[str, Scale] | None = None,
                    duplicates: str = "mean",
                    fields: RecordFields | None = None) -> Judgments:
    """Read MT-Bench judgment files (and optionally ``question.jsonl``) into one table."""
    files = source_files(sources, "*.jsonl", LAYOUT)
    kinds = {f: file_kind(f) for f in files}
    for file, kind in kinds.items():
        if kind is None:
            problem = first_line_problem(file)
            if problem is not None:
                raise ValidationError([problem])
            raise InputError(str(file), "not an MT-Bench file: expected single judgments "
                             "(question_id, model, score, turn), pairwise judgments (question_id, "
                             "model_1, model_2, g1_winner, g2_winner) or questions "
                             "(question_id, category, turns)", row=1)
    problems: list[Problem] = []
    categories: dict[str, str] = {}
    for file in (f for f, k in kinds.items() if k == "questions"):
        for number, rec in jsonl_objects(file, problems):
            if require(rec, {"question_id": is_id}, file, number, problems) and \
                    isinstance(rec.get("category"), str):
                categories[str(rec["question_id"])] = rec["category"]
    judgments = [f for f, k in kinds.items() if k in ("single", "pair")]
    if not judgments:
        raise InputError(", ".join(map(str, files)), f"no judgment file found (expected {LAYOUT})")

    def read(rec: dict[str, Any], file: Path, number: int,
             problems: list[Problem]) -> list[dict[str, Any]]:
        make = _single if kinds[file] == "single" else _pair
        return make(rec, file, number, problems, categories)

    rows, numbers = jsonl_rows(judgments, read, problems, fields)
    declared = {RATING: Scale.parse("interval"), PREFERENCE: Scale.parse("range:0,1"),
                BOTH_ORDERS: Scale.parse("range:0,1")}
    return build(rows, numbers, problems, files, {**declared, **(scales or {})},
                 duplicates=duplicates, reading=READING)


def _common(rec: dict[str, Any], categories: Mapping[str, str]) -> dict[str, Any]:
    judge = rec.get("judge")
    model, prompt = (judge[0], judge[1]) if isinstance(judge, list) and len(judge) == 2 \
        else (judge, None)
    question = str(rec["question_id"])
    turn = rec.get("turn")
    return {"item": question if turn is None else f"{question}/turn{turn}",
            "cluster": question, "run": 1,
            "judge": model if isinstance(model, str) else None,
            "metric_version": prompt if isinstance(prompt, str) else None,
            "task": categories.get(question),
            "attributes": None if turn is None else json.dumps({"turn": turn}),
            "evaluated_at": timestamp(rec.get("tstamp"))}


_NO_TURN = ("required field is missing: every single-answer record FastChat's gen_judgment.py "
            "writes has it (llm_judge b494d0c6, 2023-06, to 0e6d3e4, 2025-04) and show_result.py "
            "--mode single needs it; --set turn=1 reads a first-turn file")


def _is_turn(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _single(rec: dict[str, Any], file: Path, number: int, problems: list[Problem],
            categories: Mapping[str, str]) -> list[dict[str, Any]]:
    if "turn" not in rec:
        problems.append(Problem(str(file), number, "turn", _NO_TURN))
        return []
    if not require(rec, {"question_id": is_id, "model": is_text, "score": is_number,
                         "turn": _is_turn}, file, number, problems):
        return []
    failed = rec["score"] == UNPARSED
    judgment = rec.get("judgment")
    return [{**_common(rec, categories), "arm": rec["model"], "criterion": RATING,
             "score": None if failed else rec["score"],
             "failure_kind": FailureKind.PARSE_ERROR.value if failed else None,
             "raw_response": judgment if isinstance(judgment, str) else None}]


def _pair(rec: dict[str, Any], file: Path, number: int, problems: list[Problem],
          categories: Mapping[str, str]) -> list[dict[str, Any]]:
    winner = lambda v: v in _WINNERS or v == "error"  # noqa: E731
    checks = {"question_id": is_id, "model_1": is_text, "model_2": is_text,
              "g1_winner": winner, "g2_winner": winner}
    if "turn" in rec:  # absent only from a single-type judge's pairwise records
        checks["turn"] = _is_turn
    if not require(rec, checks, file, number, problems):
        return []
    base = {**_common(rec, categories), "arm": rec["model_1"], "opponent": rec["model_2"]}
    rows = []
    one_comparison = "m1_score" in rec  # a single-type judge: no game in each order
    for game, position in () if one_comparison else (("g1", 1), ("g2", 2)):
        verdict = rec[f"{game}_winner"]
        judgment = rec.get(f"{game}_judgment")
        rows.append({**base, "position": position, "criterion": PREFERENCE,
                     "score": _WINNERS.get(verdict),
                     "failure_kind": FailureKind.PARSE_ERROR.value if verdict == "error" else None,
                     "raw_response": judgment if isinstance(judgment, str) else None})
    g1, g2 = rec["g1_winner"], rec["g2_winner"]
    error = "error" in (g1, g2)
    both = None if error else (_WINNERS[g1] if g1 == g2 else 0.5)
    rows.append({**base, "criterion": BOTH_ORDERS, "score": both,
                 "failure_kind": FailureKind.PARSE_ERROR.value if error else None})
    return rows
