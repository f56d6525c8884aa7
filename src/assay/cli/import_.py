"""``assay import FORMAT SOURCE...``: another tool's files into one validated judgments table.

The module is ``import_`` because ``import`` is a Python keyword."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import MapOption, ScaleOption, SetOption, _constants, _mapping, _scales, app, console
from assay.errors import ConfigError


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
