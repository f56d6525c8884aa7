"""The ``llm`` section of a judge config: where the judge model is and how hard to try.

Kept apart from :mod:`assay.judge.engine.client` so that reading a config, a plan or a store
never loads the HTTP stack or the OpenAI SDK.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.judge.engine._secrets import redact_url
from assay.judge.engine.pricing import Price, find_price


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
    """The OpenAI-compatible endpoint, e.g. ``http://localhost:8000/v1`` for vLLM."""
    api_key_env: str | None = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (the key itself is never in a
    config); None for a local server that needs none."""
    max_concurrency: int = Field(32, ge=1)
    """Most requests in flight at once."""
    timeout_s: float = Field(120.0, gt=0)
    """Longest wait for one HTTP reply."""
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
    transport: Literal["direct", "openai"] = "direct"
    """How a request reaches the server. ``direct``: assay posts the chat-completions JSON
    over one keep-alive aiohttp session, with the headers ``openai.AsyncOpenAI`` sends
    (authorisation, user agent, organisation and project), about 0.4 ms of CPU a call;
    ``openai``: through ``openai.AsyncOpenAI.post``, the SDK's own request building and
    transport, about 0.8 ms more a call (bench/bench_engine.py). Replies, errors, retries and
    timeouts are handled the same way for both."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Default chat-completions parameters (temperature, seed, max_tokens, ...)."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Model name -> USD per million input and output tokens (``"*"`` for any other model)."""
    cost_limit_usd: float | None = Field(None, gt=0)
    """Stop sending new requests once this much has been spent."""


def client_problems(config: ClientConfig, models: Sequence[str] = ()) -> list[str]:
    """What stops a client for ``config`` from running, one line each (empty when nothing).

    The API key's environment variable must be set; with a cost limit, the default model
    and every model in ``models`` (judges that name their own) need a price, or spending
    on them could not be counted against the limit.
    """
    problems = []
    if config.api_key_env is not None and not os.environ.get(config.api_key_env):
        problems.append(f"environment variable {config.api_key_env} is not set: it should hold the API "
                        f"key for {redact_url(config.base_url)} (or set api_key_env: null)")
    if config.cost_limit_usd is not None:
        unpriced = [m for m in dict.fromkeys([config.model, *models]) if find_price(config.prices, m) is None]
        if unpriced:
            problems.append(f"cost_limit_usd needs a price for model {', '.join(map(repr, unpriced))} "
                            "(add it, or '*', to llm.prices)")
    return problems
