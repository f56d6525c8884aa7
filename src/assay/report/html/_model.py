"""What an HTML page is made of: pages, sections, tables, figures and dashboard highlights.

These are display models, not analysis objects: a page builder (one per analysis type,
``_html_scores``, ``_html_benchmark``, ...) reads a report object and lays its numbers out
as a :class:`Page`; :mod:`assay.report.html._render` turns pages into HTML. Values stay at
full precision here; the renderer rounds them as a :class:`Column` says.
"""

from __future__ import annotations

import math
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

ColumnKind = Literal["text", "int", "fixed", "sig", "bool", "p"]
"""How a column's values are shown: text as is, a count, ``digits`` decimals, ``digits + 1``
significant digits without an exponent (dollars, tokens), yes/no, or a p-value (``< 0.001``,
else three significant digits)."""

Topic = Literal["rankings", "cost", "quality", "agreement"]
"""The dashboard's blocks, in the order they are shown."""

TOPICS: tuple[Topic, ...] = ("rankings", "cost", "quality", "agreement")

Trace = dict[str, Any]


@dataclass(frozen=True)
class Column:
    """One table column: the record key (also the CSV header), the label shown, the format."""

    key: str
    label: str
    kind: ColumnKind = "text"
    digits: int = 3
    """Decimals of a ``fixed`` column; significant digits minus one of a ``sig`` column."""
    optional: bool = False
    """Hidden until the reader asks for every column (a table too wide for 1024 px keeps its
    secondary columns behind a "more columns" button); always in the CSV export."""


@dataclass(frozen=True)
class ViewLink:
    """A cell's link to the judgments behind it when the cell counts something other than
    judgments: ``rows`` judgments open for the count shown (a count of trial pairs opens
    both judgments of each), ``unit`` names what the count counts."""

    query: str
    """The viewer's query string (:func:`view_query`)."""
    rows: int
    """How many judgments the query finds."""
    unit: str
    """What the cell counts (``trial pairs``), said in the link's tooltip."""


@dataclass(frozen=True)
class Table:
    """A table of rows shown sortable, filterable and exportable as CSV.

    ``rows`` hold raw values (str, int, float, bool or None) in the order of ``columns``;
    None and NaN are shown as a dash and exported as an empty field.
    """

    columns: tuple[Column, ...]
    rows: tuple[tuple[Any, ...], ...]
    caption: str = ""
    name: str = "table"
    """Stem of the exported CSV file's name."""
    links: tuple[tuple[str | ViewLink | None, ...], ...] = ()
    """Per row and column, the viewer query string of the judgments behind the cell (a link
    to ``/?QUERY``, answered by ``assay view RUN --reports FOLDER``; it finds as many
    judgments as the cell counts), a :class:`ViewLink` when the cell counts something else
    (trial pairs), or None; empty: none. Every query names the rows the report read
    (``reportable=yes``: :data:`REPORTED`)."""

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, Any]], columns: Sequence[Column], *,
                     caption: str = "", name: str = "table") -> Table:
        """A table of the given columns read from records (a missing key is None)."""
        cols = tuple(columns)
        rows = tuple(tuple(record.get(c.key) for c in cols) for record in records)
        return cls(columns=cols, rows=rows, caption=caption, name=name)


REPORTED = ("reportable", "yes")
"""The viewer filter of the rows a report reads (not of the dev or calibration split): every
count a report links to judgments counts only those, so every link carries it."""


def view_query(record: Mapping[str, Any], keys: Sequence[str], **extra: str) -> str:
    """The viewer's query (``assay view``'s URL scheme: docs/cli.md) of the judgments behind
    a number: ``record``'s values of ``keys`` (a missing, None or NaN value is left out; a
    whole float is written as an integer), then ``extra`` filters, then the reportable rows
    only (:data:`REPORTED`), as the report counted them.

    >>> view_query({"criterion": "quality", "item": "q 1", "run": 2.0, "task": None},
    ...            ("criterion", "task", "item", "run"), verdict="scored")
    'criterion=quality&item=q+1&run=2&verdict=scored&reportable=yes'
    """
    pairs = []
    for key in keys:
        value = record.get(key)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        pairs.append((key, str(value)))
    return urllib.parse.urlencode([*pairs, *extra.items(), REPORTED])


def linked(table: Table, records: Sequence[Mapping[str, Any]],
           links: Mapping[str, Any]) -> Table:
    """``table`` (made from ``records``) with the cells of the columns in ``links`` linked
    to the viewer: column key -> a function of the record giving its query (None: no link)."""
    return replace(table, links=tuple(
        tuple(links[c.key](r) if c.key in links else None for c in table.columns)
        for r in records))


@dataclass(frozen=True)
class Figure:
    """A plotly figure given as plain data (``data`` traces and ``layout``, as in plotly.js).

    Every string in ``data`` and ``layout`` is treated as text and HTML-escaped when the
    page is written, except the values of ``hovertemplate`` and ``texttemplate``, which
    must be written by code and never hold data. Put data into a template through
    ``%{x}``, ``%{y}``, ``%{text}`` or ``%{customdata[i]}``. ``customdata[0]`` of a point,
    when present, is the text a click on the point writes into the filter box of table
    ``filter_table`` of the same section.
    """

    data: tuple[Trace, ...]
    layout: Mapping[str, Any] = field(default_factory=dict)
    caption: str = ""
    filter_table: int | None = None

    @property
    def n_points(self) -> int:
        """Points over all traces (the length of each trace's x, or y)."""
        total = 0
        for trace in self.data:
            values = trace.get("x", trace.get("y"))
            total += len(values) if values is not None else 0
        return total


@dataclass(frozen=True)
class Section:
    """A titled block of a page: an intro line, figures, tables and notes.

    A section whose data do not exist carries ``missing``, the reason, and is shown with
    that reason in place of its content.
    """

    title: str
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    intro: str = ""
    missing: str | None = None


@dataclass(frozen=True)
class Highlight:
    """A section a page offers the dashboard, under one of its topics."""

    topic: Topic
    section: Section
    order: int = 50
    """Place within the topic: lower first; pages' order breaks ties."""


@dataclass(frozen=True)
class Page:
    """One report page: written to ``<slug>.html`` and linked from the dashboard."""

    slug: str
    title: str
    sections: tuple[Section, ...]
    summary: str = ""
    """One line for the page's card on the dashboard."""
    facts: tuple[tuple[str, str], ...] = ()
    """(label, value) pairs shown under the title: design, method, settings."""
    highlights: tuple[Highlight, ...] = ()


IDENTIFYING: tuple[Column, ...] = (
    Column("criterion", "criterion"), Column("task", "task"), Column("judge", "judge"),
    Column("arm", "arm"), Column("opponent", "opponent"))
"""Columns that tell rows apart, in the order they lead a table."""


def distinguishing(records: Sequence[Mapping[str, Any]], columns: Sequence[Column]
                   ) -> tuple[Column, ...]:
    """``columns`` with every identifying column (criterion, task, judge, arm, opponent) whose
    value varies between the records put back in front, so no two rows look alike.

    >>> rows = [{"criterion": "a", "arm": "x", "n": 1}, {"criterion": "b", "arm": "x", "n": 1}]
    >>> [c.key for c in distinguishing(rows, (Column("arm", "arm"), Column("n", "n")))]
    ['criterion', 'arm', 'n']
    """
    shown = {c.key for c in columns}
    varying = [c for c in IDENTIFYING if c.key not in shown
               and len({repr(r.get(c.key)) for r in records}) > 1]
    lead = [c for c in IDENTIFYING if c in varying or c.key in shown]
    lead = [next(col for col in columns if col.key == c.key) if c.key in shown else c
            for c in lead]
    return (*lead, *(c for c in columns if c.key not in {x.key for x in IDENTIFYING}))


def is_missing(value: Any) -> bool:
    """True for None and for a float NaN or infinity (shown as a dash)."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))
