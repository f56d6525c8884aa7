"""Reading what a chat-completions server sends back: error bodies, completions and their
tokens, content parts, the cause behind a reported timeout.

Pure functions on bytes, parsed JSON and exceptions, shared by both transports of
:mod:`assay.llm.client` (which alone talks to the network).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.llm.pricing import CHARS_PER_TOKEN, estimate_tokens

if TYPE_CHECKING:
    from pydantic import BaseModel


def json_or_text(body: bytes) -> Any:
    """The body as JSON when it is JSON, else as text (``"replace"`` for bad UTF-8).

    >>> json_or_text(b'{"error": {"message": "no"}}'), json_or_text(b"Bad Gateway")
    ({'error': {'message': 'no'}}, 'Bad Gateway')
    """
    text = body.decode("utf-8", "replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def error_message(body: Any, status: int) -> str:
    """The server's words for an error reply: ``error.message``, ``message``, or the text.

    >>> error_message({"error": {"message": "Rate limit reached", "code": None}}, 429)
    'Rate limit reached'
    >>> error_message("", 502)
    'HTTP 502 with an empty body'
    """
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str) and inner:
            return inner[:300]
        if body.get("message"):
            return str(body["message"])[:300]
        return json.dumps(body)[:300]
    text = str(body or "").strip()
    return text[:300] if text else f"HTTP {status} with an empty body"


def error_code(body: Any) -> str:
    """``error.code`` of an error body ('' when absent), e.g. ``insufficient_quota``.

    >>> error_code({"error": {"code": "insufficient_quota"}}), error_code("oops")
    ('insufficient_quota', '')
    """
    inner = body.get("error", body) if isinstance(body, dict) else None
    return str(inner.get("code") or "") if isinstance(inner, dict) else ""


def refuses_schema(body: Any) -> bool:
    """Whether a 400 body says the server takes no JSON-schema ``response_format``.

    >>> refuses_schema({"error": {"message": "bad value", "param": "response_format"}})
    True
    >>> refuses_schema({"error": {"message": "context length exceeded"}})
    False
    """
    param = ""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            param = str(inner.get("param") or "")
    text = error_message(body, 400).lower()
    return "response_format" in param.lower() or "response_format" in text or "json_schema" in text


def text_or_none(value: Any) -> str | None:
    """A message's ``content`` (or ``refusal``) as text: a string, or its text parts joined.

    >>> text_or_none("hi"), text_or_none([{"type": "text", "text": "a"}, {"text": "b"}]), text_or_none(3)
    ('hi', 'ab', None)
    """
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        return "".join(p.get("text", "") for p in value if isinstance(p, dict)) or None
    return None


def with_instruction(messages: list[dict[str, str]], instruction: str) -> list[dict[str, str]]:
    """A copy of ``messages`` with ``instruction`` appended to the last user message.

    >>> with_instruction([{"role": "user", "content": "Q"}], " Reply in JSON.")
    [{'role': 'user', 'content': 'Q Reply in JSON.'}]
    """
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message["role"] == "user":
            message["content"] += instruction
            return out
    return [*out, {"role": "user", "content": instruction.strip()}]


def chat_body(model: str, messages: list[dict[str, str]], params: Mapping[str, Any],
              verdict_model: type[BaseModel] | None, *, structured: bool) -> dict[str, Any]:
    """The chat-completions body of a request: the verdict's JSON schema as ``response_format``
    when ``structured``, else the schema asked for in the last user message.

    >>> chat_body("m", [{"role": "user", "content": "Q"}], {"seed": 1}, None, structured=True)
    {'model': 'm', 'messages': [{'role': 'user', 'content': 'Q'}], 'seed': 1}
    """
    from assay.llm._parse import response_format, text_instruction

    body: dict[str, Any] = {"model": model, "messages": messages, **params}
    if verdict_model is not None:
        if structured:
            body["response_format"] = response_format(verdict_model)
        else:
            body["messages"] = with_instruction(messages, text_instruction(verdict_model))
    return body


_ENCODED: dict[int, tuple[Any, str]] = {}
"""id of a ``response_format`` mapping -> (the mapping, kept alive so its id stays its own; its JSON)."""


def body_bytes(body: Mapping[str, Any]) -> bytes:
    """``json.dumps(body).encode()``, byte for byte, with a ``response_format`` last in the body
    (as :func:`chat_body` puts it) encoded once per mapping: the verdict's schema is the same
    for every request of a judge, and encoding it cost more than encoding the messages.

    >>> rf = {"type": "json_schema", "json_schema": {"name": "V", "schema": {"type": "object"}}}
    >>> body = {"model": "m", "messages": [{"role": "user", "content": "é"}], "response_format": rf}
    >>> body_bytes(body) == json.dumps(body).encode() == body_bytes(body)
    True
    >>> body_bytes({"model": "m", "seed": 1}) == json.dumps({"model": "m", "seed": 1}).encode()
    True
    """
    if not body or next(reversed(body)) != "response_format":
        return json.dumps(body).encode()
    rf = body["response_format"]
    held = _ENCODED.get(id(rf))
    if held is None or held[0] is not rf:
        held = (rf, json.dumps(rf))
        if len(_ENCODED) < 256:  # one a verdict model (response_format is lru-cached)
            _ENCODED[id(rf)] = held
    rest = json.dumps({k: v for k, v in body.items() if k != "response_format"})
    if rest == "{}":
        return f'{{"response_format": {held[1]}}}'.encode()
    return f'{rest[:-1]}, "response_format": {held[1]}}}'.encode()


@dataclass(frozen=True, slots=True)
class Completion:
    """What one chat completion said and what it cost in tokens."""

    content: str | None
    refusal: str | None
    model: str
    """The model the server says answered (else the one asked for)."""
    tokens_in: int
    tokens_out: int
    reported: bool
    """Tokens from the reply's ``usage`` (True) or estimated at 4 characters a token (False)."""
    top_logprobs: tuple[tuple[str, float], ...] | None = None
    """The top-logprob table at the asked token position (None when not asked or not sent)."""


def read_top_logprobs(choice: Any, position: int) -> tuple[tuple[str, float], ...] | None:
    """The ``(token, logprob)`` pairs of the top-logprob table at ``position`` of a choice.

    OpenAI's shape: ``choice["logprobs"]["content"][position]["top_logprobs"]``, a list of
    ``{"token", "logprob"}``. None when the choice carries no logprobs, the reply is shorter
    than ``position + 1`` tokens, or the table is malformed (never a guess).

    >>> choice = {"logprobs": {"content": [{"token": "4", "logprob": -0.1,
    ...     "top_logprobs": [{"token": "4", "logprob": -0.1}, {"token": "3", "logprob": -2.4}]}]}}
    >>> read_top_logprobs(choice, 0)
    (('4', -0.1), ('3', -2.4))
    >>> read_top_logprobs(choice, 1), read_top_logprobs({"logprobs": None}, 0)
    (None, None)
    """
    logprobs = choice.get("logprobs") if isinstance(choice, dict) else None
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or len(content) <= position or not isinstance(content[position], dict):
        return None
    table = content[position].get("top_logprobs")
    if not isinstance(table, list) or not table:
        return None
    out = []
    for entry in table:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None
        value = entry.get("logprob")
        if isinstance(value, bool) or not isinstance(value, int | float) or not value <= 0.0:
            return None
        out.append((entry["token"], float(value)))
    return tuple(out)


def read_completion(data: dict[str, Any], *, sent_chars: Callable[[], int], model: str,
                    logprob_token: int | None = None) -> Completion:
    """The first choice's content and refusal, the answering model, and the tokens: from
    ``usage`` when the server reports it, else estimated from the characters sent
    (``sent_chars()``, called only then) and the characters received; with
    ``logprob_token`` set, the top-logprob table at that token (:func:`read_top_logprobs`).

    >>> got = read_completion({"choices": [{"message": {"content": "hi"}}],
    ...                        "usage": {"prompt_tokens": 9, "completion_tokens": 1}},
    ...                       sent_chars=lambda: 40, model="m")
    >>> got.content, got.tokens_in, got.tokens_out, got.reported, got.top_logprobs
    ('hi', 9, 1, True, None)
    >>> read_completion({"choices": [], "model": "m-2"}, sent_chars=lambda: 40, model="m").tokens_in
    10
    """
    choices = data["choices"]
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    message = message if isinstance(message, dict) else {}
    content, refusal = text_or_none(message.get("content")), text_or_none(message.get("refusal"))
    usage = data.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
        tokens_in, tokens_out = usage["prompt_tokens"], int(usage.get("completion_tokens") or 0)
        reported = True
    else:
        tokens_in = math.ceil(sent_chars() / CHARS_PER_TOKEN)
        tokens_out = estimate_tokens(content or refusal or "")
        reported = False
    answered = data.get("model") if isinstance(data.get("model"), str) else model
    table = None if logprob_token is None or not choices else read_top_logprobs(choices[0], logprob_token)
    return Completion(content, refusal, answered, tokens_in, tokens_out, reported, table)


def connection_cause(exc: BaseException) -> BaseException | None:
    """The connection error behind a timeout the SDK reported, or None when it was a timeout.

    Some SDK transports report every connection error (refused, reset, disconnected) as a
    connect timeout; the exception chain under it tells which it was.
    """
    cause = exc.__cause__
    while cause is not None:
        if isinstance(cause, TimeoutError):
            return None
        if isinstance(cause, OSError) or type(cause).__module__.split(".")[0] in ("aiohttp", "httpx",
                                                                                  "httpx2", "httpcore"):
            return cause
        cause = cause.__cause__
    return None


def unreachable_reason(exc: BaseException) -> tuple[str, bool]:
    """Why a request got no HTTP reply, in words, and whether the endpoint is plainly dead.

    Walks the exception chain (``__cause__``, else ``__context__``): a refused connection
    or a host name that does not resolve is *dead* (nothing listens there; retrying will
    not help), anything else (a reset, a connection closed early) may pass.

    >>> try:
    ...     try:
    ...         raise ConnectionRefusedError(111, "Connect call failed")
    ...     except OSError as inner:
    ...         raise RuntimeError("Connection error.") from inner
    ... except RuntimeError as outer:
    ...     unreachable_reason(outer)
    ('connection refused', True)
    >>> unreachable_reason(ConnectionResetError(104, "reset"))
    ('connection error: ConnectionResetError', False)
    """
    import socket

    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused", True
        if isinstance(cause, socket.gaierror):
            return "the host name does not resolve", True
        cause = cause.__cause__ or cause.__context__
    return f"connection error: {type(exc).__name__}", False
