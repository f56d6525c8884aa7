"""Transports: one POST of a chat-completions body, the reply whatever its status.

``openai.AsyncOpenAI(base_url=..., api_key=...)`` is made for every client and defines
the request: its headers (authorisation, user agent, organisation, project) and its base
URL. :class:`DirectTransport` posts the body with those headers, over assay's own
keep-alive HTTP/1.1 connections (:class:`~assay.llm._http.Connections`) to an ``http://``
endpoint with no proxy, else over one keep-alive aiohttp session; :class:`SDKTransport`
through the SDK's own ``post``. Both give the
client the status, headers and body of the reply, or raise :class:`Unreachable` (no
HTTP reply), :class:`ReplyTooLarge` (a body over ``max_reply_bytes``, abandoned as it
arrives) or ``asyncio.TimeoutError``; the client (:mod:`assay.llm.client`)
does everything else. The request URL is built with :mod:`urllib.parse`, so a query in
the base URL (Azure's ``api-version``) stays a query.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import os
import shlex
import subprocess
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from assay._secrets import chat_completions_url, split_query
from assay.errors import ConfigError
from assay.llm._http import Connections, HTTPReply, ReplyTooLarge, Unreachable, declared_length
from assay.llm._wire import body_bytes, connection_cause
from assay.llm.client_config import ClientConfig, is_azure, request_base_url

if TYPE_CHECKING:
    import openai

NO_KEY = "not-needed"
"""The key sent when the config names no key variable (local servers want none)."""
CONNECT_TIMEOUT_S = 10.0
"""Longest wait for a connection (the reply may take up to ``timeout_s``)."""


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


def openai_client(config: ClientConfig, token: str | None = None, *,
                  whole_bodies: bool = True) -> openai.AsyncOpenAI:
    """The SDK client for ``config``: the key read from the environment here and kept only in it
    (the transports replace its ``Authorization`` for an Azure endpoint: :func:`auth_headers`).

    Every reply body it reads is bounded by ``max_reply_bytes`` (a longer one raises
    :class:`ReplyTooLarge` from the call: :func:`bounded_replies`); with ``whole_bodies``
    False, only error replies are: a successful one is read and bounded by its reader (the
    Batch API's file downloads, line by line).
    """
    import openai

    timeout = openai.Timeout(config.timeout_s, connect=min(config.timeout_s, CONNECT_TIMEOUT_S))
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else NO_KEY
    base_url, query = split_query(request_base_url(config))  # the SDK appends paths to base_url as text
    hooks = {"response": [bounded_replies(config.max_reply_bytes, successes=whole_bodies)]}
    http = openai.DefaultAsyncHttpxClient(event_hooks=hooks)
    return openai.AsyncOpenAI(base_url=base_url, api_key=key or NO_KEY, max_retries=0, timeout=timeout,
                              default_query=query or None, http_client=http)


def bounded_replies(limit: int, *, successes: bool = True) -> Callable[[Any], Awaitable[None]]:
    """An httpx response hook (run before the body is read) that bounds the body to ``limit``
    bytes: a ``Content-Length`` over it raises :class:`ReplyTooLarge` at once; else the body's
    stream is counted as it arrives and raises it the moment the count passes ``limit``
    (the client then closes the connection, and the rest is never read). With ``successes``
    False, a 2xx reply is left to its reader."""
    async def hook(response: Any) -> None:
        if not successes and 200 <= response.status_code < 300:
            return
        declared = declared_length(response.headers)
        if declared is not None and declared > limit:
            raise ReplyTooLarge(limit, declared)
        response.stream = _bounded_class(type(response.stream))(response.stream, limit)

    return hook


@functools.cache
def _bounded_class(kind: type) -> type:
    """A stream class counting an httpx ``AsyncByteStream`` as it is read: past its limit it
    raises :class:`ReplyTooLarge`. It subclasses the stream's own base class, as httpx checks."""
    base = next((k for k in kind.__mro__ if k.__name__ == "AsyncByteStream"), object)

    class Bounded(base):  # type: ignore[misc,valid-type]
        def __init__(self, stream: Any, limit: int) -> None:
            self._stream, self._limit = stream, limit

        async def __aiter__(self) -> AsyncIterator[bytes]:
            size = 0
            async for chunk in self._stream:
                size += len(chunk)
                if size > self._limit:
                    raise ReplyTooLarge(self._limit)
                yield chunk

        async def aclose(self) -> None:
            await self._stream.aclose()

    return Bounded


def sdk_headers(config: ClientConfig) -> dict[str, str]:
    """The headers ``openai.AsyncOpenAI`` sends with every request for ``config`` (its
    ``default_headers`` and ``auth_headers``, unset ones left out), made without importing the
    SDK: its import and client cost about 0.9 s of CPU a process, as much as 1,400 calls.

    Accept, Content-Type, the user agent and platform headers of the installed SDK's version,
    ``Authorization: Bearer KEY`` (the key from ``api_key_env``, else :data:`NO_KEY`), and
    ``OpenAI-Organization`` / ``OpenAI-Project`` from ``OPENAI_ORG_ID`` / ``OPENAI_PROJECT_ID``
    as the SDK reads them. ``X-Stainless-Async`` is ``async:asyncio`` inside an event loop (the
    transports are made there). tests/llm/test_transport_headers.py checks the result equals
    the SDK's own.
    """
    import importlib.metadata
    import platform
    import sys

    version = importlib.metadata.version("openai")
    system, name = platform.system().lower(), platform.platform().lower()
    if "iphone" in name or "ipad" in name:
        os_name = "iOS"
    elif system in ("darwin", "windows", "freebsd", "openbsd"):
        os_name = {"darwin": "MacOS", "windows": "Windows", "freebsd": "FreeBSD",
                   "openbsd": "OpenBSD"}[system]
    elif "android" in name:
        os_name = "Android"
    elif system == "linux":
        try:
            distro = platform.freedesktop_os_release().get("ID", "").lower()
        except OSError:
            distro = ""
        os_name = {"freebsd": "FreeBSD", "openbsd": "OpenBSD"}.get(distro, "Linux")
    else:
        os_name = name or "Unknown"
    machine = platform.machine().lower()
    arch = ("arm64" if machine in ("arm64", "aarch64") else "arm" if machine == "arm" else
            "x64" if machine == "x86_64" else "x32" if sys.maxsize <= 2**32 else
            f"other:{machine}" if machine else "unknown")
    try:
        asyncio.get_running_loop()
        async_library = "asyncio"
    except RuntimeError:
        async_library = "false"
    key = os.environ.get(config.api_key_env, "") if config.api_key_env else NO_KEY
    headers = {"Accept": "application/json", "Content-Type": "application/json",
               "User-Agent": f"AsyncOpenAI/Python {version}", "X-Stainless-Lang": "python",
               "X-Stainless-Package-Version": version, "X-Stainless-OS": os_name,
               "X-Stainless-Arch": arch, "X-Stainless-Runtime": platform.python_implementation(),
               "X-Stainless-Runtime-Version": platform.python_version(),
               "X-Stainless-Async": f"async:{async_library}"}
    for header, variable in (("OpenAI-Organization", "OPENAI_ORG_ID"),
                             ("OpenAI-Project", "OPENAI_PROJECT_ID")):
        if os.environ.get(variable) is not None:
            headers[header] = os.environ[variable]
    headers["Authorization"] = f"Bearer {key or NO_KEY}"
    return headers


class DirectTransport:
    """Posts the body itself, with the headers the SDK client would send: to an ``http://``
    endpoint with no proxy over :class:`~assay.llm._http.Connections` (aiohttp is not even
    imported), else over one aiohttp session (TLS, proxies).

    The SDK's per-call work (typed request options, URL and header objects, a response
    wrapper) costs about 0.8 ms of CPU a call, more than everything else assay does for a
    judgment; the wire format, authorisation and headers stay the SDK's own
    (:func:`sdk_headers`), and the SDK is not imported at all.
    """

    def __init__(self, config: ClientConfig, token: str | None = None) -> None:
        headers = sdk_headers(config)
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
        self._limit = config.max_reply_bytes
        self.secrets: tuple[str, ...] = (token,) if token else ()
        self._proxy = _proxy_for(self._url)
        self._plain: Connections | None = None
        if url.scheme == "http" and self._proxy is None:
            self._plain = Connections(url, headers, max_reply_bytes=self._limit,
                                       connect_timeout_s=min(config.timeout_s, CONNECT_TIMEOUT_S))
            return
        import aiohttp

        self._errors = (aiohttp.ClientError,)
        self._session = aiohttp.ClientSession(  # trust_env would look the proxy up on every call
            connector=aiohttp.TCPConnector(limit=config.max_concurrency),
            headers=headers, trust_env=False,
            timeout=aiohttp.ClientTimeout(total=None,
                                          sock_connect=min(config.timeout_s, CONNECT_TIMEOUT_S)))

    async def post(self, body: dict[str, Any]) -> HTTPReply:
        if self._plain is not None:
            return await self._plain.post(body_bytes(body))
        try:
            async with self._session.post(self._url, data=body_bytes(body),
                                          proxy=self._proxy) as response:
                return HTTPReply(response.status, response.headers, await self._read(response))
        except self._errors as exc:
            raise Unreachable(exc) from exc

    async def _read(self, response: Any) -> bytes:
        """The body, read as it arrives and abandoned (the connection closed) past ``max_reply_bytes``:
        a ``Content-Length`` is checked first but not trusted (bytes are counted, and a body
        without one, chunked or read to the close, is counted the same way)."""
        limit = self._limit
        declared = declared_length(response.headers)
        if declared is not None and declared > limit:
            response.close()
            raise ReplyTooLarge(limit, declared)
        chunks: list[bytes] = []
        size = 0
        while chunk := await response.content.readany():
            size += len(chunk)
            if size > limit:
                response.close()
                raise ReplyTooLarge(limit)
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    async def close(self) -> None:
        if self._plain is not None:
            self._plain.close()
        else:
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
    if config.transport == "openai":
        return SDKTransport(openai_client(config, token), config, token)
    return DirectTransport(config, token)

