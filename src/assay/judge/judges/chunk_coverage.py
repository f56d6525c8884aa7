"""Chunk-level assertion judge (BenchmarkQED, "Chunk-level Assertion Scoring"): retrieval, not generation.

Each retrieved chunk of a question is graded against each of the question's assertions:
``full_support`` (score 1), ``partial_support`` (0.5) or ``no_support`` (0). Coverage at
k is computed from the rows by ``assay.analysis.assertions._chunk_coverage.chunk_coverage``.

Rank semantics (BenchmarkQED's): the input is a retrieval-results record per question,
``{question_id, text, context: [{chunk_id, text, rank?}]}``. When *every* context item has
a ``rank``, chunks are put in increasing rank order (ties keep file order); otherwise they
are taken as already sorted by decreasing relevance. A chunk's ``position`` (0-based) in
that order decides top-k membership: it is in the top k when ``position < k``.

Rows written: ``item`` = ``<question>#<assertion>@<chunk_id>``, ``cluster`` = the
question, ``arm`` = the retrieval method, ``run`` = 1, ``criterion`` = ``chunk_support``
(scale ``range:0,1``), ``attributes`` = JSON with ``question_id``, ``assertion_id``,
``chunk_id``, ``position``, ``rank``, ``n_chunks`` (chunks retrieved for the question).

Config (``kind: chunk_assertion``, :class:`ChunkAssertionSettings`): ``max_chunks``,
``top_k``, ``pass_threshold`` and ``k_list`` (read by the coverage summary), ``arms`` (the
retrieval methods), ``question_sets`` and the retrieval records' key names. The retrieval
results are read from the config's ``inputs.retrieval_path``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay.data.schema import Scale
from assay.judge.judges._protocol import JudgeContext, JudgeInputs, JudgeSettings, judge_name, settings_hash
from assay.judge.judges.assertion import (
    SELECTION_FIELDS,
    PromptPair,
    assertion_specs,
    failure_row,
    keyed_item,
    load_prompt_pair,
    prompt_override,
    score_row,
)
from assay.llm import ChatRequest, Reply, judgment_key

__all__ = ["GRADE_SCORES", "ChunkAssertionSettings", "ChunkCoverageJudge", "ChunkVerdict", "ordered_chunks"]

GRADE_SCORES: Mapping[str, float] = {"full_support": 1.0, "partial_support": 0.5, "no_support": 0.0}
"""Grade -> score."""


class ChunkVerdict(BaseModel):
    """How well one chunk supports one assertion."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
    reasoning: str
    """Why, citing the passage."""
    grade: Literal["full_support", "partial_support", "no_support"]
    """full_support, partial_support or no_support."""


def ordered_chunks(context: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The chunks in evaluation order: by ``rank`` when every chunk has one, else as given.

    >>> [c["chunk_id"] for c in ordered_chunks([{"chunk_id": "x", "rank": 2}, {"chunk_id": "y", "rank": 0}])]
    ['y', 'x']
    >>> [c["chunk_id"] for c in ordered_chunks([{"chunk_id": "x", "rank": 2}, {"chunk_id": "y"}])]
    ['x', 'y']
    """
    chunks = list(context)
    if chunks and all(c.get("rank") is not None for c in chunks):
        return sorted(chunks, key=lambda c: float(c["rank"]))  # sorted is stable: ties keep file order
    return chunks


class ChunkAssertionSettings(JudgeSettings):
    """The ``kind: chunk_assertion`` section of a config (chunk-level coverage at k)."""

    kind: Literal["chunk_assertion"] = "chunk_assertion"
    max_chunks: int | None = Field(None, ge=1)
    """Grade only the first chunks in evaluation order; None grades all (set it to the largest k)."""
    top_k: int | None = Field(None, ge=1)
    """Grade only the ``top_k`` assertions of each question by rank; None grades all."""
    pass_threshold: float = Field(0.5, ge=0.0, lt=1.0)
    """An assertion is covered at k when its best chunk score within the top k is at least this."""
    k_list: list[int] = Field(default_factory=lambda: [5, 10, 20, 50])
    """The k of the coverage summary (``chunk_coverage.csv``)."""
    arms: list[str] | None = None
    """The retrieval methods graded; None for every method with retrieval results."""
    context_id_key: str = "chunk_id"
    """The key of a context item's id."""
    context_text_key: str = "text"
    """The key of a context item's text."""
    question_text_key: str = "text"
    """The key of the question text in a retrieval-results record."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt."""

    engine_fields: ClassVar[frozenset[str]] = SELECTION_FIELDS

    @field_validator("k_list")
    @classmethod
    def _positive(cls, values: list[int]) -> list[int]:
        if not values or any(k < 1 for k in values):
            raise ValueError(f"expected positive integers, got {values}")
        return values


@dataclass(frozen=True)
class ChunkCoverageJudge:
    """Grade every retrieved chunk against every assertion of its question (one call each).

    ``max_chunks`` keeps only the first chunks in evaluation order (None keeps all): set it
    to the largest k reported to save calls. ``top_k`` keeps the top-k assertions by rank.
    """

    name: str
    max_chunks: int | None = None
    top_k: int | None = None
    config_hash: str = ""
    model: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    prompt: PromptPair = field(default_factory=lambda: load_prompt_pair("assertion_chunk"))
    include_score_id: bool = True
    context_id_key: str = "chunk_id"
    context_text_key: str = "text"
    question_text_key: str = "text"
    criterion: str = "chunk_support"
    pass_threshold: float = 0.5
    k_list: tuple[int, ...] = (5, 10, 20, 50)
    arms: tuple[str, ...] | None = None
    question_sets: tuple[str, ...] | None = None

    Settings = ChunkAssertionSettings

    def __post_init__(self) -> None:
        if self.max_chunks is not None and self.max_chunks < 1:
            raise ValueError(f"max_chunks: expected a positive integer or None, got {self.max_chunks}")
        if any(k < 1 for k in self.k_list):
            raise ValueError(f"k_list: expected positive integers, got {list(self.k_list)}")

    @classmethod
    def from_config(cls, settings: ChunkAssertionSettings, context: JudgeContext) -> ChunkCoverageJudge:
        """Build the judge of a ``kind: chunk_assertion`` section."""
        return cls(name=judge_name(context.model, settings.label), max_chunks=settings.max_chunks,
                   top_k=settings.top_k, config_hash=settings_hash(settings, context), model=context.model,
                   params=dict(context.params),
                   prompt=load_prompt_pair("assertion_chunk",
                                           prompt_override(settings, context, "assertion_chunk")),
                   include_score_id=settings.include_score_id, context_id_key=settings.context_id_key,
                   context_text_key=settings.context_text_key, question_text_key=settings.question_text_key,
                   pass_threshold=settings.pass_threshold, k_list=tuple(settings.k_list),
                   arms=None if settings.arms is None else tuple(settings.arms),
                   question_sets=None if settings.question_sets is None else tuple(settings.question_sets))

    def scales(self) -> dict[str, Scale]:
        """Scores 0, 0.5, 1 on ``range:0,1``."""
        return {self.criterion: Scale.parse("range:0,1")}

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """One request per (arm, question, assertion, chunk) of the retrieval results."""
        out: list[ChatRequest] = []
        if self.arms is not None:
            missing = [a for a in self.arms if a not in inputs.retrieval]
            if missing:
                raise ValueError(f"arms: no retrieval results for {missing[0]!r} "
                                 f"(read: {', '.join(inputs.retrieval) or 'none'}; inputs.retrieval_path)")
        for arm, records in inputs.retrieval.items():
            if self.arms is not None and arm not in self.arms:
                continue
            for item, record in records.items():
                if self.question_sets is not None and record.get("task") not in self.question_sets:
                    continue
                chunks = ordered_chunks(record.get("context") or ())
                n_chunks = len(chunks)
                if self.max_chunks is not None:
                    chunks = chunks[: self.max_chunks]
                question = str(record.get(self.question_text_key, record.get("question", "")))
                task = record.get("task")
                for spec in assertion_specs(item, inputs.assertions.get(item, ()), top_k=self.top_k):
                    for position, chunk in enumerate(chunks):
                        chunk_id = str(chunk.get(self.context_id_key, position))
                        sub_item = f"{spec.item}@{chunk_id}"
                        chunk_text = str(chunk.get(self.context_text_key, ""))
                        key = judgment_key(self.config_hash,
                                           keyed_item(sub_item, question, chunk_text, spec.statement),
                                           (arm,), self.criterion, 1, judge=self.name,
                                           prompt_hash=self.prompt.sha256)
                        messages = self.prompt.render(
                            score_id=f"Score ID: {key}" if self.include_score_id else "", question=question,
                            chunk=chunk_text, assertion=spec.statement)
                        meta: dict[str, Any] = {
                            "item": sub_item, "cluster": item, "arm": arm, "run": 1, "judge": self.name,
                            "criterion": self.criterion,
                            "attributes": spec.attributes(chunk_id=chunk_id, position=position,
                                                          chunk_rank=chunk.get("rank"), n_chunks=n_chunks)}
                        if task is not None:
                            meta["task"] = task
                        out.append(ChatRequest(key=key, messages=messages, response_model=ChunkVerdict,
                                               model=self.model, params=dict(self.params),
                                               prompt_hash=self.prompt.sha256, sample=1, meta=meta))
        return out

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        """One row: the grade's score (1, 0.5, 0), or the failure."""
        verdict = reply.verdict
        if not reply.ok or not isinstance(verdict, ChunkVerdict):
            return [failure_row(request, reply)]
        return [score_row(request, reply, GRADE_SCORES[verdict.grade], verdict.reasoning)]
