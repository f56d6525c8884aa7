"""The Batch API's HTTP calls, through the OpenAI SDK: upload a file, create, check and find a
batch, download a file.

The SDK client is the one every transport makes (:func:`~assay.llm._transport.openai_client`:
the key read from the environment and kept only there, the base URL's query kept). A
refused key, model or permission (401, 403, 404) raises :class:`~assay.judge.FatalAPIError`
at once; other failures (5xx, 429, no connection) are tried again with exponential back-off,
``max_retries`` times, before they raise it, and so is a reply over ``max_reply_bytes``
(a file's content is bounded line by line instead). Error texts never carry the key.
"""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from assay._secrets import redact_text, redact_url
from assay.llm._retry import full_jitter
from assay.llm._transport import ReplyTooLarge, auth_headers, entra_token, openai_client
from assay.llm._types import FatalAPIError
from assay.llm.batch._lines import ENDPOINT, LineReader, LongLine
from assay.llm.client_config import ClientConfig

T = TypeVar("T")

FINISHED = frozenset(("completed", "failed", "expired", "cancelled"))
"""Statuses after which a batch changes no more."""


@dataclass(frozen=True)
class BatchStatus:
    """Where a batch is, as ``GET /v1/batches/{id}`` says."""

    id: str
    status: str
    """validating, in_progress, finalizing, completed, failed, expired, cancelling, cancelled."""
    input_file_id: str
    output_file_id: str | None
    error_file_id: str | None
    total: int
    completed: int
    failed: int
    errors: tuple[str, ...] = ()
    """Why the batch failed as a whole (its input refused), one line each."""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def _status(batch: Any) -> BatchStatus:
    counts = getattr(batch, "request_counts", None)
    errors = getattr(getattr(batch, "errors", None), "data", None) or []
    return BatchStatus(
        id=str(batch.id), status=str(batch.status), input_file_id=str(batch.input_file_id),
        output_file_id=getattr(batch, "output_file_id", None),
        error_file_id=getattr(batch, "error_file_id", None),
        total=int(getattr(counts, "total", 0) or 0), completed=int(getattr(counts, "completed", 0) or 0),
        failed=int(getattr(counts, "failed", 0) or 0),
        errors=tuple(f"{getattr(e, 'line', None) or '-'}: {getattr(e, 'message', e)}" for e in errors))


class BatchAPI:
    """The files and batches endpoints of the configured server."""

    def __init__(self, config: ClientConfig, *, rng: random.Random | None = None) -> None:
        import openai

        self.config = config
        self.endpoint = redact_url(config.base_url)
        token = entra_token(config)
        self._token = token
        self._sdk = openai_client(config, token)
        self._files = openai_client(config, token, whole_bodies=False)  # read line by line: content()
        azure = auth_headers(config, token)  # as the chat transports: Azure's key or Entra token
        if azure is not None:
            self._sdk = self._sdk.with_options(default_headers={"Authorization": openai.Omit(), **azure})
            self._files = self._files.with_options(default_headers={"Authorization": openai.Omit(), **azure})
        self._openai = openai
        self._rng = rng or random.Random()

    async def close(self) -> None:
        await self._sdk.close()
        await self._files.close()

    async def _call(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        openai, cfg = self._openai, self.config
        for attempt in range(cfg.max_retries + 1):
            try:
                return await call()
            except openai.APIStatusError as exc:
                said = self._redact(str(exc.message))
                if exc.status_code in (400, 401, 403, 404, 422):
                    raise FatalAPIError(f"{self.endpoint} refused to {what} (HTTP {exc.status_code}): "
                                        f"{said}") from None
                last = f"HTTP {exc.status_code}: {said}"
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                last = self._redact(f"{type(exc).__name__}: {exc}")
            except ReplyTooLarge as exc:  # a reply over max_reply_bytes, abandoned unread
                last = str(exc)
            if attempt < cfg.max_retries:
                await asyncio.sleep(full_jitter(attempt, base=cfg.backoff_base_s, cap=cfg.backoff_max_s,
                                                rng=self._rng))
        raise FatalAPIError(f"{self.endpoint}: could not {what} after {cfg.max_retries + 1} tries "
                            f"({last}); batches already submitted are kept in the run folder: rerun "
                            "to go on polling them")

    def _redact(self, text: str) -> str:
        key_env = self.config.api_key_env
        return redact_text(text, secrets=(os.environ.get(key_env) if key_env else None, self._token))

    async def upload(self, data: bytes, name: str) -> str:
        """Upload a batch input file (purpose ``batch``); return its file id."""
        made = await self._call("upload the batch input", lambda: self._sdk.files.create(
            file=(name, data, "application/jsonl"), purpose="batch"))
        return str(made.id)

    async def create(self, input_file_id: str, metadata: dict[str, str]) -> BatchStatus:
        """Create a batch of ``input_file_id``'s requests (``/v1/chat/completions``, 24 h window)."""
        made = await self._call("create the batch", lambda: self._sdk.batches.create(
            input_file_id=input_file_id, endpoint=ENDPOINT, completion_window="24h",
            metadata=metadata))
        return _status(made)

    async def retrieve(self, batch_id: str) -> BatchStatus:
        return _status(await self._call(f"check batch {batch_id}",
                                        lambda: self._sdk.batches.retrieve(batch_id)))

    async def find(self, input_file_id: str, *, pages: int = 10) -> BatchStatus | None:
        """The batch made from ``input_file_id`` among the most recent ones, or None (a run that
        stopped between creating a batch and recording its id finds it here)."""
        after: str | None = None
        for _ in range(pages):
            kwargs: dict[str, Any] = {"limit": 100} | ({"after": after} if after else {})
            page = await self._call("list the batches",
                                    lambda kwargs=kwargs: self._sdk.batches.list(**kwargs))
            data = list(page.data)
            for batch in data:
                if batch.input_file_id == input_file_id:
                    return _status(batch)
            if not data or not getattr(page, "has_more", False):
                return None
            after = data[-1].id
        return None

    async def content(self, file_id: str) -> list[bytes | LongLine]:
        """The lines of an output or error file, read as they arrive: a line over
        ``max_reply_bytes`` is kept as its head only (:class:`~assay.llm.batch._lines.LineReader`),
        so no line of a broken file can fill memory."""
        openai = self._openai

        async def download() -> list[bytes | LongLine]:
            async with self._files.files.with_streaming_response.content(file_id) as response:
                reader = LineReader(self.config.max_reply_bytes)
                try:
                    async for chunk in response.iter_bytes():
                        reader.feed(chunk)
                except Exception as exc:  # the connection broke or timed out mid-file: tried again
                    if not _broken_transfer(exc):
                        raise
                    raise openai.APIConnectionError(request=response.http_request) from exc
                return reader.close()

        return await self._call(f"download file {file_id}", download)


def _broken_transfer(exc: BaseException) -> bool:
    """Whether ``exc`` is the HTTP stack's own error (a reset, a read timeout) while a body
    was read, not a fault of assay's.

    >>> _broken_transfer(ConnectionResetError()), _broken_transfer(ValueError())
    (True, False)
    """
    return isinstance(exc, OSError) or type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore",
                                                                            "anyio", "h11")
