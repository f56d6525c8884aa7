"""A plan before money: what a config will send, to which models, for how much and how long.

:func:`describe_plan` reads a :class:`~assay.judge.plan.Plan` (built exactly as ``assay
judge`` builds it, so every check of the run has passed) and returns a
:class:`PlanDescription`: the inputs (systems, items), each judge's calls with estimated
tokens and cost, the totals per model, the LLM baselines' calls (G-Eval, a ``baselines:``
section), and the wall time at the configured concurrency.
It computes; ``assay.report.text.plan`` and ``assay.report.html.plan`` format it.

Every estimate is named as one: tokens are ~4 characters a token in and
:data:`~assay.judge.plan.REPLY_TOKENS_ESTIMATE` out a call, a model without a price has an
unknown cost (never $0), and the time assumes ``seconds_per_call`` a request with
``max_concurrency`` in flight.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.judge.plan import Plan, PlanLine

DEFAULT_SECONDS_PER_CALL = 3.0
"""Assumed wall time of one request when none is given (a judge reply of ~250 tokens)."""


@dataclass(frozen=True)
class ModelTotal:
    """The calls a plan makes to one model."""

    model: str
    calls: int
    tokens_in: int
    tokens_out: int
    usd: float | None
    """Estimated cost; None when the model has no price in the config."""


@dataclass(frozen=True)
class GenerationLine:
    """The calls of the generation phase to one system (or the teacher), not yet stored."""

    phase: str
    """``teacher`` (the datapoints) or ``answers`` (a system under test)."""
    name: str
    """The system, or ``teacher``."""
    model: str
    """The model, or ``command: ...`` for a local command."""
    calls: int
    tokens_in: int
    tokens_out: int
    usd: float | None
    """Estimated cost; None when the model has no price; 0 for a local command."""


@dataclass(frozen=True)
class BaselineLine:
    """The calls of one LLM baseline (G-Eval) of the config's ``baselines:`` section, not yet
    stored, over every answer judged."""

    method: str
    model: str
    calls: int
    """First-stage calls (G-Eval: one logprob call per answer; ``samples`` per answer when
    logprobs are off)."""
    followups: int
    """Second-stage calls at most (G-Eval: ``samples`` per answer whose endpoint returns no
    logprobs)."""
    tokens_in: int
    tokens_out: int
    """Estimated tokens of every call, second stage included (at most)."""
    usd: float | None
    """Estimated cost of those calls (at most); None when the model has no price."""


@dataclass(frozen=True)
class PlanDescription:
    """What a config will do, estimated before anything is sent."""

    config: str
    """The config file, as given."""
    systems: tuple[str, ...]
    """The systems (arms) whose answers are judged."""
    items: int
    """Distinct items answered, over every system."""
    answers: int
    """Answers to judge (system x item)."""
    judges: tuple[PlanLine, ...]
    models: tuple[ModelTotal, ...]
    max_concurrency: int
    seconds_per_call: float
    cost_limit_usd: float | None
    generation: tuple[GenerationLine, ...] = ()
    """The generation phase (a teacher's items, the systems' answers) when the config has one."""
    batch_discount: float | None = None
    """The share taken off the listed prices with ``transport: batch`` (the costs above are
    already discounted); None for the other transports."""
    baselines: tuple[BaselineLine, ...] = ()
    """The LLM baselines' calls (G-Eval) when the config has a ``baselines:`` section."""

    @property
    def calls(self) -> int:
        """Every planned call (first stage, and second-stage calls at most; the generation
        phase's and the baselines' too)."""
        return (sum(line.calls + line.followups for line in self.judges if line.model is not None)
                + sum(g.calls for g in self.generation)
                + sum(b.calls + b.followups for b in self.baselines))

    @property
    def offline(self) -> int:
        """Judgments answered locally (metric judges): no call, no cost."""
        return sum(line.calls for line in self.judges if line.model is None)

    @property
    def tokens_in(self) -> int:
        return (sum(m.tokens_in for m in self.models) + sum(g.tokens_in for g in self.generation)
                + sum(b.tokens_in for b in self.baselines))

    @property
    def tokens_out(self) -> int:
        return (sum(m.tokens_out for m in self.models) + sum(g.tokens_out for g in self.generation)
                + sum(b.tokens_out for b in self.baselines))

    def _costs(self) -> list[tuple[str, float | None]]:
        return [(m.model, m.usd) for m in self.models] + [
            (g.model, g.usd) for g in self.generation if g.calls] + [
            (b.model, b.usd) for b in self.baselines if b.calls + b.followups]

    @property
    def usd(self) -> float | None:
        """Estimated total cost; None when a model without a price is called."""
        costs = [c for _, c in self._costs()]
        return None if any(c is None for c in costs) else float(sum(c for c in costs if c is not None))

    @property
    def usd_known(self) -> float:
        """The estimated cost of the models that have a price."""
        return float(sum(c for _, c in self._costs() if c is not None))

    @property
    def unpriced(self) -> tuple[str, ...]:
        """Models called without a price."""
        return tuple(dict.fromkeys(name for name, c in self._costs() if c is None))

    @property
    def hours(self) -> float:
        """Wall time: calls x seconds a call / calls in flight."""
        return self.calls * self.seconds_per_call / max(1, self.max_concurrency) / 3600.0


def describe_plan(plan: Plan, *, config: str, seconds_per_call: float = DEFAULT_SECONDS_PER_CALL,
                  stored: Mapping[str, bool] | None = None,
                  generation: tuple[GenerationLine, ...] = (),
                  baselines: tuple[BaselineLine, ...] = ()) -> PlanDescription:
    """Describe ``plan``: inputs, calls per judge and per model, tokens, cost and time.

    Parameters
    ----------
    plan
        The plan of a config (:func:`assay.judge.plan.build_plan`).
    config
        The config file's name, for the title.
    seconds_per_call
        Assumed wall time of one request (must be > 0).
    stored
        The run folder's stored judgments (key -> failed); those are not counted again.
    generation
        The generation phase's lines (:func:`assay.pipeline.generate.plan.describe_generation`).
    baselines
        The LLM baselines' lines (:func:`assay.pipeline.baselines.describe_baselines`).
    """
    if not seconds_per_call > 0:
        raise ValueError(f"seconds_per_call: expected a positive number, got {seconds_per_call!r}")
    lines = tuple(plan.lines(stored))
    totals: dict[str, list[float | None]] = {}
    for line in lines:
        if line.model is None:
            continue
        calls = (line.calls if line.pending is None else line.pending) + line.followups
        total = totals.setdefault(line.model, [0, 0, 0, 0.0])
        total[0] = int(total[0] or 0) + calls
        total[1] = int(total[1] or 0) + line.tokens_in
        total[2] = int(total[2] or 0) + line.tokens_out
        total[3] = None if total[3] is None or line.usd is None else total[3] + line.usd
    models = tuple(ModelTotal(name, int(t[0] or 0), int(t[1] or 0), int(t[2] or 0), t[3])
                   for name, t in totals.items())
    inputs = plan.inputs
    systems = inputs.arms if inputs is not None else ()
    items = {item for arm in systems for item in inputs.items(arm)} if inputs is not None else set()
    answers = sum(len(inputs.items(arm)) for arm in systems) if inputs is not None else 0
    llm = plan.config.llm
    return PlanDescription(
        config=config,
        systems=tuple(systems),
        items=len(items),
        answers=answers,
        judges=lines,
        models=models,
        max_concurrency=llm.max_concurrency if llm is not None else 1,
        seconds_per_call=float(seconds_per_call),
        cost_limit_usd=getattr(llm, "cost_limit_usd", None) if llm is not None else None,
        generation=generation,
        baselines=baselines,
        batch_discount=llm.batch_discount if llm is not None and llm.transport == "batch" else None,
    )
