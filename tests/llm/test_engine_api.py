"""assay.judge's public surface: __all__ sorted, complete and importable; openai loaded lazily."""

from __future__ import annotations

import inspect
import subprocess
import sys

import assay.judge


def test_all_is_sorted_and_every_name_exists():
    names = assay.judge.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))  # constants first (ruff RUF022)
    for name in names:
        assert getattr(assay.judge, name) is not None, name


def test_every_public_attribute_is_listed():
    helpers = ("annotations", "TYPE_CHECKING")
    public = {n for n, v in vars(assay.judge).items()
              if not n.startswith("_") and not inspect.ismodule(v) and n not in helpers}
    assert public - set(assay.judge.__all__) == set()


def test_the_http_stack_is_loaded_only_when_a_request_is_sent():
    """A run answered from cache, a store read or a plan built never imports openai or aiohttp;
    the default (direct) transport to an ``http://`` endpoint with no proxy posts over assay's
    own HTTP/1.1 connections (assay.llm._http) and loads neither; to ``https://`` it loads
    aiohttp and never the SDK (issue 27)."""
    code = """
import asyncio, sys
import assay.judge
from assay.judge import ChatRequest, LLMClient, ClientConfig

class Cache:  # every request is a hit
    def get(self, key):
        return assay.judge.CachedResponse("fine", "m", 3, 1, True, "2026-01-01T00:00:00Z")

async def main():
    config = ClientConfig(model="m", base_url="http://127.0.0.1:9/v1", api_key_env=None)
    async with LLMClient(config, cache=Cache()) as client:
        reply = await client.complete(ChatRequest(key="k", messages=(("user", "hi"),)))
    assert reply.cached and reply.text == "fine", reply
    assert "openai" not in sys.modules and "aiohttp" not in sys.modules, "loaded by a cache hit"
    async with LLMClient(config) as client:  # nothing listens on port 9: refused, a fatal error
        await client.connect()
        assert client._transport is not None, "connect() made no transport"
        assert "aiohttp" not in sys.modules, "the plain http transport imported aiohttp"
        assert "openai" not in sys.modules, "the direct transport imported the SDK"
        try:
            await client.complete(ChatRequest(key="k", messages=(("user", "hi"),)))
        except assay.judge.FatalAPIError as exc:
            assert "connection refused" in str(exc), exc
        else:
            raise AssertionError("a refused connection was not fatal")
    https = ClientConfig(model="m", base_url="https://127.0.0.1:9/v1", api_key_env=None)
    async with LLMClient(https) as client:
        await client.connect()
        assert "aiohttp" in sys.modules and "openai" not in sys.modules, sorted(sys.modules)

asyncio.run(main())
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
