"""CPU time by phase of one process, for ``bench/bench_engine.py``: off unless asked.

With ``ASSAY_PROFILE_PHASES=FILE`` in the environment, :func:`mark` charges the CPU time
of this process (``time.process_time()``: user + system, every thread) since the previous
mark to a phase, and the CPU spent inside :func:`timed` sections (the run store's writes)
is charged to their own phase instead of the one around them. At exit the totals are
written to FILE as a JSON object: ``cpu``, phase -> CPU seconds, in the order first
charged, and ``wall``, phase -> wall seconds between the marks (the wall of a timed section
stays in the phase around it; the wall of the first phase counts from this module's import). The
first mark also counts the interpreter's own start-up (process_time counts from process
start); what runs after the last mark is charged to ``exit``.

Without the variable every function returns at once (a module-level flag, no clock read).
"""

from __future__ import annotations

import atexit
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "ASSAY_PROFILE_PHASES"
ON = bool(os.environ.get(ENV))
"""Whether phases are measured in this process."""

_totals: dict[str, float] = {}
_inner = [0.0]
"""CPU seconds spent in :func:`timed` sections since the last :func:`mark`."""
_last = [0.0]
_walls: dict[str, float] = {}
_wall_last = [time.perf_counter()]


def mark(phase: str) -> None:
    """Charge the CPU since the previous mark (less the timed sections in it) to ``phase``."""
    if not ON:
        return
    now = time.process_time()
    _totals[phase] = _totals.get(phase, 0.0) + (now - _last[0]) - _inner[0]
    _last[0], _inner[0] = now, 0.0
    wall = time.perf_counter()
    _walls[phase] = _walls.get(phase, 0.0) + wall - _wall_last[0]
    _wall_last[0] = wall


@contextmanager
def timed(phase: str) -> Iterator[None]:
    """Charge the CPU spent inside the block to ``phase`` (not to the phase around it)."""
    if not ON:
        yield
        return
    start = time.process_time()
    try:
        yield
    finally:
        spent = time.process_time() - start
        _inner[0] += spent
        _totals[phase] = _totals.get(phase, 0.0) + spent


def add(phase: str, start: float) -> None:
    """Charge the CPU since ``start`` (a ``time.process_time()`` read) to ``phase``, as :func:`timed`."""
    spent = time.process_time() - start
    _inner[0] += spent
    _totals[phase] = _totals.get(phase, 0.0) + spent


def _write() -> None:
    mark("exit")
    with open(os.environ[ENV], "w", encoding="utf-8") as f:
        json.dump({"cpu": _totals, "wall": _walls}, f)


if ON:
    atexit.register(_write)
