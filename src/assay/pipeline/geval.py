"""G-Eval (Liu et al. 2023): a form-filling prompt and the score's expectation over the
judge's token probabilities, the baseline CoEval compares its judges with.

Per response, two ways to a score, and every row says which one it took (``how``):

``logprob_expectation``
    One call asks ``logprobs: true, top_logprobs: K`` with the form ending in
    ``- {Criterion} (1-N):``; the first token's top-logprob table is read, the tokens that
    are a score 1..N kept (``" 4"`` and ``"4"`` are one score; their probabilities add),
    and the score is sum_s s p(s) renormalised over them
    (:func:`assay.stats.score_expectation`). ``mass`` records the probability the score
    tokens had before renormalising.
``sampled_mean``
    When the endpoint returns no table, or the table holds no score token, ``samples``
    calls at ``temperature`` (each with its own ``seed`` and sample number, so neither
    the cache nor the server gives them one reply) are read for their first integer in
    1..N, and the score is their mean over the replies that gave one (``n_samples``);
    the paper's fallback for models without logprobs (n = 20, temperature 1).

A response none of whose replies holds a score gets no score and ``failure_kind``
``parse_error`` (never a guess). The calls go through the engine (cache, run store,
resume, cost limit), keyed per response, criterion and sample.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.llm import ChatRequest, Reply
from assay.llm.store import judgment_key
from assay.stats.expectation import score_expectation

GEvalHow = Literal["logprob_expectation", "sampled_mean"]

_FIRST_INT = re.compile(r"(?<![\d.])(\d+)(?![\d.])")


class GEvalSettings(BaseModel):
    """The ``geval`` section of a baselines config: the form and how it is scored."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    criterion: str = "quality"
    """The criterion's name, as the form asks for it (``- Quality (1-5):``)."""
    description: str = ("how well the response does what the input asks: correct, complete, "
                        "relevant and clearly written")
    """What the criterion means (the form's Evaluation Criteria)."""
    task_introduction: str = ("You will be given an input and one response written for it.\n\n"
                              "Your task is to rate the response on one metric.\n\n"
                              "Please make sure you read and understand these instructions "
                              "carefully. Please keep this document open while reviewing, and "
                              "refer to it as needed.")
    """The form's opening (the paper's task introduction)."""
    steps: list[str] = Field(default_factory=lambda: [
        "Read the input carefully and identify what it asks for.",
        "Read the response and compare it with what the input asks for.",
        "Assign a score for the criterion on the scale given, where 1 is the lowest and the "
        "scale's top the highest."], min_length=1)
    """The Evaluation Steps (the paper had the model write them once by chain of thought;
    here they are given)."""
    score_max: int = Field(default=5, ge=2, le=9)
    """Scores are 1..score_max (one token each, so at most 9)."""
    logprobs: bool = True
    """Ask for the top-logprob table; False goes straight to the sampled mean."""
    top_logprobs: int = Field(default=20, ge=1, le=20)
    """K of ``top_logprobs`` (OpenAI allows at most 20)."""
    samples: int = Field(default=20, ge=1, le=100)
    """n of the sampled mean."""
    temperature: float = Field(default=1.0, ge=0.0, le=2.0)
    """Temperature of the samples (the paper's 1)."""
    max_tokens: int = Field(default=5, ge=1)
    """Longest reply asked for (a score is one token)."""


@dataclass(frozen=True)
class GEvalTarget:
    """One response to score: its ids, the input it answers and its text."""

    response_id: str
    datapoint_id: str
    arm: str
    task: str
    source: str
    output: str


def geval_prompt(settings: GEvalSettings, source: str, output: str) -> str:
    """The form-filling prompt of G-Eval (the paper's Figure 1 layout).

    >>> text = geval_prompt(GEvalSettings(score_max=5), "Summarise: ...", "A summary.")
    >>> text.splitlines()[-1]
    '- Quality (1-5):'
    >>> "Evaluation Steps:" in text and "1. Read the input" in text
    True
    """
    name = settings.criterion.strip()
    label = name[:1].upper() + name[1:]
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(settings.steps, 1))
    return (f"{settings.task_introduction}\n\n"
            f"Evaluation Criteria:\n\n{label} (1-{settings.score_max}) - {settings.description}\n\n"
            f"Evaluation Steps:\n\n{steps}\n\n"
            f"Example:\n\nInput:\n\n{source}\n\nResponse:\n\n{output}\n\n"
            f"Evaluation Form (scores ONLY):\n\n- {label} (1-{settings.score_max}):")


_STAGE_ONLY = {"logprobs": {"samples", "temperature"}, "samples": {"logprobs", "top_logprobs", "samples"}}
"""Settings that do not change a stage's replies (so changing them re-asks nothing of it)."""


def settings_digest(settings: GEvalSettings, model: str, stage: Literal["logprobs", "samples"]) -> str:
    """What decides one stage's replies (the form, the model, that stage's settings), hashed
    for the judgment keys and the cache."""
    kept = settings.model_dump_json(exclude=_STAGE_ONLY[stage])
    return hashlib.sha256(f"{model}\n{stage}\n{kept}".encode()).hexdigest()


def geval_requests(targets: Sequence[GEvalTarget], settings: GEvalSettings, model: str, *,
                   stage: Literal["logprobs", "samples"]) -> list[ChatRequest]:
    """The requests of one stage: one logprob call per response, or ``samples`` calls each."""
    digest = settings_digest(settings, model, stage)
    out = []
    for target in targets:
        text = geval_prompt(settings, target.source, target.output)
        meta = {"item": target.datapoint_id, "arm": target.arm, "response_id": target.response_id,
                "task": target.task, "judge": "geval", "criterion": settings.criterion}
        if stage == "logprobs":
            params: dict[str, Any] = {"logprobs": True, "top_logprobs": settings.top_logprobs,
                                      "max_tokens": settings.max_tokens, "temperature": 0.0}
            key = judgment_key(digest, target.response_id, (target.arm,), settings.criterion, 0,
                               judge="geval:logprobs")
            out.append(ChatRequest(key=key, messages=(("user", text),), params=params,
                                   prompt_hash=digest, meta={**meta, "stage": stage}))
            continue
        for sample in range(1, settings.samples + 1):
            params = {"temperature": settings.temperature, "seed": sample,
                      "max_tokens": settings.max_tokens}
            key = judgment_key(digest, target.response_id, (target.arm,), settings.criterion, sample,
                               judge="geval:samples")
            out.append(ChatRequest(key=key, messages=(("user", text),), params=params,
                                   prompt_hash=digest, sample=sample,
                                   meta={**meta, "stage": stage, "trial": sample}))
    return out


def parse_score(text: str | None, score_max: int) -> int | None:
    """The first whole number in a reply, when it is a score 1..score_max (else None).

    >>> parse_score("4", 5), parse_score("- Quality: 3/5", 5), parse_score("7", 5), parse_score("3.5", 5)
    (4, 3, None, None)
    """
    match = _FIRST_INT.search(text or "")
    if match is None:
        return None
    value = int(match.group(1))
    return value if 1 <= value <= score_max else None


def table_score(table: Sequence[tuple[str, float]] | None, score_max: int
                ) -> tuple[float, float, int] | None:
    """(expectation, mass, scores seen) from a top-logprob table; None when no token is a score.

    Tokens are stripped of spaces; those that are a score 1..score_max are kept, one score's
    tokens (``"4"``, ``" 4"``) adding their probabilities.

    >>> import math
    >>> table = (("3", math.log(0.5)), (" 4", math.log(0.2)), ("4", math.log(0.1)), ("The", math.log(0.1)))
    >>> [round(v, 6) for v in table_score(table, 5)[:2]]
    [3.375, 0.8]
    >>> table_score((("The", -0.1),), 5) is None
    True
    """
    if not table:
        return None
    mass = [0.0] * score_max
    seen = [False] * score_max
    for token, logprob in table:
        word = token.strip()
        if word.isdigit() and 1 <= int(word) <= score_max:
            mass[int(word) - 1] += math.exp(logprob)
            seen[int(word) - 1] = True
    if not any(seen):
        return None
    logs = [math.log(m) if s and m > 0 else -math.inf for m, s in zip(mass, seen, strict=True)]
    result = score_expectation(list(range(1, score_max + 1)), logs)
    if math.isnan(result.estimate):  # every score token at probability 0 (underflow)
        return None
    return result.estimate, result.mass, result.n


def geval_rows(score_max: int) -> Any:
    """The run store's rows function for G-Eval's requests (one row per call)."""

    def rows(request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        row: dict[str, Any] = dict(request.meta)
        row.update(score=None, how=None, mass=None, failure_kind=reply.failure_kind,
                   raw_response=reply.text, evaluated_at=reply.evaluated_at or None)
        if reply.ok:
            if request.meta.get("stage") == "logprobs":
                got = table_score(reply.top_logprobs, score_max)
                if got is not None:
                    row.update(score=got[0], how="logprob_expectation", mass=got[1])
            else:
                value = parse_score(reply.text, score_max)
                row.update(score=None if value is None else float(value), how="sample")
        return [row]

    return rows


def combine(first: Mapping[str, Any] | None, samples: Sequence[Mapping[str, Any]], settings: GEvalSettings
            ) -> dict[str, Any]:
    """One response's G-Eval score from its stored rows: the logprob row's expectation when it
    has one, else the mean of the samples' scores; says which (``how``) and on what."""
    if first is not None and first.get("how") == "logprob_expectation" and first.get("score") is not None:
        return {"score": float(first["score"]), "how": "logprob_expectation", "n_samples": None,
                "mass": first.get("mass"), "failure_kind": None}
    values = [float(r["score"]) for r in samples if r.get("score") is not None]
    if values:
        return {"score": sum(values) / len(values), "how": "sampled_mean", "n_samples": len(values),
                "mass": None, "failure_kind": None}
    kinds = [r.get("failure_kind") for r in samples if r.get("failure_kind")]
    return {"score": None, "how": "sampled_mean" if samples else None, "n_samples": 0, "mass": None,
            "failure_kind": kinds[0] if kinds else "parse_error"}
