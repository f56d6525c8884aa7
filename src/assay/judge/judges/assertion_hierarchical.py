"""Hierarchical assertion judge (BenchmarkQED, "Hierarchical Assertions"): JOINT and STAGED modes.

A global assertion has supporting (local) assertions. Per (arm, question, global
assertion, trial) the judge records whether the global assertion passes, which supporting
assertions the answer covers, and whether the answer brings *discovery*: relevant evidence
for the global assertion that no supporting assertion covers.

Modes
-----
``joint``
    One call per (arm, question, global, trial) judges all three together
    (:class:`HierarchicalVerdict`, its ``supporting`` list exactly as long as the global's
    supporting assertions).
``staged``
    Stage 1 is the standard assertion judge on the global assertions alone
    (:meth:`HierarchicalJudge.requests`); stage 2 (:meth:`HierarchicalJudge.supporting_requests`,
    built from stage 1's rows) asks for the supporting assertions and discovery only of the
    globals that passed (mean of trial scores > ``pass_threshold``), so the global pass rate
    equals standard scoring. A global that failed stage 1 gets no stage-2 rows: its
    supporting assertions count as not passed and it has no discovery.

Rows written
------------
``criterion`` is ``global_assertion`` (item ``<question>#<assertion>``), ``supporting_assertion``
(item ``<question>#<assertion>/<supporting id>``, ``attributes`` adds ``supporting_id``) or
``discovery`` (item ``<question>#<assertion>``, score 1 when discovery was found); all
binary, ``cluster`` the question, ``run`` the trial. The rule that a passing global with
no supporting assertion passed and no discovery fails is applied when the trials are
aggregated (``assay.analysis.assertions._summaries.hierarchical_summary``), not per trial.

Config (``kind: assertion_hierarchical``, :class:`HierarchicalSettings`): ``mode``,
``trials``, ``pass_threshold``, ``top_k``, ``arms``, ``question_sets``,
``supporting_key``. The planner (``assay.judge.plan``) runs STAGED's second stage after the
first through :meth:`HierarchicalJudge.followups`, from the stage-1 rows the store holds,
so a rerun rebuilds it without a call.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    Answer,
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    judge_name,
    settings_hash,
)
from assay.judge.judges.assertion import (
    SELECTION_FIELDS,
    AssertionJudge,
    AssertionSpec,
    PromptPair,
    answer_meta,
    assertion_specs,
    failure_row,
    keyed_item,
    load_prompt_pair,
    prompt_override,
    score_row,
    select_inputs,
)
from assay.llm import ChatRequest, Reply, judgment_key

__all__ = [
    "DISCOVERY",
    "GLOBAL",
    "SUPPORTING",
    "HierarchicalJudge",
    "HierarchicalSettings",
    "HierarchicalVerdict",
    "SupportingResult",
    "SupportingVerdict",
    "hierarchical_verdict_model",
    "supporting_verdict_model",
]

GLOBAL = "global_assertion"
SUPPORTING = "supporting_assertion"
DISCOVERY = "discovery"


class SupportingResult(BaseModel):
    """The verdict on one supporting assertion."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    id: str
    """The supporting assertion's id, as listed."""
    reasoning: str
    """Why it is or is not covered."""
    passed: bool
    """Whether the answer states or entails it."""


class SupportingVerdict(BaseModel):
    """Stage 2 of STAGED mode: supporting assertions and discovery for a passed global."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    supporting: list[SupportingResult]
    """One result per supporting assertion, in the order listed."""
    has_discovery: bool
    """Whether the answer backs the global assertion with evidence no supporting assertion covers."""
    discovery_reasoning: str
    """What that evidence is (empty when none)."""

    @model_validator(mode="before")
    @classmethod
    def _qed_names(cls, data: Any) -> Any:
        """BenchmarkQED's reply names (``supporting_results``, ``global_passed``) read as
        assay's, so its prompts converted by ``assay import qed-config`` parse; the schema
        sent with assay's own prompts keeps assay's names."""
        return _qed_reply_names(data)


class HierarchicalVerdict(SupportingVerdict):
    """JOINT mode: the global verdict with the supporting and discovery verdicts."""

    reasoning: str
    """Why the global assertion passes or fails."""
    global_score: Literal[0, 1]
    """1 when the answer supports the global assertion, else 0."""


def _qed_reply_names(data: Any) -> Any:
    """A reply in BenchmarkQED's field names (``HierarchicalAssertionLLMResponse``,
    ``SupportingDiscoveryLLMResponse``) with assay's: ``supporting_results`` ->
    ``supporting``, ``global_passed`` (a bool or 0/1) -> ``global_score`` (0/1). A reply
    holding both names of one field is left as it is (and refused as off-schema).

    >>> _qed_reply_names({"global_passed": True, "supporting_results": []})
    {'supporting': [], 'global_score': 1}
    """
    if not isinstance(data, dict):
        return data
    out = dict(data)
    if "supporting_results" in out and "supporting" not in out:
        out["supporting"] = out.pop("supporting_results")
    if "global_passed" in out and "global_score" not in out:
        passed = out.pop("global_passed")
        out["global_score"] = int(passed) if isinstance(passed, bool | int) and passed in (0, 1) else passed
    return out


@lru_cache(maxsize=64)
def _sized(base: type[SupportingVerdict], n: int) -> type[SupportingVerdict]:
    if n < 1:
        return base
    sized = Annotated[list[SupportingResult],
                      Field(min_length=n, max_length=n, description="One result per supporting assertion.")]
    model: type[SupportingVerdict] = create_model(  # type: ignore[call-overload]
        f"{base.__name__}{n}", __base__=base, supporting=(sized, ...))
    return model


def hierarchical_verdict_model(n_supporting: int) -> type[SupportingVerdict]:
    """:class:`HierarchicalVerdict` whose ``supporting`` list must hold exactly ``n_supporting`` results.

    >>> hierarchical_verdict_model(2).model_json_schema()["properties"]["supporting"]["maxItems"]
    2
    """
    return _sized(HierarchicalVerdict, n_supporting)


def supporting_verdict_model(n_supporting: int) -> type[SupportingVerdict]:
    """:class:`SupportingVerdict` with exactly ``n_supporting`` supporting results."""
    return _sized(SupportingVerdict, n_supporting)


class HierarchicalSettings(JudgeSettings):
    """The ``kind: assertion_hierarchical`` section of a config."""

    kind: Literal["assertion_hierarchical"] = "assertion_hierarchical"
    mode: Literal["joint", "staged"] = "staged"
    """``joint``: one call judges global, supporting and discovery; ``staged``: the globals
    first, then supporting and discovery only for the globals that passed."""
    trials: int = Field(2, ge=1)
    """Trials per (answer, global assertion)."""
    pass_threshold: float = Field(0.5, ge=0.0, lt=1.0)
    """A global (or supporting) assertion passes when its mean over trials exceeds this;
    STAGED asks stage 2 only for the globals that pass stage 1."""
    top_k: int | None = Field(None, ge=1)
    """Judge only the ``top_k`` global assertions of each question by rank; None judges all."""
    arms: list[str] | None = None
    """The arms whose answers are judged; None for every arm."""
    supporting_key: str = "supporting_assertions"
    """The record key of a global assertion's supporting assertions."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt."""

    engine_fields: ClassVar[frozenset[str]] = SELECTION_FIELDS


@dataclass(frozen=True)
class HierarchicalJudge:
    """Hierarchical assertion judge, JOINT or STAGED (see the module docstring).

    Parameters are those of :class:`~assay.judge.judges.assertion.AssertionJudge`, plus ``mode``,
    ``pass_threshold`` (STAGED: which globals go to stage 2) and the prompts of the joint
    call and of stage 2. ``top_k`` keeps the top-k global assertions by rank.
    """

    name: str
    mode: Literal["joint", "staged"] = "staged"
    trials: int = 2
    pass_threshold: float = 0.5
    top_k: int | None = None
    config_hash: str = ""
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    joint_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("assertion_hierarchical"))
    supporting_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("assertion_supporting"))
    global_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("assertion"))
    include_score_id: bool = True
    supporting_key: str = "supporting_assertions"
    arms: tuple[str, ...] | None = None
    question_sets: tuple[str, ...] | None = None

    Settings = HierarchicalSettings

    @classmethod
    def from_config(cls, settings: HierarchicalSettings, context: JudgeContext) -> HierarchicalJudge:
        """Build the judge of a ``kind: assertion_hierarchical`` section; ``prompt`` is a folder
        with subfolders ``assertion_hierarchical``, ``assertion_supporting``, ``assertion``."""

        def prompt(name: str) -> PromptPair:
            return load_prompt_pair(name, prompt_override(settings, context, name, several=True))

        return cls(name=judge_name(context.model, settings.label), mode=settings.mode, trials=settings.trials,
                   pass_threshold=settings.pass_threshold, top_k=settings.top_k,
                   config_hash=settings_hash(settings, context), model=context.model,
                   params=dict(context.params), joint_prompt=prompt("assertion_hierarchical"),
                   supporting_prompt=prompt("assertion_supporting"), global_prompt=prompt("assertion"),
                   include_score_id=settings.include_score_id, supporting_key=settings.supporting_key,
                   arms=None if settings.arms is None else tuple(settings.arms),
                   question_sets=None if settings.question_sets is None else tuple(settings.question_sets))

    def __post_init__(self) -> None:
        if self.mode not in ("joint", "staged"):
            raise ValueError(f"mode: expected 'joint' or 'staged', got {self.mode!r}")
        if self.trials < 1:
            raise ValueError(f"trials: expected a positive integer, got {self.trials}")
        if not 0.0 <= self.pass_threshold < 1.0:
            raise ValueError(f"pass_threshold: expected a number in [0, 1), got {self.pass_threshold}")

    def scales(self) -> dict[str, Scale]:
        """All three criteria are binary."""
        return {c: Scale.parse("binary") for c in (GLOBAL, SUPPORTING, DISCOVERY)}

    def _global_judge(self) -> AssertionJudge:
        return AssertionJudge(name=self.name, trials=self.trials, top_k=self.top_k,
                              config_hash=self.config_hash, model=self.model, params=self.params,
                              prompt=self.global_prompt, include_score_id=self.include_score_id,
                              criterion=GLOBAL)

    def specs(self, inputs: JudgeInputs, item: str) -> list[AssertionSpec]:
        """The global assertions of question ``item`` (with their supporting assertions)."""
        return assertion_specs(item, inputs.assertions.get(item, ()), top_k=self.top_k,
                               supporting_key=self.supporting_key)

    def _pairs(self, inputs: JudgeInputs) -> Iterable[tuple[Answer, AssertionSpec]]:
        inputs = select_inputs(inputs, arms=self.arms, question_sets=self.question_sets)
        for arm in inputs.arms:
            for item, answer in inputs.answers[arm].items():
                for spec in self.specs(inputs, item):
                    yield answer, spec

    def _request(self, prompt: PromptPair, answer: Answer, spec: AssertionSpec, trial: int, label: str,
                 response_model: type[BaseModel], global_reasoning: str = "") -> ChatRequest:
        texts = (answer.question, answer.text, spec.statement,
                 *(f"{x.id}={x.statement}" for x in spec.supporting))
        if _reads_global_reasoning(prompt):
            # the message depends on stage 1's reasoning: so does its key
            texts = (*texts, f"global_reasoning={global_reasoning}")
        key = judgment_key(self.config_hash, keyed_item(spec.item, *texts), (answer.arm,), label, trial,
                           judge=self.name, prompt_hash=prompt.sha256)
        messages = prompt.render(score_id=f"Score ID: {key}" if self.include_score_id else "",
                                 question=answer.question, answer=answer.text, assertion=spec.statement,
                                 supporting=spec.supporting, global_reasoning=global_reasoning)
        meta = answer_meta(answer, item=spec.item, cluster=spec.question_id, arm=answer.arm, run=trial,
                           judge=self.name, criterion=label,
                           attributes=spec.attributes(supporting_ids=[s.id for s in spec.supporting]))
        return ChatRequest(key=key, messages=messages, response_model=response_model, model=self.model,
                           params=dict(self.params), prompt_hash=prompt.sha256, sample=trial, meta=meta)

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """JOINT: every call. STAGED: stage 1, the global assertions alone."""
        if self.mode == "staged":
            selected = select_inputs(inputs, arms=self.arms, question_sets=self.question_sets)
            return self._global_judge().requests(_with_specs(selected, self))
        return [self._request(self.joint_prompt, answer, spec, t, "hierarchical_joint",
                              hierarchical_verdict_model(len(spec.supporting)))
                for answer, spec in self._pairs(inputs) for t in range(1, self.trials + 1)]

    def supporting_requests(self, inputs: JudgeInputs,
                            stage1_rows: Iterable[Mapping[str, Any]]) -> list[ChatRequest]:
        """STAGED stage 2: supporting + discovery calls for the globals that passed stage 1.

        ``stage1_rows`` are the rows stage 1 wrote (other rows are ignored). A global passes
        when the mean of its scored trials exceeds ``pass_threshold``; failed trials are left
        out of the mean, and a global with no scored trial does not pass.

        Every stage-2 call of a global is given ``global_reasoning``: the longest reasoning
        among its stage-1 trials that scored 1 (the earliest trial of the longest ones), as
        BenchmarkQED's ``_select_best_global_reasoning`` picks it for its
        supporting-discovery prompt (assay's packaged prompt does not show it).
        """
        if self.mode != "staged":
            raise ValueError("supporting_requests: only STAGED mode has a second stage")
        trials: dict[tuple[str, str], list[tuple[int, float, str]]] = {}
        for row in stage1_rows:
            if row.get("criterion") != GLOBAL or row.get("judge") != self.name or row.get("score") is None:
                continue
            trials.setdefault((str(row["arm"]), str(row["item"])), []).append(
                (int(row.get("run") or 0), float(row["score"]), str(row.get("reasoning") or "")))
        reasoning = {k: _best_reasoning(v) for k, v in trials.items()
                     if sum(s for _, s, _ in v) / len(v) > self.pass_threshold}
        return [self._request(self.supporting_prompt, answer, spec, t, "hierarchical_supporting",
                              supporting_verdict_model(len(spec.supporting)),
                              reasoning[(answer.arm, spec.item)])
                for answer, spec in self._pairs(inputs) if (answer.arm, spec.item) in reasoning
                for t in range(1, self.trials + 1)]

    def followups(self, inputs: JudgeInputs, rows: Iterable[Mapping[str, Any]],
                  verdicts: Mapping[str, Mapping[str, Any]]) -> list[ChatRequest]:
        """The second stage the planner runs after the first: STAGED's :meth:`supporting_requests`
        from the stage-1 ``rows`` (``verdicts`` is not read); none in JOINT mode."""
        return self.supporting_requests(inputs, rows) if self.mode == "staged" else []

    def max_followups(self, first: Sequence[ChatRequest]) -> int:
        """At most as many stage-2 calls as stage-1 calls (every global passing); 0 in JOINT mode."""
        return len(first) if self.mode == "staged" else 0

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """The rows of one call: global (JOINT), supporting and discovery; failures alike."""
        if request.meta.get("criterion") == GLOBAL:
            return self._global_judge().rows(request, reply)
        joint = request.meta.get("criterion") == "hierarchical_joint"
        spec_supporting = _supporting_from(request)
        verdict = reply.verdict
        good = reply.ok and isinstance(verdict, SupportingVerdict) and (
            len(verdict.supporting) == len(spec_supporting)) and (
            not joint or isinstance(verdict, HierarchicalVerdict))
        item = str(request.meta["item"])
        out: list[dict[str, Any]] = []
        if joint:
            if good and isinstance(verdict, HierarchicalVerdict):
                out.append(score_row(request, reply, verdict.global_score, verdict.reasoning,
                                     criterion=GLOBAL))
            else:
                out.append(failure_row(request, reply, criterion=GLOBAL))
        attributes = request.meta.get("attributes", "{}")
        for position, sid in enumerate(spec_supporting):
            sub = {"criterion": SUPPORTING, "item": f"{item}/{sid}",
                   "attributes": _add_attribute(attributes, supporting_id=sid)}
            if good and isinstance(verdict, SupportingVerdict):
                result = verdict.supporting[position]
                out.append(score_row(request, reply, int(result.passed), result.reasoning, **sub))
            else:
                out.append(failure_row(request, reply, **sub))
        if good and isinstance(verdict, SupportingVerdict):
            out.append(score_row(request, reply, int(verdict.has_discovery), verdict.discovery_reasoning,
                                 criterion=DISCOVERY))
        else:
            out.append(failure_row(request, reply, criterion=DISCOVERY))
        return out


def _best_reasoning(trials: list[tuple[int, float, str]]) -> str:
    """The longest reasoning of the trials scoring 1, the earliest on a tie (else the first
    trial's), of (run, score, reasoning) triples: BenchmarkQED's choice of global reasoning.

    >>> _best_reasoning([(2, 1.0, "long one"), (1, 1.0, "short"), (3, 1.0, "long two"), (4, 0.0, "longest")])
    'long one'
    """
    ordered = sorted(trials, key=lambda t: t[0])
    passing = [r for _, s, r in ordered if s == 1]
    if not passing:
        return ordered[0][2] if ordered else ""
    return max(passing, key=len)


@lru_cache(maxsize=64)
def _reads_global_reasoning_text(system: str, user: str) -> bool:
    return "global_reasoning" in system or "global_reasoning" in user


def _reads_global_reasoning(prompt: PromptPair) -> bool:
    """Whether the prompt shows ``global_reasoning`` (BenchmarkQED's supporting-discovery
    prompt does; assay's packaged one does not, so its judgment keys are unchanged)."""
    return _reads_global_reasoning_text(prompt.system, prompt.user)


def _supporting_from(request: ChatRequest) -> list[str]:
    ids = json.loads(str(request.meta.get("attributes", "{}"))).get("supporting_ids")
    return [str(i) for i in ids or ()]


def _add_attribute(text: Any, **extra: Any) -> str:
    data = json.loads(str(text or "{}"))
    data.pop("supporting_ids", None)
    data.update(extra)
    return json.dumps(data, ensure_ascii=False)


def _with_specs(inputs: JudgeInputs, judge: HierarchicalJudge) -> JudgeInputs:
    # stage 1 judges the global statements only: hand the standard judge records without supports
    trimmed = {item: tuple({k: v for k, v in rec.items() if k != judge.supporting_key}
                           if not isinstance(rec, str) else rec for rec in records)
               for item, records in inputs.assertions.items()}
    return JudgeInputs(answers=inputs.answers, references=inputs.references, assertions=trimmed,
                       retrieval=inputs.retrieval)
