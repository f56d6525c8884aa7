"""HTTP/1.1 over asyncio: the replies the transports give, and the plain ``http://`` exchange.

:class:`HTTPReply` (status, headers, body), :class:`Unreachable` (no HTTP reply) and
:class:`ReplyTooLarge` (a body over ``max_reply_bytes``) are what every transport
(:mod:`assay.llm._transport`) gives the client. :class:`Connections` is what
``transport: direct`` posts through to an ``http://`` endpoint with no proxy (a local
server: vLLM, Ollama, llama.cpp, LiteLLM): keep-alive HTTP/1.1 connections written on
``asyncio.Protocol`` (RFC 9112), the request line and headers encoded once.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from assay.errors import ConfigError
from assay.llm._wire import unreachable_reason


@dataclass(frozen=True, slots=True)
class HTTPReply:
    status: int
    headers: Mapping[str, str]
    body: bytes


class Unreachable(Exception):
    """The request got no HTTP reply: refused, reset, closed early (the message names the cause)."""

    def __init__(self, cause: BaseException) -> None:
        if isinstance(cause, _BadReply):  # an answer, but not HTTP/1.x: may pass
            reason, self.dead = f"unreadable HTTP reply: {cause}", False
        else:
            reason, self.dead = unreachable_reason(cause)
        super().__init__(reason)


class ReplyTooLarge(Exception):
    """The reply's body passed ``max_reply_bytes``: abandoned (its connection closed) as soon
    as it did, or before any of it was read when its ``Content-Length`` said so."""

    def __init__(self, limit: int, declared: int | None = None) -> None:
        self.limit, self.declared = limit, declared
        said = "" if declared is None else f" (Content-Length {declared:,})"
        super().__init__(f"reply body over max_reply_bytes ({limit:,} bytes){said}: abandoned unread")


def declared_length(headers: Mapping[str, str]) -> int | None:
    """The ``Content-Length`` a reply announces (None when absent or not a number)."""
    text = headers.get("content-length") or headers.get("Content-Length")
    return int(text) if text is not None and text.strip().isdigit() else None


class _Lost(Exception):
    """The connection ended before the reply did; ``started`` when any byte of it had come."""

    def __init__(self, cause: BaseException | None, *, started: bool) -> None:
        super().__init__("the server closed the connection before the reply ended")
        self.cause, self.started = cause, started


class _BadReply(Exception):
    """What the server sent is not an HTTP/1.x reply (the message says how)."""


_MAX_HEAD = 64 * 1024
"""Longest status line and headers of a reply read (bytes)."""


class _Exchange(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection: writes a request, parses its reply as bytes arrive.

    A reply's body is delimited by ``Content-Length``, chunked transfer coding, or the
    connection's end (RFC 9112, section 6.3); 1xx interim replies are skipped. The body is
    bounded by ``limit`` bytes as it arrives (a ``Content-Length`` over it fails at once), and
    a ``Content-Encoding`` of gzip or deflate is decoded, bounded the same way.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.waiter: asyncio.Future[HTTPReply] | None = None
        self._buffer = bytearray()
        self._reset()

    def _reset(self) -> None:
        self._status: int | None = None
        self._headers: dict[str, str] = {}
        self._mode = ""
        self._length = 0
        self._body: list[bytes] = []
        self._size = 0
        self._started = False
        self.keep_alive = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            if self._mode != "close":
                self.waiter.set_exception(_Lost(exc, started=self._started))
                return
            try:  # the body ran to the connection's end: it is whole
                self._finish()
            except (ReplyTooLarge, _BadReply) as error:
                self.waiter.set_exception(error)

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def send(self, request: bytes) -> asyncio.Future[HTTPReply]:
        self._reset()
        self._buffer.clear()
        self.waiter = asyncio.get_running_loop().create_future()
        if self.closed or self.transport is None or self.transport.is_closing():
            self.waiter.set_exception(_Lost(None, started=False))
        else:
            self.transport.write(request)
        return self.waiter

    def data_received(self, data: bytes) -> None:
        if self.waiter is None or self.waiter.done():  # nothing was asked: the connection is not reusable
            self.close()
            return
        self._started = True
        self._buffer += data
        try:
            self._parse()
        except (ReplyTooLarge, _BadReply) as exc:
            self.close()
            if not self.waiter.done():
                self.waiter.set_exception(exc)

    def _parse(self) -> None:
        buffer = self._buffer
        while self._status is None:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > _MAX_HEAD:
                    raise _BadReply(f"reply headers over {_MAX_HEAD:,} bytes")
                return
            self._head(bytes(buffer[:end]).decode("latin-1"))
            del buffer[:end + 4]
        if self._mode == "length":
            if len(buffer) >= self._length:
                self._body.append(bytes(buffer[:self._length]))
                del buffer[:self._length]
                self._finish()
        elif self._mode == "close":
            self._take(bytes(buffer))
            buffer.clear()
        else:
            self._chunks()

    def _head(self, head: str) -> None:
        lines = head.split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise _BadReply(f"not an HTTP/1.x status line: {lines[0][:80]!r}")
        status = int(code)
        if 100 <= status < 200:  # an interim reply (100 Continue): the real one follows
            return
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if not colon:
                raise _BadReply(f"a header line without a colon: {line[:80]!r}")
            name, value = name.strip().lower(), value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        self._status, self._headers = status, headers
        self.keep_alive = version == "HTTP/1.1" and "close" not in headers.get("connection", "").lower()
        if "chunked" in headers.get("transfer-encoding", "").lower():
            self._mode = "chunked"
        elif "content-length" in headers or status in (204, 304):
            declared = declared_length(headers) if status not in (204, 304) else 0
            if declared is None:
                raise _BadReply(f"Content-Length is not a number: {headers['content-length'][:40]!r}")
            if declared > self.limit:
                raise ReplyTooLarge(self.limit, declared)
            self._mode, self._length = "length", declared
        else:  # read to the connection's end
            self._mode, self.keep_alive = "close", False
        if headers.get("content-encoding", "identity").lower() not in ("identity", "gzip", "deflate"):
            raise _BadReply(f"unknown Content-Encoding {headers['content-encoding'][:40]!r}")

    def _take(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self.limit:
            raise ReplyTooLarge(self.limit)
        self._body.append(data)

    def _chunks(self) -> None:
        buffer = self._buffer
        while True:
            end = buffer.find(b"\r\n")
            if end < 0:
                if len(buffer) > 4096:  # a chunk-size line is a few bytes
                    raise _BadReply("a chunk-size line over 4,096 bytes")
                return
            size_text = bytes(buffer[:end]).split(b";")[0].strip()
            if not size_text or size_text.strip(b"0123456789abcdefABCDEF"):  # int() takes -1, 0x1, 1_0
                raise _BadReply(f"not a chunk size: {size_text[:20]!r}")
            size = int(size_text, 16)
            if size == 0:  # the last chunk, then trailers up to an empty line
                trailers = buffer.find(b"\r\n\r\n", end)
                if trailers >= 0:  # what follows is not this reply's: _finish sees it
                    del buffer[:trailers + 4]
                    self._finish()
                return
            if self._size + size > self.limit:  # this chunk passes the bound: not waited for
                raise ReplyTooLarge(self.limit)
            if len(buffer) < end + 2 + size + 2:
                return
            self._take(bytes(buffer[end + 2:end + 2 + size]))
            del buffer[:end + 2 + size + 2]

    def _finish(self) -> None:
        body = self._body[0] if len(self._body) == 1 else b"".join(self._body)
        coding = self._headers.get("content-encoding", "identity").lower()
        if coding != "identity" and body:
            import zlib

            inflater = zlib.decompressobj(47 if coding == "gzip" else 15)  # 47: gzip or zlib header
            try:
                body = inflater.decompress(body, self.limit + 1)
            except zlib.error as exc:
                raise _BadReply(f"the {coding} body does not decode ({exc})") from None
            if len(body) > self.limit:
                raise ReplyTooLarge(self.limit)
            if not inflater.eof:  # cut short (a body read to the connection's end): not a partial body
                raise _BadReply(f"the {coding} body ends before its end of stream")
        assert self.waiter is not None and self._status is not None
        if self._buffer:  # bytes after the reply: the connection is out of step, not reusable
            self.keep_alive = False
        self.waiter.set_result(HTTPReply(self._status, self._headers, body))


class Connections:
    """Keep-alive HTTP/1.1 connections to one ``http://`` origin: posts a body, reads the reply.

    What ``transport: direct`` posts through when no proxy is set for the URL (aiohttp's
    session does otherwise, and for ``https://``): aiohttp's request machinery (request and
    response objects, cookie jar, tracing, multidict headers, a stream reader) cost about
    0.25 ms of CPU a call, and its import (with the two TLS contexts it makes) 0.15 ms a call
    of a 1,440-call run, more than the rest of the engine's calls (bench/bench_http_floor.py).
    The request line and headers are encoded once; a request on a kept connection that the
    server had closed before any of the reply came is sent once more on a new one (as
    aiohttp does).
    """

    def __init__(self, url: urllib.parse.SplitResult, headers: Mapping[str, str], *,
                 max_reply_bytes: int, connect_timeout_s: float) -> None:
        for name, value in headers.items():
            if any(c in f"{name}{value}" for c in "\r\n\0"):
                raise ConfigError(f"the request header {name} holds a line break")
        self._host, self._port = url.hostname or "", url.port or 80
        target = (url.path or "/") + (f"?{url.query}" if url.query else "")
        lines = [f"POST {target} HTTP/1.1", f"Host: {url.netloc}",
                 *(f"{k}: {v}" for k, v in headers.items() if k.lower() not in ("host", "content-length"))]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("utf-8")
        self._limit, self._connect_timeout_s = max_reply_bytes, connect_timeout_s
        self._idle: list[_Exchange] = []
        self._open: set[_Exchange] = set()

    async def post(self, body: bytes) -> HTTPReply:
        request = b"%s%d\r\n\r\n%s" % (self._head, len(body), body)
        for attempt in (0, 1):
            exchange, kept = await self._connection(fresh=attempt == 1)
            try:
                reply = await exchange.send(request)
            except _Lost as exc:
                self._drop(exchange)
                if kept and not exc.started and attempt == 0:
                    continue  # the server closed the idle connection: a new one
                raise Unreachable(exc.cause or ConnectionResetError(104, str(exc))) from exc
            except _BadReply as exc:
                self._drop(exchange)
                raise Unreachable(exc) from exc
            except BaseException:  # too large, timed out or cancelled: the reply is abandoned
                self._drop(exchange)
                raise
            exchange.waiter = None
            if exchange.keep_alive and not exchange.closed:
                self._idle.append(exchange)
            else:
                self._drop(exchange)
            return reply
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connection(self, *, fresh: bool = False) -> tuple[_Exchange, bool]:
        """A kept connection (the last one kept first), else a new one; a new one if ``fresh``
        (the request is sent once more: another kept one may have been closed as well)."""
        while self._idle and not fresh:
            exchange = self._idle.pop()
            if not exchange.closed:
                return exchange, True
            self._open.discard(exchange)
        try:
            exchange = await asyncio.wait_for(self._connect(), self._connect_timeout_s)
        except asyncio.TimeoutError as exc:
            raise Unreachable(TimeoutError(f"no connection within {self._connect_timeout_s:g} s")) from exc
        except OSError as exc:  # refused (every address) or the name does not resolve: dead
            raise Unreachable(exc) from exc
        self._open.add(exchange)
        return exchange, False

    async def _connect(self) -> _Exchange:
        """A new connection, to each address the host name gives in turn; when none takes
        it, the first refusal if every one refused (nothing listens), else the last error."""
        import socket

        loop = asyncio.get_running_loop()
        addresses = await loop.getaddrinfo(self._host, self._port, type=socket.SOCK_STREAM)
        errors: list[OSError] = []
        for family, _, proto, _, address in addresses:
            try:
                _, exchange = await loop.create_connection(
                    lambda: _Exchange(self._limit), address[0], address[1], family=family, proto=proto)
            except OSError as exc:
                errors.append(exc)
                continue
            return exchange
        refused = [e for e in errors if isinstance(e, ConnectionRefusedError)]
        raise (refused[0] if errors and len(refused) == len(errors) else errors[-1] if errors
               else OSError(f"{self._host} resolves to no address"))

    def _drop(self, exchange: _Exchange) -> None:
        exchange.close()
        self._open.discard(exchange)

    def close(self) -> None:
        for exchange in list(self._open):
            exchange.close()
        self._open.clear()
        self._idle.clear()
