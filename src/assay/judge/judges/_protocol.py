"""The judge protocol: what every judge (pairwise, reference, rubric, metric, assertion, ...) offers.

A judge is a plain object built from its config section. It never talks to the network
and never touches the store: it turns :class:`JudgeInputs` into
:class:`~assay.judge.ChatRequest` objects, and a request's :class:`~assay.judge.Reply`
into judgments-table rows. The engine (``run_requests``) does everything in between.

::

    judge = JUDGE_KINDS[section.kind].from_config(section, context)   # assay.judge.judges.kinds
    requests = judge.requests(inputs)            # one ChatRequest per judgment
    rows = judge.rows(request, reply)            # list of judgments-table rows (dicts)

Rules every judge keeps
-----------------------
* ``request.key`` is :func:`~assay.judge.judgment_key` of (the judge's config hash, the
  item, the arms in the order the judge defines, the criterion or a joint name, the
  trial; ``judge=`` its name, ``prompt_hash=`` its prompt's hash), so a rerun skips what
  is stored and editing a prompt re-asks exactly its judgments.
* ``request.meta`` holds the row fields known before the call (item, cluster, arm,
  opponent, position, run, judge, criterion, task, ...); ``rows`` adds ``score``,
  ``reasoning``, ``raw_response``, ``failure_kind``, ``evaluated_at``, ``metric_version``.
* A failed reply (``reply.failure_kind`` set) gives rows with that ``failure_kind`` and
  ``score`` None: counted, never scored.
* ``scales()`` declares the scale of each criterion it writes (stored with the run).
* A judge that needs no model (a metric) is an :class:`OfflineJudge`: it also answers its
  own requests with :meth:`OfflineJudge.answer`, and the planner stores those replies
  without a client.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, ClassVar, Protocol, runtime_checkable

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from assay.data.schema import Scale
from assay.llm import ChatRequest, Reply, judgment_key

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class Answer:
    """One answer to one question: what a judge reads about an (item, arm).

    Examples
    --------
    >>> a = Answer(item="q1", question="What is 2 + 2?", text="4", arm="rag", task="arith")
    >>> a.item, a.text, a.cluster_id
    ('q1', '4', 'q1')
    """

    item: str
    """The question's id (BenchmarkQED's ``question_id``)."""
    question: str
    """The question's text."""
    text: str
    """The answer's text."""
    arm: str
    """The method that wrote the answer (BenchmarkQED's RAG method); ``"reference"`` for references."""
    task: str | None = None
    """The question set (``data_global``, ...), None when there is one unnamed set."""
    cluster: str | None = None
    """The sampling unit the question came from (a document), None to use the item."""
    fields: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Other judgments-table fields of the answer (``usd``, ``tokens_in``, ``latency_s``,
    ``reference_score``, ``attributes``, ...) copied into the rows, and any extra
    record keys a judge may read (``context`` of a retrieval result, ...)."""

    @property
    def cluster_id(self) -> str:
        """``cluster``, or the item when no cluster was given."""
        return self.cluster if self.cluster is not None else self.item


@dataclass(frozen=True)
class JudgeInputs:
    """Everything the readers loaded (``assay.judge.inputs``), shared by all judges of a config.

    Examples
    --------
    >>> a = Answer(item="q1", question="Q?", text="yes", arm="rag")
    >>> inputs = JudgeInputs(answers={"rag": {"q1": a}})
    >>> inputs.arms, inputs.items("rag")
    (('rag',), ('q1',))
    """

    answers: Mapping[str, Mapping[str, Answer]]
    """arm -> item -> answer."""
    references: Mapping[str, Answer] = field(default_factory=lambda: _EMPTY)
    """item -> reference (gold) answer, when a reference file was given."""
    assertions: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=lambda: _EMPTY)
    """item -> assertion records as read (``statement``, ``supporting_assertions``, ...)."""
    retrieval: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=lambda: _EMPTY)
    """arm -> item -> retrieval-result record (``context`` list of chunks)."""

    @property
    def arms(self) -> tuple[str, ...]:
        """The arms with answers, in the order read."""
        return tuple(self.answers)

    def items(self, arm: str) -> tuple[str, ...]:
        """The items ``arm`` answered, in the order read."""
        return tuple(self.answers.get(arm, {}))


@runtime_checkable
class Judge(Protocol):
    """What every judge offers; see the module docstring for the rules.

    A judge class registered in :data:`assay.judge.judges.kinds.JUDGE_KINDS` also has a class
    attribute ``Settings`` (its :class:`JudgeSettings` subclass) and a classmethod
    ``from_config(settings, context: JudgeContext) -> Judge``.
    """

    name: str
    """The value of the ``judge`` column: the model name, with ``/label`` when labelled
    (a metric's name for a metric judge)."""

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """One request per judgment, keys unique (:func:`~assay.judge.judgment_key`)."""
        ...

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """The judgments-table rows of one judgment (failure rows when ``reply`` failed)."""
        ...

    def scales(self) -> dict[str, Scale]:
        """criterion -> declared scale of every criterion the judge writes."""
        ...


@runtime_checkable
class OfflineJudge(Judge, Protocol):
    """A judge that answers its own requests without a model (metric judges)."""

    def answer(self, request: ChatRequest) -> Reply:
        """The reply to one of its own requests, computed locally."""
        ...


class CriterionSpec(BaseModel):
    """A criterion a judge scores: its name, its definition for the prompt, its scale.

    Examples
    --------
    >>> c = CriterionSpec(name="clarity", description="Is it easy to follow?", scale="range:0,100")
    >>> c.declared_scale().spelling()
    'range:0,100'
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    """The criterion's name (the ``criterion`` column)."""
    description: str = ""
    """What the criterion means, as the judge is told."""
    scale: str | None = None
    """The scale, spelled as ``--scale`` takes it (``range:1,10``, ``ordinal:Low,Medium,High``,
    ``binary``); None for the judge's default."""

    def declared_scale(self, default: str = "interval") -> Scale:
        """The criterion's :class:`~assay.data.schema.Scale` (``default`` when none is declared)."""
        return Scale.parse(self.scale or default)


def _even(value: int) -> int:
    if value % 2:
        raise ValueError(f"expected an even number (counterbalanced orders), got {value}")
    return value


EvenTrials = Annotated[int, Field(ge=2), AfterValidator(_even)]
"""Trials of a counterbalanced judge: at least 2 and even, so each order is shown equally often."""


class JudgeSettings(BaseModel):
    """The fields every judge section of a config has; a judge kind subclasses it.

    A subclass narrows ``kind`` to its ``Literal`` and adds its own fields; unknown keys
    are refused (``extra="forbid"``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    """The judge kind, a key of :data:`assay.judge.judges.kinds.JUDGE_KINDS`."""
    label: str | None = None
    """Appended to the model name in the ``judge`` column (``gpt-4.1/joint``), so two judges
    with one model stay apart."""
    model: str | None = None
    """The judge model; None uses the ``llm`` section's model."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Chat-completions parameters laid over the ``llm`` section's (temperature, seed, ...)."""
    prompt: Path | None = None
    """A folder with ``system.md`` and ``user.md`` replacing the packaged prompt."""
    trials: int = Field(1, ge=1)
    """Repetitions of each judgment (the ``run`` column)."""
    question_sets: list[str] | None = None
    """Question sets (tasks) this judge reads; None for all the inputs hold."""

    engine_fields: ClassVar[frozenset[str]] = frozenset()
    """Fields that do not decide verdicts (left out of the judge's config hash)."""


@dataclass(frozen=True)
class JudgeContext:
    """What a judge needs from the rest of the config to build itself."""

    model: str
    """The judge model (the section's, else the ``llm`` section's)."""
    params: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Chat-completions parameters: the ``llm`` section's with the judge's laid over them."""
    base_dir: Path = Path(".")
    """The config file's folder: relative paths in the config are read from here."""


ANSWER_COLUMNS = (
    "usd",
    "usd_provenance",
    "tokens_in",
    "tokens_out",
    "latency_s",
    "reference_score",
    "teacher",
    "attributes",
    "split",
    "outcome",
)
"""Judgments-table columns an answer's ``fields`` may carry into the rows judging it."""

_UNIT = "\x1f"


def judge_name(model: str, label: str | None) -> str:
    """The ``judge`` column: the model, with ``/label`` when labelled.

    >>> judge_name("gpt-4.1", None), judge_name("gpt-4.1", "joint")
    ('gpt-4.1', 'gpt-4.1/joint')
    """
    return model if not label else f"{model}/{label}"


def settings_hash(settings: JudgeSettings, context: JudgeContext) -> str:
    """:func:`~assay.judge.config_hash` of what decides a judge's verdicts.

    The section's fields (less ``engine_fields`` and ``prompt``, whose text enters the
    key through the prompt's hash instead of its path), the model and the parameters.
    """
    from assay.llm import config_hash

    section = settings.model_dump(mode="json", exclude={"prompt", *settings.engine_fields})
    return config_hash({"section": section, "model": context.model, "params": dict(context.params)})


def item_key(answer: Answer, *texts: str) -> str:
    """The item as it enters a judgment key: task, item and a digest of the texts judged.

    Folding in the texts means an edited answer is judged again rather than read stale
    from the store.

    >>> a = Answer(item="q1", question="Q?", text="yes", arm="rag", task="local")
    >>> item_key(a, a.question, a.text) == item_key(a, a.question, a.text)
    True
    >>> item_key(a, a.question, a.text) == item_key(a, a.question, "no")
    False
    """
    digest = hashlib.sha256(_UNIT.join(texts).encode("utf-8")).hexdigest()[:16]
    return f"{answer.task or ''}{_UNIT}{answer.item}{_UNIT}{digest}"


def base_meta(answer: Answer, *, judge: str, run: int) -> dict[str, Any]:
    """The row fields of a judgment of ``answer`` known before the call.

    >>> base_meta(Answer(item="q1", question="Q", text="A", arm="rag", fields={"usd": 0.1}),
    ...           judge="m", run=2)
    {'item': 'q1', 'cluster': 'q1', 'arm': 'rag', 'run': 2, 'judge': 'm', 'usd': 0.1}
    """
    meta: dict[str, Any] = {
        "item": answer.item,
        "cluster": answer.cluster_id,
        "arm": answer.arm,
        "run": run,
        "judge": judge,
    }
    if answer.task is not None:
        meta["task"] = answer.task
    for column in ANSWER_COLUMNS:
        if answer.fields.get(column) is not None:
            meta[column] = answer.fields[column]
    return meta


def shown_texts(question: str, answers: Sequence[Answer], reference: str | None = None) -> dict[str, Any]:
    """What a request judged, as :attr:`ChatRequest.shown` keeps it: the question, the answers
    in the order the judge saw them, and the reference when there is one.

    >>> shown_texts("Q?", [Answer(item="q1", question="Q?", text="A", arm="rag")], "R")
    {'question': 'Q?', 'answers': [{'arm': 'rag', 'text': 'A'}], 'reference': 'R'}
    """
    out: dict[str, Any] = {"question": question,
                           "answers": [{"arm": a.arm, "text": a.text} for a in answers]}
    if reference is not None:
        out["reference"] = reference
    return out


def reply_row(
    meta: Mapping[str, Any], reply: Reply, *, score: float | None, reasoning: str | None, prompt_hash: str
) -> dict[str, Any]:
    """One row: ``meta`` with the score (None on failure) and the reply's provenance."""
    row = dict(meta)
    row["score"] = score if reply.ok else None
    row["failure_kind"] = reply.failure_kind
    if reasoning is not None:
        row["reasoning"] = reasoning
    row["raw_response"] = reply.text
    if reply.evaluated_at:
        row["evaluated_at"] = reply.evaluated_at
    if prompt_hash:
        row["metric_version"] = prompt_hash
    return row


class PromptedJudge:
    """What the single-prompt LLM judges share: building from a config section, and the name.

    A subclass is a frozen dataclass with ``settings`` (a :class:`JudgeSettings` with
    ``prompt`` and ``label``), ``context`` and ``prompt`` fields, and names its packaged
    prompt in ``PROMPT``.
    """

    PROMPT: ClassVar[str]
    settings: Any
    context: JudgeContext

    @classmethod
    def from_config(cls, settings: Any, context: JudgeContext) -> Any:
        """The judge of a config section; ``settings.prompt`` overrides the packaged prompt."""
        from assay.judge.prompts import load_prompt

        override = None if settings.prompt is None else context.base_dir / settings.prompt
        return cls(settings=settings, context=context,  # type: ignore[call-arg]
                   prompt=load_prompt(cls.PROMPT, override))

    @property
    def name(self) -> str:
        """The ``judge`` column: the model, or ``model/label``."""
        return judge_name(self.context.model, self.settings.label)

    def prompted_request(self, answer: Answer, texts: tuple[str, ...], arms: tuple[str, ...],
                         criterion: str, trial: int, digest: str, response_model: Any, /, *,
                         meta: Mapping[str, Any], shown: Mapping[str, Any] | None = None,
                         **variables: Any) -> ChatRequest:
        """The request judging ``answer`` on ``criterion`` in ``trial`` (positional only: the
        prompt's variables, such as its own ``criterion``, come by keyword).

        The judgment key hashes ``texts`` (everything the judge reads) with the arms, the
        criterion, the trial, this judge's name and its prompt; the prompt is rendered with
        ``variables`` and the Score ID (when the settings ask for it); the request's meta is
        :func:`base_meta` followed by ``meta``. The request carries this judge's model,
        parameters and prompt hash; ``sample`` = ``trial`` keeps identical trials apart in
        the cache. ``shown`` is what the viewer shows as judged (default: the question and
        ``answer``; :func:`shown_texts`).
        """
        prompt = self.prompt  # type: ignore[attr-defined]
        key = judgment_key(digest, item_key(answer, *texts), arms, criterion, trial,
                           judge=self.name, prompt_hash=prompt.sha256)
        rendered = prompt.render(
            **variables, score_id=f"Score ID: {key}" if self.settings.include_score_id else "")
        return ChatRequest(
            key=key,
            messages=(("system", rendered.system), ("user", rendered.user)),
            response_model=response_model,
            model=self.context.model,
            params=dict(self.context.params),
            prompt_hash=prompt.sha256,
            sample=trial,
            meta={**base_meta(answer, judge=self.name, run=trial), **meta},
            shown=shown_texts(answer.question, [answer]) if shown is None else shown,
        )
