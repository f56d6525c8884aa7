"""Serve the viewer on 127.0.0.1: the page and its JSON queries (standard library only).

Routes (``GET`` only)::

    /                    the page (any query string of assay.view._query's scheme)
    /api/summary         the source, its kind, its row count and each filter's values
    /api/rows?QUERY      one page of rows matching QUERY, and how many match
    /api/judgment?id=N   everything known of row N's judgment
    /api/compare?item=I[&run=R]  item I's question, reference, and every system's answer
                         and scores in run R (default: the first) side by side
    /reports/PATH        a file of the report folder given (``assay view --reports``): each
                         HTML page gets a link back to the viewer in its navigation bar, and
                         its counts' addresses (``data-view="/?QUERY"``, no link in the file,
                         so plain text from disk) become links that open here, same origin

A bad query is answered ``400`` with ``{"error": "..."}``, a file name that cannot be one
(a NUL, a part longer than the file system allows) ``400`` or ``404``; any other failure
``500`` with its reason, never a dropped connection. Requests whose ``Host`` is not
this machine's loopback name are refused (``403``), so a web page elsewhere cannot read
the judgments through DNS rebinding.
"""

from __future__ import annotations

import json
import mimetypes
import threading
import urllib.parse
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from assay.errors import AssayError, ConfigError
from assay.view._index import JudgmentIndex
from assay.view._page import page_html
from assay.view._query import parse_query

HOST = "127.0.0.1"
_LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]"}
VIEWER_LINK = b'<a class="assay-viewer" href="/">Judgments</a>'
"""Added to the navigation bar of every report page served, so each leads back to the viewer."""
VIEW_LINK = b'<a class="view-link" data-view="'
"""How a report page writes a count's address (``assay.report.html._render.VIEW_LINK``, the
same bytes: the view layer does not import the report's): no ``href``, plain text from disk."""
SERVED_VIEW_LINK = b'<a class="view-link" href="'
"""A report count's link as served."""


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8"),
                   "application/json; charset=utf-8")

    def do_GET(self) -> None:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in _LOCAL_HOSTS:
            self._json(HTTPStatus.FORBIDDEN, {"error": "the viewer answers on 127.0.0.1 only"})
            return
        url = urllib.parse.urlsplit(self.path)
        params = urllib.parse.parse_qs(url.query, keep_blank_values=False)
        index = self.server.index
        try:
            if url.path == "/":
                self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
            elif url.path.startswith("/reports/") and self.server.reports is not None:
                self._report_file(urllib.parse.unquote(url.path[len("/reports/"):]))
            elif url.path == "/api/summary":
                reports = None if self.server.reports is None else "/reports/index.html"
                self._json(HTTPStatus.OK, {**index.summary(), "facets": index.facets(),
                                           "reports": reports})
            elif url.path == "/api/compare":
                self._compare(params)
            elif url.path == "/api/rows":
                self._json(HTTPStatus.OK, index.page(parse_query(params)).as_json())
            elif url.path == "/api/judgment":
                opened = parse_query({"open": params.get("id", [])}).open
                found = None if opened is None else index.detail(opened)
                if found is None:
                    self._json(HTTPStatus.NOT_FOUND, {"error": f"no row {opened}"})
                else:
                    self._json(HTTPStatus.OK, found)
            else:
                self._json(HTTPStatus.NOT_FOUND, {"error": f"no page {url.path}"})
        except AssayError as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        except Exception as exc:  # an answer, never a dropped connection and a traceback
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR,
                       {"error": f"internal error: {type(exc).__name__}: {exc}"})

    def _compare(self, params: dict[str, list[str]]) -> None:
        item = params.get("item", [""])[-1]
        run = params.get("run", [""])[-1]
        if run and not (run.isascii() and run.isdigit()):
            raise ConfigError(f"run={run!r}: expected a whole number")
        found = self.server.index.compare(item, int(run) if run else None) if item else None
        if found is None:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no judgment of item {item!r}"})
        else:
            self._json(HTTPStatus.OK, found)

    def _report_file(self, relative: str) -> None:
        """A file of the report folder; nothing outside it (no ``..``, no link out)."""
        root = self.server.reports
        assert root is not None
        if "\x00" in relative:
            self._json(HTTPStatus.BAD_REQUEST, {"error": "a file name holds no NUL character"})
            return
        try:
            path = (root / (relative or "index.html")).resolve()
            if path.is_dir():
                path = path / "index.html"
            found = path.is_relative_to(root) and path.is_file()
        except (OSError, ValueError):  # a name too long for the file system
            found = False
        if not found:
            self._json(HTTPStatus.NOT_FOUND, {"error": f"no report file {relative[:200]}"})
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        body = path.read_bytes()
        if kind.startswith("text/html"):
            body = body.replace(b"</nav>", VIEWER_LINK + b"</nav>", 1)
            # a count's address, inert in the file (plain text from disk), becomes its link here,
            # where /?QUERY is this viewer; text of the data cannot spell it (a quote is escaped)
            body = body.replace(VIEW_LINK, SERVED_VIEW_LINK)
        self._send(HTTPStatus.OK, body, kind)


class ViewServer(ThreadingHTTPServer):
    """The viewer's HTTP server on ``127.0.0.1:port`` (0: a free port) over ``index``.

    Examples
    --------
    >>> import json, tempfile, urllib.request
    >>> from pathlib import Path
    >>> table = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = table.write_text("item,arm,score\\nq1,a,1\\nq2,a,0\\n")
    >>> with JudgmentIndex(table) as index, ViewServer(index) as server:
    ...     server.start()
    ...     with urllib.request.urlopen(server.url + "api/rows?item=q2") as reply:
    ...         [row["score"] for row in json.load(reply)["rows"]]
    [0.0]
    """

    daemon_threads = True

    def __init__(self, index: JudgmentIndex, *, port: int = 0,
                 reports: str | Path | None = None) -> None:
        super().__init__((HOST, port), _Handler)
        self.index = index
        self.reports = None if reports is None else Path(reports).resolve()
        """The report folder served under ``/reports/``, or None."""
        self.page = page_html().encode("utf-8")
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The page's address, ``http://127.0.0.1:PORT/``."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def start(self) -> None:
        """Serve from a background thread (:meth:`shutdown` or leaving the ``with`` stops it)."""
        self._thread = threading.Thread(target=self.serve_forever, name="assay-view", daemon=True)
        self._thread.start()

    def __exit__(self, *exc: object) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
        super().__exit__(*exc)
