"""Text from data made safe for a terminal before the CLI prints it."""

from __future__ import annotations

import re

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
