"""Import lm-evaluation-harness per-sample logs: ``samples_<task>_<date>.jsonl``.

``lm_eval --log_samples --output_path OUT`` writes, for each task, one JSON line per
(document, filter)::

    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter",
     "metrics": ["acc", "acc_norm"], "doc_hash", "prompt_hash", "target_hash",
     "acc": 1.0, "acc_norm": 0.0}

into ``OUT/<model name>/``. Each metric value of a line becomes one row: ``arm`` = the name
of the folder holding the file (lm-eval's sanitised model name), ``task`` = the task of the
file name, ``item`` = ``cluster`` = ``{task}/{doc_id}``, ``criterion`` = ``{metric},{filter}``
as lm-eval's results name it (``exact_match,strict-match``), ``judge`` = ``lm-eval``,
``score`` = the value, on ``binary`` when every value of the criterion is 0 or 1, else
``interval``; ``outcome`` = a digest of the filtered response. A metric whose per-sample value
is not a number (corpus-level metrics such as ``bleu`` keep a pair per sample, aggregated
only over the corpus) has no per-sample score and is not imported.

The mean of a criterion's scores is the value lm-eval prints for a metric aggregated by
``mean`` (its stderr is ``mean_stderr``, items taken as independent).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import RecordFields, build, is_text, jsonl_rows, require, source_files
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import Problem

JUDGE = "lm-eval"
LAYOUT = "lm-evaluation-harness's OUT/<model>/samples_<task>_<date>.jsonl (--log_samples)"
_NAME = re.compile(r"^samples_(?P<task>.+?)(?:_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+))?$")


def task_of(path: Path) -> str:
    """The task in a samples file's name.

    >>> task_of(Path("samples_gsm8k_2024-05-01T12-00-00.123456.jsonl"))
    'gsm8k'
    """
    match = _NAME.match(path.stem)
    return match.group("task") if match else path.stem


def looks_like_lm_eval(first: Mapping[str, Any]) -> bool:
    """Whether a JSONL file's first record is an lm-eval sample."""
    return {"doc_id", "filter", "metrics"} <= first.keys() and isinstance(first["metrics"], list)


def import_lm_eval(sources: Sequence[str | Path], *,
                   scales: Mapping[str, Scale] | None = None,
                   duplicates: str = "error",
                   fields: RecordFields | None = None) -> Judgments:
    """Read lm-eval ``samples_*.jsonl`` files into one table."""
    files = source_files(sources, "samples_*.jsonl", LAYOUT)
    problems: list[Problem] = []
    rows, numbers = jsonl_rows(files, _rows, problems, fields)
    values: dict[str, set[float]] = {}
    for row in rows:
        values.setdefault(row["criterion"], set()).add(row["score"])
    declared = {c: Scale.parse("binary" if v <= {0.0, 1.0} else "interval")
                for c, v in values.items()}
    return build(rows, numbers, problems, files, {**declared, **(scales or {})},
                 duplicates=duplicates)


def _doc_id(value: object) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or is_text(value)


def _rows(rec: dict[str, Any], file: Path, number: int,
          problems: list[Problem]) -> list[dict[str, Any]]:
    task, arm = task_of(file), file.resolve().parent.name
    if not require(rec, {"doc_id": _doc_id, "metrics": lambda v: isinstance(v, list)},
                   file, number, problems):
        return []
    flt = rec.get("filter") if is_text(rec.get("filter")) else "none"
    item = f"{task}/{rec['doc_id']}"
    outcome = hashlib.sha256(json.dumps(rec.get("filtered_resps"), sort_keys=True,
                                        default=str).encode("utf-8")).hexdigest()[:16]
    rows = []
    for metric in rec["metrics"]:
        if not isinstance(metric, str):
            problems.append(Problem(str(file), number, "metrics",
                                    f"expected metric names, got {metric!r}"))
            continue
        if metric not in rec:
            problems.append(Problem(str(file), number, metric,
                                    "a metric listed in 'metrics' has no value"))
            continue
        value = rec[metric]
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, (int, float)):
            continue  # a corpus-level metric: no per-sample score (see the module docstring)
        if not math.isfinite(value):
            problems.append(Problem(str(file), number, metric,
                                    f"expected a finite number, got {value!r}"))
            continue
        rows.append({"item": item, "cluster": item, "arm": arm, "run": 1, "judge": JUDGE,
                     "criterion": f"{metric},{flt}", "score": float(value), "task": task,
                     "outcome": outcome})
    return rows
