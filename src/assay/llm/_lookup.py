"""The response cache as the client asks it: a request's key, and the reply a hit makes.

:class:`CacheLookup` holds what a lookup needs (the client's config, its cache, its
redacted endpoint) and the hits :meth:`CacheLookup.prefetch` fetched in bulk; the client
(:class:`~assay.llm.client.LLMClient`) asks it before it sends anything, and the
batch transport through the client's ``cached``. It sends nothing and counts nothing: the
client keeps the statistics.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from assay.llm._parse import parse_verdict, verdict_schema_text
from assay.llm._types import ChatRequest, Reply, utc_now
from assay.llm.cache import CachedResponse, ResponseCache, cache_key, canonical_json
from assay.llm.client_config import ClientConfig
from assay.llm.pricing import find_price


class CacheLookup:
    """A client's questions to its response cache (``cache`` None: every lookup misses)."""

    def __init__(self, config: ClientConfig, cache: ResponseCache | None, endpoint: str) -> None:
        self.config = config
        self.cache = cache
        self.endpoint = endpoint
        self._prefetched: dict[str, tuple[str, CachedResponse | None]] = {}
        """Judgment key -> (cache key, cached response or None), filled by :meth:`prefetch`."""
        self._params_text = canonical_json(dict(config.params))

    def key(self, request: ChatRequest, model: str, params: Mapping[str, Any]) -> str:
        """The response cache's key of ``request`` sent to ``model`` with ``params``."""
        schema = None if request.response_model is None else verdict_schema_text(request.response_model)
        text = self._params_text if params is self.config.params else canonical_json(dict(params))
        return cache_key(model, request.messages, text, schema, request.prompt_hash, request.sample,
                         endpoint=self.endpoint, logprob_token=logprob_position(request, params) or 0)

    def find(self, request: ChatRequest, model: str, params: Mapping[str, Any], started: float
             ) -> tuple[str, Reply | None]:
        """(cache key, the cached reply or None), from the prefetched hits or the cache."""
        prefetched = self._prefetched.pop(request.key, None)
        key = prefetched[0] if prefetched is not None else self.key(request, model, params)
        if self.cache is None:
            return key, None
        hit = prefetched[1] if prefetched is not None else None
        hit = hit if hit is not None else self.cache.get(key)
        return key, None if hit is None else self._reply(request, hit, started)

    def prefetch(self, requests: Sequence[ChatRequest],
                 keyed: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
        """Look ``requests`` (sent with ``keyed``'s model and params) up in bulk; return the hits."""
        if self.cache is None or not requests:
            return 0
        keys = [self.key(r, model, params) for r, (model, params) in zip(requests, keyed, strict=True)]
        hits = self.cache.get_many(keys)
        self._prefetched.update((r.key, (k, hits.get(k))) for r, k in zip(requests, keys, strict=True))
        return sum(k in hits for k in keys)

    def _reply(self, request: ChatRequest, hit: CachedResponse, started: float) -> Reply | None:
        """The reply a cache hit makes; None when its text no longer parses as the verdict."""
        verdict = None
        if request.response_model is not None:
            outcome = parse_verdict(hit.content, request.response_model)
            if outcome.verdict is None:
                return None
            verdict = outcome.verdict
        price = find_price(self.config.prices, hit.model, request.model or self.config.model)
        return Reply(key=request.key, verdict=verdict, text=hit.content, tokens_in=hit.tokens_in,
                     tokens_out=hit.tokens_out,
                     usd=None if price is None else price.cost(hit.tokens_in, hit.tokens_out),
                     usd_provenance="reported" if hit.usage_reported else "estimated",
                     latency_s=time.monotonic() - started, attempts=0, cached=True, model=hit.model,
                     evaluated_at=utc_now(), top_logprobs=hit.top_logprobs)


def logprob_position(request: ChatRequest, params: Mapping[str, Any]) -> int | None:
    """The token position whose top-logprob table the reply carries; None when not asked."""
    return request.logprob_token if params.get("logprobs") else None
