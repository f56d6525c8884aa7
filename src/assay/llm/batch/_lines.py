"""The Batch API's JSONL: the input file a batch is made from, and its output and error files.

Pure functions on bytes. An input line is ``{"custom_id": KEY, "method": "POST", "url":
"/v1/chat/completions", "body": {...}}`` with the judgment key as ``custom_id``; a result
line is ``{"custom_id": KEY, "response": {"status_code": N, "body": {...}} | null,
"error": {"code": ..., "message": ...} | null}`` (OpenAI's format, in the output file for
answered requests and in the error file for the others).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
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


TOO_LARGE = "reply_too_large"
"""The error code of a result whose line passed ``max_reply_bytes`` (read no further)."""
HEAD_BYTES = 4096
"""What is kept of a line over the bound: enough to find its ``custom_id``."""
_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")')


@dataclass(frozen=True)
class LongLine:
    """A line of a file that passed the bound: its first :data:`HEAD_BYTES` bytes only."""

    head: bytes
    limit: int


class LineReader:
    """The lines of a file fed in chunks as they arrive, each held only up to ``limit`` bytes:
    a longer line is kept as a :class:`LongLine` (its head), the rest of it dropped unread
    into memory, so a file's lines hold at most ``limit`` bytes each whatever it sends.

    >>> reader = LineReader(8)
    >>> for chunk in (b"short\\nthis line is", b" too long\\nlast"):
    ...     reader.feed(chunk)
    >>> reader.close()
    [b'short', LongLine(head=b'this line is too long', limit=8), b'last']
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.lines: list[bytes | LongLine] = []
        self._part = bytearray()
        self._long: bytes | None = None

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            self._add(chunk[start:] if end < 0 else chunk[start:end])
            if end < 0:
                return
            self._end()
            start = end + 1

    def _add(self, piece: bytes) -> None:
        if self._long is not None:
            self._long = (self._long + piece[:HEAD_BYTES - len(self._long)])[:HEAD_BYTES]
        elif len(self._part) + len(piece) > self.limit:
            self._long = (bytes(self._part) + piece[:HEAD_BYTES])[:HEAD_BYTES]
            self._part.clear()
        else:
            self._part += piece

    def _end(self) -> None:
        self.lines.append(bytes(self._part) if self._long is None else LongLine(self._long, self.limit))
        self._part.clear()
        self._long = None

    def close(self) -> list[bytes | LongLine]:
        """Every line read (the last one too when the file does not end with a newline)."""
        if self._part or self._long is not None:
            self._end()
        return self.lines


def read_results(data: bytes | Sequence[bytes | LongLine], *, source: str) -> tuple[list[Result], list[str]]:
    """The results of an output or error file (its bytes, or its lines as :class:`LineReader`
    read them), and one line per line that could not be read. A line over the bound is the
    result of the ``custom_id`` its head names, an error with code :data:`TOO_LARGE`.

    >>> ok = b'{"custom_id": "k1", "response": {"status_code": 200, "body": {"choices": []}}}\\n'
    >>> gone = b'{"custom_id": "k2", "response": null, "error": {"code": "batch_expired", "message": "x"}}'
    >>> results, bad = read_results(ok + gone + b"\\nnot json", source="out")
    >>> [(r.key, r.status, r.unanswered) for r in results], bad
    ([('k1', 200, False), ('k2', 0, True)], ['out line 3: not JSON'])
    >>> results, bad = read_results([LongLine(b'{"id": "r", "custom_id": "k3", "resp', 64)], source="out")
    >>> results[0].key, results[0].body["error"]["code"], bad
    ('k3', 'reply_too_large', [])
    """
    results: list[Result] = []
    problems: list[str] = []
    for number, raw in enumerate(data.splitlines() if isinstance(data, bytes) else data, 1):
        if isinstance(raw, LongLine):
            key = _custom_id(raw.head)
            if not isinstance(key, str):
                problems.append(f"{source} line {number}: over max_reply_bytes ({raw.limit:,} bytes) "
                                f"and no custom_id in its first {HEAD_BYTES:,} bytes")
                continue
            results.append(Result(key, 0, {"error": {
                "code": TOO_LARGE, "message": f"{source} line {number}: the result is over "
                f"max_reply_bytes ({raw.limit:,} bytes) and was not read"}}))
            continue
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


def _custom_id(head: bytes) -> str | None:
    """The ``custom_id`` the head of a line names, or None.

    >>> _custom_id(b'{"id": "r1", "custom_id": "k\\\\"1", "response": {"status'), _custom_id(b'{"id": "r')
    ('k"1', None)
    """
    found = _CUSTOM_ID.search(head)
    try:
        key = json.loads(found.group(1)) if found else None
    except ValueError:
        return None
    return key if isinstance(key, str) else None
