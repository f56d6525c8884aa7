"""Pages to self-contained HTML: templates, number formats, safe embedding of data and scripts.

Everything a page needs is inside the file or beside it: the CSS and JavaScript of
``assay/report/html/static`` and the figures' data as JSON inside; plotly.js, read from the
installed ``plotly`` package at render time, either inlined (a single-file report) or in
``plotly.min.js`` beside the pages, loaded by a relative ``<script src>`` that the policy
allows as a same-origin script (``'self'``, which a page opened from disk also satisfies).
Text from models and users reaches the page only through jinja2's autoescaping (tables,
notes, titles) or, for charts, as HTML-escaped strings inside a JSON block whose ``<``,
``>`` and ``&`` are written as ``\\u003c``, ``\\u003e`` and ``\\u0026``. A
Content-Security-Policy allows only the page's own inline scripts (by their SHA-256) and
``plotly.min.js`` beside it, and no network at all, so an escaping slip still could not run
an inline script or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

import jinja2
import numpy as np

from assay._templates import sandbox
from assay._version import __version__
from assay.data.filenames import FileNames, safe_name
from assay.report._glossary import abbreviation_of, method_words, reader_label
from assay.report.html._model import Column, Figure, Section, Table, ViewLink, is_missing
from assay.report.text._format import p_text

MISSING = "-"
TEMPLATE_KEYS = frozenset({"hovertemplate", "texttemplate"})
"""Figure keys whose strings are plotly templates written by code, so not escaped."""
METHOD_KEYS = frozenset({"method", "items_method", "interval_method", "test"})
"""Columns of method identifiers: shown in words, the identifier in the cell's tooltip."""
VIEW_LINK = b'<a class="view-link" data-view="'
"""How a count's link to the viewer starts in a written page (no ``href``: plain text from
disk); ``assay view`` serves it as ``<a class="view-link" href="``, a link."""
PLOTLY_FILE = "plotly.min.js"
"""plotly.js's file beside the pages of a report folder."""

PALETTE = ("#1f5fa8", "#d9822b", "#2e8b57", "#a23b72", "#6b6ecf", "#8c564b", "#17becf",
           "#7f7f7f", "#bcbd22", "#e377c2")
BASE_LAYOUT: dict[str, Any] = {
    "margin": {"l": 10, "r": 20, "t": 40, "b": 40},
    "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
    "paper_bgcolor": "#ffffff",
    "plot_bgcolor": "#ffffff",
    "hovermode": "closest",
    "colorway": list(PALETTE),
    "legend": {"orientation": "h", "x": 0, "y": 1.02, "xanchor": "left", "yanchor": "bottom"},
}
PLOT_CONFIG = {"displaylogo": False, "responsive": True,
               "modeBarButtonsToRemove": ["lasso2d", "select2d"]}


class Cell(NamedTuple):
    """A table cell as shown (``text``) and as sorted and exported (``value``)."""

    text: str
    value: str | None
    """repr of the number at full precision; None for text, yes/no and missing values."""


def cell(value: Any, column: Column) -> Cell:
    """The text shown for a value and its full-precision sort value.

    >>> cell(0.123456, Column("estimate", "estimate", "fixed"))
    Cell(text='0.123', value='0.123456')
    >>> cell(3.633746e-05, Column("usd", "usd", "sig"))
    Cell(text='0.00003634', value='3.633746e-05')
    >>> cell(float("nan"), Column("lower", "lower", "fixed"))
    Cell(text='-', value=None)
    >>> cell(367.0, Column("wrong", "wrong", "int"))
    Cell(text='367', value='367.0')
    >>> cell(3.979e-10, Column("p_value", "p-value", "p"))
    Cell(text='< 0.001', value='3.979e-10')
    """
    if is_missing(value):
        return Cell(MISSING, None)
    kind = column.kind
    if kind == "bool":
        return Cell("yes" if value else "no", None)
    if kind == "text" or isinstance(value, str) or not isinstance(value, (int, float, np.number)):
        return Cell(str(value), None)
    number = float(value)
    if kind == "int" and number.is_integer():
        text = str(int(number))
    elif kind == "p":
        text = p_text(number)
    elif kind == "sig":
        text = np.format_float_positional(number, precision=column.digits + 1, unique=False,
                                          fractional=False, trim="-")
    else:
        text = f"{number:.{column.digits}f}"
    return Cell(text, repr(number))


def escape_figure(value: Any, key: str = "") -> Any:
    """A JSON-ready copy of figure data: ``&<>`` escaped in strings (not templates), NaN to None.

    Plotly draws chart text by reading a few tags (``<b>``, ``<br>``, ``<a href>``) out of it
    and decoding entities in the rest into text nodes, so escaped text shows literally.

    >>> escape_figure({"y": ["<b>a</b>", 1.5, float("nan")], "hovertemplate": "%{y}<br>"})
    {'y': ['&lt;b&gt;a&lt;/b&gt;', 1.5, None], 'hovertemplate': '%{y}<br>'}
    """
    if isinstance(value, Mapping):
        return {str(k): escape_figure(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [escape_figure(v, key) for v in value]
    if isinstance(value, str):
        # Quotes stay: plotly decodes &lt; &gt; &amp; but shows &quot; as is, and the text
        # reaches no attribute (the JSON block escapes its own quotes).
        return value if key in TEMPLATE_KEYS else html.escape(value, quote=False)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    if value is None:
        return None
    raise TypeError(f"figure data holds a {type(value).__name__}, not a JSON value")


def script_json(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` are written as JSON escapes, so the text can never close the
    script element or open a comment; U+2028 and U+2029 are escaped too.

    >>> script_json({"name": "</script><script>x()</script>"})
    '{"name": "\\\\u003c/script\\\\u003e\\\\u003cscript\\\\u003ex()\\\\u003c/script\\\\u003e"}'
    """
    text = json.dumps(value, allow_nan=False, ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


@cache
def plotly_source() -> str:
    """plotly.min.js from the installed plotly package (never from a CDN)."""
    path = resources.files("plotly") / "package_data" / "plotly.min.js"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuntimeError("plotly.min.js is missing from the installed plotly package "
                           f"({path}); reinstall plotly") from None
    return text


@cache
def plotly_js() -> str:
    """plotly.min.js as an inline script (checked to hold no ``</script`` or ``<!--``)."""
    return _inline_script(plotly_source(), PLOTLY_FILE)


@cache
def static_text(name: str) -> str:
    """One of assay's own static files (``assay.css``, ``assay.js``)."""
    text = (resources.files("assay.report.html") / "static" / name).read_text(encoding="utf-8")
    return _inline_script(text, name) if name.endswith(".js") else text


def _inline_script(text: str, name: str) -> str:
    lowered = text.lower()
    if "</script" in lowered or "<!--" in lowered:
        raise RuntimeError(f"{name} cannot be inlined: it contains '</script' or '<!--'")
    return text


def csp_hash(script: str) -> str:
    """The CSP source expression that allows one inline script, by its SHA-256."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(scripts: Sequence[str], *, same_origin: bool = False) -> str:
    """No network, no plugins, no frames; only the given inline scripts may run.

    ``same_origin`` also allows script files of the page's own origin (``plotly.min.js``
    beside the page); a script element can still only come from the template.
    """
    allowed = " ".join(["'self'"] * same_origin + [csp_hash(s) for s in scripts])
    return ("default-src 'none'; "
            f"script-src {allowed}; "
            "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; "
            "connect-src 'none'; base-uri 'none'; form-action 'none'")


@cache
def environment() -> jinja2.Environment:
    """The jinja2 environment: templates from the package, autoescape on, strict names, in the
    sandbox every template of the package renders in (``assay._templates``)."""
    return sandbox(
        loader=jinja2.PackageLoader("assay.report.html", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


class PageBuilder:
    """Collects one page's view model: table and figure ids are numbered in page order."""

    def __init__(self, *, partial: bool, inline_plotly: bool = False) -> None:
        self.partial = partial
        self.inline_plotly = inline_plotly
        """plotly.js inside the page (one file) rather than in ``plotly.min.js`` beside it."""
        self.figures: list[dict[str, Any]] = []
        self.n_tables = 0
        self.names = FileNames()
        """The CSV export names given on this page: each table's own (names come from data)."""

    def section(self, section: Section, *, anchor: str, source: tuple[str, str] | None = None
                ) -> dict[str, Any]:
        tables = [self.table(t) for t in section.tables] if section.missing is None else []
        figures = []
        if section.missing is None:
            for figure in section.figures:
                target = None
                if figure.filter_table is not None and 0 <= figure.filter_table < len(tables):
                    target = tables[figure.filter_table]["id"]
                figures.append(self.figure(figure, target))
        return {"title": section.title, "anchor": anchor, "intro": section.intro,
                "notes": list(section.notes), "missing": section.missing, "tables": tables,
                "figures": figures, "source": source}

    def table(self, table: Table) -> dict[str, Any]:
        self.n_tables += 1
        numeric = [c.kind in ("int", "fixed", "sig", "p") for c in table.columns]
        rows = [[_shown(v, c) for v, c in zip(row, table.columns, strict=True)]
                for row in table.rows]
        for row, links, values in zip(rows, table.links, table.rows, strict=False):
            for shown, link, value in zip(row, links, values, strict=True):
                if link is not None:
                    shown.update(_view_link(link, value))
        name = self.names.claim(safe_name(table.name), "")
        headers = []
        for c, n in zip(table.columns, numeric, strict=True):
            label = reader_label(c.label)
            headers.append({"key": c.key, "label": label, "numeric": n,
                            "abbr": abbreviation_of(label), "optional": c.optional})
        return {"id": f"tbl-{self.n_tables}", "caption": table.caption, "name": name,
                "headers": headers, "rows": rows,
                "n_optional": sum(c.optional for c in table.columns)}

    def figure(self, figure: Figure, target: str | None) -> dict[str, Any]:
        fid = f"fig-{len(self.figures) + 1}"
        layout = {**BASE_LAYOUT, **dict(figure.layout)}
        if self.partial:
            # Bottom right, under the axis: clear of the legend, the modebar and the data.
            layout["annotations"] = [*layout.get("annotations", []), {
                "text": "PRELIMINARY", "xref": "paper", "yref": "paper", "x": 1, "y": 0,
                "xanchor": "right", "yanchor": "top", "yshift": -36, "showarrow": False,
                "font": {"size": 12, "color": "#b45309"}}]
            layout["margin"] = {**layout["margin"], "b": layout["margin"].get("b", 40) + 30}
        self.figures.append({"id": fid, "filter": target, "n_points": figure.n_points,
                             "data": escape_figure(list(figure.data)),
                             "layout": escape_figure(layout)})
        return {"id": fid, "caption": figure.caption}


def _view_link(link: str | ViewLink, value: Any) -> dict[str, Any]:
    """A linked cell's link to the viewer (``/?QUERY``), how many judgments it opens and its
    tooltip, which says so (a count of trial pairs opens two judgments a pair).

    The page is written with the address in ``data-view`` and no ``href``, so that opened
    from disk the count is plain text (``/?QUERY`` there would open the file system's root);
    ``assay view`` turns it into a link as it serves the page (:data:`VIEW_LINK`)."""
    if isinstance(link, ViewLink):
        rows, query = link.rows, link.query
        title = (f"{cell(value, Column('n', 'n', 'int')).text} {link.unit}: their {rows} "
                 "judgments in the viewer")
    else:
        rows, query = int(value), link
        title = f"The {rows} judgments behind this number in the viewer"
    return {"link": "/?" + query, "link_rows": rows,
            "link_title": title + " (assay view RUN --reports FOLDER; not from a page opened "
                                  "from disk)"}


def _shown(value: Any, column: Column) -> dict[str, Any]:
    """A cell of the template: a method identifier in words, with the identifier as its title."""
    shown = {**cell(value, column)._asdict(), "missing": is_missing(value), "title": None,
             "optional": column.optional, "link": None}
    if column.key in METHOD_KEYS and isinstance(value, str) and value:
        shown.update(text=method_words(value), title=value)
    return shown


def render_document(template: str, context: Mapping[str, Any], builder: PageBuilder) -> str:
    """Fill a template with a page's context, its assets and its policy."""
    scripts = [static_text("assay.js")]
    external = []
    if builder.figures and builder.inline_plotly:
        scripts.insert(0, plotly_js())
    elif builder.figures:
        external.append(PLOTLY_FILE)
    return environment().get_template(template).render(
        **context,
        partial=builder.partial,
        version=__version__,
        css=static_text("assay.css"),
        scripts=scripts,
        external_scripts=external,
        csp=content_security_policy(scripts, same_origin=bool(external)),
        figures_json=script_json({"config": PLOT_CONFIG, "figures": builder.figures}),
    )
