"""Chunk-level assertion judge (seed 004, "Chunk-level Assertion Scoring"): retrieval, not generation.

Each retrieved chunk of a question is graded against each of the question's assertions:
``full_support`` (score 1), ``partial_support`` (0.5) or ``no_support`` (0). Coverage at
k is computed from the rows by ``assay.analysis.assertions.chunk_coverage``.

Rank semantics (the seed's): the input is a retrieval-results record per question,
``{question_id, text, context: [{chunk_id, text, rank?}]}``. When *every* context item has
a ``rank``, chunks are put in increasing rank order (ties keep file order); otherwise they
are taken as already sorted by decreasing relevance. A chunk's ``position`` (0-based) in
that order decides top-k membership: it is in the top k when ``position < k``.

Rows written: ``item`` = ``<question>#<assertion>@<chunk_id>``, ``cluster`` = the
question, ``arm`` = the retrieval method, ``run`` = 1, ``criterion`` = ``chunk_support``
(scale ``range:0,1``), ``attributes`` = JSON with ``question_id``, ``assertion_id``,
``chunk_id``, ``position``, ``rank``, ``n_chunks`` (chunks retrieved for the question).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from assay.data.schema import Scale
from assay.judge._protocol import JudgeInputs
from assay.judge._types import ChatRequest, Reply
from assay.judge.assertion import PromptPair, assertion_specs, failure_row, load_prompt_pair, score_row
from assay.judge.store import judgment_key

__all__ = ["GRADE_SCORES", "ChunkCoverageJudge", "ChunkVerdict", "ordered_chunks"]

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

    def __post_init__(self) -> None:
        if self.max_chunks is not None and self.max_chunks < 1:
            raise ValueError(f"max_chunks: expected a positive integer or None, got {self.max_chunks}")

    def scales(self) -> dict[str, Scale]:
        """Scores 0, 0.5, 1 on ``range:0,1``."""
        return {self.criterion: Scale.parse("range:0,1")}

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        """One request per (arm, question, assertion, chunk) of the retrieval results."""
        out: list[ChatRequest] = []
        for arm, records in inputs.retrieval.items():
            for item, record in records.items():
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
                        key = judgment_key(self.config_hash, sub_item, (arm,), self.criterion, 1,
                                           judge=self.name, prompt_hash=self.prompt.sha256)
                        messages = self.prompt.render(
                            score_id=f"Score ID: {key}" if self.include_score_id else "", question=question,
                            chunk=str(chunk.get(self.context_text_key, "")), assertion=spec.statement)
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
