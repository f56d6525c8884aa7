"""The stand-in server's Batch API (``/v1/files``, ``/v1/batches``): deterministic, in memory.

A batch completes ``Behaviour.batch_delay_s`` after it was created (its ``request_counts``
grow linearly meanwhile), on the first ``GET /v1/batches/{id}`` after that; its lines are
answered by :func:`tests.judge.llm_server.completion`, so a batch's verdicts are the ones
the chat endpoint gives for the same bodies. Faults: ``batch_fail_every = k`` answers every
k-th line with HTTP 500 (in the error file); ``batch_huge_every = k`` gives every k-th
answered line a content of ``huge_body_bytes``; ``batch_expire_after = n`` lets the batch
expire having answered only its first n lines (the others in the error file with code
``batch_expired``); ``batch_status = "failed"`` fails the batch as a whole (its input refused);
``batch_garble_every = k`` answers every k-th line but writes its output line cut short (not
JSON), ``batch_drop_every = k`` answers it but writes no result line for it (both paid:
``lines_answered`` counts them).
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Batch:
    id: str
    input_file_id: str
    created: float
    lines: list[dict[str, Any]]
    metadata: dict[str, Any]
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)


class Batches:
    """Files and batches of one server; every method returns (HTTP status, JSON object or bytes)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self.created = 0
        """Batches created (what a run paid for)."""
        self.uploads = 0
        self.lines_answered = 0

    def upload(self, content_type: str, raw: bytes) -> tuple[int, Any]:
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
        if not message.is_multipart():
            return 400, {"error": {"message": "expected multipart/form-data"}}
        fields = {part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
                  for part in message.iter_parts()}
        if fields.get("purpose") != b"batch" or fields.get("file") is None:
            return 400, {"error": {"message": "expected a file with purpose batch"}}
        with self.lock:
            self.uploads += 1
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = fields["file"]
        return 200, {"id": file_id, "object": "file", "bytes": len(fields["file"]), "purpose": "batch",
                     "filename": "input.jsonl", "created_at": int(time.time()), "status": "processed"}

    def create(self, body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "no such input file"}}
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return 400, {"error": {"message": "endpoint must be /v1/chat/completions, window 24h"}}
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines() if line.strip()]
        with self.lock:
            self.created += 1
            batch = _Batch(f"batch_{self.created}", body["input_file_id"], time.monotonic(), lines,
                           body.get("metadata") or {})
            self.batches[batch.id] = batch
        return 200, self._object(batch)

    def get(self, batch_id: str, behaviour: Any) -> tuple[int, Any]:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": f"no batch {batch_id}"}}
        with self.lock:
            if batch.status == "in_progress":
                elapsed = time.monotonic() - batch.created
                if elapsed >= behaviour.batch_delay_s:
                    self._finish(batch, behaviour)
                else:
                    batch.completed = int(len(batch.lines) * elapsed / behaviour.batch_delay_s)
            return 200, self._object(batch)

    def list(self) -> tuple[int, Any]:
        data = [self._object(b) for b in reversed(self.batches.values())]
        return 200, {"object": "list", "data": data, "has_more": False}

    def cancel(self, batch_id: str) -> tuple[int, Any]:
        batch = self.batches.get(batch_id)
        if batch is None:
            return 404, {"error": {"message": f"no batch {batch_id}"}}
        with self.lock:
            if batch.status == "in_progress":
                self._finish(batch, None, cancelled=True)
        return 200, self._object(batch)

    def content(self, file_id: str) -> tuple[int, Any]:
        data = self.files.get(file_id)
        return (404, {"error": {"message": f"no file {file_id}"}}) if data is None else (200, data)

    def _finish(self, batch: _Batch, behaviour: Any, *, cancelled: bool = False) -> None:
        from tests.judge.llm_server import completion

        if behaviour is not None and behaviour.batch_status == "failed":
            batch.status = "failed"
            batch.errors = [{"code": "invalid_request", "line": 1, "message": "the input was refused"}]
            return
        out, err = [], []
        ok = 0
        answered = len(batch.lines)
        if cancelled:
            answered = 0
        elif behaviour.batch_expire_after is not None:
            answered = min(answered, behaviour.batch_expire_after)
        for number, line in enumerate(batch.lines, 1):
            key = line["custom_id"]
            if number > answered:
                code = "batch_cancelled" if cancelled else "batch_expired"
                err.append({"id": f"req_{number}", "custom_id": key, "response": None,
                            "error": {"code": code, "message": "the batch ended before this request ran"}})
            elif behaviour.batch_fail_every and number % behaviour.batch_fail_every == 0:
                err.append({"id": f"req_{number}", "custom_id": key, "error": None, "response": {
                    "status_code": 500, "request_id": f"r{number}",
                    "body": {"error": {"message": "the server had an error", "type": "server_error"}}}})
            else:
                reply = completion(behaviour, line["body"])
                if behaviour.batch_huge_every and number % behaviour.batch_huge_every == 0:
                    reply["choices"][0]["message"]["content"] = "x" * behaviour.huge_body_bytes
                answered_line = {"id": f"req_{number}", "custom_id": key, "error": None, "response": {
                    "status_code": 200, "request_id": f"r{number}", "body": reply}}
                self.lines_answered += 1
                ok += 1
                if behaviour.batch_drop_every and number % behaviour.batch_drop_every == 0:
                    continue  # answered and paid, but no result line
                if behaviour.batch_garble_every and number % behaviour.batch_garble_every == 0:
                    answered_line = json.dumps(answered_line)[:40]  # cut: not JSON
                out.append(answered_line)
        batch.completed, batch.failed = ok, len(err) - (len(batch.lines) - answered)
        for kind, lines in (("output", out), ("error", err)):
            if lines:
                file_id = f"file-{batch.id}-{kind}"
                self.files[file_id] = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                                              for x in lines).encode()
                setattr(batch, f"{kind}_file_id", file_id)
        batch.status = "cancelled" if cancelled else "expired" if answered < len(batch.lines) else "completed"

    @staticmethod
    def _object(batch: _Batch) -> dict[str, Any]:
        return {"id": batch.id, "object": "batch", "endpoint": "/v1/chat/completions",
                "input_file_id": batch.input_file_id, "completion_window": "24h",
                "status": batch.status, "output_file_id": batch.output_file_id,
                "error_file_id": batch.error_file_id, "created_at": int(time.time()),
                "metadata": batch.metadata,
                "errors": {"object": "list", "data": batch.errors} if batch.errors else None,
                "request_counts": {"total": len(batch.lines), "completed": batch.completed,
                                   "failed": batch.failed}}
