"""assay.llm: the engine every LLM call goes through, whoever makes it (the judges, the
systems answering, the teacher, G-Eval baselines, the notebook API): the OpenAI-compatible
client (the one transport seam), retries, prices, the response cache, the run store, its
lock, the runner, the Batch API and an endpoint's config (:class:`ClientConfig`).

It sits below ``assay.judge`` and imports nothing of it: the whole run's config
(:class:`~assay.judge.config.AssayConfig`) lives in ``assay.judge.config``.
"""

from assay._lazy import attach as _attach

__getattr__, __dir__, __all__ = _attach(__name__, {
    "._parse": ["json_candidates", "looks_like_refusal", "parse_verdict", "response_format"],
    "._retry": ["AdaptiveLimiter", "full_jitter", "retry_after_seconds"],
    "._types": ["ChatRequest", "CostLimitExceeded", "FatalAPIError", "Reply"],
    "assay._secrets": ["chat_completions_url", "redact_text", "redact_url"],
    ".cache": ["CACHE_FILENAME", "CacheGroup", "CacheSummary", "CachedResponse", "ResponseCache",
               "SingleFlight", "cache_key", "cache_path", "default_cache_path"],
    ".client": ["ClientStats", "LLMClient"],
    ".client_config": ["ClientConfig", "client_problems"],
    ".lock": ["LOCK_FILENAME", "RunFolderLocked", "RunLock"],
    ".pricing": ["Price", "estimate_tokens", "find_price"],
    ".progress": ["Progress", "RunSummary"],
    ".runner": ["default_rows", "run_requests"],
    ".store": ["RunStore", "STORE_FILENAME", "StoreCounts", "config_hash", "judgment_key", "load_store"],
})
