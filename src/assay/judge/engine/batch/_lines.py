"""The Batch API's JSONL: the input file a batch is made from, and its output and error files.

Pure functions on bytes. An input line is ``{"custom_id": KEY, "method": "POST", "url":
"/v1/chat/completions", "body": {...}}`` with the judgment key as ``custom_id``; a result
line is ``{"custom_id": KEY, "response": {"status_code": N, "body": {...}} | null,
"error": {"code": ..., "message": ...} | null}`` (OpenAI's format, in the output file for
answered requests and in the error file for the others).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

ENDPOINT = "/v1/chat/completions"
"""The endpoint every line asks (the batch is created for it)."""
UNANSWERED = frozenset(("batch_expired", "batch_cancelled"))
"""Error codes of requests the batch never ran (its window ended, or it was cancelled): they
are asked again in the next batch, not stored as failed."""


def batch_input(bodies: Iterable[tuple[str, Mapping[str, Any]]]) -> bytes:
    """The JSONL input of ``(key, chat-completions body)`` pairs.

    >>> batch_input([("k1", {"model": "m", "messages": []})]).decode()
    '{"custom_id":"k1","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}\\n'
    """
    lines = [json.dumps({"custom_id": key, "method": "POST", "url": ENDPOINT, "body": dict(body)},
                        ensure_ascii=False, separators=(",", ":")) for key, body in bodies]
    return ("\n".join(lines) + "\n").encode("utf-8") if lines else b""


@dataclass(frozen=True)
class Result:
    """One result line: the HTTP status and body of the request's reply, or why it never ran."""

    key: str
    status: int
    """The reply's status (0 when the request got none)."""
    body: Any
    """The reply's body (a chat completion, or an error body)."""
    unanswered: bool = False
    """The batch never ran the request (expired or cancelled): ask it again."""


def read_results(data: bytes, *, source: str) -> tuple[list[Result], list[str]]:
    """The results of an output or error file, and one line per line that could not be read.

    >>> ok = b'{"custom_id": "k1", "response": {"status_code": 200, "body": {"choices": []}}}\\n'
    >>> gone = b'{"custom_id": "k2", "response": null, "error": {"code": "batch_expired", "message": "x"}}'
    >>> results, bad = read_results(ok + gone + b"\\nnot json", source="out")
    >>> [(r.key, r.status, r.unanswered) for r in results], bad
    ([('k1', 200, False), ('k2', 0, True)], ['out line 3: not JSON'])
    """
    results: list[Result] = []
    problems: list[str] = []
    for number, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            problems.append(f"{source} line {number}: not JSON")
            continue
        key = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(key, str):
            problems.append(f"{source} line {number}: no custom_id")
            continue
        response = line.get("response")
        error = line.get("error")
        if isinstance(response, dict) and isinstance(response.get("status_code"), int):
            results.append(Result(key, response["status_code"], response.get("body")))
        elif isinstance(error, dict):
            code = str(error.get("code") or "")
            results.append(Result(key, 0, {"error": error}, unanswered=code in UNANSWERED))
        else:
            problems.append(f"{source} line {number}: neither a response nor an error")
    return results, problems
