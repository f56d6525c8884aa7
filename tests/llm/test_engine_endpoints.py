"""The client and its endpoint: which server a cached reply came from, dead endpoints, URLs, secrets.

Issue 11, items 4 (the cache ignored the endpoint), 5 (a dead endpoint was retried for a
minute, then stored as failed), 24 (credentials and tokens in the base URL or echoed by
a server were stored and printed; a query string broke the request URL). Oracles: the
stand-in servers' own counters and the replies each of them gives (a different seed
draws different verdicts).
"""

from __future__ import annotations

import asyncio
import socket
import time

import pydantic
import pytest

from assay.judge import FatalAPIError, ResponseCache
from assay.llm import ClientConfig, LLMClient
from tests.judge.conftest import PRICES, score_requests
from tests.judge.llm_server import Behaviour, LLMServer

REQ = score_requests(1)[0]
TRANSPORTS = ["direct", "openai"]


def client_for(url: str, transport: str, cache: ResponseCache | None = None, **overrides) -> LLMClient:
    options = {"model": "judge-model", "base_url": url, "api_key_env": None, "max_concurrency": 4,
               "timeout_s": 5.0, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "prices": PRICES,
               "transport": transport, **overrides}
    return LLMClient(ClientConfig(**options), cache=cache, rng=0)


def ask(client: LLMClient, request=REQ):
    async def go():
        async with client:
            return await client.complete(request)
    return asyncio.run(go())


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_one_cache_two_servers_each_answers_for_itself(tmp_path, transport):
    # item 4: the same request to another server was answered from the first one's cache
    with LLMServer(Behaviour(seed=1)) as one, LLMServer(Behaviour(seed=2)) as two, \
            ResponseCache(tmp_path / "cache.sqlite") as cache:
        first = ask(client_for(one.url, transport, cache))
        second = ask(client_for(two.url, transport, cache))
        again = ask(client_for(one.url, transport, cache))
        assert (one.stats.requests, two.stats.requests) == (1, 1)
        assert not second.cached and second.text != first.text
        assert again.cached and again.text == first.text  # the first server's reply, from the cache
        endpoints = {g.endpoint for g in cache.summary().groups}
        assert endpoints == {one.url, two.url}


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_refused_connection_is_fatal_at_once(transport):
    # item 5: nothing listening was retried 6 times per request (a minute per run), then "failed"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    client = client_for(url, transport, backoff_base_s=0.5, backoff_max_s=60.0)
    started = time.monotonic()
    with pytest.raises(FatalAPIError, match="connection refused") as info:
        ask(client)
    assert time.monotonic() - started < 3.0
    assert url in str(info.value) and "llm.base_url" in str(info.value)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_host_name_that_does_not_resolve_is_fatal_at_once(monkeypatch, transport):
    # item 5, DNS failure; the resolver is replaced so that no query leaves the machine
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host == "judge.example.invalid":
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    client = client_for("http://judge.example.invalid:8000/v1", transport, backoff_base_s=0.5,
                        backoff_max_s=60.0)
    started = time.monotonic()
    with pytest.raises(FatalAPIError, match="does not resolve"):
        ask(client)
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_refused_after_the_server_answered_is_retried_not_fatal(transport):
    # a server that answered once and then goes away (a restart) is retried, boundedly
    server = LLMServer(Behaviour(keep_alive=False)).start()
    stopped = False

    async def go():
        nonlocal stopped
        async with client_for(server.url, transport, max_retries=2) as client:
            first = await client.complete(REQ)
            server.stop()
            stopped = True
            return first, await client.complete(score_requests(2)[1])

    try:
        first, second = asyncio.run(go())
    finally:
        if not stopped:
            server.stop()
    assert first.ok
    assert second.failure_kind == "api_error" and second.attempts == 3


@pytest.mark.parametrize(("fault", "status"), [("unauthorized", 401), ("forbidden", 403)])
def test_refusals_of_key_or_permission_are_fatal(server, fault, status):
    server.configure(rates={fault: 1.0})
    with pytest.raises(FatalAPIError, match=f"HTTP {status}"):
        ask(client_for(server.url, "direct"))
    assert server.stats.requests == 1


def test_a_wrong_path_is_fatal(server):
    with pytest.raises(FatalAPIError, match="HTTP 404"):
        ask(client_for(server.url.removesuffix("/v1") + "/no/such/path", "direct"))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_query_string_stays_a_query_and_credentials_are_refused(server, transport):
    # item 24: "/chat/completions" was appended after the "?", so every request hit the wrong path
    host = server.url.removeprefix("http://")
    url = f"http://{host}?api-version=2024-06-01&token=tok-123"
    reply = ask(client_for(url, transport))
    assert reply.ok, reply.error
    assert server.stats.paths == ["/v1/chat/completions?api-version=2024-06-01&token=tok-123"]
    # issue 22: the URL's credentials were sent as basic auth, silently replacing the bearer key
    with pytest.raises(pydantic.ValidationError, match="a user name or password in the URL is never sent"):
        client_for(f"http://alice:s3cret@{host}?api-version=2024-06-01", transport)
    assert server.stats.requests == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_error_body_echoing_the_key_is_redacted(server, monkeypatch, transport):
    monkeypatch.setenv("ASSAY_TEST_KEY", "sk-test-KEY-0123456789")
    server.configure(script=["echo_auth"])
    client = client_for(server.url + "?token=tok-SECRET-9", transport, api_key_env="ASSAY_TEST_KEY")
    assert "tok-SECRET-9" not in repr(client) and "token=***" in repr(client)
    reply = ask(client)
    assert reply.failure_kind == "api_error"
    assert "sk-test-KEY-0123456789" not in reply.error and "tok-SECRET-9" not in reply.error
    assert "Authorization: Bearer ***" in reply.error and "token=***" in reply.error
