"""Which importer reads a file, by its name and its first record: for a folder of mixed
result files (``assay report FOLDER``).

Only formats a file announces unambiguously are recognised: FastChat's MT-Bench files,
Arena-Hard-Auto judgments, lm-evaluation-harness samples, inspect-ai logs, promptfoo exports,
JudgeBench outputs, BenchmarkQED score CSVs, AlpacaEval ``annotations.json``, the results
aggregator's ``results.json``, and judgments tables (Parquet, or CSV/TSV/JSONL with
``item``, ``arm`` and ``score`` columns, or hr_report's ``correct`` instead of ``score``).
Anything else is refused by name rather than guessed.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from assay.data.importers._records import first_object
from assay.data.importers.arena_hard import looks_like_arena_hard
from assay.data.importers.inspect_logs import is_inspect_eval, is_inspect_json
from assay.data.importers.judgebench import looks_like_judgebench
from assay.data.importers.lm_eval import looks_like_lm_eval
from assay.data.importers.mt_bench import file_kind
from assay.data.importers.promptfoo import is_promptfoo_json
from assay.data.importers.qed import csv_kind
from assay.errors import InputError

_TABLE = {"item", "arm"}
_SIDECARS = (".assay.json", ".invalid.jsonl")


def detect_format(path: Path) -> str | None:
    """The import format of a file (a name of ``IMPORTERS``), or None when it is not recognised.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "win_rates.csv").write_text("question,criteria,trial,base_name,other_name\\n")
    >>> detect_format(folder / "win_rates.csv")
    'qed'
    """
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return "table"
    if suffix == ".jsonl":
        first = first_object(path)
        if first is None:
            return None
        if file_kind(path) is not None:
            return "mt-bench"
        if looks_like_arena_hard(first):
            return "arena-hard"
        if looks_like_lm_eval(first):
            return "lm-eval"
        if looks_like_judgebench(first):
            return "judgebench"
        return "table" if _is_table(first.keys()) else None
    if suffix in (".csv", ".tsv"):
        header = _header(path, "\t" if suffix == ".tsv" else ",")
        if suffix == ".csv" and csv_kind(header, path.name):
            return "qed"
        return "table" if _is_table(header) else None
    if suffix == ".eval":
        return "inspect" if is_inspect_eval(path) else None
    if suffix == ".json":
        if is_inspect_json(path):  # reads the first 400 characters
            return "inspect"
        if path.name == "annotations.json":
            return "alpaca-eval"
        if is_promptfoo_json(path):  # parses the file: promptfoo's export is often results.json
            return "promptfoo"
        return "results-json" if path.name == "results.json" else None
    return None


def folder_formats(folder: Path) -> dict[Path, str]:
    """The import format of every file below `folder`; InputError naming those not recognised."""
    files = sorted(p for p in folder.rglob("*") if p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts)
                   and not p.name.endswith(_SIDECARS))
    if not files:
        raise InputError(str(folder), "the folder holds no result files")
    formats = {f: detect_format(f) for f in files}
    unknown = [str(f.relative_to(folder)) for f, fmt in formats.items() if fmt is None]
    if unknown:
        raise InputError(str(folder), "a folder of result files is read when every file is "
                         "recognised; not recognised: " + ", ".join(unknown[:10])
                         + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
                         + " (give the files to 'assay import FORMAT' instead)")
    return {f: str(fmt) for f, fmt in formats.items()}


def unread_partition_keys(folder: str | Path) -> list[str]:
    """The hive keys of the table files below ``folder`` that name no judgments column."""
    from assay.data.engine import partition_keys_of
    from assay.data.schema import COLUMN_BY_NAME

    unread: list[str] = []
    for file, fmt in folder_formats(Path(folder)).items():
        for key in partition_keys_of(folder, file) if fmt == "table" else ():
            if key not in COLUMN_BY_NAME and key not in unread:
                unread.append(key)
    return unread


def _is_table(columns: object) -> bool:
    names = set(columns)  # type: ignore[call-overload]
    return names >= _TABLE and bool(names & {"score", "correct"})


def _header(path: Path, delimiter: str) -> list[str]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            return next(csv.reader(handle, delimiter=delimiter), [])
    except (UnicodeDecodeError, csv.Error, json.JSONDecodeError):
        return []
