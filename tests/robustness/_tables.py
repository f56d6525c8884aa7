"""Hostile judgments tables: the shapes real data has that the demo does not.

Each builder returns ``(records, scales)``: records as a user's file would hold them (None
for a missing value, which CSV writes as an empty cell and JSONL as null) and the
``--scale`` options the table needs. Every table is valid by the documented rules (a row
without a score carries a failure_kind), so a command may refuse an analysis the data do not
support, but never crash on it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

Record = dict[str, Any]
Table = tuple[list[Record], list[str]]

OPTIONAL = ("cluster", "opponent", "position", "judge", "criterion", "split", "failure_kind",
            "outcome", "usd", "usd_provenance", "tokens_in", "tokens_out", "latency_s",
            "reference_score", "task", "teacher", "attributes", "reasoning", "raw_response",
            "evaluated_at", "metric_version")
"""Optional columns a table may carry with missing values (``run`` is left out: a missing run
is not a valid run number, and it defaults to 1 when the column is absent)."""


def _pointwise(n_items: int = 24, arms: tuple[str, ...] = ("alpha", "beta", "gamma"),
               runs: int = 2, judges: tuple[str, ...] = ("j1", "j2"),
               scale_max: int = 10) -> list[Record]:
    out = []
    for i in range(n_items):
        for a, arm in enumerate(arms):
            for run in range(1, runs + 1):
                for j, judge in enumerate(judges):
                    out.append({"item": f"q{i}", "cluster": f"doc{i // 4}", "arm": arm, "run": run,
                                "judge": judge, "criterion": "quality",
                                "score": float((i * 7 + a * 3 + run + j) % (scale_max + 1))})
    return out


def nan_everywhere() -> Table:
    """Every optional column present and missing in most rows; a few failed judgments."""
    records = _pointwise()
    for k, r in enumerate(records):
        for column in OPTIONAL:
            r.setdefault(column, None)
        if k % 3 == 0:
            r.update(usd=0.001 * k, tokens_in=100.0, tokens_out=None, latency_s=None, task="t1",
                     attributes=json.dumps({"domain": "a" if k % 2 else "b"}))
        if k % 17 == 5:
            r.update(score=None, failure_kind="timeout")
    return records, ["quality=range:0,10"]


def one_arm() -> Table:
    return _pointwise(arms=("alpha",)), ["quality=range:0,10"]


def one_judge() -> Table:
    return _pointwise(judges=("only",)), ["quality=range:0,10"]


def one_run() -> Table:
    return _pointwise(runs=1), ["quality=range:0,10"]


def interval_only() -> Table:
    """Scores on an undeclared interval scale (the most basic inter-rater study)."""
    records = _pointwise(arms=("alpha",), judges=("j1", "j2", "j3"), runs=1)
    for r in records:
        r["score"] = r["score"] * 1.5 - 3.0
    return records, []


def pairwise_only() -> Table:
    """Pairwise verdicts of six judges, both positions, with ties and a few failures."""
    out = []
    arms = ("alpha", "beta")
    for i in range(16):
        for j in range(6):
            for position in (1, 2):
                win = ((i + j + position) % 3) / 2.0
                failed = (i * 6 + j) % 23 == 0
                for arm, other, score in ((arms[0], arms[1], win), (arms[1], arms[0], 1 - win)):
                    out.append({"item": f"q{i}", "cluster": f"doc{i // 4}", "arm": arm,
                                "opponent": other, "position": position if arm == arms[0] else 3 - position,
                                "run": 1, "judge": f"judge{j}", "criterion": "preference",
                                "score": None if failed else score,
                                "failure_kind": "parse_error" if failed else None})
    return out, ["preference=range:0,1"]


def pairwise_with_gaps() -> Table:
    """Pairwise verdicts where every optional column is present and mostly missing, as an
    import of AlpacaEval annotations with null preferences gives."""
    records, scales = pairwise_only()
    for k, r in enumerate(records):
        for column in OPTIONAL:
            r.setdefault(column, None)
        if k % 5 == 0:
            r.update(task="set1", reasoning="=HYPERLINK(\"http://x\")", raw_response="@SUM(A1)")
    return records, scales


def hostile_names() -> Table:
    """Names that try to leave the output folder, break a terminal or run in a spreadsheet."""
    arms = ("../../ESCAPED", "/tmp/absolute", "openai/gpt-4o", "=HYPERLINK(\"http://x\")")
    records = _pointwise(n_items=12, arms=arms, runs=1, judges=("judge\x1b[31mred", "j2"))
    for k, r in enumerate(records):
        r["task"] = "../../task" if k % 2 else "C:\\windows\\task"
        r["criterion"] = "quality/../../x"
    return records, ["quality/../../x=range:0,10"]


def huge_attributes() -> Table:
    """Id-like attribute keys: one distinct value per row for three keys."""
    records = _pointwise(n_items=40, runs=1, judges=("j1",))
    for k, r in enumerate(records):
        r["task"] = "t1"
        r["attributes"] = json.dumps({"chunk_id": f"c{k}", "statement": f"s{k}", "span": k,
                                      "difficulty": "hard" if k % 5 == 0 else "easy"})
    return records, ["quality=range:0,10"]


def one_row() -> Table:
    return [{"item": "q1", "arm": "alpha", "score": 1.0}], ["score=binary"]


def binary_benchmark() -> Table:
    """Correctness of three arms, 1-4 runs (below the five the report wants for intervals)."""
    out = []
    for i in range(30):
        for a, arm in enumerate(("small", "medium", "large")):
            for run in range(1, 4):
                out.append({"item": f"q{i}", "cluster": f"doc{i % 7}", "arm": arm, "run": run,
                            "judge": "exact", "criterion": "correct",
                            "score": float((i + a + run) % 3 != 0),
                            "usd": 0.001 * (a + 1)})
    return out, ["correct=binary"]


TABLES: dict[str, Callable[[], Table]] = {
    "nan_everywhere": nan_everywhere,
    "one_arm": one_arm,
    "one_judge": one_judge,
    "one_run": one_run,
    "interval_only": interval_only,
    "pairwise_only": pairwise_only,
    "pairwise_with_gaps": pairwise_with_gaps,
    "hostile_names": hostile_names,
    "huge_attributes": huge_attributes,
    "one_row": one_row,
    "binary_benchmark": binary_benchmark,
}


def write_csv(records: list[Record], path: Any) -> None:
    """CSV as a user's spreadsheet writes it: a missing value is an empty cell."""
    import csv

    columns = list(dict.fromkeys(k for r in records for k in r))
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        for r in records:
            writer.writerow({k: "" if v is None or (isinstance(v, float) and math.isnan(v)) else v
                             for k, v in r.items()})


def write_jsonl(records: list[Record], path: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
