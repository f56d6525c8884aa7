"""The rubric judge: one answer, one criterion, a score on the criterion's declared scale.

A range scale (``range:0,100``, the results aggregator's quality scores) asks for a number in the
range; an ordinal scale (``ordinal:Low,Medium,High``, CoEval's levels, lowest first)
asks for one of its labels, stored as the label's index 0..k-1 as the judgments table
stores ordinal scores. Optionally the reference answer is shown for comparison.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    Answer,
    CriterionSpec,
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    PromptedJudge,
    reply_row,
    settings_hash,
    shown_texts,
)
from assay.judge.judges.reference import reference_answer
from assay.judge.judges.verdicts import label_verdict, score_verdict
from assay.judge.prompts import Prompt, load_prompt
from assay.llm import ChatRequest, Reply

DEFAULT_SCALE = "range:0,100"
"""The scale of a criterion that declares none (the results aggregator's 0-100)."""


class RubricSettings(JudgeSettings):
    """The ``kind: rubric`` section of a config."""

    kind: Literal["rubric"] = "rubric"
    criteria: list[CriterionSpec] = Field(min_length=1)
    """Criteria with their definitions and scales (``range:MIN,MAX`` or ``ordinal:L1,L2,...``)."""
    arms: list[str] | None = None
    """The arms scored; None for every arm."""
    reference: str | None = None
    """Show a reference answer too: ``inputs`` or an arm; None shows none."""
    integer: bool = True
    """Ask for whole numbers on a range scale."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt."""

    @model_validator(mode="after")
    def _scales(self) -> RubricSettings:
        for index, criterion in enumerate(self.criteria):
            try:
                scale = criterion.declared_scale(DEFAULT_SCALE)
            except ValueError as exc:
                raise ValueError(f"criteria[{index}].scale: {exc}") from None
            if scale.kind not in ("range", "ordinal"):
                raise ValueError(
                    f"criteria[{index}].scale: expected range:MIN,MAX or ordinal:L1,L2,..., "
                    f"got {criterion.scale!r}"
                )
        return self


@dataclass(frozen=True)
class RubricJudge(PromptedJudge):
    """Pointwise judge: a score per (answer, criterion, trial) on the criterion's scale.

    Examples
    --------
    >>> from assay.judge.judges._protocol import Answer, JudgeContext, JudgeInputs
    >>> from assay.judge.judges.verdicts import label_verdict
    >>> crit = CriterionSpec(name="helpfulness", description="Helps?", scale="ordinal:Low,Medium,High")
    >>> judge = RubricJudge.from_config(RubricSettings(criteria=[crit]), JudgeContext(model="m"))
    >>> [req] = judge.requests(JudgeInputs(answers={"rag": {"q": Answer("q", "Q?", "A.", "rag")}}))
    >>> verdict = label_verdict(("Low", "Medium", "High"))(reasoning="ok", score="Medium")
    >>> judge.rows(req, Reply(key=req.key, verdict=verdict, text="{}"))[0]["score"]
    1.0
    """

    settings: RubricSettings
    context: JudgeContext
    prompt: Prompt = field(default_factory=lambda: load_prompt("rubric"))

    Settings = RubricSettings
    PROMPT: ClassVar[str] = "rubric"

    def scales(self) -> dict[str, Scale]:
        return {c.name: c.declared_scale(DEFAULT_SCALE) for c in self.settings.criteria}

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        s = self.settings
        digest = settings_hash(s, self.context)
        out = []
        for arm in s.arms if s.arms is not None else inputs.arms:
            if arm not in inputs.answers:
                raise ValueError(f"rubric judge {self.name}: no answers for arm {arm!r}")
            for answer in inputs.answers[arm].values():
                if s.question_sets is not None and answer.task not in s.question_sets:
                    continue
                reference = None if s.reference is None else reference_answer(inputs, s.reference, answer)
                if s.reference is not None and reference is None:
                    continue
                for criterion in s.criteria:
                    for trial in range(1, s.trials + 1):
                        out.append(self._request(answer, reference, criterion, trial, digest))
        return out

    def _request(
        self, answer: Answer, reference: Answer | None, criterion: CriterionSpec, trial: int, digest: str
    ) -> ChatRequest:
        s = self.settings
        scale = criterion.declared_scale(DEFAULT_SCALE)
        texts = (answer.question, answer.text) + (() if reference is None else (reference.text,))
        low, high = scale.minimum, scale.maximum
        model = (
            label_verdict(scale.levels)
            if scale.kind == "ordinal"
            else score_verdict(float(low), float(high), integer=s.integer)
        )
        return self.prompted_request(
            answer, texts, (answer.arm,), criterion.name, trial, digest, model,
            meta={"criterion": criterion.name},
            shown=shown_texts(answer.question, [answer], None if reference is None else reference.text),
            criterion={"name": criterion.name, "description": criterion.description},
            levels=list(scale.levels), score_min=_number(low), score_max=_number(high),
            question=answer.question, answer=answer.text,
            reference=None if reference is None else reference.text)

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        verdict = reply.verdict
        score: float | None = None
        if verdict is not None:
            scale = self.scales()[request.meta["criterion"]]
            raw = verdict.score
            score = float(scale.levels.index(raw)) if scale.kind == "ordinal" else float(raw)
        return [
            reply_row(
                request.meta,
                reply,
                score=score,
                prompt_hash=request.prompt_hash,
                reasoning=None if verdict is None else str(verdict.reasoning),
            )
        ]


def _number(value: float | None) -> float | int | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value
