"""The simulated evaluation's world: its parameters (arms, judges, criteria, difficulty, judge
leniency, planted records) and the records it draws (facts, items, responses), shared by the
modules that draw items, responses and evaluations. SIMULATED DATA; see
:mod:`assay.demo.simulate` for the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, NamedTuple

import numpy as np

DEFAULT_ARMS: tuple[str, ...] = ("atlas-7b", "beacon-13b", "cirrus-70b")
TEACHERS: tuple[str, ...] = ("cirrus-70b", "dolomite-34b")
FAILURE_KINDS: tuple[str, ...] = ("timeout", "api_error", "refusal", "parse_error")

CRITERIA: dict[str, dict[str, str]] = {
    "correct": {"scale": "binary",
                "description": "The answer agrees with the reference (1) or not (0)."},
    "quality": {"scale": "range:0,100",
                "description": "Overall quality of the answer: accuracy, completeness, clarity."},
    "helpfulness": {"scale": "ordinal:Low,Medium,High",
                    "description": "How useful the answer would be to the person who asked."},
    "preference": {"scale": "range:0,1",
                   "description": "Pairwise: 1 if this answer is preferred to the opponent's, "
                                  "0.5 for a tie, 0 if the opponent's is preferred."},
    "acceptable": {"scale": "binary",
                   "description": "A person who asked would accept the answer (1) or not (0)."},
}
JUDGES: dict[str, list[str]] = {
    "exact-match": ["correct"], "judge-lenient": ["quality"], "judge-strict": ["quality"],
    "judge-ordinal": ["helpfulness"], "judge-pairwise": ["preference"],
    "judge-biased": ["acceptable"], "human:annotator-1": ["acceptable"],
    "human:annotator-2": ["preference"]}
RUBRICS: dict[str, list[str]] = {task: ["correct", "quality", "helpfulness"]
                                  for task in ("factoid_qa", "summarisation")}
"""The criteria each task is judged on (pairwise preference aside)."""

# The truth of the simulation (see the module docstring).
DIFFICULTY_LOGIT: dict[str, float] = {"easy": 3.0, "medium": 0.0, "hard": -3.0}
DIFFICULTY_P: tuple[float, float, float] = (0.35, 0.40, 0.25)
DOCUMENT_SD, ITEM_SD, ITEM_ARM_SD, SELF_TEACH_LOGIT = 2.8, 2.0, 1.25, 1.0
ACCURACY_RANGE: tuple[float, float] = (0.62, 0.80)
JUDGE_OFFSET: dict[str, float] = {"judge-lenient": 8.0, "judge-strict": -6.0}
JUDGE_NOISE_SD: dict[str, float] = {"judge-lenient": 7.0, "judge-strict": 9.0}
POSITION_BIAS_LOGIT, TIE_HALF_WIDTH = 0.5, 0.9
DEV_FRACTION, REFERENCE_SCORE_FRACTION, ESTIMATED_USD_FRACTION = 0.10, 0.5, 0.02
FILES: dict[str, str] = {"datapoints": "datapoints.jsonl", "responses": "responses.jsonl",
                         "evaluations": "evaluations.jsonl", "criteria": "criteria.json",
                         "readme": "README.md"}
BASE_TIME = datetime(2025, 3, 3, 9, 0, 0, tzinfo=timezone.utc)

PLANTED: dict[str, int] = {
    "MISSING_RESPONSE": 3,  # evaluations whose response_id is in no response
    "INCOMPLETE_SCORES": 3,  # evaluations whose scores lack their judge's criterion
    "INVALID_SCORE_VALUE": 3,  # evaluations with "Excellent" (ordinal) or 140 (0-100)
}
"""How many invalid evaluations of each validity class a simulation writes directly."""
ORPHAN_RESPONSES = 2
"""Responses whose datapoint_id is in no datapoint; each is judged by the four pointwise
judges, so 4 * ORPHAN_RESPONSES evaluations are MISSING_DATAPOINT."""



class _Fact(NamedTuple):
    kind: str  # "year", "person", "city", "count:LOW,HIGH" or a key of texts.VOCAB
    question: str
    clause: str
    value: str


@dataclass
class _Item:
    index: int
    task: str
    prompt: str
    reference: str
    entity: str
    facts: list[_Fact]
    logit: float = 0.0
    teacher: str = ""


@dataclass
class _Response:
    item: _Item | None
    arm: int
    run: int
    correct: bool
    failure: str | None
    quality: float
    record: dict[str, Any]
    orphan: bool = False



def _dp_id(index: int, n_questions: int) -> str:
    return f"dp-{index + 1:0{max(4, len(str(n_questions + 10)))}d}"


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sigmoid(x: Any) -> Any:
    """The logistic function, of a number or elementwise of an array."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))
