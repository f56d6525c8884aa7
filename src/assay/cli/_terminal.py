"""Text from data made safe for a terminal before the CLI prints it."""

from __future__ import annotations

import re

from assay.cli._app import console, err_console

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_AND_NEWLINES = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with control characters (ESC, NUL, CR, C1 codes, DEL) written as escapes.

    Names, ids and server messages come from data; printed raw, an ESC sequence in them
    could recolour, move the cursor or clear the screen, and a NUL or CR hide what
    precedes it. Newlines and tabs are kept unless ``newlines`` is False.

    Examples
    --------
    >>> printable("arm\\x1b[2Jx\\x00")
    'arm\\\\x1b[2Jx\\\\x00'
    >>> printable("a\\nb\\tc"), printable("a\\nb", newlines=False)
    ('a\\nb\\tc', 'a\\\\nb')
    """
    pattern = _CONTROL if newlines else _CONTROL_AND_NEWLINES
    return pattern.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def say(text: str, *, error: bool = False) -> None:
    """Print one line as is (no markup, no highlighting) on stdout, or stderr with ``error``,
    its control characters escaped (:func:`printable`)."""
    (err_console if error else console).print(printable(text), markup=False, highlight=False,
                                              soft_wrap=True)
