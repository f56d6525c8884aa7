"""The ``assay`` command line: parse, call the library, show the result.

Every error a user can cause prints one clear message and exits with status 2; no
traceback is shown (set ``ASSAY_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

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
console = Console()
err_console = Console(stderr=True)

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


@app.command("validate")
def validate_command(
    files: Annotated[list[Path], typer.Argument(help="Judgments files or run folders.")],
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    balanced: Annotated[bool, typer.Option(
        "--balanced", help="Also require every arm to have every run on every item.")] = False,
) -> None:
    """Check judgments files and list every problem (file, row, column, what was expected).

    Example: assay validate scores.csv --map question_id=item,model=arm --scale quality=range:0,100
    """
    from assay.data.balance import balance_problems
    from assay.data.io import load_many
    from assay.errors import ValidationError
    from assay.report.text import table_overview

    judgments = load_many(files, mapping=_mapping(map_), constants=_constants(set_),
                          scales=_scales(scale))
    if balanced:
        problems = balance_problems(judgments.frame, path=", ".join(map(str, files)))
        if problems:
            raise ValidationError(problems)
    console.print(table_overview(judgments), markup=False, highlight=False, soft_wrap=True)
    console.print("valid", style="green")


@app.command("import")
def import_command(
    fmt: Annotated[str, typer.Argument(
        metavar="FORMAT", help="table | results-json | alpaca-eval | bench")],
    sources: Annotated[list[Path], typer.Argument(help="Files or folders to read.")],
    out: Annotated[Path, typer.Option(
        "-o", "--out", help="Output table: .parquet (recommended), .csv, .jsonl or .json.")],
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
) -> None:
    """Import judgments from another tool's files into one validated table.

    Example: assay import alpaca-eval results/ -o alpaca.parquet
    """
    from assay.data.importers import run_importer
    from assay.report.text import table_overview

    judgments = run_importer(fmt, sources, mapping=_mapping(map_), constants=_constants(set_),
                             scales=_scales(scale))
    if out.exists() and out.is_dir():
        raise ConfigError(f"--out {out} is a folder; give a file name such as {out}/table.parquet")
    written = judgments.save(out)
    console.print(table_overview(judgments), markup=False, highlight=False, soft_wrap=True)
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


@app.command("demo")
def demo_command(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the example and reports into.")]
    = Path("assay-demo"),
    seed: Annotated[int, typer.Option(help="Seed of the simulated evaluation.")] = 7,
) -> None:
    """Run assay end to end on a bundled, simulated evaluation (offline, no API key).

    Example: assay demo --out demo-out
    """
    from assay.demo.run import run_demo

    run_demo(out, seed=seed, console=console)


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

