"""Transports: one POST of a chat-completions body, the reply whatever its status.

``openai.AsyncOpenAI(base_url=..., api_key=...)`` is made for every client and defines
the request: its headers (authorisation, user agent, organisation, project) and its base
URL. :class:`DirectTransport` posts the body over one keep-alive aiohttp session with
those headers; :class:`SDKTransport` through the SDK's own ``post``. Both give the
client the status, headers and body of the reply, or raise :class:`Unreachable` (no
HTTP reply) or ``asyncio.TimeoutError``; the client (:mod:`assay.judge.engine.client`)
does everything else. The request URL is built with :mod:`urllib.parse`, so a query in
the base URL (Azure's ``api-version``) stays a query.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shlex
import subprocess
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from assay._secrets import chat_completions_url, split_query
from assay.errors import ConfigError
from assay.judge.engine._wire import connection_cause, unreachable_reason
from assay.judge.engine.client_config import ClientConfig, is_azure, request_base_url

if TYPE_CHECKING:
    import openai

NO_KEY = "not-needed"
"""The key sent when the config names no key variable (local servers want none)."""
CONNECT_TIMEOUT_S = 10.0
"""Longest wait for a connection (the reply may take up to ``timeout_s``)."""


@dataclass(frozen=True, slots=True)
class HTTPReply:
    status: int
    headers: Mapping[str, str]
    body: bytes


class Unreachable(Exception):
    """The request got no HTTP reply: refused, reset, closed early (the message names the cause)."""

    def __init__(self, cause: BaseException) -> None:
        reason, self.dead = unreachable_reason(cause)
        super().__init__(reason)


class Transport(Protocol):
    secrets: tuple[str, ...]
    """Credentials the transport holds beyond the API key (an Entra token), for redaction."""

    async def post(self, body: dict[str, Any]) -> HTTPReply: ...

    async def close(self) -> None: ...


TOKEN_COMMAND_TIMEOUT_S = 60.0
"""Longest wait for ``azure_ad_token_command``."""


def entra_token(config: ClientConfig) -> str | None:
    """The Microsoft Entra ID token of ``config`` (``azure_ad_token_env`` or the output of
    ``azure_ad_token_command``), or None when it names no token source.

    Raises
    ------
    ConfigError
        The variable is unset, or the command cannot run, fails or prints nothing (its output
        is never echoed: it holds the token).
    """
    if config.azure_ad_token_env is not None:
        token = os.environ.get(config.azure_ad_token_env, "").strip()
        if not token:
            raise ConfigError(f"llm.azure_ad_token_env: environment variable {config.azure_ad_token_env} "
                              "is not set")
        return token
    if config.azure_ad_token_command is None:
        return None
    try:
        words = shlex.split(config.azure_ad_token_command)
        done = subprocess.run(words, capture_output=True, text=True, timeout=TOKEN_COMMAND_TIMEOUT_S,
                              check=False, stdin=subprocess.DEVNULL)
    except (ValueError, OSError, subprocess.TimeoutExpired) as exc:
        reason = "timed out" if isinstance(exc, subprocess.TimeoutExpired) else "cannot run"
        raise ConfigError(f"llm.azure_ad_token_command: the command {reason} "
                          f"({type(exc).__name__})") from None
    token = done.stdout.strip()
    if done.returncode != 0 or not token or len(token.split()) != 1:
        what = f"exit status {done.returncode}" if done.returncode else "no single token printed"
        raise ConfigError(f"llm.azure_ad_token_command: the command gave no token ({what})")
    return token


def auth_headers(config: ClientConfig, token: str | None) -> dict[str, str] | None:
    """The authorisation headers of an Azure endpoint (None: the SDK's own ``Authorization:
    Bearer KEY``): the Entra token as a bearer token, else the key in ``api-key``."""
    if token is not None:
        return {"Authorization": f"Bearer {token}"}
    if not is_azure(config):
        return None
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else ""
    return {"api-key": key} if key else {}


def openai_client(config: ClientConfig, token: str | None = None) -> openai.AsyncOpenAI:
    """The SDK client for ``config``: the key read from the environment here and kept only in it
    (the transports replace its ``Authorization`` for an Azure endpoint: :func:`auth_headers`)."""
    import openai

    timeout = openai.Timeout(config.timeout_s, connect=min(config.timeout_s, CONNECT_TIMEOUT_S))
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else NO_KEY
    base_url, query = split_query(request_base_url(config))  # the SDK appends paths to base_url as text
    return openai.AsyncOpenAI(base_url=base_url, api_key=key or NO_KEY, max_retries=0, timeout=timeout,
                              default_query=query or None)


class DirectTransport:
    """Posts the body itself over one aiohttp session, with the headers the SDK client would send.

    The SDK's per-call work (typed request options, URL and header objects, a response
    wrapper) costs about 0.8 ms of CPU a call, more than everything else assay does for a
    judgment; the wire format, authorisation and headers stay the SDK's own.
    """

    def __init__(self, sdk: openai.AsyncOpenAI, config: ClientConfig, token: str | None = None) -> None:
        import aiohttp

        headers = {k: v for k, v in {**sdk.default_headers, **sdk.auth_headers}.items()
                   if isinstance(v, str)}  # the SDK marks unset optional headers with Omit
        azure = auth_headers(config, token)
        if azure is not None:
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"} | azure
        url = urllib.parse.urlsplit(chat_completions_url(request_base_url(config)))
        if url.username is not None or url.password is not None:  # as httpx: basic auth replaces the key
            user = urllib.parse.unquote(url.username or "")
            password = urllib.parse.unquote(url.password or "")
            token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
            url = url._replace(netloc=url.netloc.rpartition("@")[2])
        self._url = urllib.parse.urlunsplit(url)
        self.secrets: tuple[str, ...] = (token,) if token else ()
        self._proxy = _proxy_for(self._url)
        self._errors = (aiohttp.ClientError,)
        self._session = aiohttp.ClientSession(  # trust_env would look the proxy up on every call
            connector=aiohttp.TCPConnector(limit=config.max_concurrency),
            headers=headers, trust_env=False,
            timeout=aiohttp.ClientTimeout(total=None,
                                          sock_connect=min(config.timeout_s, CONNECT_TIMEOUT_S)))

    async def post(self, body: dict[str, Any]) -> HTTPReply:
        try:
            async with self._session.post(self._url, data=json.dumps(body).encode(),
                                          proxy=self._proxy) as response:
                return HTTPReply(response.status, response.headers, await response.read())
        except self._errors as exc:
            raise Unreachable(exc) from exc

    async def close(self) -> None:
        await self._session.close()


def _proxy_for(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``NO_PROXY``, ...), as httpx would.

    >>> _proxy_for("http://127.0.0.1:8000/v1/chat/completions") is None  # unless a proxy is set
    True
    """
    import urllib.parse
    import urllib.request

    parts = urllib.parse.urlsplit(url)
    if urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return urllib.request.getproxies().get(parts.scheme)


class SDKTransport:
    """Posts through ``openai.AsyncOpenAI.post`` (the SDK's request building and HTTP client)."""

    def __init__(self, sdk: openai.AsyncOpenAI, config: ClientConfig, token: str | None = None) -> None:
        import openai

        self._sdk, self._openai = sdk, openai
        self.secrets: tuple[str, ...] = (token,) if token else ()
        azure = auth_headers(config, token)
        self._options: dict[str, Any] = ({} if azure is None
                                         else {"headers": {"Authorization": openai.Omit(), **azure}})

    async def post(self, body: dict[str, Any]) -> HTTPReply:
        openai = self._openai
        try:
            raw = await self._sdk.post("/chat/completions", cast_to=bytes, body=body,
                                       options=self._options)
        except openai.APIStatusError as exc:
            return HTTPReply(exc.status_code, exc.response.headers, exc.response.content)
        except openai.APITimeoutError as exc:
            cause = connection_cause(exc)
            if cause is None:
                raise asyncio.TimeoutError from exc
            raise Unreachable(cause) from exc
        except openai.APIConnectionError as exc:
            raise Unreachable(exc) from exc
        return HTTPReply(200, {}, raw)

    async def close(self) -> None:
        await self._sdk.close()


def make_transport(config: ClientConfig) -> Transport:
    """The transport ``config.transport`` names (made inside the event loop); an Entra token
    is fetched here, once per client."""
    token = entra_token(config)
    sdk = openai_client(config, token)
    if config.transport == "openai":
        return SDKTransport(sdk, config, token)
    return DirectTransport(sdk, config, token)
