"""assay's own HTTP/1.1 exchange (assay.llm._http.Connections) against scripted raw replies.

Each test starts a server on 127.0.0.1 that reads one request and answers with the bytes
given (or closes), so the framings a real server may use are each checked: Content-Length,
chunked (with extensions and trailers), to the connection's end, a 100 Continue before the
reply, gzip, and the failures (a bad status line, a connection closed early, a body over
the bound, a kept connection the server had closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import urllib.parse
from collections.abc import Callable

import pytest

from assay.llm._http import Connections, ReplyTooLarge, Unreachable

Script = Callable[[int], bytes | None]
"""Request number (0, 1, ...) -> the raw reply to write, or None to close without a reply."""


async def _serve(script: Script, *, close_after_reply: bool = False):
    seen: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:"))
                body = await reader.readexactly(length)
                seen.append(head + body)
                reply = script(len(seen) - 1)
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if close_after_reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:  # cancelled too, when the server closes with the client's connection open
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, port, seen


def _connections(port: int, limit: int = 1 << 20) -> Connections:
    url = urllib.parse.urlsplit(f"http://127.0.0.1:{port}/v1/chat/completions?api-version=1")
    return Connections(url, {"Authorization": "Bearer k", "Content-Type": "application/json"},
                       max_reply_bytes=limit, connect_timeout_s=5.0)


@contextlib.asynccontextmanager
async def _serving(script: Script, *, limit: int = 1 << 20, close_after_reply: bool = False):
    """Connections to a server answering with ``script``, and the requests it read."""
    server, port, seen = await _serve(script, close_after_reply=close_after_reply)
    http = _connections(port, limit)
    try:
        yield http, seen
    finally:
        http.close()
        server.close()
        await server.wait_closed()


def _run(script: Script, posts: int = 1, *, limit: int = 1 << 20, close_after_reply: bool = False):
    async def go():
        async with _serving(script, limit=limit, close_after_reply=close_after_reply) as (http, seen):
            out = []
            for n in range(posts):
                try:
                    out.append(await http.post(b'{"n": %d}' % n))
                except (Unreachable, ReplyTooLarge) as exc:
                    out.append(exc)
            return out, seen

    return asyncio.run(go())


def test_the_request_line_headers_and_body_are_sent_as_written():
    (reply,), seen = _run(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    assert reply.status == 200 and reply.body == b"ok" and reply.headers["content-length"] == "2"
    assert seen == [b"POST /v1/chat/completions?api-version=1 HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                    % int(seen[0].split(b"127.0.0.1:")[1].split(b"\r\n")[0])
                    + b"Authorization: Bearer k\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 8\r\n\r\n{\"n\": 0}"]


def test_a_kept_connection_serves_the_next_request():
    replies, seen = _run(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n%d" % n, posts=3)
    assert [r.body for r in replies] == [b"0", b"1", b"2"] and len(seen) == 3


def test_chunked_with_extensions_and_trailers_and_interim_100():
    raw = (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many\r\nRetry-After: 2\r\n"
           b"Transfer-Encoding: chunked\r\n\r\n4;x=y\r\nabcd\r\n3\r\nefg\r\n0\r\nX-T: 1\r\n\r\n")
    (reply,), _ = _run(lambda n: raw)
    assert (reply.status, reply.body, reply.headers["retry-after"]) == (429, b"abcdefg", "2")


def test_a_body_read_to_the_connection_end_and_gzip():
    packed = gzip.compress(b'{"ok": true}')
    raw = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n" + packed
    (reply,), _ = _run(lambda n: raw, close_after_reply=True)
    assert reply.body == b'{"ok": true}'


def test_failures_are_named_and_never_a_partial_body():
    (bad,), _ = _run(lambda n: b"SPDY/3 200 OK\r\n\r\n")
    assert isinstance(bad, Unreachable) and not bad.dead
    assert str(bad) == "unreadable HTTP reply: not an HTTP/1.x status line: 'SPDY/3 200 OK'"
    (early,), _ = _run(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                       close_after_reply=True)
    assert isinstance(early, Unreachable) and "ConnectionResetError" in str(early)
    (declared,), _ = _run(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n", limit=1024)
    assert isinstance(declared, ReplyTooLarge) and declared.declared == 5000
    chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + b"x" * 10
    (chunked,), _ = _run(lambda n: chunk, limit=1024)
    assert isinstance(chunked, ReplyTooLarge) and chunked.declared is None
    endless = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"f" * 5000
    (line,), _ = _run(lambda n: endless)
    assert str(line) == "unreadable HTTP reply: a chunk-size line over 4,096 bytes"


def test_a_kept_connection_the_server_closed_is_replaced_once():
    # the server answers the first request, then closes that connection; the second request
    # finds it closed (no byte of a reply) and is sent again on a new connection
    replies, seen = _run(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n%d" % n, posts=2,
                         close_after_reply=True)
    assert [r.body for r in replies] == [b"0", b"1"] and len(seen) == 2


def test_refused_is_dead():
    async def go():
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        with pytest.raises(Unreachable) as caught:
            await _connections(port).post(b"{}")
        return caught.value

    exc = asyncio.run(go())
    assert exc.dead and str(exc) == "connection refused"


def test_a_gzip_body_cut_short_by_the_connection_end_is_unreadable_not_a_partial_body():
    packed = gzip.compress(b'{"ok": true, "text": "' + b"y" * 200 + b'"}')
    raw = (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n"
           + packed[:len(packed) // 2])
    (reply,), _ = _run(lambda n: raw, close_after_reply=True)
    assert isinstance(reply, Unreachable) and "gzip" in str(reply)


def test_bytes_after_a_chunked_reply_leave_its_connection_unused_and_a_chunk_size_is_hex_digits():
    raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n"
           b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz")  # a reply nobody asked for

    async def go():
        async with _serving(lambda n: raw) as (http, _):
            return await http.post(b"{}"), len(http._idle)

    reply, idle = asyncio.run(go())
    assert reply.body == b"a" and idle == 0
    (bad,), _ = _run(lambda n: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nab\r\n0\r\n\r\n")
    assert isinstance(bad, Unreachable) and "not a chunk size" in str(bad)


def test_a_request_sent_once_more_goes_on_a_new_connection_not_another_kept_one():
    from assay.llm._http import _Exchange

    async def go():
        async with _serving(lambda n: b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") as (http, seen):
            # two kept connections the server closed, the client not told yet: a write to
            # either gets no byte of a reply (a connection never made behaves the same)
            http._idle += [_Exchange(1 << 20), _Exchange(1 << 20)]
            return await http.post(b"{}"), len(seen)

    reply, requests = asyncio.run(go())
    assert reply.body == b"ok" and requests == 1
