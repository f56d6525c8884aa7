"""From a config to the work of a run: the requests of every judge, the plan, and the run itself.

:func:`build_plan` builds each judge of the config and its requests (a
:class:`JudgePlan` each); :meth:`Plan.lines` is the ``--dry-run`` plan (calls per judge,
estimated tokens and cost); :func:`execute` runs it into a run folder: offline judges
answered locally, the others through the engine (:func:`~assay.judge.run_requests`),
everything in one :class:`~assay.judge.RunStore` whose plan is the union of the keys, so a
rerun resumes and an export shows exactly this config's judgments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.schema import Scale
from assay.errors import ConfigError
from assay.judge._protocol import Judge, JudgeInputs, OfflineJudge
from assay.judge._types import ChatRequest, Reply
from assay.judge.pricing import estimate_tokens, find_price
from assay.judge.runner import Progress, RunSummary, run_requests
from assay.judge.store import RunStore

if TYPE_CHECKING:
    from assay.config import AssayConfig

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


@dataclass(frozen=True)
class JudgePlan:
    """A judge and its requests."""

    judge: Judge
    kind: str
    requests: list[ChatRequest]

    @property
    def offline(self) -> bool:
        return isinstance(self.judge, OfflineJudge) and hasattr(self.judge, "answer")


@dataclass(frozen=True)
class Plan:
    """Every judge of a config with its requests."""

    judges: list[JudgePlan]
    config: AssayConfig
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
        return [r.key for part in self.judges for r in part.requests]

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
            models = {r.model for r in part.requests} or {None}
            price = None if llm is None else find_price(llm.prices, *models, llm.model)
            usd = None if price is None else price.cost(tokens_in, tokens_out)
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
                )
            )
        return out


def build_plan(config: AssayConfig, inputs: JudgeInputs) -> Plan:
    """Build every judge of ``config`` and its requests over ``inputs``.

    Raises
    ------
    ConfigError
        A judge names an arm with no answers, two judges collide, or a criterion has two scales.
    """
    parts = []
    for index, (settings, judge) in enumerate(zip(config.judges, config.build_judges(), strict=True)):
        try:
            requests = judge.requests(inputs)
        except ValueError as exc:
            raise ConfigError(f"judges[{index}]: {exc}") from None
        parts.append(JudgePlan(judge=judge, kind=settings.kind, requests=requests))
    plan = Plan(judges=parts, config=config)
    plan.scales()
    return plan


async def execute(
    plan: Plan,
    out: str | Path,
    *,
    retry_failed: bool = False,
    progress: Callable[[Progress], None] | None = None,
    client_factory: Callable[[], Any] | None = None,
) -> RunSummary:
    """Run a plan into the run folder ``out`` (created); a rerun resumes.

    Offline judges are answered first, locally; the others go through one
    :class:`~assay.judge.LLMClient` (built by ``client_factory``, default from the config's
    ``llm`` section and response cache). Returns the engine's summary, with the offline
    judgments counted in ``done``.
    """
    from assay.judge.cache import ResponseCache, default_cache_path

    config = plan.config
    with RunStore(out, config=config.frozen()) as store:
        store.set_scales(plan.scales())
        store.set_plan(plan.keys)
        status = store.status()
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
        if not online:
            return RunSummary(
                planned=len(plan.keys),
                skipped=skipped_offline,
                done=offline_done,
                failed=0,
                cached=0,
                calls=0,
                usd=0.0,
                elapsed_s=0.0,
                stopped=None,
            )
        if client_factory is None:
            from assay.judge.client import LLMClient

            if config.llm is None:
                raise ConfigError("llm: the LLM judges need the llm section")
            cache = ResponseCache(
                config.path(config.cache) if config.cache is not None else default_cache_path()
            )
            try:
                client = LLMClient(config.llm, cache=cache)
            except BaseException:
                cache.close()
                raise
        else:
            cache, client = None, client_factory()
        try:
            async with client:
                summary = await run_requests(
                    online,
                    client,
                    store,
                    rows=plan.rows,
                    retry_failed=retry_failed,
                    progress=progress,
                    record_plan=False,
                )
        finally:
            if cache is not None:
                cache.close()
    return RunSummary(
        planned=len(plan.keys),
        skipped=summary.skipped + skipped_offline,
        done=summary.done + offline_done,
        failed=summary.failed,
        cached=summary.cached,
        calls=summary.calls,
        usd=summary.usd,
        elapsed_s=summary.elapsed_s,
        stopped=summary.stopped,
    )


def write_seed_csvs(plan: Plan, inputs: JudgeInputs, folder: str | Path) -> list[Path]:
    """Write seed 004's CSVs from the stored judgments of the plan's pairwise and reference judges.

    ``win_rates.csv``: score_id, question, criteria, ``{base}_score``, ``{other}_score``,
    reasoning, trial, base_name, other_name, question_set, judge (one file for all pairs, so
    the score columns of arms not in a row's pair are empty). ``reference_scores.csv``:
    score_id, question, criteria, score, reasoning, trial, reference, generated,
    question_set, judge; ``reference_scores_summary.csv``: question_set, criteria,
    reference, generated, judge, mean, std (sample SD, ddof = 1, as pandas). Failed
    judgments are left out (they have no score). The score_id is the judgment key.
    Returns the files written.
    """
    import pandas as pd

    folder = Path(folder)
    with RunStore(folder) as store:
        records = store.records()
    index: dict[tuple[Any, ...], str] = {}
    for part in plan.judges:
        for r in part.requests:
            m = r.meta
            index[
                (
                    m.get("judge"),
                    m.get("item"),
                    m.get("arm"),
                    m.get("opponent"),
                    m.get("run"),
                    m.get("criterion"),
                )
            ] = r.key
            index.setdefault(
                (m.get("judge"), m.get("item"), m.get("arm"), m.get("opponent"), m.get("run"), None), r.key
            )
    kinds = {part.judge.name: part for part in plan.judges}
    question = {item: a.question for answers in inputs.answers.values() for item, a in answers.items()}
    pairwise, reference = [], []
    for row in records:
        part = kinds.get(row.get("judge"))
        if part is None or row.get("score") is None:
            continue
        lookup = (row.get("judge"), row.get("item"), row.get("arm"), row.get("opponent"), row.get("run"))
        score_id = index.get((*lookup, row.get("criterion"))) or index.get((*lookup, None))
        common = {
            "score_id": score_id,
            "question": question.get(row["item"], ""),
            "criteria": row["criterion"],
        }
        if part.kind == "pairwise":
            pairwise.append(
                {
                    **common,
                    f"{row['arm']}_score": row["score"],
                    f"{row['opponent']}_score": 1.0 - float(row["score"]),
                    "reasoning": row.get("reasoning"),
                    "trial": row["run"],
                    "base_name": row["arm"],
                    "other_name": row["opponent"],
                    "question_set": row.get("task"),
                    "judge": row["judge"],
                }
            )
        elif part.kind == "reference":
            settings: Any = part.judge
            reference.append(
                {
                    **common,
                    "score": row["score"],
                    "reasoning": row.get("reasoning"),
                    "trial": row["run"],
                    "reference": settings.settings.reference,
                    "generated": row["arm"],
                    "question_set": row.get("task"),
                    "judge": row["judge"],
                }
            )
    written = []
    if pairwise:
        path = folder / "win_rates.csv"
        pd.DataFrame(pairwise).to_csv(path, index=False)
        written.append(path)
    if reference:
        frame = pd.DataFrame(reference)
        path = folder / "reference_scores.csv"
        frame.to_csv(path, index=False)
        keys = ["question_set", "criteria", "reference", "generated", "judge"]
        summary = (
            frame.assign(question_set=frame["question_set"].fillna(""))
            .groupby(keys, sort=False)["score"]
            .agg(["mean", "std"])
            .reset_index()
        )
        summary.to_csv(folder / "reference_scores_summary.csv", index=False)
        written += [path, folder / "reference_scores_summary.csv"]
    return written
