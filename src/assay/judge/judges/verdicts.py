"""The verdict models: what each judge asks the model to return (sent as a JSON schema).

Fixed models (:class:`PairwiseVerdict`, :class:`MetricVerdict`) are classes; models whose
fields depend on the config (the criteria of a joint pairwise call, the bounds of a
score scale, the labels of an ordinal rubric) are built by the ``*_verdict`` functions,
cached so that one configuration gives one class. Every model refuses unknown fields
(``extra="forbid"``), so an off-schema reply is a ``parse_error``, never a guess.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

_CONFIG = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)
_NAME = re.compile(r"[^0-9A-Za-z_]")


class PairwiseVerdict(BaseModel):
    """The judge's verdict on one ordered pair of answers for one criterion.

    >>> PairwiseVerdict.model_validate_json('{"reasoning": "A covers more.", "winner": 1}').winner
    1
    """

    model_config = _CONFIG

    reasoning: str
    """The assessment, written before the verdict."""
    winner: Literal[0, 1, 2]
    """1: Answer 1 is better, 2: Answer 2 is better, 0: a tie (no material difference)."""


class ScoreVerdict(BaseModel):
    """A pointwise verdict on an open numeric scale (the base of :func:`score_verdict`)."""

    model_config = _CONFIG

    reasoning: str
    """The assessment, written before the score."""
    score: float
    """The score."""


class MetricVerdict(BaseModel):
    """What an offline metric judge computes for one answer (no model involved)."""

    model_config = _CONFIG

    score: float
    """The metric's value."""


def field_name(criterion: str) -> str:
    """A JSON field name for a criterion: letters, digits and ``_``.

    >>> field_name("Factual accuracy"), field_name("3d")
    ('Factual_accuracy', 'c_3d')
    """
    name = _NAME.sub("_", criterion)
    return name if name[:1].isalpha() else f"c_{name}"


@lru_cache(maxsize=256)
def joint_pairwise_verdict(criteria: tuple[str, ...]) -> type[BaseModel]:
    """A verdict holding one :class:`PairwiseVerdict` per criterion (all criteria in one call).

    >>> model = joint_pairwise_verdict(("relevance", "diversity"))
    >>> v = model.model_validate({"relevance": {"reasoning": "r", "winner": 2},
    ...                           "diversity": {"reasoning": "d", "winner": 0}})
    >>> v.relevance.winner, list(model.model_fields)
    (2, ['relevance', 'diversity'])
    """
    names = [field_name(c) for c in criteria]
    if len(set(names)) != len(names):
        raise ValueError(f"criteria: {criteria} give clashing field names {names}")
    fields: dict[str, Any] = {
        name: (PairwiseVerdict, Field(description=f"The verdict on {crit}."))
        for name, crit in zip(names, criteria, strict=True)
    }
    return create_model(
        "JointPairwiseVerdict",
        __config__=_CONFIG,
        __doc__="One verdict per criterion on one ordered pair of answers.",
        **fields,
    )


@lru_cache(maxsize=256)
def score_verdict(minimum: float, maximum: float, *, integer: bool = True) -> type[BaseModel]:
    """A pointwise verdict whose score lies in [minimum, maximum] (integers when ``integer``).

    >>> model = score_verdict(1, 10)
    >>> model.model_validate({"reasoning": "ok", "score": 7}).score
    7
    >>> model.model_json_schema()["properties"]["score"]["maximum"]
    10
    """
    kind: Any = int if integer else float
    low: Any = int(minimum) if integer else float(minimum)
    high: Any = int(maximum) if integer else float(maximum)
    return create_model(
        "ScoreVerdict",
        __config__=_CONFIG,
        __doc__="An assessment and a score on the declared scale.",
        reasoning=(str, Field(description="The assessment, written before the score.")),
        score=(kind, Field(ge=low, le=high, description=f"The score, from {low} to {high}.")),
    )


@lru_cache(maxsize=256)
def label_verdict(levels: tuple[str, ...]) -> type[BaseModel]:
    """A pointwise verdict choosing one of the scale's labels (High/Medium/Low, ...).

    >>> model = label_verdict(("Low", "Medium", "High"))
    >>> model.model_validate({"reasoning": "fine", "score": "High"}).score
    'High'
    >>> model.model_json_schema()["properties"]["score"]["enum"]
    ['Low', 'Medium', 'High']
    """
    choice: Any = Literal[levels]  # type: ignore[valid-type]
    return create_model(
        "LabelVerdict",
        __config__=_CONFIG,
        __doc__="An assessment and one label of the declared scale.",
        reasoning=(str, Field(description="The assessment, written before the label.")),
        score=(choice, Field(description=f"One of: {', '.join(levels)}.")),
    )
