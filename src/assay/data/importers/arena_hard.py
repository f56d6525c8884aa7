"""Import Arena-Hard-Auto judgments: ``data/<bench>/model_judgment/<judge>/<model>.jsonl``.

One record per question, with two games, the second with the answers' positions
swapped. Two layouts are read: v2 (the 2025-04 rewrite)::

    {"uid", "category", "judge", "model", "baseline",
     "games": [{"score": "A>B", "judgment", "user_prompt"}, {"score": "B>>A", ...}]}

and v0.1 (2024-03 to 2025-04, still shipped by forks), which names the question
``question_id`` and no baseline (the run's ``config/judge_config.yaml`` ``baseline_model``,
``gpt-4-0314`` by default): ``{"question_id", "model", "judge", "games"}``. A v0.1 file is read
with the baseline given, ``--set baseline=NAME``; a file of neither layout is refused,
naming the fields expected.

In game 1 the baseline is assistant A and the model B; in game 2 the model is A. Each game
becomes one pairwise row of criterion ``preference`` on ``range:0,1``: ``arm`` = model,
``opponent`` = baseline, ``item`` = ``cluster`` = uid, ``task`` = category, ``judge``,
``position`` (where the model was shown: 2 in game 1, 1 in game 2), score 1 / 0.5 / 0 when
the model won / tied / lost the game, and ``weight`` 3 for a strong verdict (``A>>B``,
``B>>A``, and their spellings ``A<<B``, ``B<<A``), 1 otherwise: Arena-Hard's
``show_result.py`` counts a strong verdict three times (``load_judgments(weight=3)``), and
the weighted mean of the rows, which ``assay report --kind scores`` gives, is its score.

A game without a verdict (``null``, or a game missing) is a failed judgment
(``parse_error``) and the other game of the question still counts with its own weight:
the score is the per-game weighted mean sum(w s) / sum(w) over every game with a verdict,
as Arena-Hard v0.1's ``show_result.py`` counts it (a game without a verdict has weight 0).
Arena-Hard v2 drops the whole question instead (its "null judgments"), so with failures
its figure differs by that question's other game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import (
    RecordFields,
    build,
    first_object,
    is_text,
    jsonl_rows,
    require,
    source_files,
)
from assay.data.schema import FailureKind, Scale
from assay.data.table import Judgments
from assay.errors import InputError, Problem

CRITERION = "preference"
STRONG = 3.0
"""How many times Arena-Hard counts a strong verdict (``show_result.py``'s ``weight``)."""
LAYOUT = "Arena-Hard-Auto's data/<bench>/model_judgment/<judge>/<model>.jsonl"
_A_WINS = {"A>B": (1.0, 1.0), "A>>B": (1.0, STRONG), "B<A": (1.0, 1.0), "B<<A": (1.0, STRONG)}
_B_WINS = {"B>A": (0.0, 1.0), "B>>A": (0.0, STRONG), "A<B": (0.0, 1.0), "A<<B": (0.0, STRONG)}
VERDICTS: dict[str, tuple[float, float]] = {**_A_WINS, **_B_WINS, "A=B": (0.5, 1.0),
                                            "B=A": (0.5, 1.0)}
"""Verdict -> (score of assistant A, weight)."""


VERSIONS = ("v0.1 (question_id, model, judge, games; 2024-03 to 2025-04) and v2 (uid, "
            "category, judge, model, baseline, games; since 2025-04)")
"""The layouts read, for the messages."""


def layout(first: Mapping[str, Any]) -> str | None:
    """``v2`` or ``v0.1`` by a record's fields, None when it is neither."""
    if not ({"model", "games"} <= first.keys() and isinstance(first.get("games"), list)):
        return None
    return "v2" if "uid" in first else "v0.1" if "question_id" in first else None


def looks_like_arena_hard(first: Mapping[str, Any]) -> bool:
    """Whether a JSONL file's first record is an Arena-Hard judgment (either layout)."""
    return layout(first) is not None


def _check_layout(file: Path, fields: RecordFields) -> None:
    """Refuse a file of neither layout, or of v0.1 without a baseline given, at its first line."""
    first = first_object(file)
    if first is None:
        return  # jsonl_rows reports what is wrong with the lines
    first = fields.apply(first, set())
    found = layout(first)
    if found is None:
        raise InputError(str(file), "not an Arena-Hard-Auto judgment: expected 'uid' (or "
                         "'question_id'), 'model' and a list 'games' in each record; the "
                         f"layouts read are {VERSIONS}", row=1)
    if found == "v0.1" and not is_text(first.get("baseline")):
        raise InputError(str(file), "Arena-Hard v0.1 layout (question_id, no baseline): the "
                         "records do not name the model the judged model was compared with; "
                         "give it with --set baseline=NAME (the run's config/judge_config.yaml "
                         "baseline_model, gpt-4-0314 by default)", row=1, column="baseline")


def import_arena_hard(sources: Sequence[str | Path], *,
                      scales: Mapping[str, Scale] | None = None,
                      duplicates: str = "error",
                      fields: RecordFields | None = None) -> Judgments:
    """Read Arena-Hard-Auto judgment files into a pairwise table with weights."""
    files = source_files(sources, "*.jsonl", LAYOUT)
    for file in files:
        _check_layout(file, fields or RecordFields())
    problems: list[Problem] = []
    rows, numbers = jsonl_rows(files, _rows, problems, fields)
    return build(rows, numbers, problems, files,
                 {CRITERION: Scale.parse("range:0,1"), **(scales or {})},
                 duplicates=duplicates)


def _games(value: object) -> bool:
    return isinstance(value, list) and 1 <= len(value) <= 2


def _rows(rec: dict[str, Any], file: Path, number: int,
          problems: list[Problem]) -> list[dict[str, Any]]:
    key = "uid" if "uid" in rec or "question_id" not in rec else "question_id"
    if not require(rec, {key: is_text, "model": is_text, "games": _games}, file, number,
                   problems):
        return []
    baseline = rec.get("baseline")
    if not is_text(baseline):
        problems.append(Problem(str(file), number, "baseline", "required text field is missing "
                                "(the model the judged model was compared with)"))
        return []
    judge = rec.get("judge")
    base = {"item": rec[key], "cluster": rec[key], "arm": rec["model"].split("/")[-1],
            "opponent": baseline, "run": 1, "criterion": CRITERION,
            "judge": judge if isinstance(judge, str) else None,
            "task": rec.get("category") if isinstance(rec.get("category"), str) else None}
    games = list(rec["games"]) + [None] * (2 - len(rec["games"]))
    rows = []
    for index, (game, position) in enumerate(zip(games, (2, 1), strict=True)):
        verdict = game.get("score") if isinstance(game, dict) else None
        judgment = game.get("judgment") if isinstance(game, dict) else None
        raw = judgment if isinstance(judgment, str) else None
        if verdict is None:
            rows.append({**base, "position": position, "score": None, "weight": 1.0,
                         "failure_kind": FailureKind.PARSE_ERROR.value, "raw_response": raw})
            continue
        if verdict not in VERDICTS:
            problems.append(Problem(str(file), number, f"games[{index}].score",
                                    f"expected one of {', '.join(VERDICTS)} or null, got "
                                    f"{verdict!r}"))
            continue
        a_score, weight = VERDICTS[verdict]
        score = a_score if position == 1 else 1.0 - a_score
        rows.append({**base, "position": position, "score": score, "weight": weight,
                     "raw_response": raw})
    return rows
