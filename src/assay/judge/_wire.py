"""Reading what a chat-completions server sends back: error bodies, content parts, messages.

Pure functions on bytes and parsed JSON, shared by both transports of
:mod:`assay.judge.client` (which alone talks to the network).
"""

from __future__ import annotations

import json
from typing import Any


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
