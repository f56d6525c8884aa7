"""assay.judge: the judges, their plans and the run's config (:mod:`assay.judge.config`).

The engine they run on (client, response cache, run store, runner) is :mod:`assay.llm`; its
names are offered here too, as a judge's author meets them.

How a judge uses it
-------------------
A judge turns its inputs into :class:`ChatRequest` objects and turns each
:class:`Reply` into judgments-table rows; the engine does everything in between::

    plan = [judge.request(item, arm, opponent, trial) for ...]        # ChatRequest each
    async with LLMClient(config.llm, cache=ResponseCache(path)) as client:
        with RunStore(run_folder, config=config_dict) as store:
            summary = await run_requests(plan, client, store, rows=judge.rows)

:class:`ChatRequest` (frozen)
    ``key``: the judgment key, :func:`judgment_key` of (config hash, item, arms,
    criterion, trial; judge, prompt hash), the identity in the store. ``messages``:
    ``(role, text)`` pairs. ``response_model``: the verdict's pydantic model (its JSON
    schema is sent as ``response_format`` when the server takes it, else the JSON is read
    from text), None for free text. ``model`` and ``params`` override the client's.
    ``prompt_hash`` and ``sample`` enter the cache key: trials that send identical
    messages must differ in ``sample``. ``meta``: the judgments-table fields known before
    the call (item, cluster, arm, opponent, position, run, judge, criterion, task, ...).
    ``params`` may ask ``logprobs: true, top_logprobs: K``; ``logprob_token`` names the
    reply token whose table comes back (0, the first, by default).

:class:`Reply` (frozen)
    ``verdict`` (a validated ``response_model`` instance) or ``failure_kind`` in
    ``parse_error`` (invalid or off-schema after the re-asks), ``refusal``, ``timeout``,
    ``api_error`` with an ``error`` line; ``text`` (raw content); the judge's own
    ``tokens_in``, ``tokens_out``, ``usd``, ``usd_provenance`` (``reported`` or
    ``estimated``), ``latency_s``, ``attempts``, ``cached``, ``model``, ``evaluated_at``;
    ``top_logprobs``, the ``(token, logprob)`` table asked for (None when not asked or
    when the endpoint returned none; the cache and the store keep it).
    A failure is a value, never an exception: it is stored as rows with ``failure_kind``
    (counted, never scored) and ``--retry-failed`` asks again.

``rows(request, reply) -> list[dict]``
    The judge's function building a judgment's rows (:func:`default_rows` reads a
    ``score`` field). Put the answer's cost in ``usd``/``tokens_*``/``latency_s`` when
    known; the judge's cost is kept apart by the store (:meth:`RunStore.judge_costs`).

Exceptions: :class:`CostLimitExceeded` (the runner catches it and ends the run cleanly
with ``RunSummary.stopped == "cost_limit"``) and :class:`FatalAPIError` (bad key or
model: raised by the runner after the requests in flight are stored).

``client`` is the only module that imports ``aiohttp`` (and ``openai``, for ``transport:
openai`` alone), and only when a request misses the cache: reading a store, building a
plan or a run answered from cache loads neither.
"""

from __future__ import annotations

from assay.llm import (
    STORE_FILENAME,
    CachedResponse,
    ChatRequest,
    ClientConfig,
    ClientStats,
    CostLimitExceeded,
    FatalAPIError,
    LLMClient,
    Price,
    Progress,
    Reply,
    ResponseCache,
    RunStore,
    RunSummary,
    SingleFlight,
    StoreCounts,
    cache_key,
    config_hash,
    default_cache_path,
    default_rows,
    estimate_tokens,
    find_price,
    judgment_key,
    load_store,
    run_requests,
)

__all__ = [
    "STORE_FILENAME",
    "CachedResponse",
    "ChatRequest",
    "ClientConfig",
    "ClientStats",
    "CostLimitExceeded",
    "FatalAPIError",
    "LLMClient",
    "Price",
    "Progress",
    "Reply",
    "ResponseCache",
    "RunStore",
    "RunSummary",
    "SingleFlight",
    "StoreCounts",
    "cache_key",
    "config_hash",
    "default_cache_path",
    "default_rows",
    "estimate_tokens",
    "find_price",
    "judgment_key",
    "load_store",
    "run_requests",
]

