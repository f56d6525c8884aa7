"""A small dataset in the seed's (BenchmarkQED AutoE) input formats, written by the tests.

Layout (as ``shared/bench/qed/make_dataset.py`` writes it, smaller):

* ``answers/<method>/<question_set>.json``: ``[{question_id, question_text, answer}]``;
  ``answers/reference/...`` the gold answers;
* ``assertions/<question_set>_assertions.json``: ``[{question_id, question_text,
  assertions: [{statement, rank, supporting_assertions?: [{id, statement}]}]}]``
  (supporting assertions for ``data_global`` only);
* ``retrieval/<method>/<question_set>.json``: ``[{question_id, text, context:
  [{chunk_id, text, rank}]}]``.
"""

from __future__ import annotations

import json
from pathlib import Path

METHODS = ("vector_rag", "graph_rag")
QUESTION_SETS = ("data_local", "data_global")
N_QUESTIONS = 4
N_ASSERTIONS = 2
N_CHUNKS = 4
TOPICS = ("urban flooding", "battery recycling", "heat waves", "grid storage")
FACTS = (
    "costs fell by roughly a third over five years",
    "regional agencies coordinated the response",
    "pilot programs reported mixed outcomes",
    "funding was tied to measurable milestones",
    "private investment doubled after the policy change",
)


def _answer(topic: str, n: int, shift: int) -> str:
    return " ".join(f"Regarding {topic}, {FACTS[(shift + k) % len(FACTS)]}." for k in range(n))


def write_dataset(root: Path) -> Path:
    """Write the dataset under ``root``; return ``root``."""
    for qs_index, qs in enumerate(QUESTION_SETS):
        questions = [(f"{qs}-{i:03d}", f"What does the corpus say about {TOPICS[i]}? ({qs})", TOPICS[i])
                     for i in range(N_QUESTIONS)]
        for m_index, method in enumerate((*METHODS, "reference")):
            n = {"vector_rag": 2, "graph_rag": 3, "reference": 4}[method]
            rows = [{"question_id": qid, "question_text": text, "answer": _answer(topic, n, i + m_index)}
                    for i, (qid, text, topic) in enumerate(questions)]
            folder = root / "answers" / method
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{qs}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
        records = []
        for i, (qid, text, topic) in enumerate(questions):
            items = []
            for r in range(N_ASSERTIONS):
                item = {"statement": f"The response states that for {topic}, {FACTS[(i + r) % len(FACTS)]}.",
                        "rank": r + 1}
                if qs == "data_global":
                    item["supporting_assertions"] = [
                        {"id": f"{qid}-s{r}{k}", "statement": f"The response mentions that {FACTS[k]}."}
                        for k in range(2 + (i + r) % 2)]
                items.append(item)
            records.append({"question_id": qid, "question_text": text, "assertions": items})
        (root / "assertions").mkdir(parents=True, exist_ok=True)
        (root / "assertions" / f"{qs}_assertions.json").write_text(json.dumps(records, indent=1),
                                                                   encoding="utf-8")
        for method in METHODS:
            rows = [{"question_id": qid, "text": text,
                     "context": [{"chunk_id": f"{method}-{qid}-c{k}", "text": _answer(topic, 2, k + qs_index),
                                  "rank": N_CHUNKS - k}  # ranks run backwards: file order is not rank order
                                 for k in range(N_CHUNKS)]}
                    for qid, text, topic in questions]
            folder = root / "retrieval" / method
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{qs}.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return root
