"""The judge model of the notebook functions: the ``llm`` section of a config, as an object."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LLM:
    """Where the judge model is and how to call it (BenchmarkQED's ``LLMConfig``).

    Every field is the ``llm`` key of the same name in an ``assay judge`` config
    (docs/config.md), except ``cache``. The API key is never held here: ``api_key_env``
    names the environment variable (or a ``.env`` line in the working folder) holding it.

    Parameters
    ----------
    base_url, model
        The OpenAI-compatible endpoint and the judge model (an Azure deployment's URL,
        with ``api_version``).
    api_key_env
        The variable holding the key; None for a local server that needs none.
    max_concurrency
        Requests in flight at most (BenchmarkQED's ``concurrent_requests``).
    cache
        The response cache: ``"shared"`` (the default: one per user, so a cell run again
        pays nothing), ``"run"`` (in the run folder), ``"off"``, or a file path.
    params
        Chat-completions parameters of every call (BenchmarkQED's ``call_args``).
    prices
        Model name -> ``{"input": usd_per_million, "output": usd_per_million}``.
    options
        Any other ``llm`` key (``timeout_s``, ``max_retries``, ``cost_limit_usd``,
        ``api_version``, ``azure_ad_token_env``, ``azure_ad_token_command``, ...).

    Examples
    --------
    >>> LLM("http://127.0.0.1:8000/v1", "gpt-4.1", api_key_env=None).section()["model"]
    'gpt-4.1'
    """

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    max_concurrency: int = 32
    cache: str | Path = "shared"
    params: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0, "seed": 42})
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)

    def section(self) -> dict[str, Any]:
        """The config's ``llm`` section."""
        return {"model": self.model, "base_url": self.base_url, "api_key_env": self.api_key_env,
                "max_concurrency": self.max_concurrency, "params": dict(self.params),
                "prices": {k: dict(v) for k, v in self.prices.items()}, **self.options}

    def cache_setting(self) -> str:
        """The config's ``cache`` value (a path made absolute)."""
        if isinstance(self.cache, Path) or self.cache not in ("run", "shared", "off"):
            return str(Path(self.cache).expanduser().resolve())
        return str(self.cache)
