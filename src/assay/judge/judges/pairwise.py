"""The counterbalanced pairwise judge (BenchmarkQED's ``get_pairwise_scores``).

For every question both arms answered, every criterion (or all criteria in one call when
``joint``) and every trial t = 1..trials (an even number), the judge is shown the question
and the two answers: ``arm`` first when t is odd, second when t is even. Its verdict is
read back through that position: score 1 when ``arm`` won, 0.5 for a tie, 0 when it lost.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from itertools import combinations
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
from assay.judge.judges.verdicts import PairwiseVerdict, field_name, joint_pairwise_verdict
from assay.judge.prompts import Prompt, load_prompt
from assay.llm import ChatRequest, Reply

DEFAULT_CRITERIA: dict[str, str] = {
    "comprehensiveness": "How fully the answer covers every aspect and detail the question calls for.",
    "diversity": "How varied and rich the answer is in the perspectives and insights it offers on "
    "the question.",
    "empowerment": "How well the answer helps the reader understand the topic and reach sound "
    "judgments of their own.",
    "relevance": "How directly the answer addresses the specific question, staying on it.",
}
"""The default criteria and their definitions (paraphrasing BenchmarkQED's four)."""

PAIR_SCALE = Scale.parse("range:0,1")
"""Scale of a pairwise score for ``arm``: 1 win, 0.5 tie, 0 loss."""


def resolve_criteria(
    entries: list[CriterionSpec | str], defaults: dict[str, str], *, where: str
) -> tuple[CriterionSpec, ...]:
    """Criteria as declared: a name of a default criterion, or a full definition.

    >>> [c.name for c in resolve_criteria(["relevance", CriterionSpec(name="tone", description="t")],
    ...                                   DEFAULT_CRITERIA, where="criteria")]
    ['relevance', 'tone']
    """
    out: list[CriterionSpec] = []
    for entry in entries:
        if isinstance(entry, str):
            if entry not in defaults:
                raise ValueError(
                    f"{where}: {entry!r} is not a default criterion "
                    f"({', '.join(defaults)}); define it with name and description"
                )
            entry = CriterionSpec(name=entry, description=defaults[entry])
        out.append(entry)
    names = [c.name for c in out]
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: a criterion is named twice in {names}")
    return tuple(out)


class PairwiseSettings(JudgeSettings):
    """The ``kind: pairwise`` section of a config."""

    kind: Literal["pairwise"] = "pairwise"
    trials: EvenTrials = 4
    """Trials per (question, pair, criterion); even, so each order is shown equally often."""
    base: str | None = None
    """The base arm compared with each of ``others`` (BenchmarkQED's ``base``); None with ``pairs: all``."""
    others: list[str] | None = None
    """Arms compared with ``base``; None for every other arm. Listing ``base`` itself runs an A/A test."""
    pairs: Literal["base", "all"] = "base"
    """``base``: base against each other arm; ``all``: every unordered pair of arms."""
    criteria: list[CriterionSpec | str] = Field(default_factory=lambda: list(DEFAULT_CRITERIA))
    """Criteria: names of default criteria, or definitions (name, description)."""
    joint: bool = False
    """Judge all criteria in one call per (question, pair, trial) instead of one call each."""
    include_score_id: bool = True
    """Put a Score ID (from the judgment key) at the top of the prompt, as BenchmarkQED does."""

    @model_validator(mode="after")
    def _pairs(self) -> PairwiseSettings:
        if self.pairs == "base" and self.base is None:
            raise ValueError("base: name the base arm, or set pairs: all")
        resolve_criteria(self.criteria, DEFAULT_CRITERIA, where="criteria")
        return self


@dataclass(frozen=True)
class PairwiseJudge(PromptedJudge):
    """Counterbalanced pairwise judge: trial t shows ``arm`` first when t is odd.

    A reply that does not parse, or a refusal, gives rows with ``failure_kind`` and no
    score (never a loss). The rows are: arm, opponent, position (where ``arm`` was shown),
    run = trial, judge, criterion, score for ``arm``, reasoning, raw_response.

    Examples
    --------
    >>> from assay.judge.judges._protocol import Answer, JudgeContext, JudgeInputs
    >>> judge = PairwiseJudge.from_config(PairwiseSettings(base="a", trials=2, criteria=["relevance"]),
    ...                                   JudgeContext(model="m"))
    >>> inputs = JudgeInputs(answers={"a": {"q": Answer("q", "Why?", "Because.", "a")},
    ...                               "b": {"q": Answer("q", "Why?", "No idea.", "b")}})
    >>> reqs = judge.requests(inputs)
    >>> [(r.meta["arm"], r.meta["opponent"], r.meta["position"], r.meta["run"]) for r in reqs]
    [('a', 'b', 1, 1), ('a', 'b', 2, 2)]
    >>> reply = Reply(key=reqs[1].key, verdict=PairwiseVerdict(reasoning="B says more", winner=1), text="{}")
    >>> judge.rows(reqs[1], reply)[0]["score"]   # Answer 1 was b, so arm a lost
    0.0
    """

    settings: PairwiseSettings
    context: JudgeContext
    prompt: Prompt = field(default_factory=lambda: load_prompt("pairwise"))

    Settings = PairwiseSettings
    PROMPT: ClassVar[str] = "pairwise"

    @property
    def criteria(self) -> tuple[CriterionSpec, ...]:
        return resolve_criteria(self.settings.criteria, DEFAULT_CRITERIA, where="criteria")

    def scales(self) -> dict[str, Scale]:
        return {c.name: PAIR_SCALE for c in self.criteria}

    def pairs(self, arms: tuple[str, ...]) -> list[tuple[str, str]]:
        """The (arm, opponent) pairs judged, from the arms that have answers."""
        s = self.settings
        if s.pairs == "all":
            chosen = [a for a in arms if s.others is None or a in s.others or a == s.base]
            return list(combinations(chosen, 2))
        base = str(s.base)  # set: the settings check it when pairs is "base"
        others = s.others if s.others is not None else [a for a in arms if a != base]
        return [(base, other) for other in others]

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:
        s = self.settings
        digest = settings_hash(s, self.context)
        groups = [self.criteria] if s.joint else [(c,) for c in self.criteria]
        out: list[ChatRequest] = []
        for arm, opponent in self.pairs(inputs.arms):
            for name in (arm, opponent):
                if name not in inputs.answers:
                    raise ValueError(
                        f"pairwise judge {self.name}: no answers for arm {name!r} "
                        f"(arms read: {', '.join(inputs.arms)})"
                    )
            theirs = inputs.answers[opponent]
            for item, mine in inputs.answers[arm].items():
                other = theirs.get(item)
                if other is None or (s.question_sets is not None and mine.task not in s.question_sets):
                    continue
                for group in groups:
                    for trial in range(1, s.trials + 1):
                        out.append(self._request(mine, other, group, trial, digest))
        return out

    def _request(
        self, mine: Answer, other: Answer, group: tuple[CriterionSpec, ...], trial: int, digest: str
    ) -> ChatRequest:
        position = 1 if trial % 2 == 1 else 2
        first, second = (mine, other) if position == 1 else (other, mine)
        meta: dict[str, Any] = {"opponent": other.arm, "position": position}
        if len(group) == 1:
            meta["criterion"] = group[0].name
        model = PairwiseVerdict if len(group) == 1 else joint_pairwise_verdict(tuple(c.name for c in group))
        return self.prompted_request(
            mine, (mine.question, mine.text, other.text), (mine.arm, other.arm),
            "+".join(c.name for c in group), trial, digest, model, meta=meta,
            shown=shown_texts(mine.question, [first, second]),
            criteria=_criteria_variables(group), question=mine.question, answer1=first.text,
            answer2=second.text)

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        position = int(request.meta["position"])
        if "criterion" in request.meta:
            verdicts: dict[str, Any] = {request.meta["criterion"]: reply.verdict}
        else:
            verdicts = {
                c.name: None if reply.verdict is None else getattr(reply.verdict, field_name(c.name))
                for c in self.criteria
            }
        out = []
        for criterion, verdict in verdicts.items():
            meta = {**request.meta, "criterion": criterion}
            score = None if verdict is None else winner_score(verdict.winner, position)
            out.append(
                reply_row(
                    meta,
                    reply,
                    score=score,
                    prompt_hash=request.prompt_hash,
                    reasoning=None if verdict is None else verdict.reasoning,
                )
            )
        return out


@functools.lru_cache(maxsize=64)
def _criteria_variables(group: tuple[CriterionSpec, ...]) -> list[dict[str, str]]:
    """The prompt's ``criteria`` variable for a group, built once (not once per request)."""
    return [{"name": c.name, "description": c.description, "field": field_name(c.name)} for c in group]


def winner_score(winner: int, position: int) -> float:
    """The score of the arm shown at ``position`` (1 or 2) for a verdict ``winner`` (0 tie, 1, 2).

    >>> winner_score(1, 1), winner_score(1, 2), winner_score(0, 2), winner_score(2, 2)
    (1.0, 0.0, 0.5, 1.0)
    """
    if winner == 0:
        return 0.5
    return 1.0 if winner == position else 0.0
