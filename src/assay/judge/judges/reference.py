"""The reference-based judge (BenchmarkQED's ``get_reference_scores``): an integer score per criterion.

For every generated answer that has a reference, every criterion and every trial
t = 1..trials, the judge sees the question, the reference answer and the generated answer,
each labelled, in counterbalanced order: the generated answer first when t is odd, the
reference first when t is even. It returns an integer from ``score_min`` to ``score_max``
(default 1-10) for the generated answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from assay.data.schema import Scale
from assay.judge.judges._protocol import (
    Answer,
    CriterionSpec,
    EvenTrials,
    JudgeContext,
    JudgeInputs,
    JudgeSettings,
    PromptedJudge,
    reply_row,
    settings_hash,
    shown_texts,
)
from assay.judge.judges.verdicts import score_verdict
from assay.judge.prompts import Prompt, load_prompt
from assay.llm import ChatRequest, Reply

DEFAULT_CRITERIA: dict[str, str] = {
    "correctness": "How accurate the generated answer is: are its facts and claims right, as the "
    "reference answer has them, with nothing that contradicts it?",
    "completeness": "How much of what the reference answer covers the generated answer also covers: "
    "are its key points, details and aspects all there?",
}
"""The default criteria and their definitions (paraphrasing BenchmarkQED's two)."""


def reference_answer(inputs: JudgeInputs, source: str, answer: Answer) -> Answer | None:
    """The reference for ``answer``: from the inputs' references (``source="inputs"``) or the
    answer of the arm ``source`` to the same item; None when there is none.

    >>> gold = Answer("q", "Q?", "42", "gold")
    >>> ref = Answer("q", "Q?", "41", "reference")
    >>> inputs = JudgeInputs(answers={"gold": {"q": gold}}, references={"q": ref})
    >>> reference_answer(inputs, "gold", Answer("q", "Q?", "40", "rag")).text
    '42'
    >>> reference_answer(inputs, "inputs", Answer("q", "Q?", "40", "rag")).text
    '41'
    """
    if source == "inputs":
        return inputs.references.get(answer.item)
    return inputs.answers.get(source, {}).get(answer.item)


class ReferenceSettings(JudgeSettings):
    """The ``kind: reference`` section of a config."""

    kind: Literal["reference"] = "reference"
    trials: EvenTrials = 2
    """Trials per (answer, criterion); even, so each order is shown equally often."""
    reference: str = "inputs"
    """``inputs``: the references read from the inputs; else the arm whose answers are the references."""
    generated: list[str] | None = None
    """The arms scored; None for every arm but the reference arm."""
    score_min: int = 1
    """The lowest score."""
    score_max: int = 10
    """The highest score."""
    criteria: list[CriterionSpec | str] = Field(default_factory=lambda: list(DEFAULT_CRITERIA))
    """Criteria: names of default criteria, or definitions (name, description)."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt."""

    @model_validator(mode="after")
    def _check(self) -> ReferenceSettings:
        from assay.judge.judges.pairwise import resolve_criteria

        if self.score_min >= self.score_max:
            raise ValueError(
                f"score_max: expected more than score_min ({self.score_min}), got {self.score_max}"
            )
        resolve_criteria(self.criteria, DEFAULT_CRITERIA, where="criteria")
        return self


@dataclass(frozen=True)
class ReferenceJudge(PromptedJudge):
    """Scores generated answers against references, the two shown in counterbalanced order.

    Examples
    --------
    >>> from assay.judge.judges._protocol import Answer, JudgeContext, JudgeInputs
    >>> judge = ReferenceJudge.from_config(ReferenceSettings(reference="long", criteria=["correctness"]),
    ...                                    JudgeContext(model="m"))
    >>> inputs = JudgeInputs(answers={"long": {"q": Answer("q", "Why?", "Because A and B.", "long")},
    ...                               "short": {"q": Answer("q", "Why?", "Because A.", "short")}})
    >>> reqs = judge.requests(inputs)
    >>> [(r.meta["arm"], r.meta["run"], r.messages[1][1].index("Generated") < r.messages[1][1].index("Refer"))
    ...  for r in reqs]
    [('short', 1, True), ('short', 2, False)]
    """

    settings: ReferenceSettings
    context: JudgeContext
    prompt: Prompt = field(default_factory=lambda: load_prompt("reference"))

    Settings = ReferenceSettings
    PROMPT: ClassVar[str] = "reference"

    @property
    def criteria(self) -> tuple[CriterionSpec, ...]:
        from assay.judge.judges.pairwise import resolve_criteria

        return resolve_criteria(self.settings.criteria, DEFAULT_CRITERIA, where="criteria")

    def scales(self) -> dict[str, Scale]:
        scale = Scale.parse(f"range:{self.settings.score_min},{self.settings.score_max}")
        return {c.name: scale for c in self.criteria}

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        s = self.settings
        digest = settings_hash(s, self.context)
        arms = s.generated if s.generated is not None else [a for a in inputs.arms if a != s.reference]
        out = []
        for arm in arms:
            if arm not in inputs.answers:
                raise ValueError(f"reference judge {self.name}: no answers for arm {arm!r}")
            for answer in inputs.answers[arm].values():
                if s.question_sets is not None and answer.task not in s.question_sets:
                    continue
                reference = reference_answer(inputs, s.reference, answer)
                if reference is None:
                    continue
                for criterion in self.criteria:
                    for trial in range(1, s.trials + 1):
                        out.append(self._request(answer, reference, criterion, trial, digest))
        return out

    def _request(
        self, answer: Answer, reference: Answer, criterion: CriterionSpec, trial: int, digest: str
    ) -> ChatRequest:
        s = self.settings
        parts = [
            {"label": "Generated answer", "name": "Generated", "text": answer.text},
            {"label": "Reference answer", "name": "Reference", "text": reference.text},
        ]
        if trial % 2 == 0:
            parts.reverse()
        return self.prompted_request(
            answer, (answer.question, answer.text, reference.text), (answer.arm,), criterion.name,
            trial, digest, score_verdict(s.score_min, s.score_max),
            meta={"criterion": criterion.name},
            shown=shown_texts(answer.question, [answer], reference.text),
            criterion={"name": criterion.name, "description": criterion.description},
            score_min=s.score_min, score_max=s.score_max, question=answer.question, answers=parts)

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        verdict = reply.verdict
        return [
            reply_row(
                request.meta,
                reply,
                prompt_hash=request.prompt_hash,
                score=None if verdict is None else float(verdict.score),
                reasoning=None if verdict is None else str(verdict.reasoning),
            )
        ]
