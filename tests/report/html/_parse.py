"""Read a written page back with the standard library's HTML parser (no browser needed)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any


@dataclass
class Cell:
    text: str = ""
    value: str | None = None
    missing: bool = False


@dataclass
class ParsedTable:
    id: str
    keys: list[str] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)


@dataclass
class Script:
    attrs: dict[str, str | None]
    text: str = ""


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[Script] = []
        self.tables: dict[str, ParsedTable] = {}
        self.urls: list[str] = []
        self.meta: list[dict[str, str | None]] = []
        self.tags: list[str] = []
        self.headings: list[str] = []
        self.missing: list[str] = []
        self._script: Script | None = None
        self._table: ParsedTable | None = None
        self._cell: Cell | None = None
        self._heading: list[str] | None = None
        self._missing: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append(tag)
        for name in ("src", "href", "action", "data", "poster"):
            if a.get(name):
                self.urls.append(str(a[name]))
        if tag == "meta":
            self.meta.append(a)
        elif tag == "script":
            self._script = Script(a)
        elif tag == "table":
            self._table = ParsedTable(str(a.get("id")))
            self.tables[self._table.id] = self._table
        elif tag == "th" and self._table is not None:
            self._table.keys.append(str(a.get("data-key")))
        elif tag == "tr" and self._table is not None and self._table.keys:
            self._table.rows.append([])
        elif tag == "td" and self._table is not None:
            self._cell = Cell(value=a.get("data-value"), missing="data-missing" in a)
            self._table.rows[-1].append(self._cell)
        elif tag in ("h2", "h3"):
            self._heading = []
        elif tag == "p" and "missing-section" in (a.get("class") or ""):
            self._missing = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append(self._script)
            self._script = None
        elif tag == "table":
            self._table = None
        elif tag == "td":
            self._cell = None
        elif tag in ("h2", "h3") and self._heading is not None:
            self.headings.append("".join(self._heading).strip())
            self._heading = None
        elif tag == "p" and self._missing is not None:
            self.missing.append("".join(self._missing).strip())
            self._missing = None

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.text += data
        if self._cell is not None:
            self._cell.text += data
        if self._heading is not None:
            self._heading.append(data)
        if self._missing is not None:
            self._missing.append(data)


@dataclass
class ParsedPage:
    source: str
    """The page without plotly.js (kept apart so a failing assertion prints a short diff)."""
    plotly: str
    scripts: list[Script]
    tables: dict[str, ParsedTable]
    urls: list[str]
    meta: list[dict[str, str | None]]
    tags: list[str]
    headings: list[str]
    missing: list[str]

    @property
    def data(self) -> dict[str, Any]:
        """The page's JSON block (figures and plot config)."""
        block = [s for s in self.scripts if s.attrs.get("type") == "application/json"]
        return json.loads(block[0].text)

    @property
    def executable_scripts(self) -> list[Script]:
        return [s for s in self.scripts if s.attrs.get("type") in (None, "", "text/javascript")]

    @property
    def csp(self) -> str:
        return next(str(m["content"]) for m in self.meta
                    if m.get("http-equiv") == "Content-Security-Policy")

    def table_with(self, *keys: str) -> ParsedTable:
        """The first table whose columns start with ``keys``."""
        for table in self.tables.values():
            if tuple(table.keys[:len(keys)]) == keys:
                return table
        raise KeyError(f"no table with columns {keys}")


def parse_page(path: Path) -> ParsedPage:
    source = path.read_text(encoding="utf-8")
    reader = _Reader()
    reader.feed(source)
    reader.close()
    big = [s.text for s in reader.scripts if len(s.text) > 1_000_000]
    plotly = big[0] if big else ""
    own = source.replace(plotly, "") if plotly else source
    return ParsedPage(own, plotly, reader.scripts, reader.tables, reader.urls, reader.meta,
                      reader.tags, reader.headings, reader.missing)


def fetched_by(path: Path) -> list[str]:
    """The URLs a page may request: itself, and ``plotly.min.js`` beside it when it has charts."""
    urls = [path.resolve().as_uri()]
    if parse_page(path).data["figures"]:
        urls.append((path.parent / "plotly.min.js").resolve().as_uri())
    return urls
