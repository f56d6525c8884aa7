"""Differential pairwise judge (BenchmarkQED, "Original vs. Differential Pairwise Scoring").

Two stages per (question, base, other, trial):

1. **Extract** (:meth:`DifferentialJudge.requests`): the content common to both answers
   and the content unique to each (:class:`ExtractionVerdict`).
2. **Judge** (:meth:`DifferentialJudge.judge_requests`, built from the extractions): only
   the unique content is compared, on every criterion in one call (``mode="joint"``,
   :class:`JointDifferentialVerdict`) or in one call per criterion (``mode="separate"``,
   :class:`CriterionVerdict`), both seeing the same extraction.

Counterbalancing: trial t shows ``base`` first (position 1) when t is odd and second
when t is even, in the extraction and so in the judging (the extraction's Answer 1 is the
answer shown first); ``trials`` must be even.

Rows written (stage 2): one per (question, criterion, trial), ``arm`` = base,
``opponent`` = other, ``position`` = where base was shown, ``score`` 1 win / 0.5 tie / 0
loss for base (the pairwise convention ``assay.analysis.winrates._report`` reads), ``criterion``
the criterion's name, ``attributes`` JSON ``{"method": "differential_joint"|"differential_separate"}``
so the two variants of one judge model stay apart when ``judge`` names differ by label.
A successful extraction writes no row (its verdict is kept in the store with the
judgment); a failed one writes a failure row per criterion, so those judgments are
counted as failed, never lost.

Config (``kind: differential``, :class:`DifferentialSettings`): ``base``, ``others``,
``mode``, ``trials``, ``criteria`` (names of the three defaults, or definitions). The
planner (``assay.judge.plan``) runs stage 2 after stage 1 through
:meth:`DifferentialJudge.followups`, from the extraction verdicts the store keeps (keyed by
the extraction's judgment key), so a rerun rebuilds it without a call.

Sharing the extraction. The extraction's prompt (its Score ID included) depends only on
the model, its parameters, the prompt and the pair, not on ``mode`` or ``label``: a joint
and a separate judge of one model send identical extraction requests, which the response
cache answers once, so both judge the very same extraction, as BenchmarkQED's joint vs
separate experiment requires. Each judge still stores the extraction under its own key.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    Answer,
    CriterionSpec,
    EvenTrials,
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    judge_name,
    settings_hash,
)
from assay.judge.judges.assertion import (
    PromptPair,
    answer_meta,
    failure_row,
    keyed_item,
    load_prompt_pair,
    prompt_override,
    score_row,
)
from assay.llm import ChatRequest, Reply, config_hash, judgment_key

__all__ = [
    "DEFAULT_DIFFERENTIAL_CRITERIA",
    "CriterionVerdict",
    "DifferentialCriterion",
    "DifferentialJudge",
    "DifferentialSettings",
    "ExtractionVerdict",
    "JointDifferentialVerdict",
    "NamedCriterionVerdict",
    "joint_differential_verdict",
]

EXTRACTION = "differential_extraction"
_WINNER_SCORE = {1: 1.0, 2: 0.0, 0: 0.5}  # score of the answer shown first


@dataclass(frozen=True)
class DifferentialCriterion:
    """A criterion the unique content is judged on."""

    name: str
    description: str


DEFAULT_DIFFERENTIAL_CRITERIA: tuple[DifferentialCriterion, ...] = (
    DifferentialCriterion("relevance", "Which unique content serves the question's core intent more "
                          "directly, with grounded specifics (figures, names, checkable claims)?"),
    DifferentialCriterion("diversity", "Which unique content brings more distinct perspectives, aspects or "
                          "angles on the question?"),
    DifferentialCriterion("comprehensiveness", "Which unique content covers the details the question calls "
                          "for more thoroughly, without padding or digressions?"),
)
"""The three criteria of BenchmarkQED's differential experiment (paraphrased)."""


class ExtractionVerdict(BaseModel):
    """Stage 1: what the two answers share and what only one of them says."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    common: str
    """Summary of the content both answers cover."""
    unique_answer_1: str
    """Content only Answer 1 gives ("No unique part" when none)."""
    unique_answer_2: str
    """Content only Answer 2 gives ("No unique part" when none)."""


class CriterionVerdict(BaseModel):
    """A verdict on one criterion."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    reasoning: str
    """Assessment written before the verdict."""
    winner: Literal[0, 1, 2]
    """1: Answer 1's unique content better, 2: Answer 2's, 0: tie."""


class NamedCriterionVerdict(CriterionVerdict):
    """A verdict on one named criterion (inside a joint reply)."""

    criterion: str
    """The criterion's name, as listed."""


class JointDifferentialVerdict(BaseModel):
    """Stage 2, joint: one verdict per criterion, in the order listed."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    verdicts: list[NamedCriterionVerdict]
    """One verdict per criterion, in the order listed."""


@lru_cache(maxsize=64)
def joint_differential_verdict(names: tuple[str, ...]) -> type[JointDifferentialVerdict]:
    """:class:`JointDifferentialVerdict` whose ``verdicts`` hold exactly one entry per criterion,
    each naming one of ``names`` (so the JSON schema sent tells the model the list and the names).

    >>> schema = joint_differential_verdict(("relevance", "diversity")).model_json_schema()
    >>> schema["properties"]["verdicts"]["minItems"], schema["properties"]["verdicts"]["maxItems"]
    (2, 2)
    """
    named: type[NamedCriterionVerdict] = create_model(
        f"NamedCriterionVerdict{len(names)}", __base__=NamedCriterionVerdict,
        criterion=(Literal[names], Field(description="The criterion's name, as listed.")))
    sized = Annotated[list[named], Field(min_length=len(names), max_length=len(names),  # type: ignore[valid-type]
                                         description="One verdict per criterion, in the order listed.")]
    model: type[JointDifferentialVerdict] = create_model(
        f"JointDifferentialVerdict{len(names)}", __base__=JointDifferentialVerdict, verdicts=(sized, ...))
    return model


class DifferentialSettings(JudgeSettings):
    """The ``kind: differential`` section of a config."""

    kind: Literal["differential"] = "differential"
    base: str
    """The base arm, compared with each of ``others``."""
    others: list[str] | None = None
    """Arms compared with ``base``; None for every other arm."""
    mode: Literal["joint", "separate"] = "joint"
    """``joint``: every criterion in one judging call; ``separate``: one call per criterion."""
    trials: EvenTrials = 4
    """Trials per (question, pair); even, so each order is shown equally often."""
    criteria: list[CriterionSpec | str] = Field(default_factory=lambda: _default_names())
    """Criteria: names of the defaults (relevance, diversity, comprehensiveness), or definitions."""
    include_score_id: bool = True
    """Put a Score ID at the top of the prompts."""

    @model_validator(mode="after")
    def _criteria(self) -> DifferentialSettings:
        differential_criteria(self.criteria)
        return self


def _default_names() -> list[CriterionSpec | str]:
    return [c.name for c in DEFAULT_DIFFERENTIAL_CRITERIA]


def differential_criteria(entries: Sequence[CriterionSpec | str]) -> tuple[DifferentialCriterion, ...]:
    """The criteria of a config section: default names or definitions.

    >>> [c.name for c in differential_criteria(["relevance", CriterionSpec(name="tone", description="t")])]
    ['relevance', 'tone']
    """
    from assay.judge.judges.pairwise import resolve_criteria

    defaults = {c.name: c.description for c in DEFAULT_DIFFERENTIAL_CRITERIA}
    return tuple(DifferentialCriterion(c.name, c.description)
                 for c in resolve_criteria(list(entries), defaults, where="criteria"))


@dataclass(frozen=True)
class DifferentialJudge:
    """Differential pairwise judge: extract common/unique content, then judge the unique content.

    Parameters
    ----------
    name
        The ``judge`` column.
    base
        The base arm; compared with each of ``others`` (default: every other arm).
    mode
        ``"joint"``: all criteria in one call; ``"separate"``: one call per criterion.
    trials
        Even number of counterbalanced trials.
    criteria
        The criteria (default :data:`DEFAULT_DIFFERENTIAL_CRITERIA`).
    """

    name: str
    base: str
    others: tuple[str, ...] | None = None
    mode: Literal["joint", "separate"] = "joint"
    trials: int = 4
    criteria: tuple[DifferentialCriterion, ...] = DEFAULT_DIFFERENTIAL_CRITERIA
    config_hash: str = ""
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    extract_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("differential_extract"))
    joint_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("differential_joint"))
    separate_prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("differential_separate"))
    include_score_id: bool = True
    extraction_hash: str = ""
    """Hash of what decides an extraction (model, parameters); its Score ID is derived from it,
    so judges differing only in mode or label send identical extraction requests. Empty:
    ``config_hash``."""
    question_sets: tuple[str, ...] | None = None

    Settings = DifferentialSettings

    @classmethod
    def from_config(cls, settings: DifferentialSettings, context: JudgeContext) -> DifferentialJudge:
        """Build the judge of a ``kind: differential`` section; ``prompt`` is a folder with
        subfolders ``differential_extract``, ``differential_joint``, ``differential_separate``."""

        def prompt(name: str) -> PromptPair:
            return load_prompt_pair(name, prompt_override(settings, context, name, several=True))

        return cls(name=judge_name(context.model, settings.label), base=settings.base,
                   others=None if settings.others is None else tuple(settings.others), mode=settings.mode,
                   trials=settings.trials, criteria=differential_criteria(settings.criteria),
                   config_hash=settings_hash(settings, context), model=context.model,
                   params=dict(context.params), extract_prompt=prompt("differential_extract"),
                   joint_prompt=prompt("differential_joint"), separate_prompt=prompt("differential_separate"),
                   include_score_id=settings.include_score_id,
                   extraction_hash=config_hash({"model": context.model, "params": dict(context.params)}),
                   question_sets=None if settings.question_sets is None else tuple(settings.question_sets))

    def __post_init__(self) -> None:
        if self.mode not in ("joint", "separate"):
            raise ValueError(f"mode: expected 'joint' or 'separate', got {self.mode!r}")
        if self.trials < 2 or self.trials % 2:
            raise ValueError(f"trials: expected an even number >= 2 (counterbalancing), got {self.trials}")
        names = [c.name for c in self.criteria]
        if not names or len(set(names)) != len(names):
            raise ValueError(f"criteria: expected distinct names, got {names}")

    def scales(self) -> dict[str, Scale]:
        """Pairwise scores 0, 0.5, 1 on ``range:0,1``."""
        return {c.name: Scale.parse("range:0,1") for c in self.criteria}

    @property
    def method(self) -> str:
        """``differential_joint`` or ``differential_separate``."""
        return f"differential_{self.mode}"

    def _pairs(self, inputs: JudgeInputs) -> list[tuple[Answer, Answer]]:
        if self.base not in inputs.answers:
            raise ValueError(f"base: no answers for arm {self.base!r} (arms: {list(inputs.arms)})")
        others = self.others if self.others is not None else tuple(a for a in inputs.arms if a != self.base)
        out = []
        for other in others:
            if other not in inputs.answers:
                raise ValueError(f"others: no answers for arm {other!r} (arms: {list(inputs.arms)})")
            for item, base_answer in inputs.answers[self.base].items():
                if self.question_sets is not None and base_answer.task not in self.question_sets:
                    continue
                other_answer = inputs.answers[other].get(item)
                if other_answer is not None:
                    out.append((base_answer, other_answer))
        return out

    def _extraction(self, base: Answer, other: Answer, trial: int) -> ChatRequest:
        first, second = (base, other) if trial % 2 else (other, base)
        item = keyed_item(base.item, base.question, base.text, other.text)
        key = judgment_key(self.config_hash, item, (base.arm, other.arm), EXTRACTION, trial,
                           judge=self.name, prompt_hash=self.extract_prompt.sha256)
        shared = judgment_key(self.extraction_hash or self.config_hash, item, (base.arm, other.arm),
                              EXTRACTION, trial, judge=self.model or "",
                              prompt_hash=self.extract_prompt.sha256)
        messages = self.extract_prompt.render(
            score_id=f"Score ID: {shared}" if self.include_score_id else "", question=base.question,
            answer_1=first.text, answer_2=second.text)
        return ChatRequest(key=key, messages=messages, response_model=ExtractionVerdict,
                           model=self.model, params=dict(self.params),
                           prompt_hash=self.extract_prompt.sha256, sample=trial,
                           meta=self._meta(base, other, trial, EXTRACTION))

    def _meta(self, base: Answer, other: Answer, trial: int, criterion: str) -> dict[str, Any]:
        return answer_meta(base, item=base.item, cluster=base.cluster_id, arm=base.arm, opponent=other.arm,
                           position=1 if trial % 2 else 2, run=trial, judge=self.name, criterion=criterion,
                           attributes=json.dumps({"method": self.method}))

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """Stage 1: one extraction per (question, base, other, trial)."""
        return [self._extraction(base, other, trial)
                for base, other in self._pairs(inputs) for trial in range(1, self.trials + 1)]

    def judge_requests(self, inputs: JudgeInputs,
                       extractions: Mapping[str, ExtractionVerdict | Mapping[str, Any]]) -> list[ChatRequest]:
        """Stage 2: the judging calls of every extraction in ``extractions`` (key -> verdict).

        Extractions missing from the mapping (failed or not yet run) give no request.
        """
        prompt = self.joint_prompt if self.mode == "joint" else self.separate_prompt
        groups: Sequence[tuple[str, tuple[DifferentialCriterion, ...]]] = (
            [(self.method, self.criteria)] if self.mode == "joint"
            else [(c.name, (c,)) for c in self.criteria])
        out = []
        trials = range(1, self.trials + 1)
        for base, other, trial in ((b, o, t) for b, o in self._pairs(inputs) for t in trials):
            extraction_request = self._extraction(base, other, trial)
            found = extractions.get(extraction_request.key)
            if found is None:
                continue
            ext = found if isinstance(found, ExtractionVerdict) else ExtractionVerdict.model_validate(found)
            item = keyed_item(base.item, base.question, base.text, other.text)
            for label, criteria in groups:
                key = judgment_key(self.config_hash, item, (base.arm, other.arm), label, trial,
                                   judge=self.name, prompt_hash=prompt.sha256 + self.extract_prompt.sha256)
                messages = prompt.render(
                    score_id=f"Score ID: {key}" if self.include_score_id else "", question=base.question,
                    common=ext.common, unique_1=ext.unique_answer_1, unique_2=ext.unique_answer_2,
                    criteria=criteria, criterion=criteria[0])
                out.append(ChatRequest(
                    key=key, messages=messages,
                    response_model=(joint_differential_verdict(tuple(c.name for c in self.criteria))
                                    if self.mode == "joint" else CriterionVerdict),
                    model=self.model, params=dict(self.params), prompt_hash=prompt.sha256, sample=trial,
                    meta={**extraction_request.meta, "criterion": label}))
        return out

    def followups(self, inputs: JudgeInputs, rows: Iterable[Mapping[str, Any]],
                  verdicts: Mapping[str, Mapping[str, Any]]) -> list[ChatRequest]:
        """The second stage the planner runs after the first: :meth:`judge_requests` from the
        extraction ``verdicts`` (extraction key -> verdict, good ones only); ``rows`` is not read."""
        return self.judge_requests(inputs, verdicts)

    def max_followups(self, first: Sequence[ChatRequest]) -> int:
        """Stage-2 calls when every extraction succeeds: one per extraction (joint) or one per
        extraction and criterion (separate)."""
        return len(first) * (1 if self.mode == "joint" else len(self.criteria))

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """Stage 1: no row (failure rows when it failed). Stage 2: a row per criterion judged."""
        label = request.meta.get("criterion")
        base_first = request.meta.get("position") == 1
        if label == EXTRACTION:
            if reply.ok and isinstance(reply.verdict, ExtractionVerdict):
                return []
            return [failure_row(request, reply, criterion=c.name) for c in self.criteria]
        verdict = reply.verdict
        if label == self.method:
            names = [c.name for c in self.criteria]
            if not reply.ok or not isinstance(verdict, JointDifferentialVerdict):
                return [failure_row(request, reply, criterion=n) for n in names]
            by_name = {v.criterion.strip().lower(): v for v in verdict.verdicts}
            out = []
            for position, name in enumerate(names):
                found = by_name.get(name.lower())
                if found is None and len(verdict.verdicts) == len(names):
                    found = verdict.verdicts[position]  # listed in order, names garbled
                if found is None:
                    out.append(failure_row(request, reply, criterion=name))
                else:
                    out.append(score_row(request, reply, _base_score(found.winner, base_first),
                                         found.reasoning, criterion=name))
            return out
        if not reply.ok or not isinstance(verdict, CriterionVerdict):
            return [failure_row(request, reply)]
        return [score_row(request, reply, _base_score(verdict.winner, base_first), verdict.reasoning)]


def _base_score(winner: int, base_first: bool) -> float:
    score = _WINNER_SCORE[winner]
    return score if base_first else 1.0 - score

