"""Run requests into the store: schedule what is pending, store each answer as it comes.

:func:`run_requests` is the loop every judge runs on. It records the plan (the keys
asked for), skips what the store already holds (a rerun resumes), keeps at most
``2 x max_concurrency`` requests scheduled (the client bounds those on the wire), writes
each judgment's rows as soon as its reply arrives (committing every 256 judgments or
0.1 s), and reports progress through a callback. A failed reply is stored as failed
rows, never dropped; ``retry_failed`` asks those again. When the cost limit is spent,
``max_failures`` judgments have failed, or the server refuses the key, no new request
starts, the ones in flight finish and are stored, and the run ends cleanly. With
``transport: batch`` the pending requests go through the Batch API instead
(:func:`assay.llm.batch.run_batch`), with the same store and resume.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from assay.llm._types import ChatRequest, CostLimitExceeded, Reply
from assay.llm.progress import Progress, RowsFn, RunSummary
from assay.llm.store import RunStore

if TYPE_CHECKING:
    from assay.llm.client import LLMClient

def count_stored(store: RunStore, keys: Iterable[str]) -> int:
    """How many of ``keys`` the store holds (good or failed)."""
    status = store.status()
    return sum(1 for key in keys if key in status)


def default_rows(request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
    """One row: the request's ``meta``, the verdict's ``score`` and ``reasoning``, the provenance.

    For a verdict model with a numeric ``score`` field (judges with other verdicts pass
    their own ``rows``). A failed reply gives the row with no score and its
    ``failure_kind``. The judge's own cost is not put in the row (``usd`` and friends
    describe the answer judged); the store keeps it apart.

    >>> req = ChatRequest(key="k", messages=(("user", "rate"),), meta={"item": "q1", "arm": "a"})
    >>> default_rows(req, Reply(key="k", verdict=None, text="oops", failure_kind="parse_error"))
    [{'item': 'q1', 'arm': 'a', 'score': None, 'failure_kind': 'parse_error', 'raw_response': 'oops'}]
    """
    row: dict[str, Any] = dict(request.meta)
    verdict = reply.verdict
    row["score"] = getattr(verdict, "score", None) if verdict is not None else None
    row["failure_kind"] = reply.failure_kind
    reasoning = getattr(verdict, "reasoning", None) if verdict is not None else None
    if reasoning is not None:
        row["reasoning"] = reasoning
    row["raw_response"] = reply.text
    if reply.evaluated_at:
        row["evaluated_at"] = reply.evaluated_at
    if request.prompt_hash:
        row.setdefault("metric_version", request.prompt_hash)
    return [row]


async def run_requests(requests: Iterable[ChatRequest], client: LLMClient, store: RunStore, *,
                       rows: RowsFn | None = None, retry_failed: bool = False,
                       progress: Callable[[Progress], None] | None = None,
                       progress_every_s: float = 0.5, record_plan: bool = True,
                       commit_every: int = 256, commit_every_s: float = 0.1,
                       max_failures: int | None = None) -> RunSummary:
    """Ask every request the store does not hold yet, storing each judgment as it completes.

    Parameters
    ----------
    requests
        The plan: one request per judgment, keys unique.
    client
        The :class:`~assay.judge.LLMClient` that answers them.
    store
        The run folder's :class:`~assay.judge.RunStore`.
    rows
        Builds the rows of a judgment (default :func:`default_rows`).
    retry_failed
        Ask again the judgments stored as failed (``--retry-failed``).
    progress
        Called with a :class:`Progress` at most every ``progress_every_s`` seconds, and at
        the end.
    record_plan
        Record the requests' keys as the store's plan (what an export shows).
    commit_every, commit_every_s
        Commit the store after this many judgments answered by the server, or this many
        seconds after the first uncommitted one, whichever comes first (1 commits each
        judgment). A crash loses the requests in flight and the judgments since the last
        commit; the good ones among those are in the response cache, so a rerun gets them
        without a call. Judgments answered from the cache count only towards the time
        bound (redoing them is free; committing each 32 of them cost a third of a cached
        rerun). A commit blocks the event loop for about a millisecond: committing every
        32 replies cost 2-3% of the throughput at 32 requests in flight and 50 ms latency,
        hence 256 (the time bound commits first at that rate).
    max_failures
        Stop starting requests once this many judgments of this run have failed (the
        ones in flight finish and are stored); None never stops for failures.

    Returns
    -------
    RunSummary
        ``stopped="cost_limit"`` when the cost limit ended the run early,
        ``"max_failures"`` when ``max_failures`` did; ``stored`` counts the planned
        judgments the store holds at the end (the batch runner's ``notes`` say why any is
        missing).

    Raises
    ------
    ValueError
        Two requests share a key.
    FatalAPIError
        The server refused the key or the model (after the requests in flight were stored).
    """
    if max_failures is not None and max_failures < 1:
        raise ValueError(f"max_failures: expected at least 1, got {max_failures}")
    plan = list(requests)
    keys = [r.key for r in plan]
    if len(set(keys)) != len(keys):
        dup = next(k for k, n in Counter(keys).items() if n > 1)
        raise ValueError(f"requests: key {dup} is used by more than one request")
    batch = _Batch(store, size=commit_every, max_age_s=commit_every_s)
    if record_plan:
        store.set_plan(keys)
    status = store.status()
    pending = [r for r in plan if r.key not in status or (retry_failed and status[r.key])]
    make_rows = rows or default_rows
    if getattr(getattr(client, "config", None), "transport", None) == "batch":
        from assay.llm.batch import run_batch

        summary = await run_batch(plan, pending, client, store, rows=make_rows,
                                  retry_failed=retry_failed, progress=progress, max_failures=max_failures)
        return dataclasses.replace(summary, stored=count_stored(store, keys))
    state = _State(total=len(pending), skipped=len(plan) - len(pending), started=time.monotonic(),
                   calls0=client.stats.calls, usd0=client.stats.spent_usd,
                   unpriced0=getattr(client.stats, "unpriced", 0),
                   tokens0=(getattr(client.stats, "tokens_in", 0), getattr(client.stats, "tokens_out", 0)))
    todo = _prefetching(pending, client)

    def report(force: bool = False) -> None:
        now = time.monotonic()
        if progress is not None and (force or now - state.reported >= progress_every_s):
            state.reported = now
            progress(state.progress(client, now))

    async def worker() -> None:
        for request in todo:
            if state.stop is not None:
                return
            try:
                reply = await client.complete(request)
                store.put(request, reply, make_rows(request, reply), commit=False)
                batch.written(counts=not reply.cached)
            except CostLimitExceeded:
                state.stop = state.stop or "cost_limit"
                return
            except Exception as exc:  # FatalAPIError, or a bug in rows: drain, then raise
                state.stop = state.stop or "error"
                state.error = state.error or exc
                return
            state.done += 1
            state.failed += not reply.ok
            state.cached += reply.cached
            if max_failures is not None and state.failed >= max_failures:
                state.stop = state.stop or "max_failures"
            report()

    async def flush() -> None:
        try:
            await batch.flush_periodically()
        except Exception as exc:  # a judgment the store cannot take, written by this commit
            state.stop = state.stop or "error"
            state.error = state.error or exc

    workers = [asyncio.create_task(worker())
               for _ in range(min(len(pending), 2 * client.config.max_concurrency))]
    flusher = asyncio.create_task(flush())
    try:
        await asyncio.gather(*workers)
    finally:
        for task in [*workers, flusher]:
            task.cancel()
        await asyncio.gather(*workers, flusher, return_exceptions=True)
        store.commit()
    if state.error is not None:  # the caller says why it stopped: no last progress line
        raise state.error
    report(force=True)
    stopped: Literal["cost_limit", "max_failures"] | None = None
    if state.stop in ("cost_limit", "max_failures"):
        stopped = "cost_limit" if state.stop == "cost_limit" else "max_failures"
    return RunSummary(planned=len(plan), skipped=state.skipped, done=state.done, failed=state.failed,
                      cached=state.cached, calls=client.stats.calls - state.calls0,
                      usd=client.stats.spent_usd - state.usd0,
                      elapsed_s=time.monotonic() - state.started,
                      stopped=stopped,
                      unpriced=getattr(client.stats, "unpriced", 0) - state.unpriced0,
                      tokens_in=getattr(client.stats, "tokens_in", 0) - state.tokens0[0],
                      tokens_out=getattr(client.stats, "tokens_out", 0) - state.tokens0[1],
                      stored=count_stored(store, keys))


def _prefetching(pending: list[ChatRequest], client: LLMClient, window: int = 512) -> Iterator[ChatRequest]:
    """The pending requests in order, each window of them looked up in the cache in bulk first."""
    prefetch = getattr(client, "prefetch", None)  # a stand-in client may not have it
    for start in range(0, len(pending), window):
        part = pending[start:start + window]
        if prefetch is not None:
            prefetch(part)
        yield from part


class _Batch:
    """Commits the store every ``size`` judgments from the server or ``max_age_s`` seconds.

    The time bound is checked on every write (a run answered from cache never yields to
    the event loop) and by :meth:`flush_periodically` (a quiet spell between replies).
    """

    def __init__(self, store: RunStore, *, size: int, max_age_s: float) -> None:
        if size < 1 or max_age_s <= 0:
            raise ValueError("commit_every: expected at least 1; commit_every_s: expected > 0")
        self.store, self.size, self.max_age_s = store, size, max_age_s
        self.uncommitted = 0
        """Judgments answered by the server since the last commit."""
        self.pending = False
        """Whether anything was written since the last commit."""
        self.first = 0.0

    def written(self, *, counts: bool = True) -> None:
        now = time.monotonic()
        if not self.pending:
            self.pending, self.first = True, now
        self.uncommitted += counts
        if self.uncommitted >= self.size or now - self.first >= self.max_age_s:
            self.commit()

    def commit(self) -> None:
        self.store.commit()
        self.uncommitted = 0
        self.pending = False

    async def flush_periodically(self) -> None:
        while True:
            await asyncio.sleep(self.max_age_s / 2)
            if self.pending and time.monotonic() - self.first >= self.max_age_s:
                self.commit()


@dataclass
class _State:
    total: int
    skipped: int
    started: float
    calls0: int
    usd0: float
    unpriced0: int = 0
    tokens0: tuple[int, int] = (0, 0)
    done: int = 0
    failed: int = 0
    cached: int = 0
    reported: float = 0.0
    stop: str | None = None
    error: BaseException | None = None

    def progress(self, client: LLMClient, now: float) -> Progress:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else None
        return Progress(done=self.done, total=self.total, skipped=self.skipped, failed=self.failed,
                        cached=self.cached, calls=client.stats.calls - self.calls0,
                        usd=client.stats.spent_usd - self.usd0, elapsed_s=elapsed,
                        calls_per_s=rate, eta_s=eta,
                        unpriced=getattr(client.stats, "unpriced", 0) - self.unpriced0)
