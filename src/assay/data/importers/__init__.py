"""Importers of foreign formats into the judgments table, one module per format.

``IMPORTERS`` maps each format name of ``assay import FORMAT`` to its reader; each takes
the source paths and returns a :class:`~assay.data.table.Judgments`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from assay.data.importers._detect import detect_format, folder_formats, import_folder
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
from assay.errors import ConfigError

__all__ = [
    "IMPORTERS",
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
                 missing: Mapping[str, Sequence[str]] | None = None) -> Judgments:
    """Any long table (CSV, TSV, JSONL, JSON, Parquet) or run folder, with a column mapping."""
    from assay.data.io import load_many  # io reads bench frames with importers.bench: import late

    return load_many(sources, mapping=mapping, constants=constants, scales=scales,
                     missing=missing)


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


def run_importer(fmt: str, sources: Sequence[str | Path], *,
                 mapping: Mapping[str, str] | None = None,
                 constants: Mapping[str, object] | None = None,
                 scales: Mapping[str, Scale] | None = None,
                 missing: Mapping[str, Sequence[str]] | None = None,
                 lc_difficulty: str | Path | None = None) -> Judgments:
    """Import ``sources`` in format ``fmt``; declared ``scales`` override the importer's.

    ``lc_difficulty``: alpaca-eval only, AlpacaEval's instruction difficulty file.
    """
    if fmt not in IMPORTERS:
        raise ConfigError(f"unknown import format {fmt!r}: expected one of {', '.join(IMPORTERS)}")
    if lc_difficulty is not None and fmt != "alpaca-eval":
        raise ConfigError(f"--lc-difficulty applies to the 'alpaca-eval' format, not {fmt!r}")
    if fmt != "table" and (mapping or constants or missing):
        raise ConfigError(f"--map, --set and --missing apply to the 'table' format, not {fmt!r}")
    if fmt == "table":
        return import_table(sources, mapping=mapping, constants=constants, scales=scales,
                            missing=missing)
    if fmt == "results-json":
        return import_results_json(sources, scales=scales)
    if fmt == "alpaca-eval":
        return import_alpaca_eval(sources, scales=scales, difficulty=lc_difficulty)
    if fmt in _READERS:
        return _READERS[fmt](sources, scales=scales)
    if len(sources) != 1:
        raise ConfigError("the bench format takes one file")
    return import_bench(sources[0], scales=scales)
