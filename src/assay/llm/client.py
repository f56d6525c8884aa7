"""The LLM client: the only module that talks to the network.

Any OpenAI-compatible chat-completions endpoint works (OpenAI, Azure OpenAI's v1
endpoint, vLLM, Ollama, llama.cpp server, LiteLLM proxy). :class:`LLMClient` turns a
:class:`~assay.judge.ChatRequest` into a :class:`~assay.judge.Reply` and never raises for
a bad answer: a reply that cannot be used is a Reply with ``failure_kind`` set.

What it does for each request, in order:

1. looks the request up in the response cache (content-addressed, the endpoint included;
   a hit is free);
2. shares one call among identical requests in flight (single flight);
3. waits for a slot (at most ``max_concurrency`` in flight, fewer after 429s) and for any
   Retry-After a server asked for;
4. sends it (see *Transports*), with the verdict's JSON schema as ``response_format`` when the server takes
   one (found out once: a 400 naming the response format switches the client to text
   mode, where the schema is given in the prompt and the JSON is read from the reply);
5. retries 429 (after Retry-After, else exponential back-off with full jitter), 5xx, 408,
   timeouts, connection errors, unreadable bodies and bodies over ``max_reply_bytes``
   (read as they arrive and abandoned at the limit: ``reply_too_large``), at most
   ``max_retries`` times;
6. validates the reply against the verdict model; an invalid or off-schema reply is asked
   again (with what was wrong) at most ``max_parse_retries`` times, then returned as
   ``parse_error``; a refusal (``message.refusal`` set, or a reply that declines in words)
   as ``refusal``;
7. counts tokens (from ``usage``, else estimated at 4 characters a token) and prices them
   from the config's price table; stops new requests once ``cost_limit_usd`` is spent
   (:class:`~assay.judge.CostLimitExceeded`).

A server that cannot be reached before it ever answered (connection refused, a host
name that does not resolve) or that refuses the key, the model or the permission (401,
403, 404; 429 ``insufficient_quota``) raises :class:`~assay.judge.FatalAPIError` at once:
nothing would come of retrying. Error texts are stored and raised without the API key,
bearer tokens or URL credentials (:func:`~assay._secrets.redact_text`), and
the base URL only as :func:`~assay._secrets.redact_url` gives it.

Transports (:mod:`assay.llm._transport`): ``transport: direct`` (the default) posts
over assay's own keep-alive HTTP/1.1 connections to an ``http://`` endpoint with no proxy
(:mod:`assay.llm._http`), else over one keep-alive aiohttp session; ``transport: openai``
through the SDK's own ``post``,
whose per-call request building costs more CPU than all of assay's own work for a judgment
(bench/bench_engine.py). Everything from the status, headers and body on (retries,
Retry-After, fall-back, validation) is the same code; neither is made until a request
misses the cache, so a run answered from cache loads no HTTP stack.

The API key is read from the environment variable the config names, handed to the
OpenAI client (and from it to the session's headers) and kept nowhere else: not in the
config, the cache, the store or a log.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import random
import sys
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from assay._secrets import redact_text, redact_url
from assay.errors import ConfigError
from assay.llm._lookup import CacheLookup, logprob_position
from assay.llm._parse import (
    parse_verdict,
    verdict_schema,
)
from assay.llm._retry import AdaptiveLimiter, full_jitter, retry_after_seconds
from assay.llm._transport import HTTPReply, ReplyTooLarge, Transport, Unreachable, make_transport
from assay.llm._types import (
    ChatRequest,
    CostLimitExceeded,
    FatalAPIError,
    Reply,
    ReplyFailure,
    utc_now,
)
from assay.llm._wire import (
    Completion,
    chat_body,
    error_code,
    error_message,
    json_or_text,
    read_completion,
    refuses_schema,
)
from assay.llm.cache import CachedResponse, ResponseCache, SingleFlight
from assay.llm.client_config import ClientConfig, client_problems, request_base_url
from assay.llm.pricing import CallTally as _Tally
from assay.llm.pricing import find_price

logger = logging.getLogger("assay.judge")

_RESERVED_PARAMS = frozenset(("model", "messages", "response_format", "stream", "n"))

__all__ = ["ClientConfig", "ClientStats", "LLMClient", "client_problems", "logprob_position"]


@dataclass
class ClientStats:
    """Running counts of one client (read by the runner's progress)."""

    calls: int = 0
    """HTTP requests sent."""
    retries: int = 0
    rate_limited: int = 0
    parse_retries: int = 0
    cache_hits: int = 0
    shared: int = 0
    """Requests answered by an identical request's call in flight."""
    spent_usd: float = 0.0
    """USD of the calls made by this client (cache hits cost nothing)."""
    unpriced: int = 0
    """Replies received from a model the price table does not list (their cost is unknown)."""
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True, slots=True)
class _Failure:
    kind: ReplyFailure
    error: str


class LLMClient:
    """Async chat-completions client with bounded concurrency, retries, cache and cost.

    Use ``async with LLMClient(config, cache=cache) as client: reply = await client.complete(req)``.

    Raises
    ------
    ConfigError
        At construction, when the API key's environment variable is unset, or a cost
        limit is set but the default model has no price.
    """

    def __init__(self, config: ClientConfig, *, cache: ResponseCache | None = None,
                 rng: random.Random | int | None = None) -> None:
        self.config = config
        self.cache = cache
        self.stats = ClientStats()
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._limiter = AdaptiveLimiter(config.max_concurrency)
        self._flight: SingleFlight[Reply] = SingleFlight()
        self._fatal: FatalAPIError | None = None
        self._structured: bool | None = {"auto": None, "json_schema": True, "text": False}[
            config.structured_output]
        self.endpoint = redact_url(request_base_url(config))
        """The base URL as it may be stored and printed (no credentials); it enters the cache keys."""
        problems = client_problems(config)
        if problems:
            raise ConfigError(problems[0])
        self._reached = False
        """Whether the endpoint ever sent an HTTP reply (a refused connection before that is fatal)."""
        self._transport: Transport | None = None  # made on the first request that is sent
        self._cache_lookup = CacheLookup(config, cache, self.endpoint)
        """The response cache's keys and hits (:mod:`assay.llm._lookup`)."""

    def __repr__(self) -> str:
        return f"<LLMClient {self.config.model} at {self.endpoint}>"

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._transport is not None:
            await self._transport.close()
            self._transport = None

    async def connect(self) -> None:
        """Make the transport now rather than on the first request the cache cannot answer.

        Making it costs about 0.2 s once (the OpenAI SDK's client and, on first use, its
        import): a caller timing steady throughput, or wanting a bad base URL found early,
        calls this first; :meth:`complete` needs no call to it.
        """
        self._connect()

    def _connect(self) -> Transport:
        """The transport, made once, inside the event loop (a run answered from cache needs none)."""
        if self._transport is None:
            if self._fatal is not None:
                raise self._fatal
            try:
                self._transport = make_transport(self.config)
            except ConfigError as exc:  # no Entra token: no request can be authorised
                self._fatal = FatalAPIError(f"{self.endpoint}: {exc}")
                raise self._fatal from None
        return self._transport

    @property
    def structured_output(self) -> bool | None:
        """Whether the server takes a JSON schema (None until found out)."""
        return self._structured

    @property
    def max_in_flight(self) -> int:
        """The most requests this client ever had on the wire at once."""
        return self._limiter.max_in_flight

    # -- the public call
    async def complete(self, request: ChatRequest) -> Reply:
        """Answer one request; see the module docstring for what happens on the way.

        Raises
        ------
        CostLimitExceeded
            When the cost limit is spent before this request was sent.
        FatalAPIError
            When the server rejects the key, the model or the permission (401, 403, 404).
        """
        started = time.monotonic()
        model, params, key, reply = self._lookup(request, started)
        if reply is not None:
            return reply
        reply = await self._flight.run(key, lambda: self._ask(request, model, params, key))
        if reply.key != request.key:  # answered by an identical request's call
            self.stats.shared += 1
            return dataclasses.replace(reply, key=request.key, cached=True, attempts=0,
                                       latency_s=time.monotonic() - started)
        return reply

    def _lookup(self, request: ChatRequest, started: float
                ) -> tuple[str, Mapping[str, Any], str, Reply | None]:
        """(model, params, cache key, the cached reply or None): the cache's answer, nothing sent."""
        model, params = self.model_params(request)
        key, reply = self._cache_lookup.find(request, model, params, started)
        if reply is not None:
            self.stats.cache_hits += 1
        return model, params, key, reply

    def cache_key_of(self, request: ChatRequest) -> str:
        """The response cache's key of ``request``."""
        return self._cache_lookup.key(request, *self.model_params(request))

    def cached(self, request: ChatRequest) -> tuple[str, Reply | None]:
        """(cache key, the reply the response cache holds for ``request`` or None); sends nothing.

        For the batch transport, which asks the server only what the cache cannot answer.
        """
        _, _, key, reply = self._lookup(request, time.monotonic())
        return key, reply

    def prefetch(self, requests: Sequence[ChatRequest]) -> int:
        """Look ``requests`` up in the cache in bulk, for :meth:`complete` to find; return the hits.

        One query per 500 requests instead of one each: the runner prefetches the plan a
        window at a time, which takes a third off a rerun answered from cache.
        """
        if self.cache is None or not requests:
            return 0
        return self._cache_lookup.prefetch(requests, [self.model_params(r) for r in requests])

    def model_params(self, request: ChatRequest) -> tuple[str, Mapping[str, Any]]:
        """(model, parameters) ``request`` is sent with: its own over the config's.

        Raises
        ------
        ValueError
            The request sets a parameter the client sets (model, messages, response_format...).
        """
        params = {**self.config.params, **request.params} if request.params else self.config.params
        reserved = _RESERVED_PARAMS.intersection(params)
        if reserved:
            raise ValueError(f"params of request {request.key}: {', '.join(sorted(reserved))} "
                             "are set by the client")
        return request.model or self.config.model, params

    def redact(self, text: str) -> str:
        """An error text without the API key, the Entra token, bearer tokens or URL credentials."""
        config = self.config
        secrets = [os.environ.get(name) for name in (config.api_key_env, config.azure_ad_token_env) if name]
        return redact_text(text, secrets=(*secrets, *getattr(self._transport, "secrets", ())))

    def _check_budget(self) -> None:
        limit = self.config.cost_limit_usd
        if limit is not None and self.stats.spent_usd >= limit:
            raise CostLimitExceeded(self.stats.spent_usd, limit)

    # -- one judgment: ask, validate, ask again with what was wrong
    async def _ask(self, request: ChatRequest, model: str, params: Mapping[str, Any], key: str) -> Reply:
        started = time.monotonic()
        messages: list[dict[str, str]] = [{"role": r, "content": c} for r, c in request.messages]
        tally = _Tally()
        text: str | None = None
        error = "no reply"
        position = logprob_position(request, params)
        for round_ in range(self.config.max_parse_retries + 1):
            if round_:
                self.stats.parse_retries += 1
            got = await self._send(messages, model, params, request.response_model, tally,
                                   first=round_ == 0, logprob_token=position)
            if isinstance(got, _Failure):
                return self.reply(request, tally, started, text, got.kind, got.error)
            text = got.content
            settled = self.settle(request, key, got, tally, started)
            if isinstance(settled, Reply):
                return settled
            error = settled
            logger.debug("request %s: unusable reply (%s), round %d", request.key, error, round_ + 1)
            messages = [*messages, {"role": "assistant", "content": (text or "")[:4000]},
                        {"role": "user", "content": _CORRECTION.format(error=error)}]
        return self.reply(request, tally, started, text, "parse_error", error)

    def settle(self, request: ChatRequest, key: str, got: Completion, tally: _Tally,
               started: float) -> Reply | str:
        """The reply one completion gives (a verdict, free text or a refusal, a good one
        remembered in the cache under ``key``), or why it cannot be used: the caller asks
        again with that text (:meth:`_ask`) or stores it as a parse error
        (:func:`~assay.llm.batch.batch_reply`)."""
        text = got.content
        if got.refusal:
            return self.reply(request, tally, started, got.refusal, "refusal",
                              "the judge refused: " + got.refusal[:200])
        if request.response_model is None:
            if text and text.strip():
                self._remember(key, text, tally, got.top_logprobs)
                return self.reply(request, tally, started, text, None, None,
                                  top_logprobs=got.top_logprobs)
            return "empty reply"
        outcome = parse_verdict(text, request.response_model)
        if outcome.verdict is not None:
            self._remember(key, text or "", tally, got.top_logprobs)
            return self.reply(request, tally, started, text, None, None, outcome.verdict,
                              top_logprobs=got.top_logprobs)
        if outcome.failure_kind == "refusal":
            return self.reply(request, tally, started, text, "refusal", outcome.error)
        return outcome.error or "invalid reply"

    def _remember(self, key: str, text: str, tally: _Tally,
                  top_logprobs: tuple[tuple[str, float], ...] | None = None) -> None:
        if self.cache is not None:
            self.cache.put(key, CachedResponse(text, tally.model, tally.tokens_in, tally.tokens_out,
                                               not tally.estimated, utc_now(), self.endpoint,
                                               top_logprobs))

    def reply(self, request: ChatRequest, tally: _Tally, started: float, text: str | None,
              kind: ReplyFailure | None, error: str | None, verdict: BaseModel | None = None, *,
              top_logprobs: tuple[tuple[str, float], ...] | None = None) -> Reply:
        """The Reply to ``request``: its text and verdict, or its failure (``kind`` and
        ``error``), with the tokens, cost and attempts of ``tally`` since ``started``."""
        usd, provenance = tally.billed()
        return Reply(key=request.key, verdict=verdict, text=text, failure_kind=kind, error=error,
                     tokens_in=tally.tokens_in, tokens_out=tally.tokens_out, usd=usd,
                     usd_provenance=provenance,
                     latency_s=time.monotonic() - started, attempts=tally.attempts, cached=False,
                     model=tally.model, evaluated_at=utc_now(), top_logprobs=top_logprobs)

    # -- one HTTP exchange, with retries
    async def _send(self, messages: list[dict[str, str]], model: str, params: Mapping[str, Any],
                    verdict_model: type[BaseModel] | None, tally: _Tally, *, first: bool,
                    logprob_token: int | None = None) -> Completion | _Failure:
        cfg = self.config
        last = _Failure("api_error", "not sent")
        attempt = 0
        fell_back = False
        while True:
            await self._limiter.wait_gate()
            delay: float | None = None
            async with self._limiter:
                if self._fatal is not None:
                    raise FatalAPIError(str(self._fatal))
                if first and attempt == 0:
                    self._check_budget()
                structured = verdict_model is not None and self._structured is not False
                body = chat_body(model, messages, params, verdict_model, structured=structured)
                self.stats.calls += 1
                tally.attempts += 1
                try:
                    reply = await _within(cfg.timeout_s, self._connect().post(body))
                except asyncio.TimeoutError:
                    last = _Failure("timeout", f"no reply within {cfg.timeout_s:g} s")
                except Unreachable as exc:
                    if exc.dead and not self._reached:
                        self._fatal = FatalAPIError(f"{self.endpoint}: {exc}: nothing answers there "
                                                    "(check llm.base_url and that the server runs)")
                        raise self._fatal from None
                    last = _Failure("api_error", self.redact(str(exc)))
                except ReplyTooLarge as exc:  # retried: a proxy's fault may pass
                    self._reached = True
                    last = _Failure("reply_too_large", str(exc))
                else:
                    self._reached = True
                    status = reply.status
                    if 200 <= status < 300:
                        try:
                            data = json.loads(reply.body)
                            if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
                                raise ValueError("not a chat completion")
                        except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError too
                            last = _Failure("api_error", f"unreadable reply body: {type(exc).__name__}")
                        else:
                            if structured and self._structured is None:
                                self._structured = True
                            self._limiter.on_success()
                            return self.completion(data, body["messages"], model, verdict_model,
                                                   structured, tally, logprob_token)
                    else:
                        error = json_or_text(reply.body)
                        said = self.redact(error_message(error, status))
                        last = _Failure("api_error", f"HTTP {status}: {said}")
                        if status == 429:
                            if error_code(error) == "insufficient_quota":  # waiting will not help
                                self._fatal = FatalAPIError(f"{self.endpoint}: {said}")
                                raise self._fatal
                            self.stats.rate_limited += 1
                            wait = retry_after_seconds(reply.headers)
                            delay = None if wait is None else min(wait, cfg.backoff_max_s)
                            self._limiter.on_rate_limit(delay)
                            last = _Failure("api_error", "HTTP 429: rate limited")
                        elif status in (401, 403, 404):
                            self._fatal = FatalAPIError(f"{self.endpoint} refused the request "
                                                        f"(HTTP {status}): {said}")
                            raise self._fatal
                        elif status == 400:
                            if (structured and cfg.structured_output == "auto" and not fell_back
                                    and refuses_schema(error)):
                                self._structured = False
                                fell_back = True
                                logger.info("%s does not take a JSON schema response_format; reading "
                                            "JSON from text instead", self.endpoint)
                                continue
                            return last
                        elif status < 500 and status not in (408, 409):
                            return last
                        elif status == 503:
                            delay = retry_after_seconds(reply.headers)
            if attempt >= cfg.max_retries:
                return last
            attempt += 1
            self.stats.retries += 1
            if delay is None:
                delay = full_jitter(attempt - 1, base=cfg.backoff_base_s, cap=cfg.backoff_max_s,
                                    rng=self._rng)
            logger.debug("retry %d after %s; waiting %.2f s", attempt, last.error, delay)
            await asyncio.sleep(delay)

    def completion(self, data: dict[str, Any], messages: list[dict[str, str]], model: str,
                   verdict_model: type[BaseModel] | None, structured: bool, tally: _Tally,
                   logprob_token: int | None = None, *, factor: float = 1.0) -> Completion:
        """The completion ``data`` answered to ``messages``, its tokens counted in ``tally``
        and the client's stats and priced at ``factor`` times the listed price (tokens
        estimated from the text sent when the server reports no usage)."""
        def sent() -> int:  # only asked for when the server reports no usage
            chars = sum(len(m["content"]) for m in messages)
            if structured and verdict_model is not None:
                chars += len(str(verdict_schema(verdict_model)))
            return chars

        got = read_completion(data, sent_chars=sent, model=model, logprob_token=logprob_token)
        price = find_price(self.config.prices, got.model, model)
        usd = tally.add(got.tokens_in, got.tokens_out, reported=got.reported, model=got.model,
                        price=price, factor=factor)
        if usd is None:
            self.stats.unpriced += 1
        else:
            self.stats.spent_usd += usd
        self.stats.tokens_in += got.tokens_in
        self.stats.tokens_out += got.tokens_out
        return got


_CORRECTION = ("Your reply could not be used ({error}). Reply again with only the JSON object "
               "the instructions ask for, matching the schema exactly.")


async def _within(seconds: float, call: Awaitable[HTTPReply]) -> HTTPReply:
    """Await ``call`` for at most ``seconds`` (a hard bound over the transport's own timeouts)."""
    if sys.version_info >= (3, 11):  # asyncio.timeout spares wait_for's extra task per call
        async with asyncio.timeout(seconds):
            return await call
    return await asyncio.wait_for(call, seconds)
