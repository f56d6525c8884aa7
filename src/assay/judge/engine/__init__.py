"""The engine the judges run on: OpenAI-compatible client (the one transport seam),
retries, response cache, run store, runner, prices and the run's config.
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
    ".config": ["AssayConfig", "InputsConfig", "load_config", "parse_config"],
    ".lock": ["LOCK_FILENAME", "RunFolderLocked", "RunLock"],
    ".pricing": ["Price", "estimate_tokens", "find_price"],
    ".runner": ["Progress", "RunSummary", "default_rows", "run_requests"],
    ".store": ["RunStore", "STORE_FILENAME", "StoreCounts", "config_hash", "judgment_key", "load_store"],
})
