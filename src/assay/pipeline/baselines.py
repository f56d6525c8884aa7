"""Baselines beside the judges (CoEval's ``benchmark.run_baselines``): BERTScore and G-Eval
on a run folder's responses, and how each method, and each LLM judge, ranks them against
the ground truth.

:func:`run_baselines` scores every response of the run folder with each method asked for:

``bertscore``
    BERTScore-F1 against the datapoint's ``reference`` through the native-scores
    machinery (:func:`assay.pipeline.native_scores.native_scores`; the ``bertscore`` extra
    and a local model path, never downloaded).
``geval``
    G-Eval through the engine (:mod:`assay.pipeline.geval`): cache, a run store in
    ``RUN/baselines/`` (a rerun resumes, nothing is asked twice), the cost limit.

It writes ``baselines.jsonl`` (one record per response and method: the score and how it
was computed) and ``baselines.csv``: per method, and per LLM judge and criterion of the
folder's ``evaluations.jsonl`` or run store (``judgments.sqlite`` of ``assay judge``;
pointwise scores, averaged over trials per response),
per task, Spearman's rho against the ground truth with a Fisher-z interval (Bonett and
Wright's standard error; :func:`assay.stats.spearman_interval`), n and the p-value.

The ground truth of a response is its ``native_scores.jsonl`` score (``assay
native-scores``) when the folder has one, else its datapoint's ``reference_score``.

The config and its readers are in :mod:`assay.pipeline._baselines_config`, what is read from
the run folder (ground truth, G-Eval's targets, the judges' scores) in
:mod:`assay.pipeline._baselines_inputs`, the correlations in
:mod:`assay.pipeline._baselines_correlations`; the public names are imported from here.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from assay.data.atomic import write_text
from assay.data.cells import csv_text
from assay.data.runfolder import read_part
from assay.errors import ConfigError
from assay.pipeline._baselines_config import METHODS as METHODS  # re-exported: the config's names
from assay.pipeline._baselines_config import BaselinesConfig, as_baselines_config
from assay.pipeline._baselines_config import BertScoreSettings as BertScoreSettings
from assay.pipeline._baselines_config import load_baselines_config as load_baselines_config
from assay.pipeline._baselines_config import parse_methods as parse_methods
from assay.pipeline._baselines_correlations import _correlations
from assay.pipeline._baselines_inputs import (
    ALL_TASKS,
    _ground_truth,
    _judge_scores,
    _store_scores,
    _targets,
)
from assay.pipeline._baselines_inputs import run_targets as run_targets  # re-exported
from assay.pipeline.geval import GEvalTarget, combine, geval_requests, geval_rows

if TYPE_CHECKING:
    from assay.pipeline.describe import BaselineLine

BASELINES_JSONL = "baselines.jsonl"
BASELINES_CSV = "baselines.csv"
BASELINES_DIR = "baselines"
"""The folder inside the run folder holding G-Eval's run store."""
CSV_COLUMNS = ("method", "task", "ground_truth", "n", "estimate", "lower", "upper", "conf",
               "p_value", "interval_method", "note")


@dataclass(frozen=True)
class BaselinesResult:
    """What :func:`baselines` computed and wrote."""

    records: list[dict[str, Any]]
    """``baselines.jsonl``'s records: per response and method, the score and ``how``."""
    correlations: list[dict[str, Any]]
    """``baselines.csv``'s rows (columns :data:`CSV_COLUMNS`)."""
    jsonl_path: Path
    csv_path: Path
    ground_truth: str
    usd: float = 0.0
    """What G-Eval's calls cost in this run (cache hits cost nothing)."""
    calls: int = 0
    stopped: str | None = None
    """``cost_limit`` or ``max_failures`` when G-Eval stopped before the end (a rerun resumes)."""
    notes: list[str] = field(default_factory=list)
    planned: int = 0
    """G-Eval judgments planned (both stages as built; 0 without G-Eval)."""
    stored: int = 0
    """Of those, the ones in G-Eval's run store (good or failed): fewer than ``planned`` means
    responses are left unscored (the notes say why)."""


def run_baselines(run_folder: str | Path, config: Any = None) -> Path:
    """Run the baselines on a run folder and write ``baselines.jsonl`` and ``baselines.csv``;
    return the CSV's path (for ``assay run``; :func:`baselines` returns everything).

    ``config`` is a :class:`BaselinesConfig`, a mapping in one of the shapes
    :func:`load_baselines_config` reads, or ``assay run``'s whole config (its
    ``baselines`` section, with its ``llm``, ``cache`` and folder).
    """
    return baselines(run_folder, as_baselines_config(config)).csv_path


def baselines(run_folder: str | Path, config: Any = None, *,
              bertscore_batch: Callable[[Sequence[str], Sequence[str]], list[float]] | None = None
              ) -> BaselinesResult:
    """Score the run folder's responses with each method and correlate with the ground truth.

    ``bertscore_batch`` replaces the BERTScore function (tests use a stand-in).
    """
    folder = Path(run_folder)
    config = as_baselines_config(config)
    datapoints = {str(rec.get("id")): rec for _, _, rec in read_part(folder, "datapoints")}
    responses = [rec for _, _, rec in read_part(folder, "responses")]
    truth, truth_name = _ground_truth(folder, datapoints, responses)
    task_of = {str(r.get("id")): str(datapoints.get(str(r.get("datapoint_id")), {}).get("task") or ALL_TASKS)
               for r in responses}
    notes: list[str] = []
    records: list[dict[str, Any]] = []
    usd, calls, stopped, planned, stored = 0.0, 0, None, 0, 0
    for method in config.methods:
        if method == "bertscore":
            records += _bertscore(folder, config, bertscore_batch, task_of, notes)
        else:
            geval = _geval(folder, config, datapoints, responses, task_of)
            records += geval.records
            usd, calls, stopped = geval.usd, geval.calls, geval.stopped
            planned, stored = geval.planned, geval.stored
            notes += [f"G-Eval: {n}" for n in geval.notes]
            if stopped:
                notes.append(f"G-Eval stopped ({stopped}): rerun to resume; the responses not yet "
                             "scored are left out")
    scores: dict[str, dict[str, float]] = defaultdict(dict)
    for rec in records:
        if rec["score"] is not None:
            scores[rec["method"]][rec["response_id"]] = rec["score"]
    for name, by_response in {**_judge_scores(folder, notes), **_store_scores(folder, responses)}.items():
        scores[name] = by_response
    correlations = _correlations(scores, truth, task_of, truth_name, config.conf)
    per_item = defaultdict(int)
    for rec in responses:
        per_item[str(rec.get("datapoint_id"))] += 1
    if correlations and max(per_item.values(), default=1) > 1:
        notes.append(f"Up to {max(per_item.values())} responses share a datapoint: the Fisher-z "
                     "interval treats them as independent pairs and is then somewhat too narrow")
    if not any(v is not None for v in truth.values()):
        notes.append("No response has a ground truth (native_scores.jsonl or the datapoints' "
                     "reference_score): run assay native-scores first; no correlation computed")
    jsonl = write_text(folder / BASELINES_JSONL,
                       "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    rows = [["" if _missing(row.get(k)) else row[k] for k in CSV_COLUMNS] for row in correlations]
    csv_path = write_text(folder / BASELINES_CSV, csv_text([list(CSV_COLUMNS), *rows]))
    return BaselinesResult(records, correlations, jsonl, csv_path, truth_name, usd, calls, stopped, notes,
                           planned=planned, stored=stored)


def describe_baselines(config: BaselinesConfig, targets: Sequence[GEvalTarget], *,
                       stored: Collection[str] = ()) -> tuple[BaselineLine, ...]:
    """The calls G-Eval will make on `targets` (the answers judged) before anything is sent
    (``assay describe`` on a config with ``baselines:``), without the judgments already in
    `stored` (keys of G-Eval's run store); BERTScore runs locally and makes none.

    First stage: one logprob call per answer (``samples`` calls when ``logprobs`` is off);
    second stage at most: ``samples`` calls per answer, asked only where the endpoint gives no
    logprob table. Tokens in are ~4 characters a token of the form, tokens out ``max_tokens``
    a call; the cost is the llm section's price (None without one, never $0).

    >>> cfg = BaselinesConfig(methods=["geval"], llm={"model": "m", "base_url": "http://h/v1"})
    >>> (line,) = describe_baselines(cfg, [GEvalTarget("r1", "q1", "a", "t", "Q?", "A.")])
    >>> line.method, line.calls, line.followups, line.usd is None
    ('geval', 1, 20, True)
    """
    from assay.llm import estimate_tokens
    from assay.llm.client_config import listed_cost
    from assay.pipeline.describe import BaselineLine

    if "geval" not in config.methods or config.llm is None:
        return ()
    settings, model = config.geval, config.llm.model
    first = geval_requests(targets, settings, model,
                           stage="logprobs" if settings.logprobs else "samples")
    second = geval_requests(targets, settings, model, stage="samples") if settings.logprobs else []
    first = [r for r in first if r.key not in stored]
    second = [r for r in second if r.key not in stored]
    asked = [*first, *second]
    tokens_in = sum(estimate_tokens("".join(t for _, t in r.messages)) for r in asked)
    tokens_out = len(asked) * settings.max_tokens
    usd = listed_cost(config.llm, tokens_in, tokens_out, model)
    return (BaselineLine("geval", model, len(first), len(second), tokens_in, tokens_out, usd),)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _bertscore(folder: Path, config: BaselinesConfig, batch: Any, task_of: Mapping[str, str],
               notes: list[str]) -> list[dict[str, Any]]:
    from assay.pipeline.native_scores import native_scores

    path = config.bertscore.model_path
    if path is None and batch is None:
        raise ConfigError("bertscore: give --model-path (or bertscore.model_path in --config), a "
                          "local model folder; assay never downloads a model")
    if path is not None and not Path(path).is_absolute():
        path = str(config.base_dir / path)
    scored = native_scores(folder, "bertscore", model_path=path, batch=batch)
    notes += [f"bertscore: {n}" for n in scored.notes]
    return [{"response_id": str(r["response_id"]), "datapoint_id": str(r["datapoint_id"]),
             "arm": r["arm"], "task": task_of.get(str(r["response_id"]), ALL_TASKS),
             "method": "bertscore", "score": r["reference_score"], "how": "bertscore_f1",
             "n_samples": None, "mass": None,
             "failure_kind": None if r["reference_score"] is not None else "no_reference_or_text"}
            for r in scored.records]


class _GEvalRun(NamedTuple):
    """What G-Eval's calls came to."""

    records: list[dict[str, Any]]
    usd: float
    calls: int
    stopped: str | None
    planned: int
    """Judgments planned: the first stage's, and the second stage's as built."""
    stored: int
    """Of those, the ones the store holds (good or failed)."""
    notes: tuple[str, ...]
    """The engine's notes (a batch expired, result lines lost, ...)."""


def _geval(folder: Path, config: BaselinesConfig, datapoints: Mapping[str, Mapping[str, Any]],
           responses: Sequence[Mapping[str, Any]], task_of: Mapping[str, str]) -> _GEvalRun:
    if config.llm is None:
        raise ConfigError("geval needs the llm section (model, base_url, ...) in --config")
    return asyncio.run(_geval_async(folder, config, _targets(datapoints, responses, task_of)))


async def _geval_async(folder: Path, config: BaselinesConfig, targets: list[GEvalTarget]) -> _GEvalRun:
    from assay.llm.cache import ResponseCache, cache_path
    from assay.llm.client import LLMClient
    from assay.llm.runner import count_stored, run_requests
    from assay.llm.store import RunStore

    if config.llm is None:
        raise ConfigError("geval needs the llm section (model, base_url, ...) in --config")
    settings, model = config.geval, config.llm.model
    rows = geval_rows(settings.score_max)
    where = cache_path(config.cache, folder, base_dir=config.base_dir)
    cache = None if where is None else ResponseCache(where)
    first = geval_requests(targets, settings, model, stage="logprobs") if settings.logprobs else []
    usd, calls, stopped, stored = 0.0, 0, None, 0
    notes: list[str] = []
    try:
        async with LLMClient(config.llm, cache=cache) as client:
            with RunStore(folder / BASELINES_DIR,
                          config={"geval": settings.model_dump(mode="json"), "model": model}) as store:
                if first:
                    summary = await run_requests(first, client, store, rows=rows)
                    stopped = summary.stopped
                    notes += summary.notes
                by_key = {r["response_id"]: r for r in store.records(keys=[q.key for q in first])}
                pending = [t for t in targets
                           if by_key.get(t.response_id, {}).get("how") != "logprob_expectation"]
                second = [] if stopped else geval_requests(pending, settings, model, stage="samples")
                if second:
                    summary = await run_requests(second, client, store, rows=rows,
                                                 record_plan=False)
                    stopped = summary.stopped
                    notes += summary.notes
                stored = count_stored(store, [q.key for q in (*first, *second)])
                samples: dict[str, list[dict[str, Any]]] = defaultdict(list)
                for row in store.records(keys=[q.key for q in second]):
                    samples[row["response_id"]].append(row)
            usd, calls = client.stats.spent_usd, client.stats.calls
    finally:
        if cache is not None:
            cache.close()
    out = []
    for t in targets:
        if t.response_id not in by_key and t.response_id not in samples:
            continue  # not asked yet (the run stopped)
        got = combine(by_key.get(t.response_id), samples.get(t.response_id, []), settings)
        if got["how"] == "sampled_mean" and len(samples.get(t.response_id, [])) < settings.samples \
                and stopped:
            continue  # partly sampled: a rerun finishes it
        out.append({"response_id": t.response_id, "datapoint_id": t.datapoint_id, "arm": t.arm,
                    "task": t.task, "method": "geval", **got})
    return _GEvalRun(out, usd, calls, stopped, len(first) + len(second), stored, tuple(notes))


