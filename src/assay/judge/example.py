"""The tiny example input set ``assay judge --init`` writes beside its config, so the config
runs as written: two systems' answers to three question sets of three questions each, in
BenchmarkQED's layout (``example_answers/{method}/{question_set}_answers.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

from assay.errors import ConfigError

__all__ = ["EXAMPLE_FOLDER", "write_example_inputs"]

EXAMPLE_FOLDER = "example_answers"
"""The folder of the example answers, next to the config (its ``inputs.input_dir``)."""

_METHODS = ("vector_rag_short_context", "vector_rag_long_context")
_QUESTIONS = {
    "data_global": [
        ("g1", "report-1", "What are the main themes across the reports?",
         "Supply delays and rising costs.",
         "Three themes recur: supply delays, rising input costs and staff shortages, each "
         "named in most reports."),
        ("g2", "report-2", "Which regions are discussed most often?",
         "The north.",
         "The northern and coastal regions, which together account for two thirds of the "
         "mentions."),
        ("g3", "report-2", "How did the outlook change over the year?",
         "It improved.",
         "It moved from cautious in the first quarter to moderately optimistic by the fourth, "
         "as costs stabilised."),
    ],
    "data_local": [
        ("l1", "report-1", "What delay did the March shipment have?",
         "Two weeks.", "Two weeks, caused by a port closure."),
        ("l2", "report-3", "Who led the audit?", "The finance team.",
         "The finance team, led by its deputy director."),
        ("l3", "report-3", "What was the audit's main finding?", "Missing invoices.",
         "Forty-one invoices were missing for the second quarter."),
    ],
    "data_linked": [
        ("k1", "report-1", "Did the port closure affect the audit?", "No.",
         "Yes: the missing invoices were for the delayed shipments."),
        ("k2", "report-2", "Which region's costs rose after the closure?", "The north.",
         "The coastal region, whose shipments were rerouted by land."),
        ("k3", "report-3", "Who reported both the delay and the audit?", "Nobody.",
         "The finance team, in its quarterly summary."),
    ],
}


def write_example_inputs(folder: Path) -> list[Path]:
    """Write the example answers under ``folder/example_answers`` and return the files written.

    Each record has ``question_id``, ``question``, ``answer`` and ``document_id`` (the
    question's cluster); the short-context system answers tersely, the long-context one in full.

    Raises
    ------
    ConfigError
        ``folder/example_answers`` exists already (nothing is overwritten).
    """
    root = folder / EXAMPLE_FOLDER
    if root.exists():
        raise ConfigError(f"{root}: already exists; --init does not overwrite it")
    written = []
    for index, method in enumerate(_METHODS):
        (root / method).mkdir(parents=True)
        for question_set, rows in _QUESTIONS.items():
            records = [{"question_id": qid, "document_id": doc, "question": question,
                        "answer": (short, long)[index]}
                       for qid, doc, question, short, long in rows]
            path = root / method / f"{question_set}_answers.json"
            path.write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
            written.append(path)
    return written
