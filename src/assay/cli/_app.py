"""The ``assay`` typer app, the options several commands share, and :func:`main`.

Each command lives in its own module of :mod:`assay.cli` and registers itself on
:data:`app`. Every error a user can cause prints one clear message and exits with status 2; no
traceback is shown (set ``ASSAY_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer
from rich.console import Console

from assay.errors import AssayError, ConfigError

app = typer.Typer(
    name="assay",
    help="Evaluate LLM systems with LLM judges and read the results with honest statistics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


class _Console(Console):
    """A rich console that writes control characters from data as escapes: an arm, a judge
    or a model's text holding an ESC sequence or a NUL must not drive the user's terminal."""

    def print(self, *objects: Any, **kwargs: Any) -> None:  # type: ignore[override]
        from assay.data.cells import visible

        super().print(*(visible(o) if isinstance(o, str) else o for o in objects), **kwargs)


console = _Console()
err_console = _Console(stderr=True)

MapOption = Annotated[list[str] | None, typer.Option(
    "--map", help="Rename columns: SOURCE=COLUMN[,SOURCE=COLUMN...]; COLUMN '-' drops SOURCE.")]
SetOption = Annotated[list[str] | None, typer.Option(
    "--set", help="Fill a column the file lacks with one value: COLUMN=VALUE (e.g. judge=gpt-4o).")]
ScaleOption = Annotated[list[str] | None, typer.Option(
    "--scale", help="Declare a criterion's scale: CRITERION=interval|binary|range:MIN,MAX|"
    "ordinal:L1,L2,...|nominal:L1,L2,... (ordinal levels from lowest to highest).")]


def _scales(options: list[str] | None) -> dict:
    from assay.data.schema import parse_scale_option

    scales = {}
    for option in options or []:
        try:
            name, scale = parse_scale_option(option)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        scales[name] = scale
    return scales


def _mapping(options: list[str] | None) -> dict[str, str]:
    from assay.data.validate import parse_mapping

    try:
        return parse_mapping(options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _constants(options: list[str] | None) -> dict[str, str]:
    from assay.data.validate import parse_assignments

    try:
        return parse_assignments(options)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` console script."""
    try:
        # standalone mode: typer prints usage errors itself and exits 2 (SystemExit passes)
        app(args=argv, prog_name="assay")
    except AssayError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
    except Exception as exc:
        if os.environ.get("ASSAY_DEBUG"):
            raise
        err_console.print(f"internal error: {type(exc).__name__}: {exc} "
                          "(set ASSAY_DEBUG=1 for the traceback, and please report it)",
                          markup=False, highlight=False, soft_wrap=True)
        sys.exit(1)

