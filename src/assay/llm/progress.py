"""What a run of requests reports: :class:`Progress` as it goes, :class:`RunSummary` at its
end, and the ``stored S of P`` line; shared by the runner and the Batch API's runner."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.llm._types import ChatRequest, Reply

RowsFn = Callable[[ChatRequest, Reply], Sequence[Mapping[str, Any]]]
"""Builds a judgment's judgments-table rows from its request and reply (a judge's ``rows``)."""


@dataclass(frozen=True)
class Progress:
    """Where a run is; passed to the ``progress`` callback."""

    done: int
    """Judgments answered and stored in this run (good or failed)."""
    total: int
    """Judgments this run has to do (those pending when it started)."""
    skipped: int
    """Judgments already stored when the run started."""
    failed: int
    """Of ``done``, those stored as failed."""
    cached: int
    """Of ``done``, those answered from the cache or by an identical request in flight."""
    calls: int
    """HTTP requests sent (retries included)."""
    usd: float
    """USD spent by this run's calls (cache hits cost nothing)."""
    elapsed_s: float
    calls_per_s: float
    """Judgments done per second so far."""
    eta_s: float | None
    """Seconds left at the current rate (None before the first judgment)."""
    unpriced: int = 0
    """Replies whose cost is unknown (their model has no price): ``usd`` leaves them out."""
    phase: str | None = None
    """What a batch run is waiting for, in words (``transport: batch``); None otherwise."""


@dataclass(frozen=True)
class RunSummary:
    """How a run ended."""

    planned: int
    """Judgments the requests asked for."""
    skipped: int
    """Already stored (good, or failed without ``retry_failed``) when the run started."""
    done: int
    failed: int
    cached: int
    calls: int
    usd: float
    elapsed_s: float
    stopped: Literal["cost_limit", "max_failures"] | None
    """Why the run stopped before doing everything (None when it did everything)."""
    unpriced: int = 0
    """Replies from a model without a price: ``usd`` leaves their cost out (it is unknown)."""
    failed_stored: int | None = None
    """Of the planned judgments, those stored as failed when the run ended, this run's and
    earlier runs' (None when not counted)."""
    notes: tuple[str, ...] = ()
    """What the caller should be told (a stale run-folder lock taken over, ...)."""
    tokens_in: int = 0
    """Prompt tokens of this run's calls (as the server reported them, else estimated;
    re-asks included, cache hits not)."""
    tokens_out: int = 0
    """Completion tokens of this run's calls."""
    stored: int | None = None
    """Of the planned judgments, those in the store when the run ended, good or failed (None
    when not counted): fewer than ``planned`` means the run did not store everything."""
    paid_twice: int = 0
    """Requests sent again because the reply paid for was lost (a batch result line that
    could not be read, or none at all): each was paid twice."""

    @classmethod
    def total(cls, parts: Sequence[RunSummary], *, planned: int,
              stopped: Literal["cost_limit", "max_failures"] | None, failed_stored: int | None,
              stored: int | None, notes: tuple[str, ...], skipped: int = 0, done: int = 0) -> RunSummary:
        """One run made of several ``parts`` (stages, batches): their counts, cost, time and
        tokens summed (plus ``skipped`` and ``done`` judged outside them), and what is said of
        the whole given: what was planned, why it stopped, what the store holds, the notes.

        >>> part = RunSummary(2, 0, 2, 0, 1, 1, 0.5, 1.0, None, tokens_in=10)
        >>> whole = RunSummary.total([part, part], planned=4, stopped=None, failed_stored=0,
        ...                          stored=4, notes=())
        >>> whole.done, whole.calls, whole.usd, whole.tokens_in
        (4, 2, 1.0, 20)
        """
        return cls(
            planned=planned, skipped=sum(x.skipped for x in parts) + skipped,
            done=sum(x.done for x in parts) + done, failed=sum(x.failed for x in parts),
            cached=sum(x.cached for x in parts), calls=sum(x.calls for x in parts),
            usd=sum(x.usd for x in parts), elapsed_s=sum(x.elapsed_s for x in parts),
            stopped=stopped, unpriced=sum(x.unpriced for x in parts), failed_stored=failed_stored,
            notes=notes, tokens_in=sum(x.tokens_in for x in parts),
            tokens_out=sum(x.tokens_out for x in parts), stored=stored,
            paid_twice=sum(x.paid_twice for x in parts))

    def token_line(self) -> str:
        """The token totals, one line (printed after a run, as BenchmarkQED's notebook prints
        its model usage).

        >>> RunSummary(4, 0, 4, 0, 1, 3, 0.0, 1.0, None, tokens_in=1200, tokens_out=300).token_line()
        'tokens: 1,200 in, 300 out, 1,500 in all (3 calls; cache hits use none)'
        """
        return (f"tokens: {self.tokens_in:,} in, {self.tokens_out:,} out, "
                f"{self.tokens_in + self.tokens_out:,} in all ({self.calls} calls; cache hits use none)")

    @property
    def complete(self) -> bool:
        """Whether every planned judgment is stored (and the run was not stopped)."""
        if self.stored is not None:
            return self.stopped is None and self.stored == self.planned
        return self.stopped is None and self.skipped + self.done == self.planned

    def stored_line(self, noun: str = "judgments") -> str:
        """What the store holds of the plan, one line (printed at the end of every run).

        >>> RunSummary(40, 0, 38, 2, 0, 40, 0.0, 1.0, None, stored=38).stored_line()
        'stored 38 of 40 planned judgments'
        """
        return stored_line(self.planned if self.stored is None else self.stored, self.planned, noun)


def stored_line(stored: int, planned: int, noun: str = "judgments") -> str:
    """``stored S of P planned NOUN``: the count every command that buys calls ends with.

    >>> stored_line(38, 40, "answers")
    'stored 38 of 40 planned answers'
    """
    return f"stored {stored} of {planned} planned {noun}"
