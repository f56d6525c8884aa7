"""``assay view --export``: a filtered view written as one self-contained HTML file."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from assay.data.atomic import write_text
from assay.errors import ConfigError
from assay.view._index import JudgmentIndex
from assay.view._page import page_html
from assay.view._query import MAX_PAGE_SIZE, Query

MAX_EXPORT_ROWS = 5000
"""An export holds at most this many rows (with their details): a file to share, not a dump."""


def export_data(index: JudgmentIndex, query: Query, *, max_rows: int = MAX_EXPORT_ROWS) -> dict[str, Any]:
    """The rows matching ``query`` (filters only; its page is ignored) with their details.

    Raises
    ------
    ConfigError
        When more than ``max_rows`` rows match, or none does.
    """
    first = index.page(dataclasses.replace(query, offset=0, limit=1))
    described = query.to_query_string() or "no filter"
    if first.total > max_rows:
        more = "or more " if first.capped else ""
        raise ConfigError(f"the filters ({described}) match {first.total:,} {more}rows; an export "
                          f"holds at most {max_rows:,}: narrow them with --filter")
    if first.total == 0:
        raise ConfigError(f"no judgment matches the filters ({described}): nothing to export")
    rows: list[dict[str, Any]] = []
    while True:
        page = index.page(dataclasses.replace(query, offset=len(rows), limit=MAX_PAGE_SIZE, open=None))
        rows.extend(page.rows)
        if len(page.rows) < MAX_PAGE_SIZE:
            break
    details = {str(row["id"]): index.detail(int(row["id"])) for row in rows}
    for row in rows:
        row["flipped"] = index.flipped(int(row["id"]))
        row["reportable"] = index.reportable(int(row["id"]))
    summary = {**index.summary(), "exported": described, "rows": len(rows),
               "systems": index.systems_of([int(row["id"]) for row in rows]),
               "facets": _facets(rows),
               "text_search": "the text filter reads the rows in this file"}
    return {"summary": summary, "rows": rows, "details": details}


def _facets(rows: list[dict[str, Any]]) -> dict[str, list[list[Any]]]:
    out: dict[str, list[list[Any]]] = {}
    for name in ("arm", "opponent", "judge", "criterion", "task", "split", "failure_kind", "score",
                 "flipped", "reportable"):
        counts: dict[Any, int] = {}
        for row in rows:
            if row[name] is not None:
                counts[row[name]] = counts.get(row[name], 0) + 1
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))
        out["verdict" if name == "score" else name] = [[value, n] for value, n in ranked]
    return out


def export_html(index: JudgmentIndex, query: Query, out: str | Path, *,
                max_rows: int = MAX_EXPORT_ROWS) -> Path:
    """Write the rows matching ``query`` and their details to ``out``: one HTML file that
    opens from disk, offline, and filters and shows them as the served viewer does.

    The link's query string (``out.html?judge=...``) filters the file as it does the server.
    """
    data = export_data(index, query, max_rows=max_rows)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    return write_text(out, page_html(data))
