"""What a judge asks the engine (:class:`ChatRequest`), what it gets back (:class:`Reply`), and the
deterministic key that names a judgment (:func:`judgment_key`, over :func:`config_hash`)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel

from assay.errors import JudgeError

Role = Literal["system", "user", "assistant"]
ReplyFailure = Literal["parse_error", "refusal", "timeout", "api_error", "reply_too_large"]
"""The failure kinds the engine writes (a subset of :class:`assay.data.schema.FailureKind`)."""

_ROLES = frozenset(("system", "user", "assistant"))
_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat-completions call a judge wants made, with what identifies and describes it.

    Examples
    --------
    >>> from pydantic import BaseModel
    >>> class Verdict(BaseModel):
    ...     score: int
    >>> req = ChatRequest(key="9f2c", messages=(("system", "Grade 1-10."), ("user", "Answer: 42")),
    ...                   response_model=Verdict, meta={"item": "q1", "arm": "rag", "criterion": "c"})
    >>> req.messages[1], req.meta["item"]
    (('user', 'Answer: 42'), 'q1')
    """

    key: str
    """The judgment key (:func:`assay.judge.judgment_key`): the request's identity in the run store."""
    messages: tuple[tuple[Role, str], ...]
    """``(role, content)`` pairs in order; roles are system, user or assistant."""
    response_model: type[BaseModel] | None = None
    """The verdict model. Its JSON schema is sent as ``response_format`` when the server takes
    it (else the reply's JSON is read from text); None asks for free text."""
    model: str | None = None
    """The judge model; None uses the client's configured model."""
    params: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Extra chat-completions parameters (``temperature``, ``seed``, ``max_tokens``, ...), laid
    over the client's defaults; they enter the cache key."""
    prompt_hash: str = ""
    """SHA-256 of the prompt templates; enters the cache key (and should enter the judgment key)."""
    sample: int = 0
    """Which sample of an identical prompt this is: trials that send the very same messages
    must differ here, or the cache would give them one reply."""
    meta: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """Judgments-table fields known before the call (item, cluster, arm, opponent, position,
    run, judge, criterion, task, ...): JSON values, copied into the rows written."""
    shown: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    """What was judged, for ``assay view`` to show above the verdict: ``question`` (text),
    ``answers`` (a list of ``{"arm", "text"}`` in the order the judge saw them) and
    ``reference`` (text, when the judge read one); empty when the judge does not say. Kept in
    the run store's ``shown`` table; it enters neither key nor rows."""
    logprob_token: int = 0
    """When ``params`` ask ``logprobs: true`` (with ``top_logprobs: K``): the position of the
    reply's token whose top-logprob table the :class:`Reply` carries (0: the first token)."""

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key:
            raise ValueError("key: expected a non-empty string (see judgment_key)")
        if isinstance(self.logprob_token, bool) or not isinstance(self.logprob_token, int) \
                or self.logprob_token < 0:
            raise ValueError(f"logprob_token of request {self.key}: expected an integer >= 0, "
                             f"got {self.logprob_token!r}")
        if not self.messages:
            raise ValueError(f"messages of request {self.key}: expected at least one message")
        for message in self.messages:
            if (len(message) != 2 or message[0] not in _ROLES or not isinstance(message[1], str)):
                raise ValueError(f"messages of request {self.key}: expected (role, text) pairs with a "
                                 f"role in system, user, assistant; got {message!r}")
        if self.response_model is not None and not (
                isinstance(self.response_model, type) and issubclass(self.response_model, BaseModel)):
            raise ValueError(f"response_model of request {self.key}: expected a pydantic model class")


@dataclass(frozen=True, slots=True)
class Reply:
    """The engine's answer to a :class:`ChatRequest`: a verdict, or a failure saying why not.

    A failure is a value, not an exception: the runner stores it as a row with
    ``failure_kind`` set (counted, never scored), and ``--retry-failed`` asks again.
    """

    key: str
    """The request's judgment key."""
    verdict: BaseModel | None
    """The validated verdict (an instance of the request's ``response_model``); None on failure
    or for free-text requests."""
    text: str | None
    """The raw content of the last reply received (for ``raw_response``), or the refusal text."""
    failure_kind: ReplyFailure | None = None
    """None when the reply is good."""
    error: str | None = None
    """What went wrong, in one line (no secrets: never headers)."""
    tokens_in: int = 0
    """Prompt tokens over every attempt that got a reply."""
    tokens_out: int = 0
    """Completion tokens over every attempt that got a reply."""
    usd: float | None = None
    """Judge cost in USD from the price table; None when the model has no price."""
    usd_provenance: Literal["reported", "estimated"] | None = None
    """``reported`` when the server reported usage for every attempt, ``estimated`` when some
    token counts were estimated (about 4 characters a token)."""
    latency_s: float = 0.0
    """Wall time of the call, retries and back-off included."""
    attempts: int = 0
    """HTTP requests sent (0 for a reply from the cache)."""
    cached: bool = False
    """Served from the response cache, or by an identical request's call in flight (tokens
    and usd are then those of the original call and were not paid again)."""
    model: str | None = None
    """The model that answered, as the server named it."""
    evaluated_at: str = ""
    """ISO 8601 UTC time the reply was obtained."""
    top_logprobs: tuple[tuple[str, float], ...] | None = None
    """``(token, logprob)`` pairs of the top-logprob table at the request's ``logprob_token``
    position, as the server listed them; None when the request did not ask for logprobs or
    the endpoint returned none (many do not: the caller must say what it did instead)."""

    @property
    def ok(self) -> bool:
        """True when the reply holds a usable answer."""
        return self.failure_kind is None

    def verdict_dict(self) -> dict[str, Any] | None:
        """The verdict as plain JSON values."""
        return None if self.verdict is None else self.verdict.model_dump(mode="json")


class CostLimitExceeded(JudgeError):
    """The run's cost limit is spent: no new request is sent.

    Raised by :meth:`LLMClient.complete` before a new request would go out; the runner
    catches it, lets the requests in flight finish and be stored, and reports the run as
    stopped (a rerun resumes from there). Spending can pass the limit by what the requests
    already in flight cost (at most ``max_concurrency`` calls).
    """

    def __init__(self, spent_usd: float, limit_usd: float) -> None:
        self.spent_usd = spent_usd
        self.limit_usd = limit_usd
        super().__init__(f"cost limit reached: ${spent_usd:.4f} spent of ${limit_usd:.4f}; "
                         "rerun to resume with a higher limit")


class FatalAPIError(JudgeError):
    """The server refuses every request (bad key, no such model, no permission): stop the run."""


_SECOND: list[Any] = [None, ""]  # the last whole second formatted, and its text


def utc_now() -> str:
    """The time now in UTC as ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (the store's and cache's timestamps).

    The date and time to the second are formatted once a second (strftime costs more than
    the rest of storing a cached judgment).

    >>> stamp = utc_now()
    >>> len(stamp), stamp[10], stamp[-1]
    (27, 'T', 'Z')
    """
    now = time.time()
    second = int(now)
    if _SECOND[0] != second:
        _SECOND[0], _SECOND[1] = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    return f"{_SECOND[1]}.{int((now - second) * 1e6):06d}Z"


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def config_hash(config: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a config's canonical JSON (keys sorted, no spaces).

    Hash only what decides the verdicts (judge model, parameters, criteria, prompts), not
    the engine's settings (concurrency, retries, prices, cost limit), or changing those
    would re-ask every judgment. The API key is never part of a config: only the name of
    the environment variable holding it.

    >>> config_hash({"b": 1, "a": [1, 2]}) == config_hash({"a": [1, 2], "b": 1})
    True
    >>> config_hash({})
    '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
    """
    return hashlib.sha256(_canonical(dict(config)).encode("utf-8")).hexdigest()


def judgment_key(config_hash: str, item: str, arms: Sequence[str], criterion: str, trial: int, *,
                 judge: str = "", prompt_hash: str = "") -> str:
    """The deterministic key of one judgment: 32 hex digits of a SHA-256.

    Parameters
    ----------
    config_hash
        Hash of what decides the verdict (:func:`config_hash` of the judge's section).
    item
        The item (question) judged.
    arms
        The arms shown, in the order the judge defines them (``(arm,)`` for a pointwise
        judge, ``(base, other)`` for a pairwise one; order matters).
    criterion
        The criterion, or a name for a joint call over several criteria.
    trial
        The trial (repetition) number.
    judge
        The judge's name (its model), so one config can hold several judges.
    prompt_hash
        Hash of the prompt templates, so editing a prompt re-asks exactly its judgments.

    Notes
    -----
    The key is the first 128 bits of SHA-256 over the canonical JSON of
    ``[config_hash, judge, prompt_hash, item, arms, criterion, trial]``, written as 32 hex
    digits (the shape of BenchmarkQED's "Score ID", which is derived from it). Items and arms
    are compared as given: strings, so ``"1"`` and ``1`` give different keys.

    Examples
    --------
    >>> k = judgment_key("c0ffee", "q1", ("rag", "base"), "relevance", 1)
    >>> len(k), k == judgment_key("c0ffee", "q1", ["rag", "base"], "relevance", 1)
    (32, True)
    >>> k == judgment_key("c0ffee", "q1", ("base", "rag"), "relevance", 1)
    False
    """
    payload = [config_hash, judge, prompt_hash, str(item), [str(a) for a in arms], criterion, int(trial)]
    return hashlib.sha256(_canonical(payload).encode("utf-8")).hexdigest()[:32]
