"""Import BenchmarkQED's result CSVs, so that past runs get assay's intervals.

Pairwise scores (``win_rates.csv``, or a per-pair ``{question_set}_{base}--{other}.csv``),
one row per (question, criterion, trial) as ``get_pairwise_scores`` writes it::

    score_id, question, answer_1_name, answer_1, answer_2_name, answer_2, criteria,
    {base}_score, {other}_score, reasoning, trial, base_name, other_name[, question_set]

becomes one pairwise row: ``arm`` = base_name, ``opponent`` = other_name (as a judge run
stores them, so reports and ``winrates_sig_tests.csv`` read each pair from the base's side,
as BenchmarkQED does), ``criterion`` = criteria, ``score`` = 1 - ``{other}_score`` (the base's
score: 1 / 0.5 / 0) on ``range:0,1``, ``item`` = ``cluster`` = a stable id of the question
text, ``task`` = question_set (in a per-pair file, which has no such column, the
``{question_set}`` of its name), ``run`` = trial // 2 + 1 and ``position`` = where the base
answer was shown (answer_1_name, else BenchmarkQED's order: base first on even trials), so
the two orders of a run pair up; ``judge`` = the ``judge`` column when there is one.

Reference scores (``reference_scores-{name}.csv``), one row per (question, criterion,
trial)::

    score_id, question, reference_answer, generated_answer, criteria, score, reasoning, trial

becomes one row: ``arm`` = the name in the file name, ``criterion`` = criteria, ``score``
on ``interval`` (BenchmarkQED's score_min..score_max, 1..10 by default, is not in the
file: declare it with ``--scale CRITERION=range:1,10``), ``run`` = trial + 1.

Assertion scores (``{question_set}/{rag}_assertion_scores.csv`` as ``evaluate_rag_method``
writes them, or ``assertion_scores.csv`` of ``benchmark-qed autoe assertion-scores``), one
row per (question, assertion, trial)::

    score_id, reasoning, score, question, answer, assertion, trial

becomes one row: ``criterion`` = ``assertion``, ``score`` (1 / 0) on ``binary``,
``cluster`` = a stable id of the question text, ``item`` = ``{cluster}#{id of the
assertion text}``, ``run`` = trial + 1, ``arm`` = the ``{rag}`` of the file name (the
folder's name for ``assertion_scores.csv``), ``task`` = the question-set folder holding a
``{rag}_assertion_scores.csv``; ``attributes`` carries the question id and the assertion's
statement for ``assay report --kind assertions`` and the assertion summaries.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data._csv import check_complete
from assay.data.cells import restore_cell
from assay.data.importers._records import RecordFields, build, source_files
from assay.data.importers.alpaca_eval import instruction_id
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import FILE_COLUMN
from assay.errors import InputError, Problem

PAIRWISE = ("question", "criteria", "trial", "base_name", "other_name")
REFERENCE = ("question", "criteria", "score", "trial")
ASSERTION = ("score", "question", "assertion", "trial")
REFERENCE_PREFIX = "reference_scores-"
ASSERTION_SUFFIX = "assertion_scores.csv"
READING = ("as BenchmarkQED's evaluate_rag_method merges a statement repeated within a "
           "question: it groups the scores by question and assertion text, so the copies' "
           "trials pool into one assertion")
PER_PAIR = "--"
"""In the name of a per-pair CSV, ``{question_set}_{base}--{other}.csv``, between the two RAG methods."""
DERIVED = ("significance_", "winrates_sig_tests.csv", "model_usage")
"""Name starts of the files BenchmarkQED derives from its scores (tests, summaries): an
output folder holds them beside the score files; they are skipped with a note."""
LAYOUT = "BenchmarkQED's win_rates.csv, {question_set}_{base}--{other}.csv, " \
    "reference_scores-{name}.csv or {question_set}/{rag}_assertion_scores.csv"


def csv_kind(columns: Sequence[str], name: str) -> str | None:
    """``pairwise``, ``reference`` or ``assertion`` by a CSV's header and file name, else None."""
    if set(PAIRWISE) <= set(columns):
        return "pairwise"
    if set(ASSERTION) <= set(columns) and name.endswith(ASSERTION_SUFFIX):
        return "assertion"
    if set(REFERENCE) <= set(columns) and name.startswith(REFERENCE_PREFIX):
        return "reference"
    return None


def _derived(file: Path) -> bool:
    """A file BenchmarkQED computes from its scores (significance tests, summaries)."""
    return file.name.startswith(DERIVED) or "summary" in file.stem


def import_qed(sources: Sequence[str | Path], *,
               scales: Mapping[str, Scale] | None = None,
               duplicates: str | None = None,
               fields: RecordFields | None = None) -> Judgments:
    """Read BenchmarkQED pairwise, reference and assertion score CSVs into one table.

    ``duplicates`` None reads a statement repeated within a question of an assertion file
    as BenchmarkQED's scorer does (``keep``: its trials pool into one assertion) and
    refuses repeats in other files (``error``). The files BenchmarkQED derives from its
    scores (``significance_*.csv``, ``winrates_sig_tests.csv``, the ``*summary*.csv`` files)
    are skipped and named in the table's notes: assay recomputes them from the scores.
    `fields` (``--map``, ``--set``) apply to each row's columns first, and to the header
    that tells the kind of file."""
    files = source_files(sources, "*.csv", LAYOUT)
    fields = fields or RecordFields()
    seen: set[str] = set()
    skipped: list[Path] = []
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    declared: dict[str, Scale] = {}
    pairwise_files = []
    kinds: set[str] = set()
    # BenchmarkQED's output folder holds win_rates.csv and the per-pair CSVs it concatenates:
    # read the whole file once and pass over the parts beside it (named in a note)
    combined = {f.parent for f in files if f.name == "win_rates.csv"}
    parts = [f for f in files if f.parent in combined and PER_PAIR in f.name]
    files = [f for f in files if f not in parts]
    for file in files:
        header, records = _read_csv(file)
        header = fields.header(header)
        kind = csv_kind(header, file.name)
        if kind is None and _derived(file):
            skipped.append(file)
            continue
        if kind is None:
            raise InputError(str(file), f"not a BenchmarkQED score file: expected the columns "
                             f"{', '.join(PAIRWISE)} (pairwise) or a reference_scores-NAME.csv "
                             f"with {', '.join(REFERENCE)}, or a {{rag}}_{ASSERTION_SUFFIX} "
                             f"with {', '.join(ASSERTION)}", row=None)
        kinds.add(kind)
        if kind == "pairwise":
            pairwise_files.append(file)
        read = {"pairwise": _pairwise, "reference": _reference, "assertion": _assertion}[kind]
        scale = {"pairwise": "range:0,1", "reference": "interval", "assertion": "binary"}[kind]
        for number, rec in records:
            made = read(fields.apply(rec, seen), file, number, problems)
            for row in made:
                declared.setdefault(row["criterion"], Scale.parse(scale))
            rows.extend({**row, FILE_COLUMN: str(file)} for row in made)
            numbers.extend([number] * len(made))
    if len(pairwise_files) > 1 and any(f.name == "win_rates.csv" for f in pairwise_files):
        raise InputError(", ".join(map(str, pairwise_files)), "win_rates.csv holds the rows of "
                         "the per-pair CSVs already: give one or the other")
    notes = []
    if parts:
        notes.append(f"{len(parts)} per-pair file(s) passed over: their rows are those of the "
                     f"win_rates.csv beside them, which was read: {', '.join(map(str, parts))}")
    problems += fields.unused(seen, ", ".join(map(str, files)))
    assertions_only = kinds == {"assertion"}
    if duplicates is None:
        duplicates = "keep" if assertions_only else "error"
    read = [f for f in files if f not in skipped]
    table = build(rows, numbers, problems, read or files, {**declared, **(scales or {})},
                  duplicates=duplicates, reading=READING if assertions_only else "")
    if skipped:
        notes.append(f"{len(skipped)} file(s) BenchmarkQED derives from its scores skipped "
                     f"(assay recomputes them): {', '.join(str(f) for f in skipped)}")
    if notes:
        from dataclasses import replace

        table = replace(table, read_notes=(*table.read_notes, *notes))
    return table


def _read_csv(file: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    check_complete(file)  # a file cut mid-row would read its last row's cut values
    try:
        with file.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            # the quote prefix assay's QED writers put before a formula is taken off (data.cells)
            records = [(number, {restore_cell(k): restore_cell(v) for k, v in rec.items()})
                       for number, rec in enumerate(reader, start=1)]
            return [restore_cell(name) for name in reader.fieldnames or []], records
    except UnicodeDecodeError:
        raise InputError(str(file), "is not UTF-8 text") from None
    except csv.Error as exc:
        raise InputError(str(file), f"not a valid CSV file: {exc}") from None


def _trial(rec: Mapping[str, str], file: Path, number: int,
           problems: list[Problem]) -> int | None:
    text = (rec.get("trial") or "").strip()
    if not text.isdigit():
        problems.append(Problem(str(file), number, "trial",
                                f"expected a trial number 0, 1, ..., got {text!r}"))
        return None
    return int(text)


def _number(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _text(rec: Mapping[str, str], field: str, file: Path, number: int,
          problems: list[Problem]) -> str | None:
    value = (rec.get(field) or "").strip()
    if not value:
        problems.append(Problem(str(file), number, field, "required value is missing"))
        return None
    return value


def _pairwise(rec: Mapping[str, str], file: Path, number: int,
              problems: list[Problem]) -> list[dict[str, Any]]:
    values = {f: _text(rec, f, file, number, problems)
              for f in ("question", "criteria", "base_name", "other_name")}
    trial = _trial(rec, file, number, problems)
    if trial is None or any(v is None for v in values.values()):
        return []
    other, base = str(values["other_name"]), str(values["base_name"])
    column = f"{other}_score"
    if column not in rec:
        problems.append(Problem(str(file), number, column, "the other answer's score column "
                                "is missing"))
        return []
    score = _number(rec[column])
    if score not in (0.0, 0.5, 1.0):
        problems.append(Problem(str(file), number, column,
                                f"expected 1, 0.5 or 0, got {rec[column]!r}"))
        return []
    first = (rec.get("answer_1_name") or "").strip()
    position = (1 if first == base else 2) if first in (other, base) else (
        1 if trial % 2 == 0 else 2)
    item = instruction_id(str(values["question"]))
    return [{"item": item, "cluster": item, "arm": base, "opponent": other,
             "position": position, "run": trial // 2 + 1, "criterion": values["criteria"],
             "score": 1.0 - score, "judge": (rec.get("judge") or "").strip() or None,
             "task": (rec.get("question_set") or "").strip() or _pair_file_set(file, base, other),
             "reasoning": rec.get("reasoning") or None}]


def _pair_file_set(file: Path, base: str, other: str) -> str | None:
    """The question set a per-pair ``{question_set}_{base}--{other}.csv`` names, else None.

    BenchmarkQED 0.4.0 writes no ``question_set`` column in these files, only in
    ``win_rates.csv``; without it the sets of a folder would pool into one.

    >>> _pair_file_set(Path("data_local_vector_rag--graph_rag.csv"), "vector_rag", "graph_rag")
    'data_local'
    >>> _pair_file_set(Path("win_rates.csv"), "vector_rag", "graph_rag") is None
    True
    """
    suffix = f"_{base}--{other}.csv"
    return file.name[: -len(suffix)] or None if file.name.endswith(suffix) else None


def _scored(rec: Mapping[str, str], field: str, file: Path, number: int,
            problems: list[Problem], allowed: tuple[float, ...] | None = None
            ) -> tuple[str, str, int, float] | None:
    """(question, `field`'s text, trial, score) of a reference or assertion row, else None
    with its problems recorded; `allowed` restricts the score's values."""
    question = _text(rec, "question", file, number, problems)
    text = _text(rec, field, file, number, problems)
    trial = _trial(rec, file, number, problems)
    score = _number(rec.get("score"))
    if score is None or (allowed is not None and score not in allowed):
        expected = " or ".join(f"{v:g}" for v in allowed) if allowed else "a number"
        problems.append(Problem(str(file), number, "score",
                                f"expected {expected}, got {rec.get('score')!r}"))
        return None
    if question is None or text is None or trial is None:
        return None
    return question, text, trial, score


def _reference(rec: Mapping[str, str], file: Path, number: int,
               problems: list[Problem]) -> list[dict[str, Any]]:
    read = _scored(rec, "criteria", file, number, problems)
    if read is None:
        return []
    question, criterion, trial, score = read
    item = instruction_id(question)
    return [{"item": item, "cluster": item, "arm": file.stem[len(REFERENCE_PREFIX):],
             "run": trial + 1, "criterion": criterion, "score": score,
             "judge": (rec.get("judge") or "").strip() or None,
             "reasoning": rec.get("reasoning") or None}]


def _assertion(rec: Mapping[str, str], file: Path, number: int,
               problems: list[Problem]) -> list[dict[str, Any]]:
    read = _scored(rec, "assertion", file, number, problems, allowed=(1.0, 0.0))
    if read is None:
        return []
    question, statement, trial, score = read
    prefix = file.name[:-len(ASSERTION_SUFFIX)].rstrip("_")
    arm = prefix or file.resolve().parent.name
    cluster, assertion_id = instruction_id(question), instruction_id(statement)
    attributes = json.dumps({"question_id": cluster, "assertion_id": assertion_id,
                             "statement": statement})
    return [{"item": f"{cluster}#{assertion_id}", "cluster": cluster, "arm": arm,
             "run": trial + 1, "criterion": "assertion", "score": score,
             "judge": (rec.get("judge") or "").strip() or None,
             "task": file.resolve().parent.name if prefix else None,
             "reasoning": rec.get("reasoning") or None, "attributes": attributes}]
