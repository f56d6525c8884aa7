"""One line of ``assay judge`` or ``assay cache`` output, printed as is.

The consoles of :mod:`assay.cli._app` write control characters from data (an ESC sequence
in a judge's name or a server's message, a NUL) as escapes; :func:`say` prints through
them without markup or highlighting, so text from data is shown as it is.

:func:`status` is the progress display of commands that can take more than a couple of
seconds: a rich spinner on stderr naming the step, shown only on a terminal and never when
``CI`` is set (piped and CI output stays exactly the command's results and errors).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
