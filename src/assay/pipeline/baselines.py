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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from assay.data.atomic import write_text
from assay.data.cells import csv_text
from assay.data.runfolder import NATIVE_SCORES_FILE, read_part
from assay.errors import ConfigError, InputError
from assay.llm.client_config import ClientConfig
from assay.pipeline.geval import GEvalSettings, GEvalTarget, combine, geval_requests, geval_rows

if TYPE_CHECKING:
    from assay.pipeline.describe import BaselineLine

METHODS = ("bertscore", "geval")
BASELINES_JSONL = "baselines.jsonl"
BASELINES_CSV = "baselines.csv"
BASELINES_DIR = "baselines"
"""The folder inside the run folder holding G-Eval's run store."""
CSV_COLUMNS = ("method", "task", "ground_truth", "n", "estimate", "lower", "upper", "conf",
               "p_value", "interval_method", "note")
ALL_TASKS = "all"


class BertScoreSettings(BaseModel):
    """The ``bertscore`` section of a baselines config."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    model_path: str | None = None
    """A local model folder (nothing is downloaded); relative to the config's folder."""


class BaselinesConfig(BaseModel):
    """A baselines config (``assay baselines RUN --config CFG``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    methods: list[str] = Field(default_factory=lambda: list(METHODS))
    """The methods run: ``bertscore``, ``geval``."""
    llm: ClientConfig | None = None
    """G-Eval's model endpoint (an ``assay judge`` config's ``llm`` section)."""
    geval: GEvalSettings = Field(default_factory=GEvalSettings)
    bertscore: BertScoreSettings = Field(default_factory=BertScoreSettings)
    cache: str = "run"
    """Response cache: ``run`` (the run folder's ``responses.sqlite``), ``shared``, ``off`` or a path."""
    conf: float = Field(default=0.95, gt=0.0, lt=1.0)
    """Confidence level of the intervals."""
    base_dir: Path = Field(default=Path("."), exclude=True)

    @field_validator("methods", mode="before")
    @classmethod
    def _methods(cls, value: Any) -> Any:
        if isinstance(value, str):
            return parse_methods(value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return parse_methods(",".join(value))
        return value


def parse_methods(text: str) -> list[str]:
    """``bertscore,geval`` as a list, each checked.

    >>> parse_methods(" geval, bertscore ")
    ['geval', 'bertscore']
    """
    methods = [m.strip().lower() for m in text.split(",") if m.strip()]
    if not methods:
        raise ValueError("expected at least one of bertscore, geval")
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"{m!r}: expected bertscore or geval")
    return list(dict.fromkeys(methods))


def load_baselines_config(path: str | Path | None, *, data: Mapping[str, Any] | None = None,
                          base_dir: Path | None = None) -> BaselinesConfig:
    """Read a baselines config (YAML, or ``data`` already read).

    Three shapes: a baselines file (its keys checked, a typo is an error); a whole
    ``assay run`` config with a ``baselines:`` section (checked the same; the config's
    ``llm`` and ``cache`` apply when the section has none); an ``assay judge`` config
    without one (its ``llm`` and ``cache`` are read, its other keys left to it)."""
    from assay.judge.config import expand_env, read_config_text, safe_yaml

    source = "baselines config" if path is None else str(path)
    base = base_dir if base_dir is not None else Path(".") if path is None else Path(path).parent
    if data is None:
        if path is None:
            return BaselinesConfig()
        data = safe_yaml(read_config_text(path), source) or {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping with llm, geval, bertscore")
    keys = ("methods", "llm", "geval", "bertscore", "cache", "conf")
    if isinstance(data.get("baselines"), Mapping):  # a section of a whole config
        section = {**{k: data[k] for k in ("llm", "cache") if k in data}, **data["baselines"]}
        source += ": baselines"
    elif "version" in data or "judges" in data:  # an assay judge config
        section = {k: v for k, v in data.items() if k in keys}
    else:
        section = dict(data)
    llm = section.get("llm")
    if isinstance(llm, ClientConfig):  # already validated (a whole config's llm)
        section = {**expand_env({k: v for k, v in section.items() if k != "llm"}), "llm": llm}
    else:
        section = expand_env(section)
    try:
        return BaselinesConfig.model_validate({**section, "base_dir": base})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{source}: {where}: {first['msg'].removeprefix('Value error, ')}") from None


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


def as_baselines_config(config: Any) -> BaselinesConfig:
    """A :class:`BaselinesConfig` from any of the forms :func:`run_baselines` takes."""
    if isinstance(config, BaselinesConfig):
        return config
    if config is None or isinstance(config, Mapping):
        return load_baselines_config(None, data=config or {})
    if not hasattr(config, "baselines"):
        raise ConfigError(f"baselines: expected a baselines config, got {type(config).__name__}")
    data: dict[str, Any] = {"baselines": dict(config.baselines or {}),
                            "cache": getattr(config, "cache", "run")}
    if getattr(config, "llm", None) is not None:
        data["llm"] = config.llm
    return load_baselines_config(None, data=data, base_dir=getattr(config, "base_dir", None))


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
    from assay.llm.client_config import price_factor
    from assay.llm.pricing import find_price
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
    price = find_price(config.llm.prices, model)
    usd = None if price is None else price.cost(tokens_in, tokens_out) * price_factor(config.llm)
    return (BaselineLine("geval", model, len(first), len(second), tokens_in, tokens_out, usd),)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _ground_truth(folder: Path, datapoints: Mapping[str, Mapping[str, Any]],
                  responses: Sequence[Mapping[str, Any]]) -> tuple[dict[str, float | None], str]:
    native: dict[str, float | None] = {}
    metrics: set[str] = set()
    if (folder / NATIVE_SCORES_FILE).is_file():
        from assay.data.runfolder import _native_scores  # the validated reader of that file

        native = _native_scores(folder)
        for line in (folder / NATIVE_SCORES_FILE).read_text(encoding="utf-8").splitlines():
            if line.strip():
                metrics.add(str(json.loads(line).get("metric")))
    truth: dict[str, float | None] = {}
    for rec in responses:
        rid = str(rec.get("id"))
        value = native.get(rid) if rid in native else \
            datapoints.get(str(rec.get("datapoint_id")), {}).get("reference_score")
        truth[rid] = None if value is None else float(value)
    name = f"native:{'+'.join(sorted(metrics))}" if metrics else "reference_score"
    return truth, name


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


def run_targets(run_folder: str | Path) -> list[GEvalTarget]:
    """The responses of a run folder G-Eval scores (those with a text and no failure)."""
    folder = Path(run_folder)
    datapoints = {str(rec.get("id")): rec for _, _, rec in read_part(folder, "datapoints")}
    responses = [rec for _, _, rec in read_part(folder, "responses")]
    task_of = {str(r.get("id")): str(datapoints.get(str(r.get("datapoint_id")), {}).get("task")
                                     or ALL_TASKS) for r in responses}
    return _targets(datapoints, responses, task_of)


def _targets(datapoints: Mapping[str, Mapping[str, Any]], responses: Sequence[Mapping[str, Any]],
             task_of: Mapping[str, str]) -> list[GEvalTarget]:
    targets = []
    for rec in responses:
        text = rec.get("text")
        if not isinstance(text, str) or rec.get("failure_kind"):
            continue
        dp = datapoints.get(str(rec.get("datapoint_id")), {})
        targets.append(GEvalTarget(str(rec.get("id")), str(rec.get("datapoint_id")), str(rec.get("arm")),
                                   task_of.get(str(rec.get("id")), ALL_TASKS), str(dp.get("prompt") or ""),
                                   text))
    return targets


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


def _judge_scores(folder: Path, notes: list[str]) -> dict[str, dict[str, float]]:
    """``judge:NAME/CRITERION`` -> response id -> mean pointwise score over trials."""
    try:
        evaluations = read_part(folder, "evaluations")
    except InputError:  # no evaluations yet: the baselines stand alone
        notes.append("The run folder has no evaluations.jsonl: no LLM judge is compared")
        return {}
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    skipped = 0
    for _, _, ev in evaluations:
        if ev.get("opponent_response_id") or ev.get("failure_kind") or not isinstance(ev.get("scores"), dict):
            continue
        for criterion, value in ev["scores"].items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                skipped += value is not None
                continue
            sums[f"judge:{ev.get('judge')}/{criterion}"][str(ev.get("response_id"))].append(float(value))
    if skipped:
        notes.append(f"{skipped} judge scores are not numbers (labels): left out of the comparison")
    return {name: {rid: sum(v) / len(v) for rid, v in by.items()} for name, by in sorted(sums.items())}


def _store_scores(folder: Path, responses: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """The same from the run store ``assay judge`` wrote into the folder (``judgments.sqlite``).

    A row's (item, arm) is the response of that datapoint and arm, its ``run`` being the
    judge's trial, averaged; when the folder holds several runs of one datapoint and arm,
    (item, arm, run) names the response instead."""
    from assay.data.run_store import STORE_FILENAME, load_store

    if not (folder / STORE_FILENAME).is_file():
        return {}
    frame = load_store(folder).frame
    response_of = {(str(r.get("datapoint_id")), str(r.get("arm")), int(r.get("run") or 1)): str(r.get("id"))
                   for r in responses}
    one_run = len({key[:2] for key in response_of}) == len(response_of)
    keep = frame["score"].notna()
    for column in ("opponent", "failure_kind"):  # optional columns: absent means none
        if column in frame.columns:
            keep &= frame[column].isna()
    pointwise = frame[keep]
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item, arm, run, judge, criterion, score in pointwise[
            ["item", "arm", "run", "judge", "criterion", "score"]].itertuples(index=False):
        rid = response_of.get((str(item), str(arm), 1 if one_run or run != run else int(run)))
        if rid is not None:
            sums[f"judge:{judge}/{criterion}"][rid].append(float(score))
    return {name: {rid: sum(v) / len(v) for rid, v in by.items()} for name, by in sorted(sums.items())}


def _correlations(scores: Mapping[str, Mapping[str, float]], truth: Mapping[str, float | None],
                  task_of: Mapping[str, str], truth_name: str, conf: float) -> list[dict[str, Any]]:
    from assay.stats.correlation import spearman_interval

    out = []
    tasks = sorted(set(task_of.values()))
    for method, by_response in scores.items():
        groups = [(task, [r for r in by_response if task_of.get(r) == task]) for task in tasks]
        if len(tasks) > 1:
            groups.append((ALL_TASKS, list(by_response)))
        for task, ids in groups:
            pairs = [(by_response[r], truth[r]) for r in ids if truth.get(r) is not None]
            if not pairs:
                continue
            x, y = [p[0] for p in pairs], [p[1] for p in pairs]
            result = spearman_interval(x, y, conf=conf)
            note = ""
            if len(pairs) < 3:
                note = "undefined: fewer than 3 pairs"
            elif len(set(x)) == 1:
                note = "undefined: the method's scores do not vary"
            elif len(set(y)) == 1:
                note = "undefined: the ground truth does not vary"
            elif math.isnan(result.lower):
                note = "no interval: fewer than 4 pairs or |rho| = 1"
            out.append({"method": method, "task": task, "ground_truth": truth_name, "n": result.n,
                        "estimate": result.estimate, "lower": result.lower, "upper": result.upper,
                        "conf": result.conf, "p_value": result.p_value,
                        "interval_method": result.method, "note": note})
    return out
