"""Reading a verdict from a reply: JSON schema sent, JSON found in text, refusals recognised."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)
_REFUSAL = re.compile(
    r"^\W*(?:i['’]m sorry|i am sorry|sorry,|i apologi[sz]e|i can(?:not|['’]t|not)\b|i won['’]t|"
    r"i will not|i['’]m (?:not able|unable)|i am (?:not able|unable)|as an ai\b|"
    r"i['’]m afraid i can)", re.I)
_DECODER = json.JSONDecoder()
_NAME = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass(frozen=True, slots=True)
class ParseOutcome:
    """A validated verdict, or why there is none."""

    verdict: BaseModel | None
    failure_kind: str | None = None
    """``parse_error`` or ``refusal`` when there is no verdict."""
    error: str | None = None


@lru_cache(maxsize=256)
def verdict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a verdict model (computed once per class)."""
    return model.model_json_schema()


@lru_cache(maxsize=256)
def verdict_schema_text(model: type[BaseModel]) -> str:
    """The verdict model's JSON schema as canonical JSON text (for cache keys)."""
    return json.dumps(verdict_schema(model), sort_keys=True, separators=(",", ":"))


@lru_cache(maxsize=256)
def response_format(model: type[BaseModel]) -> dict[str, Any]:
    """The ``response_format`` that asks for ``model``: ``strict`` when the schema allows it.

    OpenAI's strict mode needs every object closed (``additionalProperties: false``) with
    every property required; a model with optional fields is sent non-strict.

    >>> from pydantic import BaseModel, ConfigDict
    >>> class PairwiseVerdict(BaseModel):
    ...     model_config = ConfigDict(extra="forbid")
    ...     reasoning: str
    ...     winner: int
    >>> rf = response_format(PairwiseVerdict)
    >>> rf["type"], rf["json_schema"]["name"], rf["json_schema"]["strict"]
    ('json_schema', 'PairwiseVerdict', True)
    """
    schema = verdict_schema(model)
    return {"type": "json_schema",
            "json_schema": {"name": _NAME.sub("_", model.__name__)[:64] or "verdict", "schema": schema,
                            "strict": _strict_compatible(schema, schema.get("$defs", {}))}}


def _strict_compatible(schema: Any, defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> bool:
    if isinstance(schema, list):
        return all(_strict_compatible(s, defs, seen) for s in schema)
    if not isinstance(schema, dict):
        return True
    if "$ref" in schema:
        name = str(schema["$ref"]).split("/")[-1]
        if name in seen:
            return True
        target = defs.get(name)
        return target is not None and _strict_compatible(target, defs, seen | {name})
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(props):
            return False
    children: list[Any] = list(schema.get("properties", {}).values())
    for key in ("items", "prefixItems", "anyOf", "allOf", "oneOf"):
        value = schema.get(key)
        if value is not None:
            children.extend(value if isinstance(value, list) else [value])
    return all(_strict_compatible(c, defs, seen) for c in children)


def text_instruction(model: type[BaseModel]) -> str:
    """What is added to the last user message when the server takes no JSON schema."""
    schema = json.dumps(verdict_schema(model), ensure_ascii=False)
    return ("\n\nReply with a single JSON object that validates against this JSON schema, "
            f"and nothing else:\n```json\n{schema}\n```")


def json_candidates(text: str) -> list[Any]:
    """JSON objects found in a text: fenced blocks first, then each decodable ``{...}``.

    >>> json_candidates('Verdict:\\n```json\\n{"winner": 1}\\n```')
    [{'winner': 1}]
    >>> json_candidates('I pick {"winner": 2} and {"x": [1, {"y": 0}]}.')
    [{'winner': 2}, {'x': [1, {'y': 0}]}]
    >>> json_candidates('{"winner": 2, "reas')
    []
    """
    found: list[Any] = []
    for block in _FENCE.findall(text):
        try:
            obj = json.loads(block)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            found.append(obj)
    if found:
        return found
    index = text.find("{")
    while index != -1:
        try:
            obj, end = _DECODER.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        if isinstance(obj, dict):
            found.append(obj)
        index = text.find("{", end)
    return found


def looks_like_refusal(text: str) -> bool:
    """Whether a reply without JSON declines the task in words.

    >>> looks_like_refusal("I'm sorry, but I can't help with that."), looks_like_refusal("Answer 1 wins.")
    (True, False)
    """
    return bool(_REFUSAL.match(text))


def parse_verdict(text: str | None, model: type[BaseModel]) -> ParseOutcome:
    """Validate a reply's content against the verdict model.

    The whole content is tried first (what a server honouring the JSON schema sends),
    then the JSON objects found in it (:func:`json_candidates`); a reply with none that
    declines in words is a refusal, anything else a parse error saying what was wrong.

    >>> from pydantic import BaseModel
    >>> class V(BaseModel):
    ...     score: int
    >>> parse_verdict('{"score": 7}', V).verdict
    V(score=7)
    >>> parse_verdict('Score below.\\n{"score": 3}', V).verdict
    V(score=3)
    >>> parse_verdict('{"points": 3}', V).error
    'score: Field required'
    >>> parse_verdict("I cannot judge this.", V).failure_kind
    'refusal'
    """
    if text is None or not text.strip():
        return ParseOutcome(None, "parse_error", "empty reply")
    try:
        return ParseOutcome(model.model_validate_json(text))
    except ValidationError as exc:
        whole_error = exc
    candidates = json_candidates(text)
    first_error: ValidationError | None = None
    for candidate in candidates:
        try:
            return ParseOutcome(model.model_validate(candidate))
        except ValidationError as exc:
            first_error = first_error or exc
    if not candidates:
        if looks_like_refusal(text):
            return ParseOutcome(None, "refusal", "the judge declined: " + text.strip()[:200])
        return ParseOutcome(None, "parse_error",
                            f"no JSON object in the reply ({_summary(whole_error)})")
    assert first_error is not None
    return ParseOutcome(None, "parse_error", _summary(first_error))


def _summary(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ())) or "(reply)"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)
