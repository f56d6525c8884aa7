"""``assay view RUN_OR_TABLE``: every judgment in the browser, served on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import (
    MapOption,
    MissingOption,
    ScaleOption,
    SetOption,
    app,
    check_out_folder,
    load_inputs,
)
from assay.cli._terminal import counted, say
from assay.errors import ConfigError


@app.command("view")
def view_command(
    source: Annotated[Path, typer.Argument(
        help="A run folder of assay judge (its judgments.sqlite), a judgments table "
        "(CSV, TSV, JSONL, JSON or Parquet), or a folder holding one (assay demo's --out: its "
        "judgments.parquet, with its html/ reports).", metavar="RUN_OR_TABLE")],
    port: Annotated[int, typer.Option(
        "--port", help="Port on 127.0.0.1; 0 picks a free one.", min=0, max=65535)] = 0,
    no_browser: Annotated[bool, typer.Option(
        "--no-browser", help="Print the address without opening a browser.")] = False,
    filter_: Annotated[list[str] | None, typer.Option(
        "--filter", help="Show only rows with NAME=VALUE[,NAME=VALUE...]; NAME is arm, opponent, "
        "judge, criterion, task, item, run, verdict (a score, win, tie, loss, scored, failed), "
        "failure_kind (or none), flipped (yes: the counterbalanced trial pairs whose verdict "
        "changes when the order is swapped; no: those whose verdict holds) or q (free text; "
        "docs/viewer.md). A repeated NAME matches any of its values.",
        metavar="NAME=VALUE")] = None,
    export: Annotated[Path | None, typer.Option(
        "--export", help="Write the filtered rows and their details to one HTML file that opens "
        "offline, instead of serving.", metavar="FILE.html")] = None,
    reports: Annotated[Path | None, typer.Option(
        "--reports", help="A report folder of assay report --format html, served under "
        "/reports/ so the links of its pages (a number -> the judgments behind it) open here.",
        metavar="FOLDER")] = None,
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    missing: MissingOption = None,
) -> None:
    """Browse every judgment: filter, sort, page, and open one to read the question and the
    answers judged, the verdict and the reasoning, then its prompt, reply, position and partner,
    tokens, cost, latency and retries; or compare every system's answer to one question.
    Keys: j/k or the arrows move, Enter opens, c compares, Esc goes back, / filters text.

    Deep links: http://127.0.0.1:PORT/?judge=J&item=Q1&item=Q2&open=ROW takes the --filter
    names as parameters (a repeated name matches any of its values; open shows one row), so a
    report or a message can point at the judgments behind a number; an exported file takes the
    same query string.

    Example: assay view runs/first --filter judge=gpt-4o,verdict=failed
    """
    from assay.view import (
        JudgmentIndex,
        ViewServer,
        export_html,
        find_run,
        parse_filter_options,
        parse_query,
    )

    query = parse_query(parse_filter_options(filter_ or []))
    if export is not None and export.suffix.lower() not in (".html", ".htm"):
        raise ConfigError(f"--export {export}: give a file name ending in .html")
    if export is not None:
        check_out_folder(export.parent, shown=export)
    if reports is not None and not (reports / "index.html").is_file():
        raise ConfigError(f"--reports {reports}: not a report folder (no index.html); make one "
                          "with assay report ... --format html --out FOLDER")
    from assay.data.run_store import store_path

    found = find_run(source)
    if found is not None:
        beside = "" if found.reports is None or reports is not None else \
            f", with the reports of {found.reports}"
        say(f"assay view: {source} holds a run: opening {found.judgments}{beside}")
        source = found.judgments
        reports = reports if reports is not None else found.reports
    table = None
    options = bool(map_ or set_ or scale or missing)
    if options or not store_path(source).is_file():
        if not source.exists():
            raise ConfigError(f"{source}: no such file or folder")
        if options or not source.is_file():
            table = load_inputs([source], map_, set_, scale, missing)
    if export is None and port:
        _check_port(port)  # before indexing: a busy port is said at once, not after the build
    with counted("assay view: ") as show:
        index = JudgmentIndex(source, on_build=lambda text: say(f"assay view: {text}"),
                              progress=lambda p: show(p.phase, p.done, p.total, p.unit), table=table,
                              loader=lambda: load_inputs([source], None, None, None, None))
    with index:
        if export is not None:
            export_html(index, query, export)
            say(f"wrote {export} ({index.page(query).total:,} rows)")
            return
        try:
            server = ViewServer(index, port=port, reports=reports)
        except OSError as exc:
            raise _busy(port, exc) from None
        with server:
            search = query.to_query_string()
            url = server.url + (f"?{search}" if search else "")
            say(f"assay view: {index.count:,} rows of {source} at {url} (Ctrl-C stops)")
            if reports is not None:
                url = server.url + "reports/index.html"
                say(f"assay view: the reports of {reports} at {url}")
            if not no_browser:
                import webbrowser

                webbrowser.open(url)
            server.serve_forever()


def _busy(port: int, exc: OSError) -> ConfigError:
    return ConfigError(f"--port {port}: cannot listen on 127.0.0.1 ({exc.strerror})")


def _check_port(port: int) -> None:
    """Refuse a port the server could not listen on, as the server binds it."""
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
        try:
            probe.bind(("127.0.0.1", port))
            probe.listen()
        except OSError as exc:
            raise _busy(port, exc) from None
