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
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="RULE",
                     help="Also show sequential judging (assay judge --until RULE: decided or width=W) on "
                     "the demo's design: the simulated judge-lenient and judge-pairwise verdicts are "
                     "replayed by offline judges through assay judge --until's own loop, which says "
                     "whether it stopped early, why, and the judgments it did not make."),
    ] = None,
) -> None:
    """Run assay end to end on a bundled, simulated evaluation (offline, no API key).

    Example: assay demo --out demo-out; assay demo --out demo-out --until width=1.2
    """
    from assay.cli._terminal import status
    from assay.demo.run import run_demo
    from assay.judge.sequential import stopping_rule

    if until is not None:
        stopping_rule(None, until=until)  # a bad rule exits 2 in one line, before anything is written
    with status("assay demo") as show:
        run_demo(out, seed=seed, console=console, progress=show, until=until)
        show("indexing the judgments for assay view")
        _index_for_view(out)


def _index_for_view(out: Path) -> None:
    """Build the viewer's index of the demo's judgments table now, while its libraries are
    loaded, so the ``assay view OUT`` the demo's last line suggests opens at once (the index
    is kept in the viewer's cache folder, as the first ``assay view`` would keep it)."""
    from assay.data.io import load
    from assay.view import JudgmentIndex

    table = out / "judgments.parquet"
    JudgmentIndex(table, loader=lambda: load(table)).close()
