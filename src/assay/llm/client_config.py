"""The ``llm`` section of a judge config: where the judge model is and how hard to try.

Kept apart from :mod:`assay.llm.client` so that reading a config, a plan or a store
never loads the HTTP stack or the OpenAI SDK.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from assay._secrets import redact_url
from assay.llm.pricing import Price, find_price


class ClientConfig(BaseModel):
    """How to reach the judge model and how hard to try (the ``llm`` section of a config).

    Unknown fields are refused, so a key pasted into a config (``api_key: sk-...``) is an
    error, and errors never echo the values given (a pasted key must not reach a log).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True,
                              hide_input_in_errors=True)

    model: str
    """Default judge model (a request may name another)."""
    base_url: str = "https://api.openai.com/v1"
    """The OpenAI-compatible endpoint, e.g. ``http://localhost:8000/v1`` for vLLM: an http or
    https URL with a host and no user name or password (the key goes in the environment
    variable ``api_key_env`` names)."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (the key itself is never in a
    config); None for a local server that needs none."""
    api_version: str | None = None
    """Azure OpenAI's ``api-version`` (e.g. ``2024-10-21``), sent as that query parameter
    unless ``base_url`` has one. Setting it (or an Azure host: ``*.openai.azure.com``,
    ``*.cognitiveservices.azure.com``, ``*.services.ai.azure.com``) makes the endpoint Azure:
    the key goes in an ``api-key`` header instead of ``Authorization: Bearer``."""
    azure_ad_token_env: str | None = None
    """Name of the environment variable holding a Microsoft Entra ID access token for Azure
    OpenAI (sent as ``Authorization: Bearer``; no API key is needed then)."""
    azure_ad_token_command: str | None = None
    """A command printing a Microsoft Entra ID access token, run (without a shell) when the
    client first connects, e.g. ``az account get-access-token --resource
    https://cognitiveservices.azure.com --query accessToken -o tsv``. The token is kept in
    memory only."""
    max_concurrency: int = Field(32, ge=1)
    """Most requests in flight at once."""
    timeout_s: float = Field(120.0, gt=0)
    """Longest wait for one HTTP reply."""
    max_reply_bytes: int = Field(16 * 1024 * 1024, ge=1024)
    """Largest reply body read, in bytes (16 MiB). A longer body is abandoned as it arrives
    (a ``Content-Length`` over it is refused before any is read) and the request fails with
    ``reply_too_large``, retried like a timeout; so at most ``max_concurrency`` times this
    much is held at once whatever a server or proxy sends. With ``transport: batch``, the
    bound of each line of a batch's output file."""
    max_retries: int = Field(6, ge=0)
    """Retries of one request after 429, 5xx, 408, timeouts and connection errors."""
    max_parse_retries: int = Field(2, ge=0)
    """Times an invalid or off-schema reply is asked again before it is a parse_error."""
    backoff_base_s: float = Field(0.5, gt=0)
    """First back-off step; step k waits uniform(0, min(backoff_max_s, base * 2**k))."""
    backoff_max_s: float = Field(60.0, gt=0)
    """Longest back-off, and the cap on a server's Retry-After."""
    structured_output: Literal["auto", "json_schema", "text"] = "auto"
    """``auto``: send the JSON schema, fall back to text if the server refuses it."""
    transport: Literal["direct", "openai", "batch"] = "direct"
    """How a request reaches the server. ``direct``: assay posts the chat-completions JSON
    with the headers ``openai.AsyncOpenAI`` sends (authorisation, user agent, organisation
    and project), over keep-alive HTTP/1.1 connections of its own to an ``http://`` endpoint
    with no proxy (a local server), else over one aiohttp session, about 0.2 and 0.4 ms of
    CPU a call (bench/bench_http_floor.py);
    ``openai``: through ``openai.AsyncOpenAI.post``, the SDK's own request building and
    transport, about 0.8 ms more a call (bench/bench_engine.py). Replies, errors, retries and
    timeouts are handled the same way for both. ``batch``: the pending requests go into
    OpenAI Batch API jobs (``/v1/files`` and ``/v1/batches``, a 24 h window, billed at
    ``batch_discount`` off), polled until they end; for runs that need no quick answer
    (docs/batch.md)."""
    batch_discount: float = Field(0.5, ge=0, lt=1)
    """``transport: batch``: the share of the listed price the Batch API takes off (OpenAI: 0.5,
    half price); cost, ``--dry-run`` and the cost limit use the discounted price."""
    batch_poll_s: float = Field(10.0, gt=0)
    """``transport: batch``: first wait between two checks of a batch's status; each wait is 1.5
    times the last, up to ``batch_poll_max_s``."""
    batch_poll_max_s: float = Field(300.0, gt=0)
    """``transport: batch``: longest wait between two checks of a batch's status."""
    batch_max_requests: int = Field(50_000, ge=1)
    """``transport: batch``: most requests in one batch (OpenAI takes 50,000); more are split
    into several batches, submitted together."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Default chat-completions parameters (temperature, seed, max_tokens, ...)."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Model name -> USD per million input and output tokens (``"*"`` for any other model)."""
    cost_limit_usd: float | None = Field(None, gt=0)
    """Stop sending new requests once this much has been spent."""

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str) -> str:
        return check_base_url(value)


def check_base_url(url: str) -> str:
    """``url`` when it can be an OpenAI-compatible endpoint: http or https, with a host, and
    no user name or password.

    Checked when a config is read, so ``--dry-run`` and ``describe`` refuse what a run could
    never reach, and a run stops before its first call instead of retrying. Credentials in
    the URL are refused rather than sent: an HTTP client turns them into ``Authorization:
    Basic``, which replaces the API key's ``Bearer`` header without a word, and the URL is
    shown and stored in many places. A query parameter (``?api-version=...``, a token a
    proxy asks for) is kept: it is sent as given and recorded redacted.

    Raises
    ------
    ValueError
        One line saying what is wrong (never echoing a credential).

    Examples
    --------
    >>> check_base_url("http://127.0.0.1:8000/v1?token=t")
    'http://127.0.0.1:8000/v1?token=t'
    >>> check_base_url("file:///etc/passwd")
    Traceback (most recent call last):
    ...
    ValueError: expected an http:// or https:// URL with a host, got 'file:///etc/passwd'
    >>> check_base_url("http://bob:hunter2@host/v1")
    Traceback (most recent call last):
    ...
    ValueError: a user name or password in the URL is never sent (it would replace the API key): \
remove it and put the key in the environment variable that api_key_env names (OPENAI_API_KEY unless set)
    """
    expected = "expected an http:// or https:// URL with a host"
    if not url.strip():
        raise ValueError(f"{expected}, got an empty value")
    try:
        parts = urllib.parse.urlsplit(url.strip())
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise ValueError(f"{expected}, got {redact_url(url)!r} ({exc})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{expected}, got {redact_url(url)!r}")
    if parts.username is not None or parts.password is not None:
        raise ValueError("a user name or password in the URL is never sent (it would replace the API "
                         "key): remove it and put the key in the environment variable that api_key_env "
                         "names (OPENAI_API_KEY unless set)")
    return url


AZURE_HOSTS = (".openai.azure.com", ".cognitiveservices.azure.com", ".services.ai.azure.com")
"""Host name endings of Azure OpenAI endpoints (their key goes in an ``api-key`` header)."""


def is_azure(config: ClientConfig) -> bool:
    """Whether ``config`` is an Azure OpenAI endpoint: an ``api_version``, an Entra token
    source, or an Azure host name.

    >>> is_azure(ClientConfig(model="m", base_url="https://x.openai.azure.com/openai/deployments/d"))
    True
    >>> is_azure(ClientConfig(model="m", base_url="http://127.0.0.1:8000/v1"))
    False
    """
    host = (urllib.parse.urlsplit(config.base_url.strip()).hostname or "").lower()
    return (config.api_version is not None or config.azure_ad_token_env is not None
            or config.azure_ad_token_command is not None or host.endswith(AZURE_HOSTS))


def request_base_url(config: ClientConfig) -> str:
    """``base_url`` with ``api-version`` in its query when ``api_version`` is set and the URL
    has none (the URL requests go to; stored and printed only through ``redact_url``).

    >>> request_base_url(ClientConfig(model="m", base_url="https://x/openai/deployments/d",
    ...                               api_version="2024-10-21"))
    'https://x/openai/deployments/d?api-version=2024-10-21'
    """
    if config.api_version is None:
        return config.base_url
    parts = urllib.parse.urlsplit(config.base_url.strip())
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if any(name == "api-version" for name, _ in query):
        return config.base_url
    query.append(("api-version", config.api_version))
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def price_factor(config: ClientConfig | None) -> float:
    """What a listed price is multiplied by: ``1 - batch_discount`` with ``transport: batch``, else 1.

    >>> price_factor(ClientConfig(model="m", transport="batch")), price_factor(ClientConfig(model="m"))
    (0.5, 1.0)
    """
    if config is None or config.transport != "batch":
        return 1.0
    return 1.0 - config.batch_discount


def listed_cost(config: ClientConfig, tokens_in: float, tokens_out: float,
                *models: str | None) -> float | None:
    """USD of ``tokens_in`` prompt and ``tokens_out`` completion tokens at ``config``'s price of
    the first of ``models`` its ``prices`` list (else ``"*"``, :func:`find_price`), times
    :func:`price_factor`; None when no price applies (never $0).

    >>> cfg = ClientConfig(model="m", prices={"m": Price(input=2.5, output=10.0)}, transport="batch")
    >>> listed_cost(cfg, 1000, 200, "m"), listed_cost(cfg, 1000, 200, "other") is None
    (0.00225, True)
    """
    price = find_price(config.prices, *models)
    return None if price is None else price.cost(tokens_in, tokens_out) * price_factor(config)


def client_problems(config: ClientConfig, models: Sequence[str] = (), *,
                    credentials: bool = True) -> list[str]:
    """What stops a client for ``config`` from running, one line each (empty when nothing).

    The API key's environment variable must be set (with ``credentials``; a plan, a dry run
    or a description sends nothing and needs no key: :func:`credential_problems`), to one
    line of printable characters (:func:`credential_problem`, checked with or without
    ``credentials``); with a cost limit, the default model and every model in ``models``
    (judges that name their own) need a price, or spending on them could not be counted
    against the limit.
    """
    problems = []
    if config.azure_ad_token_env is not None and config.azure_ad_token_command is not None:
        problems.append("llm: give azure_ad_token_env or azure_ad_token_command, not both")
    if credentials:
        problems += credential_problems(config)
    problems.extend(p for name in (config.api_key_env, config.azure_ad_token_env) if name
                    for p in [credential_problem(name)] if p)
    if config.cost_limit_usd is not None:
        unpriced = [m for m in dict.fromkeys([config.model, *models]) if find_price(config.prices, m) is None]
        if unpriced:
            problems.append(f"cost_limit_usd needs a price for model {', '.join(map(repr, unpriced))} "
                            "(add it, or '*', to llm.prices)")
    return problems


def credential_problems(config: ClientConfig) -> list[str]:
    """The credentials ``config`` names but the environment does not hold (the API key's
    variable, an Entra ID token's variable), one line each: checked before a run's first
    call, said as a note by a dry run."""
    problems = []
    if config.azure_ad_token_env is not None and not os.environ.get(config.azure_ad_token_env):
        problems.append(f"environment variable {config.azure_ad_token_env} is not set: it should hold "
                        f"the Entra ID token for {redact_url(config.base_url)} (llm.azure_ad_token_env)")
    token = config.azure_ad_token_env is not None or config.azure_ad_token_command is not None
    if not token and config.api_key_env is not None and not os.environ.get(config.api_key_env):
        problems.append(f"environment variable {config.api_key_env} is not set: it should hold the API "
                        f"key for {redact_url(config.base_url)} (or set api_key_env: null)")
    return problems


def credential_problem(name: str) -> str | None:
    """What is wrong with the key or token in the environment variable ``name`` (None when it
    is unset or can be sent): a line break, a NUL or another control character, which no
    HTTP header may hold (the HTTP library would refuse it at the first call, or a header
    could be injected). The value is never shown.

    >>> os.environ["ASSAY_DOCTEST_KEY"] = "sk-abc\\r\\nX-Injected: 1"
    >>> print(credential_problem("ASSAY_DOCTEST_KEY"))
    environment variable ASSAY_DOCTEST_KEY holds a line break (CR or LF): a key is one line of \
printable characters (check how it was set: a .env value, a pasted key)
    >>> del os.environ["ASSAY_DOCTEST_KEY"]
    """
    value = os.environ.get(name) or ""
    bad = [c for c in value if ord(c) < 32 or ord(c) == 127]
    if not bad:
        return None
    what = ("a line break (CR or LF)" if {"\r", "\n"} & set(bad)
            else f"a control character ({ord(bad[0]):#04x})")
    return (f"environment variable {name} holds {what}: a key is one line of printable characters "
            "(check how it was set: a .env value, a pasted key)")
