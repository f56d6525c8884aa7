"""Importers of foreign formats into the judgments table, one module per format.

``IMPORTERS`` names each format of ``assay import FORMAT`` and what it reads; each module's
``import_*`` function takes the source paths and returns a
:class:`~assay.data.table.Judgments`. :func:`assay.data.io.run_importer` runs one by name,
and :func:`assay.data.io.load` reads a folder of mixed result files with them.
"""

from __future__ import annotations

from assay.data.importers._detect import detect_format, folder_formats
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
    "import_inspect",
    "import_judgebench",
    "import_lm_eval",
    "import_mt_bench",
    "import_promptfoo",
    "import_qed",
    "import_results_json",
    "results_records",
    "write_results_json",
]


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

RECORD_FIELDS = ("results-json", "alpaca-eval", "bench", "arena-hard", "qed", "lm-eval",
                 "judgebench", "mt-bench", "promptfoo", "coeval")
"""Formats whose records ``--map`` and ``--set`` rename and fill before they are read
(``--map question_id=uid``, ``--set baseline=gpt-4-0314``): JSONL lines, the objects of a
JSON list (alpaca-eval, results-json, promptfoo's ``results.results``), CSV rows (qed),
a bench file's columns, CoEval's phase 5 evaluations. Every importer but ``inspect``, whose
logs are read through inspect-ai's objects, not as records."""

DUPLICATES: dict[str, str] = {
    "mt-bench": "mean",
    "coeval": "keep",
    "qed": "keep (assertion files; error for the others)",
}
"""Formats whose tool reads repeated records (an appended re-run) -> the ``--duplicates``
mode that reads them as it does; every other format refuses repeats (``error``)."""
