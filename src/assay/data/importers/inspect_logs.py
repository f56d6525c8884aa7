"""Import inspect-ai eval logs (``.eval`` and ``.json``), read with inspect-ai's own reader.

The logs are read by ``inspect_ai.log.read_eval_log`` (``pip install 'assay[inspect]'``), not
by a re-implementation of their format. Every score of every sample becomes one row:

``arm`` = the log's model (``eval.model``), ``task`` = ``eval.task``, ``item`` = ``cluster``
= ``{task}/{sample id}``, ``run`` = the sample's epoch, ``judge`` = ``inspect``,
``criterion`` = the scorer's name (``{scorer}/{key}`` for a scorer that returns a dict of
values), ``score`` = the value read the way inspect's ``value_to_float`` reads it (``C`` 1,
``I`` 0, ``P`` 0.5, ``N`` 0, yes/no and true/false, numbers as they are), on ``binary`` when
every value of the criterion is 0 or 1, else ``interval``; ``tokens_in``/``tokens_out`` =
the sample's model usage and ``latency_s`` = its ``total_time``. A sample that ended with an
error (``sample.error``) and no score is a failed judgment (``failure_kind`` ``api_error``,
no score) for each scorer of the log.

inspect reduces the epochs of a sample (``mean`` by default) before its metrics: its
``accuracy`` is then the mean of the per-sample means, and its ``stderr`` the standard error
of those means (sd with ddof 1 over sqrt(n)), which is the cluster-robust standard error of
``assay report --kind scores`` with one item per cluster and the epochs as runs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.importers._records import build
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import ConfigError, InputError, Problem

JUDGE = "inspect"
LAYOUT = "inspect-ai's logs/<time>_<task>_<id>.eval or .json"
SUFFIXES = (".eval", ".json")
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_JSON_HEAD = re.compile(r'\{\s*"version":\s*\d+,\s*"status":\s*"\w+",\s*"eval":\s*\{')
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def score_value(value: object) -> float | None:
    """A score value as inspect's ``value_to_float`` reads it, or None when it has no number.

    >>> [score_value(v) for v in ("C", "I", "P", "N", "yes", True, 0.25, "0.5", "maybe")]
    [1.0, 0.0, 0.5, 0.0, 1.0, 1.0, 0.25, 0.5, None]
    """
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            return _LETTERS[text]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def is_inspect_eval(path: Path) -> bool:
    """Whether `path` is an inspect-ai ``.eval`` log: a zip archive of ``samples/`` and
    ``_journal/`` or ``header.json`` entries."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (OSError, zipfile.BadZipFile):
        return False
    return any(n == "header.json" or n.startswith(("_journal/", "samples/")) for n in names)


def is_inspect_json(path: Path) -> bool:
    """Whether a ``.json`` file opens the way inspect-ai's JSON logs do: ``version``, then
    ``status`` and ``eval`` in its first lines."""
    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(400)
    except (OSError, UnicodeDecodeError):
        return False
    return bool(_JSON_HEAD.match(head))


def read_logs(files: Sequence[Path]) -> list[Any]:
    """The logs of `files`, read by ``inspect_ai.log.read_eval_log``."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ConfigError("reading inspect-ai logs needs inspect-ai: pip install "
                          "'assay[inspect]' (or pip install inspect-ai)") from None
    logs = []
    for file in files:
        try:
            logs.append(read_eval_log(str(file)))
        except Exception as exc:  # inspect raises its own errors for files it cannot read
            raise InputError(str(file), f"inspect-ai cannot read this log: "
                             f"{type(exc).__name__}: {exc}") from None
    return logs


def import_inspect(sources: Sequence[str | Path], *,
                   scales: Mapping[str, Scale] | None = None,
                   duplicates: str = "error") -> Judgments:
    """Read inspect-ai eval logs (``.eval``, ``.json``, or folders of them) into one table."""
    files: list[Path] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            found = sorted(f for f in path.rglob("*") if f.suffix.lower() in SUFFIXES
                           and f.is_file())
            if not found:
                raise InputError(str(path), f"no .eval or .json log below this folder "
                                 f"(expected {LAYOUT})")
            files += found
        elif path.is_file():
            if path.suffix.lower() not in SUFFIXES:
                raise InputError(str(path), "not an inspect-ai log: expected a .eval or .json "
                                 "file")
            files.append(path)
        else:
            raise InputError(str(path), "no such file or folder")
    return logs_table(read_logs(files), files, scales=scales, duplicates=duplicates)


def logs_table(logs: Iterable[Any], files: Sequence[Path], *,
               scales: Mapping[str, Scale] | None = None,
               duplicates: str = "error") -> Judgments:
    """The judgments table of inspect ``EvalLog`` objects read from `files` (one per file)."""
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    for log, file in zip(logs, files, strict=True):
        if getattr(log, "status", "success") != "success" and not log.samples:
            raise InputError(str(file), f"the log's status is {log.status!r} and it holds no "
                             "samples")
        made = _log_rows(log, file, problems)
        rows += [row for _, row in made]
        numbers += [n for n, _ in made]
    values: dict[str, set[float]] = {}
    for row in rows:
        if row["score"] is not None:
            values.setdefault(row["criterion"], set()).add(row["score"])
    declared = {c: Scale.parse("binary" if v <= {0.0, 1.0} else "interval")
                for c, v in values.items()}
    return build(rows, numbers, problems, files, {**declared, **(scales or {})},
                 duplicates=duplicates)


def _log_rows(log: Any, file: Path, problems: list[Problem]) -> list[tuple[int, dict[str, Any]]]:
    task, arm = str(log.eval.task), str(log.eval.model)
    scorers = [s.name for s in (log.results.scores if log.results else [])]
    out: list[tuple[int, dict[str, Any]]] = []
    for number, sample in enumerate(log.samples or [], start=1):
        item = f"{task}/{sample.id}"
        base = {"item": item, "cluster": item, "arm": arm, "run": int(sample.epoch),
                "judge": JUDGE, "task": task, **_usage(sample)}
        scores = sample.scores or {}
        if not scores and getattr(sample, "error", None) is not None:
            out += [(number, {**base, "criterion": name, "score": None,
                              "failure_kind": "api_error",
                              "reasoning": str(getattr(sample.error, "message", sample.error))})
                    for name in scorers]
            continue
        for name, score in scores.items():
            value = score.value
            parts = value.items() if isinstance(value, dict) else [(None, value)]
            for key, part in parts:
                criterion = name if key is None else f"{name}/{key}"
                number_value = score_value(part)
                if number_value is None:
                    problems.append(Problem(str(file), number, criterion,
                                            f"sample {sample.id!r} epoch {sample.epoch}: score "
                                            f"{part!r} has no numeric reading"))
                    continue
                out.append((number, {**base, "criterion": criterion, "score": number_value,
                                     "reasoning": getattr(score, "explanation", None),
                                     "outcome": _text(getattr(score, "answer", None))}))
    return out


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _usage(sample: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    usage = getattr(sample, "model_usage", None) or {}
    if usage:
        out["tokens_in"] = float(sum(u.input_tokens or 0 for u in usage.values()))
        out["tokens_out"] = float(sum(u.output_tokens or 0 for u in usage.values()))
    seconds = getattr(sample, "total_time", None)
    if isinstance(seconds, (int, float)) and math.isfinite(seconds):
        out["latency_s"] = float(seconds)
    return out
