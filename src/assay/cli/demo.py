"""``assay demo``: the whole job on a bundled, simulated evaluation, offline."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app, console


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
