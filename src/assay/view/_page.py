"""The viewer's page: one HTML file with its style and script inline.

Served by ``assay view`` (the script then asks the server for pages of judgments) or
written by ``assay view --export`` with the judgments inside it (the script then filters
them itself), so a shared export opens from disk, offline, on its own.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

_DATA_SLOT = "/*ASSAY-DATA*/null"


@cache
def _static(name: str) -> str:
    return resources.files("assay.view").joinpath("static", name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&`` and the line
    separators JavaScript once treated as line ends are written as escapes, so no value can
    close the element (``</script>``) or open a comment.

    >>> script_json({"text": "</script><b>"})
    '{"text": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e"}'
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False)
    for char, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escape)
    return text


def page_html(data: dict[str, Any] | None = None) -> str:
    """The page; with ``data`` (an export's judgments) it needs no server."""
    page = _static("view.html")
    page = page.replace("/*ASSAY-STYLE*/", _static("view.css"))
    page = page.replace("/*ASSAY-SCRIPT*/", _static("view.js"))
    return page.replace(_DATA_SLOT, "null" if data is None else script_json(data))
