"""A progress display for commands that can take more than a couple of seconds: a rich
spinner on stderr naming the step, shown only on a terminal and never when ``CI`` is set
(piped and CI output stays exactly the command's results and errors)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from assay.cli._app import err_console


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
