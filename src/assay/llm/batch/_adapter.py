"""The client's side of a batch: the body a request is sent with, the reply a result gives.

A Batch API line carries the chat-completions body :func:`batch_body` writes; its result
is read by :func:`batch_reply` through the same steps as a reply over HTTP
(:meth:`~assay.llm.client.LLMClient.completion` counts and prices it,
:meth:`~assay.llm.client.LLMClient.settle` validates it and caches a good one).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from assay.llm._types import ChatRequest, Reply
from assay.llm._wire import chat_body, error_message
from assay.llm.batch._lines import TOO_LARGE
from assay.llm.client import logprob_position
from assay.llm.client_config import price_factor
from assay.llm.pricing import CallTally

if TYPE_CHECKING:
    from assay.llm.client import LLMClient


def batch_body(client: LLMClient, request: ChatRequest) -> dict[str, Any]:
    """The chat-completions body ``request`` would be sent with (a Batch API line's ``body``).

    The verdict's JSON schema goes as ``response_format`` unless ``structured_output`` is
    ``text`` (a batch cannot find out whether the server takes one: ``auto`` sends it).
    """
    model, params = client.model_params(request)
    messages = [{"role": r, "content": c} for r, c in request.messages]
    structured = request.response_model is not None and client.config.structured_output != "text"
    return chat_body(model, messages, params, request.response_model, structured=structured)


def batch_reply(client: LLMClient, request: ChatRequest, cache_key: str, status: int, body: Any,
                *, latency_s: float) -> Reply:
    """The reply of one Batch API result: its verdict, or a failure saying why not.

    ``status`` and ``body`` are the line's ``response.status_code`` and ``response.body``.
    Tokens are priced at ``1 - batch_discount`` of the listed price and counted as spent;
    a good reply goes to the response cache; a line over ``max_reply_bytes`` (read no
    further) is a ``reply_too_large`` failure. A reply that cannot be used is not asked
    again (``--retry-failed`` asks it again, in the next batch).
    """
    tally = CallTally(attempts=1)
    started = time.monotonic() - latency_s
    error = body.get("error") if isinstance(body, dict) and status == 0 else None
    if isinstance(error, dict) and error.get("code") == TOO_LARGE:  # its line was not read
        return client.reply(request, tally, started, None, "reply_too_large", str(error.get("message")))
    if not 200 <= status < 300:
        said = client.redact(error_message(body, status))
        return client.reply(request, tally, started, None, "api_error", f"HTTP {status}: {said}")
    if not isinstance(body, dict) or not isinstance(body.get("choices"), list):
        return client.reply(request, tally, started, None, "api_error",
                            "unreadable batch result: not a chat completion")
    model, params = client.model_params(request)
    sent = batch_body(client, request)
    got = client.completion(body, sent["messages"], model, request.response_model,
                            "response_format" in sent, tally, logprob_position(request, params),
                            factor=price_factor(client.config))
    settled = client.settle(request, cache_key, got, tally, started)
    if isinstance(settled, Reply):
        return settled
    return client.reply(request, tally, started, got.content, "parse_error", settled)
