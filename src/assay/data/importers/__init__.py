"""Importers of foreign formats into the judgments table, one module per format.

``IMPORTERS`` maps each format name of ``assay import FORMAT`` to its reader; each takes
the source paths and returns a :class:`~assay.data.table.Judgments`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from assay.data.importers._detect import detect_format, folder_formats, import_folder
from assay.data.importers._records import RecordFields
from assay.data.importers.alpaca_eval import import_alpaca_eval
from assay.data.importers.arena_hard import import_arena_hard
from assay.data.importers.bench import import_bench
from assay.data.importers.coeval import import_coeval
from assay.data.importers.inspect_logs import import_inspect
from assay.data.importers.judgebench import import_judgebench
from assay.data.importers.lm_eval import import_lm_eval
from assay.data.importers.mt_bench import import_mt_bench
from assay.data.importers.promptfoo import import_promptfoo
from assay.data.importers.qed import import_qed
from assay.data.importers.results_json import (
    import_results_json,
    results_records,
    write_results_json,
)
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.data.validate import check_mode
from assay.errors import ConfigError

__all__ = [
    "DUPLICATES",
    "IMPORTERS",
    "RECORD_FIELDS",
    "RecordFields",
    "detect_format",
    "folder_formats",
    "import_alpaca_eval",
    "import_arena_hard",
    "import_bench",
    "import_coeval",
    "import_folder",
    "import_inspect",
    "import_judgebench",
    "import_lm_eval",
    "import_mt_bench",
    "import_promptfoo",
    "import_qed",
    "import_results_json",
    "import_table",
    "results_records",
    "run_importer",
    "write_results_json",
]


def import_table(sources: Sequence[str | Path], *, mapping: Mapping[str, str] | None = None,
                 constants: Mapping[str, object] | None = None,
                 scales: Mapping[str, Scale] | None = None,
                 missing: Mapping[str, Sequence[str]] | None = None,
                 duplicates: str = "error") -> Judgments:
    """Any long table (CSV, TSV, JSONL, JSON, Parquet) or run folder, with a column mapping;
    ``duplicates`` says how rows repeating a judgment key are read."""
    from assay.data.io import load_many  # io reads bench frames with importers.bench: import late

    return load_many(sources, mapping=mapping, constants=constants, scales=scales,
                     missing=missing, duplicates=duplicates)


Importer = Callable[..., Judgments]

_READERS: dict[str, Importer] = {
    "mt-bench": import_mt_bench,
    "arena-hard": import_arena_hard,
    "qed": import_qed,
    "lm-eval": import_lm_eval,
    "judgebench": import_judgebench,
    "inspect": import_inspect,
    "promptfoo": import_promptfoo,
    "coeval": import_coeval,
}
"""Formats whose reader takes the sources and ``scales`` alone."""

IMPORTERS: dict[str, str] = {
    "table": "any CSV/TSV/JSONL/JSON/Parquet long table or run folder, with --map",
    "results-json": "the results aggregator's results.json (benchmark, quiz, question, run, metrics)",
    "alpaca-eval": "AlpacaEval results/<model>/<annotator>/annotations.json files",
    "bench": "hr_report's benchmark data frame (cluster, item, arm, run, correct, ...)",
    "arena-hard": "Arena-Hard-Auto model_judgment/<judge>/<model>.jsonl (two games, weights)",
    "qed": "BenchmarkQED win_rates.csv, per-pair CSVs and reference_scores-NAME.csv",
    "lm-eval": "lm-evaluation-harness samples_<task>_<date>.jsonl (--log_samples)",
    "judgebench": "JudgeBench outputs/...,judge_name=...,judge_model=....jsonl (two games, label)",
    "mt-bench": "FastChat llm_judge (MT-Bench) *_single.jsonl / *_pair.jsonl, with question.jsonl",
    "inspect": "inspect-ai eval logs (.eval, .json), read with inspect-ai (assay[inspect])",
    "promptfoo": "promptfoo results.json (promptfoo eval -o results.json): test x provider x assertion",
    "coeval": "a CoEval run folder (phase3_datapoints/, phase4_responses/, phase5_evaluations/)",
}
"""Format name -> what it reads."""

RECORD_FIELDS = ("arena-hard", "mt-bench", "judgebench", "lm-eval")
"""Formats whose JSONL records ``--map`` and ``--set`` rename and fill before they are read
(``--map question_id=uid``, ``--set baseline=gpt-4-0314``)."""

DUPLICATES: dict[str, str] = {
    "mt-bench": "mean",
    "coeval": "keep",
    "qed": "keep (assertion files; error for the others)",
}
"""Formats whose tool reads repeated records (an appended re-run) -> the ``--duplicates``
mode that reads them as it does; every other format refuses repeats (``error``)."""


def run_importer(fmt: str, sources: Sequence[str | Path], *,
                 mapping: Mapping[str, str] | None = None,
                 constants: Mapping[str, object] | None = None,
                 scales: Mapping[str, Scale] | None = None,
                 missing: Mapping[str, Sequence[str]] | None = None,
                 duplicates: str | None = None,
                 lc_difficulty: str | Path | None = None) -> Judgments:
    """Import ``sources`` in format ``fmt``; declared ``scales`` override the importer's.

    ``duplicates`` (``error``, ``first``, ``last``, ``mean``, ``keep``) says how records
    repeating a judgment are read; None reads them as the format's own tool does
    (:data:`DUPLICATES`). ``lc_difficulty``: alpaca-eval only, AlpacaEval's instruction
    difficulty file."""
    if fmt not in IMPORTERS:
        raise ConfigError(f"unknown import format {fmt!r}: expected one of {', '.join(IMPORTERS)}")
    if lc_difficulty is not None and fmt != "alpaca-eval":
        raise ConfigError(f"--lc-difficulty applies to the 'alpaca-eval' format, not {fmt!r}")
    if duplicates is not None:
        try:
            check_mode(duplicates)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    if fmt != "table" and missing:
        raise ConfigError(f"--missing applies to the 'table' format, not {fmt!r}")
    if fmt not in ("table", *RECORD_FIELDS) and (mapping or constants):
        raise ConfigError(f"--map and --set apply to the 'table' format and to the records of "
                          f"{', '.join(RECORD_FIELDS)}, not to {fmt!r}")
    repeats: dict[str, object] = {"duplicates": duplicates} if duplicates is not None else {}
    if fmt in RECORD_FIELDS:
        repeats["fields"] = RecordFields(mapping or {}, constants or {})
    if fmt == "table":
        return import_table(sources, mapping=mapping, constants=constants, scales=scales,
                            missing=missing, **repeats)
    if fmt == "results-json":
        return import_results_json(sources, scales=scales, **repeats)
    if fmt == "alpaca-eval":
        return import_alpaca_eval(sources, scales=scales, difficulty=lc_difficulty, **repeats)
    if fmt in _READERS:
        return _READERS[fmt](sources, scales=scales, **repeats)
    if len(sources) != 1:
        raise ConfigError("the bench format takes one file")
    return import_bench(sources[0], scales=scales, **repeats)
