"""A page for any report object that has no page builder of its own, read from ``to_dict()``.

Analyses follow DESIGN.md's JSON contract (tables are lists of records, missing numbers are
null, one vocabulary), so their ``to_dict()`` can be laid out without knowing the type:

- top-level scalars become the facts under the title;
- a list of records becomes a section with a sortable table, and with a forest plot when
  its records carry ``lower`` and ``upper`` around an ``estimate`` (or ``win_rate``) and
  there are few enough of them to read; past :data:`SHOWN_COLUMNS` columns the rest wait
  behind the table's "more columns" button;
- a mapping of records (key -> record) becomes a table with the key as first column, and
  a mapping of scalars a two-column table;
- ``notes`` become the notes section.

A bespoke builder (:func:`assay.report.html._write.register_page`) replaces this for a type;
:func:`cost_page` is this layout with the cost summary's tables offered to the dashboard.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from assay.report.html._figures import ForestPoint, forest
from assay.report.html._model import Column, ColumnKind, Figure, Highlight, Page, Section, Table

MAX_FOREST_ROWS = 60
"""Above this many records a table gets no forest plot (it would not be readable)."""
SHOWN_COLUMNS = 12
"""A records table shows its identifying columns and then the first fields up to this many;
the rest are optional columns, behind the table's "more columns" button and always in its
CSV export, so that the table fits a 1024-pixel window (the human report's 24 columns made
one 1,362 pixels wide)."""
ESTIMATE_KEYS = ("estimate", "win_rate")
LABEL_KEYS = ("criterion", "task", "judge", "judge_a", "judge_b", "arm", "opponent", "label")
Record = Mapping[str, Any]

if TYPE_CHECKING:
    from assay.analysis.cost import CostSummary


def generic_page(report: Any) -> Page:
    """Lay out ``report.to_dict()`` as a page (see the module docstring)."""
    data = report.to_dict()
    if not isinstance(data, Mapping):
        raise TypeError(f"{type(report).__name__}.to_dict() gave a {type(data).__name__}, "
                        "not a mapping")
    name = type(report).__name__
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()
    facts: list[tuple[str, str]] = []
    sections: list[Section] = []
    for key, value in data.items():
        title = str(key).replace("_", " ")
        if key == "notes" and isinstance(value, list):
            continue
        if _is_scalar(value):
            facts.append((title, _scalar_text(value)))
        elif _is_records(value):
            sections.append(_records_section(title, list(value), slug=f"{words}-{key}"))
        elif isinstance(value, Mapping) and value and all(_is_scalar(v) for v in value.values()):
            rows = [{"name": str(k), "value": v} for k, v in value.items()]
            sections.append(Section(title=title, tables=(Table.from_records(
                rows, (Column("name", "name"), Column("value", "value", _kind(list(value.values())))),
                caption=title, name=f"{words}-{key}"),)))
        elif isinstance(value, Mapping) and value and all(isinstance(v, Mapping)
                                                          for v in value.values()):
            records = [{"key": str(k), **v} for k, v in value.items()]
            sections.append(_records_section(title, records, slug=f"{words}-{key}"))
        elif isinstance(value, (list, Mapping)) and not value:
            sections.append(Section(title=title, missing="The report holds no rows here."))
        else:
            sections.append(Section(title=title, notes=(_json(value),)))
    notes = data.get("notes")
    if isinstance(notes, list):
        sections.append(Section(title="Notes", notes=tuple(str(n) for n in notes),
                                missing=None if notes else "The analysis left no notes."))
    return Page(slug=words.replace(" ", "-"), title=words.capitalize(), sections=tuple(sections),
                summary=f"The {words}, laid out from its JSON.", facts=tuple(facts))


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _is_records(value: Any) -> bool:
    return (isinstance(value, list) and bool(value)
            and all(isinstance(v, Mapping) for v in value))


def _scalar_text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _json(value: Any) -> str:
    return json.dumps(value, default=str, allow_nan=True, separators=(", ", ": "))


def _kind(values: Sequence[Any]) -> ColumnKind:
    present = [v for v in values if v is not None]
    if not present:
        return "text"
    if all(isinstance(v, bool) for v in present):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "fixed"
    return "text"


P_KEYS = frozenset({"p_value", "p_adjusted"})
"""Record keys shown as p-values (``< 0.001`` or three significant digits)."""


def _records_section(title: str, records: Sequence[Record], *, slug: str) -> Section:
    keys = list(dict.fromkeys(k for r in records for k in r))
    flat = [{k: (v if _is_scalar(v) else _json(v)) for k, v in r.items()} for r in records]
    lead = [k for k in keys if k in (*LABEL_KEYS, "key")]
    keys = lead + [k for k in keys if k not in lead]
    columns = tuple(Column(k, k.replace("_", " "),
                           "p" if k in P_KEYS else _kind([r.get(k) for r in flat]),
                           digits=4 if k == "standard_error" else 3, optional=i >= SHOWN_COLUMNS)
                    for i, k in enumerate(keys))
    table = Table.from_records(flat, columns, caption=title, name=slug)
    figures: tuple[Figure, ...] = ()
    estimate = next((k for k in ESTIMATE_KEYS if k in keys), None)
    notes: tuple[str, ...] = ()
    if estimate and "lower" in keys and "upper" in keys:
        if len(flat) <= MAX_FOREST_ROWS:
            labels = _unique([_label(r, " · ") or str(i + 1) for i, r in enumerate(flat)])
            points = [ForestPoint(label=label, group=estimate.replace("_", " "),
                                  estimate=r.get(estimate), lower=r.get("lower"),
                                  upper=r.get("upper"), key=_label(r, " "))
                      for label, r in zip(labels, flat, strict=True)]
            figures = (forest(points, x_title=estimate.replace("_", " "),
                              caption=f"{title}: {estimate.replace('_', ' ')} with intervals"),)
        else:
            notes = (f"{len(flat)} rows are too many to plot; filter the table instead.",)
    return Section(title=title, tables=(table,), figures=figures, notes=notes)


def _label(record: Record, separator: str) -> str:
    """The record's identifying text fields, joined (the chart label, or the filter terms)."""
    return separator.join(str(record[k]) for k in LABEL_KEYS
                          if isinstance(record.get(k), str) and record.get(k))


def _unique(labels: list[str]) -> list[str]:
    """Number repeated labels (#2, #3, ...) so a category axis keeps every row apart."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def cost_page(report: CostSummary) -> Page:
    """The cost summary as a page; its per-judge spend and systems' cost tables are the
    dashboard's cost highlights."""
    page = generic_page(report)
    total = report.total
    summary = ("Judges' spend: " + ("no price" if total is None or total.usd is None
                                     else f"${total.usd:,.4f}")
               + (f" for {total.calls:,.0f} calls, {total.tokens_in + total.tokens_out:,.0f} tokens"
                  if total is not None else "")
               if total is not None else "The systems' own cost (no run store: no judges' spend)")
    wanted = {"judge spend by judge": 0} if report.by_judge else {}
    if report.systems:
        wanted["system cost"] = 1
    highlights = tuple(Highlight("cost", section, order=10 + wanted[section.title])
                       for section in page.sections if section.title in wanted)
    return replace(page, slug="cost", title="Cost and tokens", summary=summary,
                   highlights=highlights)
