"""One view of the judgments: the filters, the page, and the URL that names them.

The viewer's URL scheme (the page ``/`` and the JSON ``/api/rows`` take the same query
string, so a report page or a message can link to the judgments behind a number)::

    http://127.0.0.1:PORT/?judge=gpt-4o&item=q17&item=q18&criterion=relevance

=============== =====================================================================
parameter       meaning
=============== =====================================================================
``arm``         the system judged (repeat the parameter for several: any of them)
``opponent``    pairwise only: the arm it was compared with
``judge``       the judge (model, metric or ``human:<id>``)
``criterion``   the criterion
``task``        the task
``item``        the item (question)
``run``         the run (trial) number
``verdict``     a score (``1``, ``0.5``, ``7``), ``win``/``tie``/``loss`` (pairwise: 1,
                0.5, 0), ``scored`` (has a score) or ``failed`` (no score)
``failure_kind`` ``parse_error``, ``refusal``, ``timeout``, ``api_error``, ... or ``none``
``split``       the row's split (``dev``, ``test``, ``final``, ...)
``reportable``  ``yes``: the rows a report reads (``reportable`` true: not of the dev or
                calibration split, unless the table says otherwise); ``no``: the others.
                A report's count links with ``reportable=yes``
``flipped``     pairwise only: ``yes``, the judgments of a counterbalanced trial pair
                whose verdict (win, tie, loss) changes when the two answers swap places,
                after reading both from one arm's side; ``no``, of a trial pair whose
                verdict holds. The pairs and the flip are those of the judges report's
                positional flip rate (its ``flips`` count these pairs; the reportable
                rows are paired among themselves, as a report pairs them, and so are
                the others)
``q``           free text, case-insensitive for ASCII letters, anywhere in the judgment's
                text (reasoning, raw reply, item, names, the stored JSON); in a run
                store looked up in the store's trigram index (any length; see
                :mod:`assay.view._pages`)
``offset``      first row shown (0-based), ``limit`` rows per page (at most 500)
``sort``        the column the rows are ordered by (:data:`SORTABLE`), ``-`` before it
                for descending (``sort=-score``); rows without a value come last, ties
                in storing order; without it, storing order
``open``        the row whose detail is open
``compare``     (the page only) the item whose systems' answers are shown side by side
=============== =====================================================================

Every parameter but ``q``, ``offset``, ``limit``, ``sort``, ``open`` and ``compare`` may
repeat; a row matches when it matches every parameter given and, for a repeated one, any
of its values.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from assay.errors import ConfigError

FILTER_COLUMNS: tuple[str, ...] = ("arm", "opponent", "judge", "criterion", "task", "item",
                                   "run", "split", "failure_kind")
"""The index's columns a filter compares for equality."""

FILTERS: tuple[str, ...] = (*FILTER_COLUMNS, "reportable", "verdict", "flipped", "q")
"""Every filter the viewer knows, in the order the page shows them."""

SORTABLE: tuple[str, ...] = ("id", "item", "arm", "opponent", "judge", "criterion", "score",
                             "failure_kind", "position", "run")
"""The columns a page may be sorted by (the list's columns)."""

PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
PAIRWISE_VERDICTS = {"win": 1.0, "tie": 0.5, "loss": 0.0}
FLIPPED = {"yes": 1, "no": 0}
"""The ``flipped`` filter's values and their codes in the index."""
REPORTABLE = {"yes": 1, "no": 0}
"""The ``reportable`` filter's values and their codes in the index."""


@dataclass(frozen=True)
class Query:
    """A filtered page of judgments.

    ``filters`` maps a filter of :data:`FILTERS` to the values it accepts (any of them).
    """

    filters: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    offset: int = 0
    limit: int = PAGE_SIZE
    open: int | None = None
    sort: str | None = None
    """A column of :data:`SORTABLE`, with ``-`` before it for descending; None: storing order."""

    @property
    def text(self) -> str | None:
        """The free-text filter, or None."""
        values = self.filters.get("q", ())
        return values[0] if values and values[0] else None

    def to_query_string(self) -> str:
        """The URL query string naming this view (see the module docstring).

        >>> Query({"judge": ("gpt-4o",), "item": ("q1", "q 2")}).to_query_string()
        'judge=gpt-4o&item=q1&item=q+2'
        """
        pairs = [(name, value) for name in FILTERS for value in self.filters.get(name, ())]
        if self.offset:
            pairs.append(("offset", str(self.offset)))
        if self.limit != PAGE_SIZE:
            pairs.append(("limit", str(self.limit)))
        if self.sort is not None:
            pairs.append(("sort", self.sort))
        if self.open is not None:
            pairs.append(("open", str(self.open)))
        return urllib.parse.urlencode(pairs)


def view_url(base: str, **filters: str | Iterable[str]) -> str:
    """A link to the viewer at ``base`` showing the judgments that match ``filters``.

    Report pages use it to link a number to the judgments behind it.

    >>> view_url("http://127.0.0.1:8765/", judge="gpt-4o", item=["q1", "q2"])
    'http://127.0.0.1:8765/?judge=gpt-4o&item=q1&item=q2'
    """
    values = {name: (value,) if isinstance(value, str) else tuple(value)
              for name, value in filters.items()}
    unknown = sorted(set(values) - set(FILTERS))
    if unknown:
        raise ValueError(f"unknown viewer filter {unknown[0]!r}; filters: {', '.join(FILTERS)}")
    return base + "?" + Query(values).to_query_string()


def _integer(name: str, text: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{name}={text!r}: expected a whole number") from None
    if not low <= value <= high:
        raise ConfigError(f"{name}={value}: expected {low} to {high}")
    return value


def parse_query(params: Mapping[str, Sequence[str]]) -> Query:
    """A :class:`Query` from URL parameters (``urllib.parse.parse_qs`` output).

    Raises
    ------
    ConfigError
        An unknown parameter, a verdict, flipped or reportable value it does not know, an offset,
        limit or row id that is not a whole number, or a sort by no column of the list.

    >>> parse_query({"judge": ["a", "b"], "offset": ["50"]})
    Query(filters={'judge': ('a', 'b')}, offset=50, limit=50, open=None, sort=None)
    """
    known = {*FILTERS, "offset", "limit", "open", "sort"}
    unknown = sorted(set(params) - known)
    if unknown:
        raise ConfigError(f"unknown filter {unknown[0]!r}; filters: {', '.join(FILTERS)}")
    filters = {name: tuple(str(v) for v in params[name]) for name in FILTERS if params.get(name)}
    for verdict in filters.get("verdict", ()):  # refused here, before any index is read
        verdict_rule(verdict)
    for flip in filters.get("flipped", ()):
        flip_rule(flip)
    for value in filters.get("reportable", ()):
        reportable_rule(value)
    offset = _integer("offset", params["offset"][-1], 0, 10**12) if params.get("offset") else 0
    limit = _integer("limit", params["limit"][-1], 1, MAX_PAGE_SIZE) if params.get("limit") else PAGE_SIZE
    opened = _integer("open", params["open"][-1], 0, 2**62) if params.get("open") else None
    sort = params["sort"][-1] if params.get("sort") else None
    if sort is not None and sort.removeprefix("-") not in SORTABLE:
        raise ConfigError(f"sort={sort!r}: expected one of {', '.join(SORTABLE)} (-NAME: descending)")
    return Query(filters, offset, limit, opened, sort)


def parse_filter_options(options: Iterable[str]) -> dict[str, list[str]]:
    """``--filter NAME=VALUE[,NAME=VALUE...]`` options as URL parameters.

    >>> parse_filter_options(["judge=gpt-4o,item=q1", "item=q2"])
    {'judge': ['gpt-4o'], 'item': ['q1', 'q2']}
    """
    out: dict[str, list[str]] = {}
    for option in options:
        for part in option.split(","):
            name, sep, value = part.partition("=")
            name = name.strip()
            if not sep or not name:
                raise ConfigError(f"--filter {part!r}: expected NAME=VALUE, e.g. judge=gpt-4o")
            if name not in FILTERS:
                raise ConfigError(f"--filter {name}=...: unknown filter; filters: {', '.join(FILTERS)}")
            out.setdefault(name, []).append(value)
    return out


def verdict_rule(text: str) -> tuple[str, float | None]:
    """What a ``verdict`` filter asks: ``("failed" | "scored", None)``, ``("pairwise", score)``
    (win 1, tie 0.5, loss 0 of a row with an opponent) or ``("score", value)``.

    >>> verdict_rule(" Win "), verdict_rule("7")
    (('pairwise', 1.0), ('score', 7.0))
    """
    word = text.strip().lower()
    if word in ("failed", "scored"):
        return word, None
    if word in PAIRWISE_VERDICTS:
        return "pairwise", PAIRWISE_VERDICTS[word]
    try:
        value = float(word)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ConfigError(f"verdict={text!r}: expected a score, win, tie, loss, scored or failed")
    return "score", value


def flip_rule(text: str) -> str:
    """The ``flipped`` filter's value, ``yes`` or ``no``.

    >>> flip_rule(" Yes ")
    'yes'
    """
    word = text.strip().lower()
    if word not in FLIPPED:
        raise ConfigError(f"flipped={text!r}: expected yes or no")
    return word


def reportable_rule(text: str) -> str:
    """The ``reportable`` filter's value, ``yes`` or ``no``.

    >>> reportable_rule(" No ")
    'no'
    """
    word = text.strip().lower()
    if word not in REPORTABLE:
        raise ConfigError(f"reportable={text!r}: expected yes or no")
    return word
