"""One line of ``assay judge`` or ``assay cache`` output, printed as is.

The consoles of :mod:`assay.cli._app` write control characters from data (an ESC sequence
in a judge's name or a server's message, a NUL) as escapes; :func:`say` prints through
them without markup or highlighting, so text from data is shown as it is.

:func:`status` is the progress display of commands that can take more than a couple of
seconds: a rich spinner on stderr naming the step, shown only on a terminal and never when
``CI`` is set (piped and CI output stays exactly the command's results and errors).
:func:`counted` is the display of work done in counted phases: a rich bar per phase (count,
rate, time left) on a terminal, else a few plain lines on stderr, as ``assay judge
--display plain`` prints (a line every few seconds, and one when each phase ends).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from assay.cli._app import console, err_console


def say(text: str, *, error: bool = False) -> None:
    """Print one line on stdout, or on stderr with ``error``: no markup, no highlighting."""
    (err_console if error else console).print(text, markup=False, highlight=False, soft_wrap=True)


def live() -> bool:
    """Whether a live display may be drawn: stderr is a terminal and ``CI`` is not set."""
    return err_console.is_terminal and not os.environ.get("CI")


@contextmanager
def status(first: str) -> Iterator[Callable[[str], None]]:
    """A spinner on stderr showing ``first``, then each text given to the yielded function;
    a no-op function when :func:`live` is false. The spinner is erased when the block ends."""
    if not live():
        yield lambda text: None
        return
    with err_console.status(first) as shown:
        yield lambda text: shown.update(text)


PLAIN_AFTER_S = 2.0
"""Plain progress lines start once the work has taken this long (:func:`counted`): work done
sooner prints none, and the lines of the phases already done are printed then."""
PLAIN_EVERY_S = 5.0
"""Seconds between two plain progress lines of one phase (:func:`counted`)."""

Counted = Callable[[str, int, "int | None", str], None]
"""Told ``(phase, done, total, unit)``: how far a phase is (total None: not known)."""


@contextmanager
def counted(prefix: str) -> Iterator[Counted]:
    """A progress display of counted phases, on stderr: each phase a rich bar (done of
    total, rate, time left) on a terminal (:func:`live`), else plain lines starting with
    ``prefix``, once the work has taken :data:`PLAIN_AFTER_S` seconds: one when each phase
    ends (done equals total) with its count, time and rate, and one every
    :data:`PLAIN_EVERY_S` seconds of a phase with its count, rate and ETA."""
    started: dict[str, float] = {}
    if live():
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        with Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                 TextColumn("{task.fields[unit]}  {task.fields[rate]}"), TimeRemainingColumn(),
                 console=err_console, transient=False) as bar:
            tasks: dict[str, Any] = {}

            def draw(phase: str, done: int, total: int | None, unit: str) -> None:
                if phase not in tasks:
                    started[phase] = time.monotonic()
                    tasks[phase] = bar.add_task(phase, total=total, unit=unit, rate="")
                bar.update(tasks[phase], completed=done, total=total,
                           rate=_rate(done, time.monotonic() - started[phase], unit))

            yield draw
        return
    shown: dict[str, float] = {}
    pending: list[str] = []
    first = [0.0]

    def emit(text: str, now: float) -> None:
        pending.append(prefix + text)
        if now - first[0] >= PLAIN_AFTER_S:
            for waiting in pending:
                say(waiting, error=True)
            pending.clear()

    def line(phase: str, done: int, total: int | None, unit: str) -> None:
        now = time.monotonic()
        first[0] = first[0] or now
        start = started.setdefault(phase, now)
        elapsed = now - start
        if total is not None and done >= total:
            rate = _rate(done, elapsed, unit)
            emit(f"{phase}: {done:,} {unit} in {elapsed:.1f} s" + (f" ({rate})" if rate else ""),
                 now)
        elif now - shown.setdefault(phase, start) >= PLAIN_EVERY_S:
            shown[phase] = now
            of = "" if total is None else f" of {total:,}"
            eta = "" if total is None or not done else f", ETA {(total - done) * elapsed / done:.0f} s"
            emit(f"{phase}: {done:,}{of} {unit}, {_rate(done, elapsed, unit)}{eta}", now)

    yield line


def _rate(done: int, seconds: float, unit: str) -> str:
    return f"{done / seconds:,.0f} {unit}/s" if done and seconds > 0 else ""
