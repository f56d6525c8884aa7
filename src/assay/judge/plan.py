"""From a config to the work of a run: the requests of every judge, the plan, and the run itself.

:func:`build_plan` builds each judge of the config and its requests (a
:class:`JudgePlan` each); :meth:`Plan.lines` is the ``--dry-run`` plan (calls per judge,
estimated tokens and cost); :func:`execute` runs it into a run folder: offline judges
answered locally, the others through the engine (:func:`~assay.judge.run_requests`),
everything in one :class:`~assay.judge.RunStore` whose plan is the union of the keys, so a
rerun resumes and an export shows exactly this config's judgments.

Two stages. A judge with ``followups(inputs, rows, verdicts)`` (STAGED hierarchical
assertions, differential pairwise) has a second stage built from its first stage's
results: :func:`execute` runs every judge's first stage, then builds the second stage
from what the store holds (the first stage's rows, and its good verdicts keyed by
judgment key) and runs it. The second stage is built the same way before anything is
sent, so a rerun of a finished run sends nothing, and one killed during either stage
resumes where it stopped; the store's plan always lists the second-stage keys known.

After a run, :func:`assay.judge.qed_files.write_qed_csvs` writes BenchmarkQED's pairwise,
differential and reference CSVs and :func:`~assay.judge.qed_files.write_assertion_csvs` the
assertion summaries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.schema import Scale
from assay.errors import ConfigError, did_you_mean
from assay.judge._readable import check_readable
from assay.judge.inputs import with_retrieval
from assay.judge.judges import Judge, JudgeInputs, OfflineJudge
from assay.llm import (
    ChatRequest,
    Progress,
    Reply,
    RunStore,
    RunSummary,
    estimate_tokens,
    run_requests,
)
from assay.llm.client_config import listed_cost

if TYPE_CHECKING:
    from assay.judge.config import AssayConfig

REPLY_TOKENS_ESTIMATE = 250
"""Completion tokens assumed per call in the ``--dry-run`` estimate (a reasoning paragraph and a verdict)."""


@dataclass(frozen=True)
class PlanLine:
    """One judge's share of a plan (a line of ``--dry-run``)."""

    judge: str
    kind: str
    model: str | None
    """The model called; None for an offline judge."""
    calls: int
    """Judgments (calls when nothing is cached or stored)."""
    pending: int | None
    """Of ``calls``, those the run folder does not hold yet (None without a run folder)."""
    tokens_in: int
    """Estimated prompt tokens of the pending calls."""
    tokens_out: int
    """Estimated completion tokens of the pending calls."""
    usd: float | None
    """Estimated cost of the pending calls; None when the model has no price."""
    followups: int = 0
    """Second-stage calls at most: those built from the stored first stage, plus, for the
    first-stage calls still pending, as many as they could let through; the pending ones
    are in ``tokens_*`` and ``usd``."""


@dataclass(frozen=True)
class JudgePlan:
    """A judge and its requests."""

    judge: Judge
    kind: str
    requests: list[ChatRequest]
    followups: list[ChatRequest] = field(default_factory=list)
    """Second-stage requests, built from the first stage's results (:meth:`Plan.set_followups`)."""

    @property
    def offline(self) -> bool:
        return isinstance(self.judge, OfflineJudge) and hasattr(self.judge, "answer")

    @property
    def staged(self) -> bool:
        """Whether the judge has a second stage (``followups``)."""
        return hasattr(self.judge, "followups")

    def max_followups(self) -> int:
        """Second-stage calls at most."""
        return int(getattr(self.judge, "max_followups", lambda first: 0)(self.requests)) if self.staged else 0


@dataclass(frozen=True)
class Plan:
    """Every judge of a config with its requests."""

    judges: list[JudgePlan]
    config: AssayConfig
    inputs: JudgeInputs | None = None
    """What the judges read (a second stage is built from it)."""
    readable_digest: str | None = None
    """The digest of the row shapes the readability check read and accepted (None: it read
    none, or found them in its memo): ``assay judge`` remembers it in the cache after the run."""
    _owner: dict[str, Judge] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for part in self.judges:
            for request in part.requests:
                if request.key in self._owner:
                    raise ConfigError(
                        f"judges: judge {part.judge.name} asks for a judgment another judge "
                        "asks for too (same key): give one a label"
                    )
                self._owner[request.key] = part.judge

    @property
    def keys(self) -> list[str]:
        """Every key: the first stage's, then the second stage's known so far."""
        return [r.key for part in self.judges for r in (*part.requests, *part.followups)]

    def set_followups(self, part: JudgePlan, requests: Sequence[ChatRequest]) -> None:
        """Replace the second-stage requests of ``part`` (and who owns their keys)."""
        for request in part.followups:
            if self._owner.get(request.key) is part.judge:
                del self._owner[request.key]
        for request in requests:
            owner = self._owner.get(request.key)
            if owner is not None and owner is not part.judge:
                raise ConfigError(
                    f"judges: judge {part.judge.name} asks for a judgment another judge "
                    "asks for too (same key): give one a label"
                )
            self._owner[request.key] = part.judge
        part.followups[:] = list(requests)

    def scales(self) -> dict[str, Scale]:
        out: dict[str, Scale] = {}
        for part in self.judges:
            for criterion, scale in part.judge.scales().items():
                if criterion in out and out[criterion] != scale:
                    raise ConfigError(
                        f"judges: criterion {criterion!r} is declared with two scales "
                        f"({out[criterion].spelling()} and {scale.spelling()})"
                    )
                out[criterion] = scale
        return out

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """The rows of a judgment, built by the judge that asked for it."""
        return self._owner[request.key].rows(request, reply)

    def lines(self, stored: Mapping[str, bool] | None = None) -> list[PlanLine]:
        """Calls per judge, and estimated tokens and cost of those not stored yet."""
        llm = self.config.llm
        out = []
        for part in self.judges:
            pending = [r for r in part.requests if stored is None or r.key not in stored]
            if part.offline:
                out.append(
                    PlanLine(
                        part.judge.name,
                        part.kind,
                        None,
                        len(part.requests),
                        None if stored is None else len(pending),
                        0,
                        0,
                        0.0,
                    )
                )
                continue
            tokens_in = sum(estimate_tokens("".join(text for _, text in r.messages)) for r in pending)
            tokens_out = REPLY_TOKENS_ESTIMATE * len(pending)
            # second stage: what is built (from the stored first stage) and not stored, plus at
            # most max_followups' share for the first-stage calls still pending
            share = round(part.max_followups() * len(pending) / max(1, len(part.requests)))
            at_most = len(part.followups) + share
            if at_most:
                later = share + sum(1 for r in part.followups if stored is None or r.key not in stored)
                per_call = sum(estimate_tokens("".join(t for _, t in r.messages)) for r in part.requests)
                tokens_in += round(later * per_call / max(1, len(part.requests)))
                tokens_out += REPLY_TOKENS_ESTIMATE * later
            models = {r.model for r in part.requests} or {None}
            usd = None if llm is None else listed_cost(llm, tokens_in, tokens_out, *models, llm.model)
            out.append(
                PlanLine(
                    part.judge.name,
                    part.kind,
                    next(iter(models)),
                    len(part.requests),
                    None if stored is None else len(pending),
                    tokens_in,
                    tokens_out,
                    usd,
                    at_most,
                )
            )
        return out


def build_plan(config: AssayConfig, inputs: JudgeInputs, *, memo: Path | None = None) -> Plan:
    """Build every judge of ``config`` and its first-stage requests over ``inputs``.

    The retrieval results of ``config.inputs.retrieval_path`` are read into the inputs
    (:func:`~assay.judge.inputs.with_retrieval`) when ``inputs`` holds none. ``memo`` is the
    file of the readability check's memo (:func:`~assay.judge._readable.check_readable`;
    None: none, every plan is read).

    Raises
    ------
    ConfigError
        A judge names an arm with no answers, two judges collide, or a criterion has two scales.
    """
    if not inputs.retrieval:
        inputs = with_retrieval(config, inputs)
    parts = []
    for index, (settings, judge) in enumerate(zip(config.judges, config.build_judges(), strict=True)):
        try:
            requests = judge.requests(inputs)
        except ValueError as exc:
            raise ConfigError(f"judges[{index}]: {exc}") from None
        parts.append(JudgePlan(judge=judge, kind=settings.kind, requests=requests))
    plan = Plan(judges=parts, config=config, inputs=inputs)
    # set on the plan made here (dataclasses.replace would run __post_init__ on its filled _owner)
    object.__setattr__(plan, "readable_digest", check_readable(plan, memo=memo))
    return plan


def select_judges(plan: Plan, names: list[str]) -> Plan:
    """``plan`` with only the judges named (``--judges``), in the config's order.

    A name selects a judge by its full name (``gpt-4.1/rubric``, as ``--dry-run`` lists it),
    by its label (``rubric``, the part after the model) or by its kind (``pairwise``).

    Raises
    ------
    ConfigError
        No name given, or a name that selects no judge (with the closest one).
    """
    def handles(part: JudgePlan) -> set[str]:
        return {part.judge.name, part.judge.name.rsplit("/", 1)[-1], part.kind}

    known = [part.judge.name for part in plan.judges]
    if not names:
        raise ConfigError(f"--judges: name at least one judge ({', '.join(known)})")
    every = set().union(*(handles(part) for part in plan.judges))
    for name in names:
        if name not in every:
            raise ConfigError(f"--judges {name}: no judge of that name, label or kind in the config "
                              f"(judges: {', '.join(known)}){did_you_mean(name, sorted(every))}")
    return Plan(judges=[part for part in plan.judges if handles(part) & set(names)],
                config=plan.config, inputs=plan.inputs)


def online_models(plan: Plan) -> list[str]:
    """The models the LLM judges of ``plan`` call (their own, else the ``llm`` section's)."""
    llm = plan.config.llm
    models = [r.model or (llm.model if llm is not None else "") for part in plan.judges if not part.offline
              for r in part.requests]
    return [m for m in dict.fromkeys(models) if m]


def preflight(plan: Plan, *, credentials: bool = True) -> list[str]:
    """Every problem that would stop ``plan`` from running, one line each (empty when none).

    What :func:`execute` checks before it writes anything, and ``assay judge --dry-run``
    checks without sending anything: the API key's environment variable is set (unless
    ``credentials`` is False: a dry run or a description needs no key, and names a missing
    one with :func:`missing_credentials`), and, with a cost limit, every model called has a
    price. (Inputs and prompts were checked when the plan was built.)
    """
    from assay.llm.client_config import client_problems

    llm = plan.config.llm
    if llm is None or not any(part.requests for part in plan.judges if not part.offline):
        return []
    return client_problems(llm, online_models(plan), credentials=credentials)


def missing_credentials(plan: Plan) -> list[str]:
    """The credentials a run of ``plan`` needs that the environment lacks (the API key's
    variable), one line each, in the words the run refuses with."""
    from assay.llm.client_config import credential_problems

    llm = plan.config.llm
    if llm is None or not any(part.requests for part in plan.judges if not part.offline):
        return []
    return credential_problems(llm)


def build_followups(plan: Plan, store: RunStore) -> int:
    """(Re)build every second stage from what ``store`` holds of the first; return its size.

    STAGED hierarchical judges read the first stage's rows, differential judges its good
    verdicts; a judge whose first stage is not stored yet gets the part it can build.
    """
    if plan.inputs is None:
        return 0
    total = 0
    for part in plan.judges:
        if not part.staged:
            continue
        keys = [r.key for r in part.requests]
        rows = store.records(keys=keys)
        verdicts = store.verdicts(keys)
        judge: Any = part.judge
        plan.set_followups(part, judge.followups(plan.inputs, rows, verdicts))
        total += len(part.followups)
    return total


async def execute(
    plan: Plan,
    out: str | Path,
    *,
    retry_failed: bool = False,
    progress: Callable[[Progress], None] | None = None,
    client_factory: Callable[[], Any] | None = None,
    cache: str | None = None,
    max_failures: int | None = None,
) -> RunSummary:
    """Run a plan into the run folder ``out`` (created); a rerun resumes.

    The run holds the folder's lock (:class:`~assay.llm.lock.RunLock`) throughout.
    Offline judges are answered first, locally; the others go through one
    :class:`~assay.judge.LLMClient` (built by ``client_factory``, default from the config's
    ``llm`` section and response cache): every judge's first stage, then the second stages
    built from it (see the module docstring; ``progress`` starts again for that stage).
    Returns the engine's summary of both stages, with the offline judgments counted in
    ``done``; ``planned`` counts the second stage as built, ``stored`` the planned
    judgments the store holds at the end, and ``notes`` are the lock's and every stage's.

    Parameters
    ----------
    cache
        Where the response cache is: ``run``, ``shared``, ``off`` or a file path
        (:func:`~assay.llm.cache.cache_path`); None for the config's ``cache``.
    max_failures
        Stop once this many judgments of this run have failed (``stopped="max_failures"``).

    Raises
    ------
    ConfigError
        :func:`preflight` found a problem (nothing is written then).
    RunFolderLocked
        Another process is judging into ``out``.
    """
    from assay.llm import ResponseCache, RunLock, cache_path

    config = plan.config
    if client_factory is None:
        problems = preflight(plan)
        if problems:
            raise ConfigError("; ".join(problems))
    with RunLock(out) as lock, RunStore(out, config=config.frozen()) as store:
        store.set_scales(plan.scales())
        build_followups(plan, store)
        store.set_plan(plan.keys)
        # what is stored, read only for the offline judges (run_requests reads its own)
        status = store.status() if any(part.offline for part in plan.judges) else {}
        offline_done = 0
        for part in plan.judges:
            if not part.offline:
                continue
            judge: Any = part.judge
            for request in part.requests:
                if request.key in status and not (retry_failed and status[request.key]):
                    continue
                reply = judge.answer(request)
                store.put(request, reply, judge.rows(request, reply), commit=False)
                offline_done += 1
        store.commit()
        online: Sequence[ChatRequest] = [r for part in plan.judges if not part.offline for r in part.requests]
        skipped_offline = sum(len(p.requests) for p in plan.judges if p.offline) - offline_done
        summaries: list[RunSummary] = []
        if online:
            if client_factory is None:
                from assay.llm import LLMClient

                if config.llm is None:
                    raise ConfigError("llm: the LLM judges need the llm section")
                where = cache_path(config.cache if cache is None else cache, out, base_dir=config.base_dir)
                responses = None if where is None else ResponseCache(where)
                try:
                    client = LLMClient(config.llm, cache=responses)
                except BaseException:
                    if responses is not None:
                        responses.close()
                    raise
            else:
                responses, client = None, client_factory()
            try:
                async with client:
                    summaries.append(await run_requests(
                        online, client, store, rows=plan.rows, retry_failed=retry_failed,
                        progress=progress, record_plan=False, max_failures=max_failures))
                    if summaries[0].stopped is None and any(p.staged for p in plan.judges):
                        build_followups(plan, store)
                        store.set_plan(plan.keys)
                        second = [r for part in plan.judges for r in part.followups]
                        if second:
                            left = None if max_failures is None else max_failures - summaries[0].failed
                            summaries.append(await run_requests(
                                second, client, store, rows=plan.rows, retry_failed=retry_failed,
                                progress=progress, record_plan=False,
                                max_failures=None if left is None else max(1, left)))
            finally:
                if responses is not None:
                    responses.close()
        status = store.status()
        failed_stored = sum(1 for key in plan.keys if status.get(key))
        stored = sum(1 for key in plan.keys if key in status)
    return RunSummary.total(
        summaries, planned=len(plan.keys), skipped=skipped_offline, done=offline_done,
        stopped=next((x.stopped for x in summaries if x.stopped is not None), None),
        failed_stored=failed_stored, stored=stored,
        notes=((lock.note,) if lock.note else ()) + tuple(n for x in summaries for n in x.notes))
