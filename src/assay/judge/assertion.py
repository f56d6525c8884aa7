"""Standard assertion judge (seed 004, "Assertion-based Scoring"): does an answer support a claim?

One call per (arm, question, assertion, trial). The judge returns
:class:`AssertionVerdict` (``score`` 1 supported, 0 not); an assertion passes when the
mean of its trial scores exceeds ``pass_threshold`` (``assay.analysis.assertions``).

Rows written (judgments table)
------------------------------
``item`` = ``"<question_id>#<assertion_id>"``, ``cluster`` = the question id (assertions
of one question are not independent: the question is the sampling unit), ``arm`` = the
method, ``run`` = the trial (1..T), ``judge`` = the judge's name, ``criterion`` =
``"assertion"`` (binary scale), ``score`` 1/0, ``task`` = the question set, and
``attributes`` = JSON ``{"question_id", "assertion_id", "rank", "statement"}``. A failed
reply gives the row with ``score`` None and its ``failure_kind``.

Assertion records (``JudgeInputs.assertions[item]``) are the seed's: ``statement`` (or
``assertion``), optional ``rank`` (1 = most important) and ``id``; when ``id`` is absent
the assertion's id is ``a<position>`` (1-based, file order). ``top_k`` keeps the k
assertions of lowest rank per question (file order when ranks are missing).

This module also holds :func:`load_prompt_pair`, which the other assertion and the
differential judges use to read their prompts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import jinja2
from pydantic import BaseModel, ConfigDict

from assay.data.schema import Scale
from assay.judge._protocol import Answer, JudgeInputs
from assay.judge._types import ChatRequest, Reply
from assay.judge.store import judgment_key

__all__ = [
    "AssertionJudge",
    "AssertionSpec",
    "AssertionVerdict",
    "PromptPair",
    "SupportingSpec",
    "answer_meta",
    "assertion_specs",
    "failure_row",
    "load_prompt_pair",
    "score_row",
]

_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True)


@dataclass(frozen=True)
class PromptPair:
    """A judge's system and user templates (jinja2, ``StrictUndefined``) and their SHA-256."""

    name: str
    system: str
    user: str
    sha256: str

    def render(self, **values: Any) -> tuple[tuple[Literal["system"], str], tuple[Literal["user"], str]]:
        """The two messages, rendered with ``values``."""
        return (("system", _ENV.from_string(self.system).render(**values).strip()),
                ("user", _ENV.from_string(self.user).render(**values).strip()))


def load_prompt_pair(name: str, override: str | Path | None = None) -> PromptPair:
    """Read ``prompts/<name>/system.md`` and ``user.md`` (package data, or the folder ``override``).

    >>> p = load_prompt_pair("assertion")
    >>> len(p.sha256), "{{ assertion }}" in p.user
    (64, True)
    """
    if override is not None:
        folder = Path(override)
        system = (folder / "system.md").read_text(encoding="utf-8")
        user = (folder / "user.md").read_text(encoding="utf-8")
    else:
        base = resources.files("assay.judge") / "prompts" / name
        system = (base / "system.md").read_text(encoding="utf-8")
        user = (base / "user.md").read_text(encoding="utf-8")
    digest = hashlib.sha256(f"{system}\x00{user}".encode()).hexdigest()
    return PromptPair(name, system, user, digest)


class AssertionVerdict(BaseModel):
    """What the judge returns for one assertion and one answer."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    reasoning: str
    """Why the assertion is or is not supported, citing the answer."""
    score: Literal[0, 1]
    """1 when the answer supports the assertion, 0 when it does not."""


@dataclass(frozen=True)
class SupportingSpec:
    """A supporting (local) assertion under a global one."""

    id: str
    statement: str


@dataclass(frozen=True)
class AssertionSpec:
    """One assertion of a question, as read from the seed's assertion file."""

    question_id: str
    id: str
    statement: str
    rank: float | None = None
    supporting: tuple[SupportingSpec, ...] = ()

    @property
    def item(self) -> str:
        """The judgments-table item of the assertion: ``<question_id>#<id>``."""
        return f"{self.question_id}#{self.id}"

    def attributes(self, **extra: Any) -> str:
        """The row's ``attributes`` JSON text."""
        return json.dumps({"question_id": self.question_id, "assertion_id": self.id, "rank": self.rank,
                           "statement": self.statement, **extra}, ensure_ascii=False)


def assertion_specs(question_id: str, records: Sequence[Mapping[str, Any]], *, top_k: int | None = None,
                    supporting_key: str = "supporting_assertions") -> list[AssertionSpec]:
    """The assertions of one question, ``top_k`` of them by rank when given.

    A record is a dict with ``statement`` (or ``assertion``), optional ``rank``, ``id`` and
    supporting assertions (dicts with ``id`` and ``statement``, or plain strings, whose id
    is then ``s<position>``). A plain string record is a statement without rank.

    >>> specs = assertion_specs("q1", [{"statement": "B", "rank": 2}, {"statement": "A", "rank": 1}], top_k=1)
    >>> [(s.item, s.statement) for s in specs]
    [('q1#a2', 'A')]
    """
    if top_k is not None and top_k < 1:
        raise ValueError(f"top_k: expected a positive integer or None, got {top_k}")
    specs: list[AssertionSpec] = []
    for position, record in enumerate(records, start=1):
        if isinstance(record, str):
            record = {"statement": record}
        statement = record.get("statement", record.get("assertion"))
        if not isinstance(statement, str) or not statement.strip():
            raise ValueError(f"assertion {position} of question {question_id}: expected a 'statement' text")
        rank = record.get("rank")
        supporting = []
        for s_pos, sup in enumerate(record.get(supporting_key) or (), start=1):
            if isinstance(sup, str):
                supporting.append(SupportingSpec(f"s{s_pos}", sup))
            else:
                supporting.append(SupportingSpec(str(sup.get("id", f"s{s_pos}")),
                                                 str(sup.get("statement", sup.get("assertion", "")))))
        specs.append(AssertionSpec(question_id, str(record.get("id", f"a{position}")), statement,
                                   None if rank is None else float(rank), tuple(supporting)))
    if top_k is not None:
        order = sorted(range(len(specs)),
                       key=lambda i: (specs[i].rank is None, specs[i].rank or 0.0, i))
        keep = sorted(order[:top_k])
        specs = [specs[i] for i in keep]
    return specs


def failure_row(request: ChatRequest, reply: Reply, **overrides: Any) -> dict[str, Any]:
    """A row saying why a judgment has no score (its ``failure_kind``), from the request's meta."""
    row = {**request.meta, **overrides, "score": None, "failure_kind": reply.failure_kind or "parse_error",
           "raw_response": reply.text}
    if reply.evaluated_at:
        row["evaluated_at"] = reply.evaluated_at
    if request.prompt_hash:
        row["metric_version"] = request.prompt_hash
    return row


def score_row(request: ChatRequest, reply: Reply, score: float, reasoning: str | None,
              **overrides: Any) -> dict[str, Any]:
    """A scored row: the request's meta, ``overrides``, the score and the provenance."""
    row = {**request.meta, **overrides, "score": float(score), "failure_kind": None,
           "reasoning": reasoning, "raw_response": reply.text}
    if reply.evaluated_at:
        row["evaluated_at"] = reply.evaluated_at
    if request.prompt_hash:
        row["metric_version"] = request.prompt_hash
    return row


def answer_meta(answer: Answer, **extra: Any) -> dict[str, Any]:
    """The row fields of an answer: its cost fields and task (``cluster`` is set by the judge)."""
    meta = {k: v for k, v in answer.fields.items()
            if k in ("usd", "usd_provenance", "tokens_in", "tokens_out", "latency_s", "split")}
    if answer.task is not None:
        meta["task"] = answer.task
    meta.update(extra)
    return meta


@dataclass(frozen=True)
class AssertionJudge:
    """Standard assertion judge: one call per (arm, question, assertion, trial).

    Parameters
    ----------
    name
        The ``judge`` column (the model name, with ``/label`` when labelled).
    trials
        Trials per assertion (the seed uses 2; any positive number).
    top_k
        Keep the ``top_k`` assertions of each question by rank; None keeps all.
    config_hash
        Hash of the judge's config section (enters every judgment key).
    model
        Model sent with the request; None uses the client's.
    params
        Extra chat-completions parameters (temperature, seed, ...).
    prompt
        The prompt pair (default ``prompts/assertion``).
    include_score_id
        Put the seed's "Score ID" (the judgment key) at the top of the user message.
    """

    name: str
    trials: int = 2
    top_k: int | None = None
    config_hash: str = ""
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("assertion"))
    include_score_id: bool = True
    criterion: str = "assertion"

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ValueError(f"trials: expected a positive integer, got {self.trials}")

    def scales(self) -> dict[str, Scale]:
        """The criterion written: binary."""
        return {self.criterion: Scale.parse("binary")}

    def specs(self, inputs: JudgeInputs, item: str) -> list[AssertionSpec]:
        """The assertions of question ``item`` this judge scores."""
        return assertion_specs(item, inputs.assertions.get(item, ()), top_k=self.top_k)

    def request_for(self, answer: Answer, spec: AssertionSpec, trial: int, *,
                    criterion: str | None = None) -> ChatRequest:
        """The request judging ``spec`` against ``answer`` in ``trial`` (1-based)."""
        criterion = criterion or self.criterion
        key = judgment_key(self.config_hash, spec.item, (answer.arm,), criterion, trial,
                           judge=self.name, prompt_hash=self.prompt.sha256)
        messages = self.prompt.render(score_id=f"Score ID: {key}" if self.include_score_id else "",
                                      question=answer.question, answer=answer.text,
                                      assertion=spec.statement)
        meta = answer_meta(answer, item=spec.item, cluster=spec.question_id, arm=answer.arm, run=trial,
                           judge=self.name, criterion=criterion, attributes=spec.attributes())
        return ChatRequest(key=key, messages=messages, response_model=AssertionVerdict, model=self.model,
                           params=dict(self.params), prompt_hash=self.prompt.sha256, sample=trial, meta=meta)

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """One request per (arm, question with assertions, assertion, trial)."""
        out: list[ChatRequest] = []
        for arm in inputs.arms:
            for item, answer in inputs.answers[arm].items():
                for spec in self.specs(inputs, item):
                    out.extend(self.request_for(answer, spec, t) for t in range(1, self.trials + 1))
        return out

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """One row: score 1/0, or the failure."""
        verdict = reply.verdict
        if not reply.ok or not isinstance(verdict, AssertionVerdict):
            return [failure_row(request, reply)]
        return [score_row(request, reply, verdict.score, verdict.reasoning)]
