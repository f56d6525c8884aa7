"""Numbers and columns as the text renderers print them: the only rounding of a report.

A missing number (None, NaN, an infinity) prints as a marker, ``-`` in the tables and
``n/a`` in the one-line summaries, never as ``nan``.
"""

from __future__ import annotations

import math
from typing import Any


def fixed(value: Any, digits: int = 3, missing: str = "-") -> str:
    """``value`` with ``digits`` decimals, or ``missing`` when it is not a finite number.

    >>> fixed(0.12345), fixed(None), fixed(float("nan"), missing="n/a")
    ('0.123', '-', 'n/a')
    """
    if value is None or isinstance(value, bool):
        return missing
    try:
        number = float(value)
    except (TypeError, ValueError):
        return missing
    return f"{number:.{digits}f}" if math.isfinite(number) else missing


def short(value: Any, digits: int = 3) -> str:
    """:func:`fixed` with ``n/a`` for a missing number (the one-line summaries)."""
    return fixed(value, digits, "n/a")


def p_value(value: Any, digits: int) -> str:
    """A p-value with ``digits`` decimals, ``<0.001`` below the last decimal, ``-`` when missing.

    >>> p_value(0.0001, 3), p_value(0.25, 3), p_value(float("nan"), 3)
    ('<0.001', '0.250', '-')
    """
    text = fixed(value, digits)
    if text == "-":
        return text
    floor = 10.0 ** -digits
    return f"<{floor:.{digits}f}" if float(value) < floor else text


def p_text(value: Any, missing: str = "-") -> str:
    """A p-value as readers quote it: ``< 0.001``, else three significant digits.

    The digits say no more than a p-value can carry: ``0.0000000003979`` is ``< 0.001``.

    >>> p_text(3.979e-10), p_text(0.0012345), p_text(0.04321), p_text(0.5), p_text(None)
    ('< 0.001', '0.00123', '0.0432', '0.500', '-')
    """
    text = fixed(value, 3, missing)
    if text == missing:
        return missing
    number = float(value)
    if number < 0.001:
        return "< 0.001"
    return f"{number:#.3g}"  # '#' keeps the trailing zeros: 0.500


def percent(conf: float) -> str:
    """A confidence level as a percentage: ``95%``."""
    return f"{100.0 * conf:g}%"


def columns(header: list[str], rows: list[list[str]], *, indent: str = "") -> list[str]:
    """Left-aligned columns two spaces apart, each line right-stripped.

    >>> columns(["a", "bb"], [["xyz", "1"]])
    ['a    bb', 'xyz  1']
    """
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return (indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True))).rstrip()

    return [line(header), *(line(r) for r in rows)]


def block(title: str, lines: list[str], notes: list[str]) -> str:
    """A one-line summary's layout: its title, its lines, then ``Note: ...`` per note.

    >>> print(block("Scores", ["  a: 0.5"], ["one judge"]))
    Scores
      a: 0.5
    Note: one judge
    """
    return "\n".join([title, *lines, *(f"Note: {n}" for n in notes)])
