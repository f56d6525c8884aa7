"""Back-off and the bound on requests in flight: Retry-After, full jitter, an adaptive limit."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import email.utils
import math
import random
import time
from collections.abc import Mapping
from types import TracebackType


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds a 429 (or 503) reply asks to wait, or None when it says nothing usable.

    Reads ``retry-after-ms`` (milliseconds, as OpenAI's API sends it) first, then
    ``Retry-After`` as delay-seconds or as an HTTP date (RFC 9110, 10.2.3); a date in the
    past gives 0. ``now`` is the current POSIX time (for tests).

    >>> retry_after_seconds({"retry-after": "2"}), retry_after_seconds({"retry-after-ms": "250"})
    (2.0, 0.25)
    >>> retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412470.0)
    10.0
    >>> retry_after_seconds({"retry-after": "soon"}) is None
    True
    """
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    text = lowered.get("retry-after")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return value if math.isfinite(value) and value >= 0 else None


def full_jitter(attempt: int, *, base: float, cap: float, rng: random.Random) -> float:
    """Exponential back-off with full jitter: uniform(0, min(cap, base * 2**attempt)).

    Spreads retries of many clients so they do not return together (Brooker, "Exponential
    Backoff And Jitter", AWS Architecture Blog, 2015).

    >>> 0 <= full_jitter(3, base=0.5, cap=2.0, rng=random.Random(1)) <= 2.0
    True
    """
    return rng.uniform(0.0, min(cap, base * 2.0 ** attempt))


class AdaptiveLimiter:
    """At most ``limit`` requests in flight (never more than ``maximum``), AIMD on 429s.

    ``async with limiter:`` holds a slot while a request is on the wire. A 429 halves the
    limit (at most once per ``cooldown_s``) and, when the server said how long to wait,
    closes a gate every request waits at (:meth:`wait_gate`) until then; each success
    raises the limit by 1/limit, so it regains one slot per round of successes (additive
    increase, multiplicative decrease, as TCP congestion control does).
    """

    def __init__(self, maximum: int, *, cooldown_s: float = 1.0) -> None:
        if maximum < 1:
            raise ValueError(f"max_concurrency: expected at least 1, got {maximum}")
        self.maximum = maximum
        self.limit = float(maximum)
        self.in_flight = 0
        self.max_in_flight = 0
        self.cooldown_s = cooldown_s
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        """Requests waiting for a slot, first come first served; a slot is taken for a
        waiter before it is woken (:meth:`_wake`)."""
        self._resume_at = 0.0
        self._last_cut = -math.inf

    def _slots(self) -> int:
        return max(1, int(self.limit))

    async def wait_gate(self) -> None:
        """Wait until a server's Retry-After has passed."""
        if self._resume_at <= 0.0:  # no server ever asked to wait
            return
        loop = asyncio.get_running_loop()
        while (delay := self._resume_at - loop.time()) > 0:
            await asyncio.sleep(delay)

    async def __aenter__(self) -> None:
        if not self._waiters and self.in_flight < self._slots():  # a free slot, nobody before us
            self._take()
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():  # woken with a slot, then cancelled
                self._release()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._release()

    def _take(self) -> None:
        self.in_flight += 1
        if self.in_flight > self.max_in_flight:
            self.max_in_flight = self.in_flight

    def _release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        """Give the free slots to the waiters in the order they came (one asyncio.Condition
        round per request cost more CPU than the rest of the limiter)."""
        waiters = self._waiters
        while waiters and self.in_flight < self._slots():
            waiter = waiters.popleft()
            if not waiter.done():  # a cancelled waiter is skipped
                self._take()
                waiter.set_result(None)

    def on_rate_limit(self, wait_s: float | None) -> None:
        """A 429 arrived: cut the limit, and hold every request back ``wait_s`` seconds."""
        now = asyncio.get_running_loop().time()
        if now - self._last_cut >= self.cooldown_s:
            self.limit = max(1.0, self.limit / 2.0)
            self._last_cut = now
        if wait_s:
            self._resume_at = max(self._resume_at, now + wait_s)

    def on_success(self) -> None:
        if self.limit < self.maximum:
            self.limit = min(float(self.maximum), self.limit + 1.0 / self.limit)
            if self._waiters:
                self._wake()
