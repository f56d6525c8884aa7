"""``assay cache info|clear|export``: what a response cache holds, emptying it, and a run
store's judgments written to Parquet.

Registered on the ``assay`` typer app (imported by :mod:`assay.cli`). A cache is named
by a run folder (its ``responses.sqlite``, where ``assay judge`` keeps it by default), a
cache file, or ``--shared`` (the per-user cache of ``cache: shared``). ``export`` reads a
run folder's ``judgments.sqlite`` (read-only) and writes its judgments table, so that the
runs of many machines or jobs, one Parquet file each in a folder, make one dataset that
``assay report FOLDER`` reads (through DuckDB).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app
from assay.cli._terminal import say
from assay.errors import ConfigError

cache_app = typer.Typer(
    name="cache",
    help="Show or empty a response cache (assay judge's replies, kept so that a rerun pays nothing), "
         "or export a run folder's judgments to Parquet.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(cache_app)

Where = Annotated[
    Path | None,
    typer.Argument(help="A run folder (its responses.sqlite) or a cache file."),
]
Shared = Annotated[
    bool,
    typer.Option("--shared", help="The per-user cache ($ASSAY_CACHE_DIR, else ~/.cache/assay)."),
]


def _cache_file(where: Path | None, shared: bool) -> Path:
    from assay.llm import CACHE_FILENAME, default_cache_path

    if (where is None) == (not shared):
        raise ConfigError("give a run folder or a cache file, or --shared (one of them)")
    path = default_cache_path() if shared else Path(str(where))
    if path.is_dir():
        path = path / CACHE_FILENAME
    if not path.is_file():
        raise ConfigError(f"{path}: no response cache there")
    return path


@cache_app.command("info")
def info_command(where: Where = None, shared: Shared = False) -> None:
    """Show where a response cache is, its size, and its replies per endpoint and model.

    Example: assay cache info runs/first; assay cache info --shared
    """
    from assay.llm import ResponseCache

    path = _cache_file(where, shared)
    with ResponseCache(path) as cache:
        summary = cache.summary()
    say(f"{summary.path}: {summary.replies} cached replies, {summary.bytes / 1e6:.1f} MB")
    for group in summary.groups:
        endpoint = group.endpoint or "(no endpoint recorded: cached by an older assay, never used again)"
        say(f"  {endpoint}  {group.model or '?'}: {group.replies} replies, {group.first[:19]} to "
             f"{group.last[:19]} UTC")


@cache_app.command("clear")
def clear_command(
    where: Where = None,
    shared: Shared = False,
    endpoint: Annotated[
        str | None,
        typer.Option("--endpoint", metavar="URL",
                     help="Remove only the replies of this endpoint (its base URL, as info lists it)."),
    ] = None,
) -> None:
    """Remove the cached replies (all, or one endpoint's); judgments stored in run folders stay.

    Example: assay cache clear runs/first; assay cache clear --shared --endpoint http://127.0.0.1:8000/v1
    """
    from assay.llm import ResponseCache, redact_url

    path = _cache_file(where, shared)
    with ResponseCache(path) as cache:
        removed = cache.clear(endpoint=None if endpoint is None else redact_url(endpoint))
        left = len(cache)
    say(f"{path}: removed {removed} cached replies ({left} left)")


@cache_app.command("export")
def export_command(
    run: Annotated[Path, typer.Argument(help="A run folder of assay judge (its judgments.sqlite).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The Parquet file to write (.parquet).")],
) -> None:
    """Write a run folder's judgments (the planned ones, as assay report reads them) to one
    Parquet file with their scales, so that the runs of many machines or jobs, one file each
    in a folder, merge into one dataset: assay report FOLDER reads them together.

    Example: assay cache export runs/machine-1 -o merged/machine-1.parquet
    """
    from assay.data.run_store import load_store

    if out.suffix.lower() != ".parquet":
        raise ConfigError(f"{out}: expected a .parquet file to write")
    if out.resolve() == run.resolve() or out.is_dir():
        raise ConfigError(f"{out}: is a folder; give the Parquet file to write")
    table = load_store(run)
    table.save(out)
    say(f"{len(table.frame)} judgments of {run} -> {out}")
