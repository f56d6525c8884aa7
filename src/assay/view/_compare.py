"""The compare view: one question, every system's answer and scores side by side.

:func:`compare_item` arranges one item's rows (the viewer's list columns) and what each
judged (:func:`assay.view._detail.table_judged` or ``store_judged``) into the question, the
reference, and per system its answer and its verdicts in one run: the answers of a run are
those one system gave once, so runs are shown one at a time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.view._detail import verdict_words


def compare_item(item: str, rows: Sequence[dict[str, Any]], judged: Sequence[dict[str, Any]],
                 run: int | None = None) -> dict[str, Any]:
    """The compare view of ``item``: ``question`` and ``reference`` (the first row that has
    them), the ``runs`` judged and the one shown (``run``, else the first), and per system
    (``systems``, by name) its ``answer`` in that run (from its own rows, else from a pairwise
    row that showed it) and its ``scores``: each row's judge, criterion, opponent, score and
    verdict in words, with the row's id to open it.

    >>> rows = [{"id": 1, "item": "q", "arm": "b", "opponent": None, "judge": "j",
    ...          "criterion": "c", "score": 7.0, "failure_kind": None, "position": None, "run": 1},
    ...         {"id": 2, "item": "q", "arm": "a", "opponent": "b", "judge": "p",
    ...          "criterion": "c", "score": 1.0, "failure_kind": None, "position": 1, "run": 1}]
    >>> judged = [{"question": "Q?", "reference": None, "answers": [
    ...               {"arm": "b", "text": "B", "scored": True}]},
    ...           {"question": "Q?", "reference": None, "answers": [
    ...               {"arm": "a", "text": "A", "scored": True},
    ...               {"arm": "b", "text": "B", "scored": False}]}]
    >>> view = compare_item("q", rows, judged)
    >>> [(s["arm"], s["answer"], [x["verdict"] for x in s["scores"]]) for s in view["systems"]]
    [('a', 'A', ['win (score 1)']), ('b', 'B', ['score 7'])]
    """
    runs = sorted({_run(row) for row in rows})
    chosen = run if run in runs else runs[0]
    question = next((j["question"] for j in judged if j.get("question") is not None), None)
    reference = next((j["reference"] for j in judged if j.get("reference") is not None), None)
    answers: dict[str, str] = {}
    seen: dict[str, str] = {}
    scores: dict[str, list[dict[str, Any]]] = {}
    for row, what in zip(rows, judged, strict=True):
        if _run(row) != chosen:
            continue
        for answer in what.get("answers") or []:
            text = answer.get("text")
            if text is None or answer.get("arm") is None:
                continue
            target = answers if answer.get("scored") else seen
            target.setdefault(str(answer["arm"]), str(text))
        scores.setdefault(str(row["arm"]), []).append({
            "id": row["id"], "judge": row["judge"], "criterion": row["criterion"],
            "opponent": row["opponent"], "position": row["position"], "score": row["score"],
            "failure_kind": row["failure_kind"],
            "verdict": verdict_words(row["score"], row["failure_kind"], row["opponent"])})
    arms = sorted(set(scores) | set(answers) | set(seen))
    systems = [{"arm": arm, "answer": answers.get(arm, seen.get(arm)),
                "scores": sorted(scores.get(arm, []), key=lambda s: (
                    s["opponent"] is not None, str(s["criterion"]), str(s["judge"]),
                    str(s["opponent"]), s["id"]))}
               for arm in arms]
    return {"item": item, "question": question, "reference": reference, "runs": runs,
            "run": chosen, "systems": systems}


def _run(row: dict[str, Any]) -> int:
    return 1 if row.get("run") is None else int(row["run"])
