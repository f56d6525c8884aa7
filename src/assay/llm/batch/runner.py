"""Judge through the Batch API: submit what the store and cache cannot answer, poll, record.

:func:`run_batch` is what :func:`~assay.judge.run_requests` runs with ``transport: batch``:

1. batches an earlier run submitted and did not record (it was killed, or stopped while
   they ran) are polled and recorded first: their ids are in the run store's ``batches``
   table, written before the batch could cost anything, so a rerun never pays twice;
2. the pending judgments the response cache answers are stored from it;
3. the others are written as JSONL (``custom_id`` = the judgment key), uploaded
   (``POST /v1/files``, purpose ``batch``), and made into batches of at most
   ``batch_max_requests`` (``POST /v1/batches``, ``/v1/chat/completions``, a 24 h window);
4. each batch is polled (``GET /v1/batches/{id}``) after ``batch_poll_s``, each wait 1.5
   times the last up to ``batch_poll_max_s``, with a progress line each time;
5. a finished batch's output and error files are downloaded and every result is stored in
   one transaction with the removal of the batch from ``batches``: a crash keeps both or
   neither, so each judgment is stored exactly once. A failed line is a failed judgment
   with its error; requests an expired or cancelled batch never ran are submitted again
   in a new batch (until a batch answers none of them);
6. a result line that cannot be read (not JSON, no ``custom_id``, neither a response nor
   an error) or a request with no result line at all is lost: the lines are counted and
   named (file and line), and their requests are sent again once, in the next batch
   (:attr:`~assay.llm.runner.RunSummary.paid_twice` counts them: the batch may
   have been paid for each); one lost a second time is left unstored, with a note.

Every note of the run (what was lost, sent again, or not answered) is in the summary's
``notes``, which the commands print.

Costs are the listed prices times ``1 - batch_discount``. With ``cost_limit_usd`` the
requests submitted are the first ones whose *estimated* cost (4 characters a token in,
:data:`REPLY_TOKENS_ESTIMATE` tokens out) fits in what is left, and the run stops
(``stopped="cost_limit"``) once their batch is recorded: a batch's replies are only
counted when it ends, so spending may pass the limit by the estimate's error.
"""

from __future__ import annotations

import asyncio
import calendar
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.llm._types import ChatRequest, FatalAPIError
from assay.llm.batch._adapter import batch_body, batch_reply
from assay.llm.batch._api import BatchAPI, BatchStatus
from assay.llm.batch._lines import batch_input, read_results
from assay.llm.client_config import price_factor
from assay.llm.pricing import estimate_tokens, find_price

if TYPE_CHECKING:
    from assay.llm.client import LLMClient
    from assay.llm.progress import Progress, RowsFn, RunSummary
    from assay.llm.store import RunStore

REPLY_TOKENS_ESTIMATE = 250
"""Tokens a reply is assumed to take when a cost limit decides how much to submit."""


@dataclass
class _Run:
    """What this run did so far."""

    total: int
    skipped: int
    started: float = field(default_factory=time.monotonic)
    done: int = 0
    failed: int = 0
    cached: int = 0
    sent: int = 0
    """Requests submitted in batches by this run."""
    stored: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    lost: set[str] = field(default_factory=set)
    """Keys whose result line the batches recorded since the last check could not give."""
    resent: set[str] = field(default_factory=set)
    """Keys sent again because their result was lost (never a second time)."""
    paid_twice: int = 0
    """Requests submitted again after their result line was lost."""


async def run_batch(plan: Sequence[ChatRequest], pending: Sequence[ChatRequest], client: LLMClient,
                    store: RunStore, *, rows: RowsFn, retry_failed: bool,
                    progress: Callable[[Progress], None] | None, max_failures: int | None
                    ) -> RunSummary:
    """Answer ``pending`` (of ``plan``) through the Batch API; see the module docstring.

    Raises
    ------
    FatalAPIError
        The server refused the key, the model, a batch's input, or could not be reached
        after the retries (submitted batches stay recorded: a rerun goes on polling them).
    """
    from assay.llm.progress import Progress, RunSummary

    cfg = client.config
    stats0 = (client.stats.spent_usd, client.stats.unpriced)
    run = _Run(total=len(pending), skipped=len(plan) - len(pending))
    by_key = {r.key: r for r in plan}
    wanted = {r.key for r in pending}
    stopped: Any = None

    def report(phase: str | None = None) -> None:
        if progress is None:
            return
        elapsed = time.monotonic() - run.started
        progress(Progress(done=run.done, total=run.total, skipped=run.skipped, failed=run.failed,
                          cached=run.cached, calls=run.sent, usd=client.stats.spent_usd - stats0[0],
                          elapsed_s=elapsed, calls_per_s=run.done / elapsed if elapsed > 0 else 0.0,
                          eta_s=None, unpriced=client.stats.unpriced - stats0[1], phase=phase))

    api = BatchAPI(cfg)
    try:
        earlier = store.open_batches()
        if earlier:
            report(f"resuming {len(earlier)} batch(es) submitted by an earlier run")
            await _finish(api, earlier, client, store, by_key, wanted, rows, run, report)
        todo = _from_cache(pending, client, store, rows, run)
        report()
        while todo:
            if max_failures is not None and run.failed >= max_failures:
                stopped = "max_failures"
                break
            chosen = _within_budget(todo, client)
            if not chosen:
                stopped = "cost_limit"
                break
            limited = len(chosen) < len(todo)
            jobs = await _submit(api, chosen, client, store, run)
            report(f"submitted {len(chosen)} requests in {len(jobs)} batch(es): "
                   f"{', '.join(str(j['batch_id']) for j in jobs)}")
            before = len(run.stored)
            await _finish(api, jobs, client, store, by_key, wanted, rows, run, report)
            todo = [r for r in todo if r.key not in run.stored]
            todo, again = _lost_once(todo, run)
            if todo and len(run.stored) == before and not again:
                run.notes.append(f"{len(todo)} judgments were not answered: their batch expired or "
                                 "was cancelled before running them; rerun to submit them again")
                break
            if limited and todo:  # what the limit left room for is done: a rerun goes on
                stopped = "cost_limit"
                break
    finally:
        store.commit()
        await api.close()
    report()
    if run.paid_twice:
        run.notes.append(f"{run.paid_twice} calls paid twice: their first result line was unreadable "
                         "or missing, so they were sent again (once); the cost shown leaves out the "
                         "lost replies, which cannot be priced")
    return RunSummary(planned=len(plan), skipped=run.skipped, done=run.done, failed=run.failed,
                      cached=run.cached, calls=run.sent, usd=client.stats.spent_usd - stats0[0],
                      elapsed_s=time.monotonic() - run.started, stopped=stopped,
                      unpriced=client.stats.unpriced - stats0[1], notes=tuple(run.notes),
                      paid_twice=run.paid_twice)


def _lost_once(todo: list[ChatRequest], run: _Run) -> tuple[list[ChatRequest], list[ChatRequest]]:
    """``todo`` without the requests whose result was lost a second time, and the requests
    lost for the first time (sent again, once, with the next batch)."""
    lost = [r for r in todo if r.key in run.lost]
    run.lost.clear()
    twice = {r.key for r in lost if r.key in run.resent}
    again = [r for r in lost if r.key not in twice]
    run.resent.update(r.key for r in again)
    if twice:
        run.notes.append(f"{len(twice)} judgments lost their result line a second time: not sent a "
                         "third time, not stored (a rerun sends them again)")
    return [r for r in todo if r.key not in twice], again


def _from_cache(pending: Sequence[ChatRequest], client: LLMClient, store: RunStore, rows: RowsFn,
                run: _Run) -> list[ChatRequest]:
    """Store the pending judgments the response cache answers; return the others."""
    todo = []
    for start in range(0, len(pending), 512):
        part = [r for r in pending[start:start + 512] if r.key not in run.stored]
        client.prefetch(part)
        for request in part:
            _, reply = client.cached(request)
            if reply is None:
                todo.append(request)
                continue
            store.put(request, reply, rows(request, reply), commit=False)
            run.stored.add(request.key)
            run.done += 1
            run.cached += 1
        store.commit()
    return todo


def _within_budget(todo: list[ChatRequest], client: LLMClient) -> list[ChatRequest]:
    """The first requests of ``todo`` whose estimated cost fits in what the cost limit leaves."""
    cfg = client.config
    if cfg.cost_limit_usd is None:
        return todo
    left = cfg.cost_limit_usd - client.stats.spent_usd
    factor = price_factor(cfg)
    chosen = []
    for request in todo:
        price = find_price(cfg.prices, request.model, cfg.model)
        tokens_in = estimate_tokens("".join(text for _, text in request.messages))
        usd = 0.0 if price is None else price.cost(tokens_in, REPLY_TOKENS_ESTIMATE) * factor
        if usd > left:
            break
        left -= usd
        chosen.append(request)
    return chosen


async def _submit(api: BatchAPI, chosen: list[ChatRequest], client: LLMClient, store: RunStore,
                  run: _Run) -> list[dict[str, Any]]:
    """Upload and create the batches of ``chosen``, recording each before it can cost anything."""
    size = client.config.batch_max_requests
    jobs = []
    for start in range(0, len(chosen), size):
        part = chosen[start:start + size]
        data = batch_input((r.key, batch_body(client, r)) for r in part)
        file_id = await api.upload(data, f"assay-{part[0].key}.jsonl")
        store.begin_batch(file_id, len(part), api.endpoint)
        made = await api.create(file_id, {"assay_requests": str(len(part))})
        store.set_batch_id(file_id, made.id)
        run.sent += len(part)
        run.paid_twice += sum(r.key in run.resent for r in part)
        jobs.append({"input_file_id": file_id, "batch_id": made.id, "requests": len(part),
                     "created_at": _now_text(), "keys": [r.key for r in part]})
    return jobs


async def _finish(api: BatchAPI, jobs: list[dict[str, Any]], client: LLMClient, store: RunStore,
                  by_key: dict[str, ChatRequest], wanted: set[str], rows: RowsFn, run: _Run,
                  report: Callable[[str | None], None]) -> None:
    """Poll ``jobs`` until each has finished, recording each one's results as it does."""
    cfg = client.config
    waiting: dict[str, dict[str, Any]] = {}
    for job in jobs:
        if job["batch_id"] is None:  # stopped between uploading and creating: was it created?
            found = await api.find(job["input_file_id"])
            if found is None:  # never created: nothing was paid, the requests are still pending
                store.end_batch(job["input_file_id"])
                store.commit()
                continue
            store.set_batch_id(job["input_file_id"], found.id)
            job = {**job, "batch_id": found.id}
        waiting[job["batch_id"]] = job
    delay = cfg.batch_poll_s
    while waiting:
        statuses = [await api.retrieve(batch_id) for batch_id in list(waiting)]
        for status in statuses:
            if status.finished:
                await _record(api, status, waiting.pop(status.id), client, store, by_key, wanted,
                              rows, run)
        if not waiting:
            break
        words = "; ".join(f"batch {s.id} {s.status}, {s.completed + s.failed}/{s.total or '?'} answered"
                          f"{f' ({s.failed} failed)' if s.failed else ''}" for s in statuses
                          if s.id in waiting)
        report(f"{words}; next check in {delay:.0f} s")
        await asyncio.sleep(delay)
        delay = min(delay * 1.5, cfg.batch_poll_max_s)


async def _record(api: BatchAPI, status: BatchStatus, job: dict[str, Any], client: LLMClient,
                  store: RunStore, by_key: dict[str, ChatRequest], wanted: set[str], rows: RowsFn,
                  run: _Run) -> None:
    """Store a finished batch's results and forget the batch, in one transaction."""
    results = []
    for kind, file_id in (("output", status.output_file_id), ("error", status.error_file_id)):
        if file_id:
            source = f"batch {status.id} {kind} file {file_id}"
            found, problems = read_results(await api.content(file_id), source=source)
            results += found
            if problems:
                run.notes.append(_named(f"{source}: {len(problems)} result lines could not be read",
                                        [p.removeprefix(f"{source} ") for p in problems]))
    _missing(status, job, results, wanted, run)
    latency = max(0.0, time.time() - _seconds(job.get("created_at")))
    current = store.status()
    unknown = 0
    for result in results:
        request = by_key.get(result.key)
        if request is None or result.key not in wanted:
            unknown += request is None
            continue
        if result.unanswered or (result.key in current and not current[result.key]):
            continue  # asked again in the next batch / already stored good
        reply = batch_reply(client, request, client.cache_key_of(request), result.status, result.body,
                            latency_s=latency)
        store.put(request, reply, rows(request, reply), commit=False)
        if result.key not in run.stored:
            run.stored.add(result.key)
            run.done += 1
            run.failed += not reply.ok
    if unknown:
        run.notes.append(f"batch {status.id}: {unknown} results for judgments this config does not "
                         "plan were left out")
    store.end_batch(job["input_file_id"])
    store.commit()
    if status.status == "failed":
        reasons = "; ".join(status.errors[:3]) or "no reason given"
        raise FatalAPIError(f"{api.endpoint}: batch {status.id} failed as a whole ({reasons})")


NAMED = 10
"""Lines a note names at most (the others are counted)."""


def _named(what: str, lines: Sequence[str]) -> str:
    """``what``, then the first :data:`NAMED` of ``lines`` and how many more there are."""
    more = f"; and {len(lines) - NAMED} more" if len(lines) > NAMED else ""
    return f"{what} ({'; '.join(lines[:NAMED])}{more})"


def _missing(status: BatchStatus, job: dict[str, Any], results: Sequence[Any], wanted: set[str],
             run: _Run) -> None:
    """Mark the requests of ``job`` that got no readable result line as lost (sent again once),
    naming their lines of the input file; a batch an earlier run submitted is counted only."""
    answered = {r.key for r in results}
    keys = job.get("keys")
    if keys is None:  # submitted by an earlier run: which keys it held is not recorded
        lost = int(job.get("requests") or 0) - len(answered)
        if lost > 0:
            run.notes.append(f"batch {status.id}: {lost} of its {job.get('requests')} requests have no "
                             "readable result line; they are sent again with the pending ones")
            run.paid_twice += lost
        return
    gone = [(number, key) for number, key in enumerate(keys, 1) if key not in answered]
    run.lost.update(key for _, key in gone if key in wanted and key not in run.stored)
    if gone:
        run.notes.append(_named(f"batch {status.id}: {len(gone)} of its {len(keys)} requests have no "
                                f"readable result line: input file {job['input_file_id']}",
                                [f"line {number}" for number, _ in gone]))


def _now_text() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000000Z"


def _seconds(stamp: str | None) -> float:
    """Epoch seconds of a ``utc_now()`` stamp (now when there is none)."""
    if not stamp:
        return time.time()
    return float(calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")))
