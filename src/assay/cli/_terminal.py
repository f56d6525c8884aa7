"""One line of ``assay judge`` or ``assay cache`` output, printed as is.

The consoles of :mod:`assay.cli._app` write control characters from data (an ESC sequence
in a judge's name or a server's message, a NUL) as escapes; :func:`say` prints through
them without markup or highlighting, so text from data is shown as it is.
"""

from __future__ import annotations

from assay.cli._app import console, err_console


def say(text: str, *, error: bool = False) -> None:
    """Print one line on stdout, or on stderr with ``error``: no markup, no highlighting."""
    (err_console if error else console).print(text, markup=False, highlight=False, soft_wrap=True)
