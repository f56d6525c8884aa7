"""The answers of the systems under test (``assay generate``), through the judges' engine.

Each system answers each datapoint once: one request per (datapoint, system) with a
deterministic key, asked through the same engine as the judges (concurrency bound,
retries, the run's response cache keyed by endpoint and request, a cost limit) into a run
store of its own (``RUN/generation/judgments.sqlite``), so a rerun resumes and no answer
is paid twice. A local command (``command:``) answers through the same runner.

What it writes in the run folder, rewritten from the store after every run:

``responses.jsonl``
    One record per answer asked for and stored (the run-folder layout
    :mod:`assay.data.runfolder` and ``assay native-scores`` read): ``id``,
    ``datapoint_id``, ``arm``, ``run``, ``text``, ``failure_kind``, ``error``, ``usd``,
    ``usd_provenance``, ``tokens_in``, ``tokens_out``, ``latency_s``, ``model``. A failed
    answer has ``text: null`` and its ``failure_kind``; it is never an empty text.
``answers.jsonl``
    The good answers in the table ``assay judge`` reads (``inputs.tables``): ``item``,
    ``arm``, ``question``, ``answer``, ``task``, ``cluster``, ``reference``, the datapoint's
    ``attributes`` (JSON) and ``teacher``, and the answer's cost columns. A config with
    ``systems`` and no ``inputs`` is judged from it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.atomic import write_text
from assay.pipeline.generate._engine import CommandClient, client_config, messages, phase_cache, run_phase

if TYPE_CHECKING:
    from assay.config.steps import SystemConfig
    from assay.judge.config import AssayConfig
    from assay.llm import ChatRequest, Progress, Reply, RunSummary

GENERATION_FOLDER = "generation"
"""The sub-folder of a run folder holding the answers' run store."""
ANSWERS_FILE = "answers.jsonl"
"""The good answers, in the table ``assay judge`` reads."""
RESPONSES_FILE = "responses.jsonl"


@dataclass(frozen=True)
class SystemOutcome:
    """What one system's answers came to."""

    system: str
    endpoint: str
    planned: int
    summary: RunSummary | None
    """None for a dry run."""
    good: int = 0
    failed: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    """failure_kind -> answers stored as failed."""


@dataclass(frozen=True)
class Generation:
    """The answers of every system, and where they were written."""

    systems: list[SystemOutcome]
    datapoints: int
    paths: list[Path]
    stopped: str | None = None
    """``cost_limit`` when the cost limit stopped the phase before every answer was stored."""

    @property
    def complete(self) -> bool:
        return self.stopped is None and all(s.good + s.failed == s.planned for s in self.systems)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def system_hash(system: SystemConfig) -> str:
    """What decides a system's answers (model, endpoint, parameters, system prompt, command);
    not its price or time-out."""
    from assay.llm import config_hash

    return config_hash(system.model_dump(mode="json", include={"model", "base_url", "params",
                                                              "system_prompt", "command"}))


def answer_requests(system: SystemConfig, datapoints: list[Mapping[str, Any]]) -> list[ChatRequest]:
    """One request per datapoint for ``system``, keyed by system, datapoint and prompt."""
    from assay.llm import ChatRequest, judgment_key

    digest = system_hash(system)
    out = []
    for point in datapoints:
        asked = messages(system, str(point["prompt"]))
        key = judgment_key(digest, str(point["id"]), (system.name,), "answer", 1, judge="generate",
                           prompt_hash=_sha(json.dumps(asked)))
        out.append(ChatRequest(key=key, messages=asked, meta={
            "item": str(point["id"]), "arm": system.name, "task": point.get("task"),
            "cluster": point.get("cluster")}))
    return out


def _answer_rows(request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
    return [{**request.meta, "key": request.key, "text": reply.text if reply.ok else None,
             "failure_kind": reply.failure_kind, "error": reply.error, "tokens_in": reply.tokens_in,
             "tokens_out": reply.tokens_out, "usd": reply.usd, "usd_provenance": reply.usd_provenance,
             "latency_s": reply.latency_s, "model": reply.model}]


class _NoEmptyAnswers:
    """A client whose good reply with no text (empty or blank) becomes a failed one (through
    :meth:`complete`; with ``transport: batch`` through the client's ``settle``)."""

    def __init__(self, client: Any) -> None:
        self.client, self.config, self.stats = client, client.config, client.stats
        self.prefetch = getattr(client, "prefetch", None)

    def __getattr__(self, name: str) -> Any:
        """Everything else is the wrapped client's: ``transport: batch`` asks it for cached
        replies and settles the batch's results through it (its ``settle`` turns an empty
        free-text reply into a failed one, as :meth:`complete` does here)."""
        if name == "client":
            raise AttributeError(name)
        return getattr(self.client, name)

    async def __aenter__(self) -> _NoEmptyAnswers:
        await self.client.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.__aexit__(*exc)

    async def complete(self, request: ChatRequest) -> Reply:
        reply = await self.client.complete(request)
        if reply.ok and not (reply.text or "").strip():
            reply = dataclasses.replace(reply, failure_kind="api_error",
                                        error="the system answered with no text")
        return reply


def system_problems(config: AssayConfig, *, credentials: bool = True) -> list[str]:
    """What stops a system from answering, one line each naming it (a key not set, a price
    missing under a cost limit, a variable a command's ``env`` names not set), found before any
    system is asked; without ``credentials``, all but a missing key (a dry run or a
    description sends nothing and needs none)."""
    import os

    from assay.llm import client_problems

    return [f"systems[{index}] ({system.name}): {problem}"
            for index, system in enumerate(config.systems)
            for problem in (client_problems(client_config(system, config.llm), credentials=credentials)
                            if system.command is None
                            else [f"env: environment variable {name} is not set" for name in system.env
                                  if name not in os.environ])]


def system_credentials(config: AssayConfig) -> list[str]:
    """The keys the systems need that the environment lacks, one line each naming the system
    (what a run refuses with; a dry run says them as notes)."""
    from assay.llm.client_config import credential_problems

    return [f"systems[{index}] ({system.name}): {problem}"
            for index, system in enumerate(config.systems) if system.command is None
            for problem in credential_problems(client_config(system, config.llm))]


def generate_answers(config: AssayConfig, run: Path, datapoints: list[Mapping[str, Any]], *,
                     cache: str | None = None, retry_failed: bool = False, dry_run: bool = False,
                     progress: Callable[[str, Progress], None] | None = None) -> Generation:
    """Have every system of ``config`` answer ``datapoints`` into the run folder ``run``.

    The caller holds the run folder's lock. Every system is checked first (its key set, a
    price under a cost limit: :func:`system_problems`), so none is asked when one cannot be.
    Systems are asked one after the other, each at the ``llm`` section's concurrency; once
    the cost limit (the ``llm`` section's, for the whole phase) is spent no new request
    starts. ``dry_run`` counts what would be
    asked and sends nothing.
    """
    from assay.llm import LLMClient, RunStore

    plans = [(system, answer_requests(system, datapoints)) for system in config.systems]
    folder = Path(run) / GENERATION_FOLDER
    problems = system_problems(config, credentials=not dry_run)
    if problems:
        from assay.errors import ConfigError

        raise ConfigError("; ".join(problems))
    if dry_run:
        stored: dict[str, bool] = {}
        if (folder / "judgments.sqlite").is_file():
            with RunStore(folder) as store:
                stored = store.status()
        return Generation([SystemOutcome(s.name, s.endpoint, len(r), None,
                                         good=sum(stored.get(q.key) is False for q in r),
                                         failed=sum(stored.get(q.key) is True for q in r))
                           for s, r in plans], len(datapoints), [])
    where = phase_cache(cache or config.cache, Path(run), config.base_dir)
    outcomes: list[SystemOutcome] = []
    spent, stopped = 0.0, None
    frozen = {"generate": [s.model_dump(mode="json", exclude={"price", "timeout_s"}) for s in config.systems]}
    with RunStore(folder, config=frozen) as store:
        store.set_plan([q.key for _, requests in plans for q in requests])
        for system, requests in plans:
            if stopped is not None:
                outcomes.append(SystemOutcome(system.name, system.endpoint, len(requests), None))
                continue
            if system.command is not None:
                concurrency = config.llm.max_concurrency if config.llm is not None else 4

                def make(_cache: Any, system: SystemConfig = system, n: int = concurrency) -> Any:
                    return _NoEmptyAnswers(CommandClient(system, cwd=config.base_dir, max_concurrency=n))
            else:
                settings = client_config(system, config.llm, spent_usd=spent)

                def make(responses: Any, settings: Any = settings) -> Any:
                    return _NoEmptyAnswers(LLMClient(settings, cache=responses))
            summary = run_phase(requests, make, store, rows=_answer_rows, cache=where,
                                retry_failed=retry_failed,
                                progress=None if progress is None else
                                (lambda p, name=system.name: progress(name, p)))
            spent += summary.usd
            stopped = stopped or summary.stopped
            outcomes.append(SystemOutcome(system.name, system.endpoint, len(requests), summary))
        rows = {row["key"]: row for row in store.records()}
    outcomes = [_counted(o, [rows[q.key] for q in requests if q.key in rows])
                for o, (_, requests) in zip(outcomes, plans, strict=True)]
    paths = write_answers(Path(run), datapoints, [rows[q.key] for _, requests in plans
                                                  for q in requests if q.key in rows])
    return Generation(outcomes, len(datapoints), paths, stopped=stopped)


def _counted(outcome: SystemOutcome, rows: list[dict[str, Any]]) -> SystemOutcome:
    failures: dict[str, int] = {}
    for row in rows:
        if row.get("failure_kind"):
            failures[row["failure_kind"]] = failures.get(row["failure_kind"], 0) + 1
    failed = sum(failures.values())
    return dataclasses.replace(outcome, good=len(rows) - failed, failed=failed, failures=failures)


_COST = ("usd", "usd_provenance", "tokens_in", "tokens_out", "latency_s")


def write_answers(run: Path, datapoints: list[Mapping[str, Any]], rows: list[dict[str, Any]]) -> list[Path]:
    """``responses.jsonl`` (every stored answer, failed ones with no text) and
    ``answers.jsonl`` (the good ones, as ``assay judge`` reads them) in ``run``."""
    points = {str(p["id"]): p for p in datapoints}
    responses, answers = [], []
    for row in rows:
        item, arm = str(row["item"]), str(row["arm"])
        responses.append({"id": f"{item}:{arm}", "datapoint_id": item, "arm": arm, "run": 1,
                          "text": row.get("text"), "failure_kind": row.get("failure_kind"),
                          "error": row.get("error"), "model": row.get("model"),
                          **{c: row.get(c) for c in _COST}})
        if row.get("failure_kind") or row.get("text") is None:
            continue
        point = points[item]
        answer = {"item": item, "arm": arm, "question": point["prompt"], "answer": row["text"],
                  "task": point.get("task"), "cluster": point.get("cluster"),
                  **{c: row[c] for c in _COST if row.get(c) is not None}}
        if point.get("reference") is not None:
            answer["reference"] = point["reference"]
        if point.get("attributes"):  # the strata, for the coverage report
            answer["attributes"] = json.dumps(point["attributes"], sort_keys=True, ensure_ascii=False)
        if point.get("teacher"):
            answer["teacher"] = point["teacher"]
        answers.append({k: v for k, v in answer.items() if v is not None})

    def lines(records: list[dict[str, Any]]) -> str:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)

    return [write_text(run / RESPONSES_FILE, lines(responses)),
            write_text(run / ANSWERS_FILE, lines(answers))]


def generated_inputs(config: AssayConfig, run: Path) -> AssayConfig:
    """``config`` reading its answers from the run folder's ``answers.jsonl`` when it declares
    systems and its ``inputs`` names no answers (``assay judge`` on a generated run)."""
    spec = config.inputs
    if not config.systems or spec.methods or spec.tables or spec.jsonl:
        return config
    table = (Path(run) / ANSWERS_FILE).resolve()
    if not table.is_file():
        from assay.errors import ConfigError

        raise ConfigError(f"inputs: {table} does not exist: the config's systems have not answered "
                          f"yet (run assay generate CONFIG --out {run} first, or assay run)")
    return config.model_copy(update={"inputs": spec.model_copy(update={"tables": [table]})})
