"""Pick the report objects a renderer knows out of what it was given."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def reports_by_type(reports: Sequence[Any] | Mapping[str, Any],
                    known: tuple[type, ...]) -> dict[type, Any]:
    """The first report of each known type (or subclass) in ``reports``.

    ``reports`` is a list of report objects, a dict of them, or ``(title, report)`` pairs;
    objects of other types are ignored.

    >>> class A: ...
    >>> a = A()
    >>> reports_by_type([("title", a), 3], (A,)) == {A: a}
    True
    """
    items: Iterable[Any] = reports.values() if isinstance(reports, Mapping) else reports
    found: dict[type, Any] = {}
    for report in items:
        if isinstance(report, tuple) and len(report) == 2:
            report = report[1]
        for kind in type(report).__mro__:
            if kind in known:
                found.setdefault(kind, report)
    return found
