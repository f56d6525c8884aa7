"""``assay validate FILE...``: check judgments files and list every problem."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import MapOption, MissingOption, ScaleOption, SetOption, app, console, load_inputs


@app.command("validate")
def validate_command(
    files: Annotated[list[Path], typer.Argument(help="Judgments files or run folders.")],
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    missing: MissingOption = None,
    balanced: Annotated[bool, typer.Option(
        "--balanced", help="Also require every arm to have every run on every item.")] = False,
) -> None:
    """Check judgments files and list every problem (file, row, column, what was expected).

    Example: assay validate scores.csv --map question_id=item,model=arm --scale quality=range:0,100
    """
    from assay.data.balance import balance_problems
    from assay.errors import ValidationError
    from assay.report.text import table_overview

    judgments = load_inputs(files, map_, set_, scale, missing)
    if balanced:
        problems = balance_problems(judgments.frame, path=", ".join(map(str, files)))
        if problems:
            raise ValidationError(problems)
    console.print(table_overview(judgments), markup=False, highlight=False, soft_wrap=True)
    console.print("valid", style="green")
