"""Standard assertion judge (BenchmarkQED, "Assertion-based Scoring"): does an answer support a claim?

One call per (arm, question, assertion, trial). The judge returns
:class:`AssertionVerdict` (``score`` 1 supported, 0 not); an assertion passes when the
mean of its trial scores exceeds ``pass_threshold`` (``assay.analysis.assertions._summaries``).

Rows written (judgments table)
------------------------------
``item`` = ``"<question_id>#<assertion_id>"``, ``cluster`` = the question id (assertions
of one question are not independent: the question is the sampling unit), ``arm`` = the
method, ``run`` = the trial (1..T), ``judge`` = the judge's name, ``criterion`` =
``"assertion"`` (binary scale), ``score`` 1/0, ``task`` = the question set, and
``attributes`` = JSON ``{"question_id", "assertion_id", "rank", "statement"}``. A failed
reply gives the row with ``score`` None and its ``failure_kind``.

Assertion records (``JudgeInputs.assertions[item]``) are BenchmarkQED's: ``statement`` (or
``assertion``), optional ``rank`` (1 = most important) and ``id``; when ``id`` is absent
the assertion's id is ``a<position>`` (1-based, file order). ``top_k`` keeps the k
assertions of lowest rank per question (file order when ranks are missing).

Config (``kind: assertion``, :class:`AssertionSettings`): ``trials``, ``top_k``,
``pass_threshold`` (read by the summaries), ``arms`` and ``question_sets`` (which answers are
judged). ``top_k``, ``pass_threshold``, ``arms`` and ``question_sets`` choose which
judgments are made or how they are summarised, never a verdict, so they stay out of the
judgment keys: changing them reuses what the store holds.

This module also holds :func:`load_prompt_pair`, which the other assertion and the
differential judges use to read their prompts, and :func:`select_inputs` and
:func:`prompt_override`, which they share.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay._templates import sandbox
from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    Answer,
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    judge_name,
    settings_hash,
)
from assay.judge.prompts import (
    check_sandboxed,
    prompt_digest,
    prompt_texts,
    read_verbatim,
    render_errors,
    render_message,
)
from assay.llm import ChatRequest, Reply, judgment_key

__all__ = [
    "SELECTION_FIELDS",
    "AssertionJudge",
    "AssertionSettings",
    "AssertionSpec",
    "AssertionVerdict",
    "PromptPair",
    "SupportingSpec",
    "answer_meta",
    "assertion_specs",
    "failure_row",
    "keyed_item",
    "load_prompt_pair",
    "prompt_override",
    "score_row",
    "select_inputs",
]

SELECTION_FIELDS: frozenset[str] = frozenset({"top_k", "pass_threshold", "arms", "question_sets", "k_list"})
"""Settings that choose which judgments are made or how they are summarised, never a verdict:
left out of the judges' config hashes (``engine_fields``), so changing them reuses the store."""

_ENV = sandbox(autoescape=False, keep_trailing_newline=True)
_compiled = functools.lru_cache(maxsize=256)(_ENV.from_string)
"""A template's compiled form: compiling in the sandbox takes milliseconds, so each text once."""


@dataclass(frozen=True)
class PromptPair:
    """A judge's system and user templates (jinja2 in the sandbox, ``StrictUndefined``) and their SHA-256."""

    name: str
    system: str
    user: str
    sha256: str
    sources: tuple[str, str] = ("system.md", "user.md")
    """Where the two templates were read (named in errors)."""
    verbatim: frozenset[str] = frozenset()
    """The messages sent exactly as rendered (``assay.judge.prompts.read_verbatim``)."""

    def __post_init__(self) -> None:
        check_sandboxed(self.system, self.sources[0], _ENV)
        check_sandboxed(self.user, self.sources[1], _ENV)

    def render(self, **values: Any) -> tuple[tuple[Literal["system"], str], tuple[Literal["user"], str]]:
        """The two messages, rendered with ``values`` (a variable the judge does not fill is a
        :class:`~assay.errors.ConfigError` naming the file)."""
        with render_errors(self.sources[0], values):
            system = (render_message(self.system, values, True) if "system" in self.verbatim
                      else _compiled(self.system).render(**values).strip())
        with render_errors(self.sources[1], values):
            user = (render_message(self.user, values, True) if "user" in self.verbatim
                    else _compiled(self.user).render(**values).strip())
        return ("system", system), ("user", user)


def load_prompt_pair(name: str, override: str | Path | None = None) -> PromptPair:
    """Read ``prompts/<name>/system.md`` and ``user.md`` (package data, with the files of the
    folder ``override`` laid over them; see :func:`assay.judge.prompts.prompt_texts`).

    >>> p = load_prompt_pair("assertion")
    >>> len(p.sha256), "{{ assertion }}" in p.user
    (64, True)
    """
    (system, system_source), (user, user_source) = prompt_texts(name, override)
    verbatim = read_verbatim(override)
    return PromptPair(name, system, user, prompt_digest(system, user, verbatim),
                      (system_source, user_source), verbatim)


def prompt_override(settings: JudgeSettings, context: JudgeContext, name: str, *,
                    several: bool = False) -> Path | None:
    """The folder replacing the packaged prompt ``name``, from a config section's ``prompt``.

    A judge with one prompt reads ``system.md`` and ``user.md`` from the folder itself; a
    judge with several (``several=True``) reads each from the subfolder named after the
    packaged prompt (``assertion_supporting/``, ...), and a prompt whose subfolder is
    absent stays the packaged one. Relative folders are read from the config's folder.
    """
    if settings.prompt is None:
        return None
    folder = settings.prompt if settings.prompt.is_absolute() else context.base_dir / settings.prompt
    if not several:
        return folder
    return folder / name if (folder / name).is_dir() else None


def select_inputs(inputs: JudgeInputs, *, arms: Sequence[str] | None = None,
                  question_sets: Sequence[str] | None = None, where: str = "arms") -> JudgeInputs:
    """The inputs restricted to ``arms`` and to the answers of ``question_sets`` (None: all).

    Raises
    ------
    ValueError
        An arm in ``arms`` has no answers (the message names ``where``).

    >>> a = Answer(item="q1", question="Q?", text="yes", arm="rag", task="local")
    >>> b = Answer(item="q2", question="Q?", text="no", arm="rag", task="global")
    >>> picked = select_inputs(JudgeInputs(answers={"rag": {"q1": a, "q2": b}}), question_sets=["global"])
    >>> picked.items("rag")
    ('q2',)
    """
    if arms is None and question_sets is None:
        return inputs
    if arms is not None:
        missing = [a for a in arms if a not in inputs.answers]
        if missing:
            raise ValueError(f"{where}: no answers for arm {missing[0]!r} "
                             f"(arms read: {', '.join(inputs.arms)})")
    chosen = list(arms) if arms is not None else list(inputs.arms)
    answers = {arm: {item: answer for item, answer in inputs.answers[arm].items()
                     if question_sets is None or answer.task in question_sets}
               for arm in chosen}
    return JudgeInputs(answers=answers, references=inputs.references, assertions=inputs.assertions,
                       retrieval=inputs.retrieval)


def _digest(*texts: str) -> str:
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()[:16]


def keyed_item(item: str, *texts: str) -> str:
    """The item as it enters a judgment key: the item and a digest of the texts judged, so an
    edited answer or assertion is judged again rather than read stale from the store.

    >>> keyed_item("q1#a1", "answer", "claim") == keyed_item("q1#a1", "answer", "claim")
    True
    >>> keyed_item("q1#a1", "answer", "claim") == keyed_item("q1#a1", "answer!", "claim")
    False
    """
    return f"{item}\x1f{_digest(*texts)}"


class AssertionSettings(JudgeSettings):
    """The ``kind: assertion`` section of a config (standard assertion scoring)."""

    kind: Literal["assertion"] = "assertion"
    trials: int = Field(2, ge=1)
    """Trials per (answer, assertion); an assertion passes when its mean score exceeds ``pass_threshold``."""
    top_k: int | None = Field(None, ge=1)
    """Judge only the ``top_k`` assertions of each question by rank; None judges all."""
    pass_threshold: float = Field(0.5, ge=0.0, lt=1.0)
    """An assertion passes when the mean of its trial scores exceeds this (the summaries read it)."""
    arms: list[str] | None = None
    """The arms whose answers are judged; None for every arm."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt, as BenchmarkQED does."""

    engine_fields: ClassVar[frozenset[str]] = SELECTION_FIELDS


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
    """One assertion of a question, as read from BenchmarkQED's assertion file."""

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
        Trials per assertion (BenchmarkQED uses 2; any positive number).
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
        Put BenchmarkQED's "Score ID" (the judgment key) at the top of the user message.
    pass_threshold
        Read by the summaries (``assay.analysis.assertions._summaries.assertion_summary``).
    arms, question_sets
        Judge only these arms' answers and these question sets; None for all.
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
    pass_threshold: float = 0.5
    arms: tuple[str, ...] | None = None
    question_sets: tuple[str, ...] | None = None

    Settings = AssertionSettings

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ValueError(f"trials: expected a positive integer, got {self.trials}")

    @classmethod
    def from_config(cls, settings: AssertionSettings, context: JudgeContext) -> AssertionJudge:
        """Build the judge of a ``kind: assertion`` section."""
        return cls(name=judge_name(context.model, settings.label), trials=settings.trials,
                   top_k=settings.top_k, config_hash=settings_hash(settings, context), model=context.model,
                   params=dict(context.params),
                   prompt=load_prompt_pair("assertion", prompt_override(settings, context, "assertion")),
                   include_score_id=settings.include_score_id, pass_threshold=settings.pass_threshold,
                   arms=None if settings.arms is None else tuple(settings.arms),
                   question_sets=None if settings.question_sets is None else tuple(settings.question_sets))

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
        item = keyed_item(spec.item, answer.question, answer.text, spec.statement)
        key = judgment_key(self.config_hash, item, (answer.arm,), criterion, trial, judge=self.name,
                           prompt_hash=self.prompt.sha256)
        messages = self.prompt.render(score_id=f"Score ID: {key}" if self.include_score_id else "",
                                      question=answer.question, answer=answer.text,
                                      assertion=spec.statement)
        meta = answer_meta(answer, item=spec.item, cluster=spec.question_id, arm=answer.arm, run=trial,
                           judge=self.name, criterion=criterion, attributes=spec.attributes())
        return ChatRequest(key=key, messages=messages, response_model=AssertionVerdict, model=self.model,
                           params=dict(self.params), prompt_hash=self.prompt.sha256, sample=trial, meta=meta)

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """One request per (arm, question with assertions, assertion, trial)."""
        inputs = select_inputs(inputs, arms=self.arms, question_sets=self.question_sets)
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
