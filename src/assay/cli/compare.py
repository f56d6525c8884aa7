"""``assay compare SRC_A SRC_B``: ranking differences, paired score deltas and coverage change.

Kept apart from :mod:`assay.cli`; the command is registered on the same typer app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app, console, parse_formats
from assay.errors import ConfigError

FORMATS = ("text", "json", "html")


@app.command("compare")
def compare_command(
    src_a: Annotated[Path, typer.Argument(help="Run A (the baseline): a judgments file or run folder.")],
    src_b: Annotated[Path, typer.Argument(help="Run B, compared with A.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for json and html files.")]
    = Path("comparison"),
    format_: Annotated[str, typer.Option(
        "--format", help="Comma-separated: text (to the terminal), json (comparison.json) and "
        "html (compare.html plus index.html) in --out.")] = "text",
    conf: Annotated[float, typer.Option(help="Confidence level of the paired intervals.")] = 0.95,
) -> None:
    """Compare two runs: rank changes, B - A score deltas over shared items, coverage change.

    Example: assay compare runs/v1 runs/v2 --format text,html --out comparison
    """
    from assay.analysis.compare import compare
    from assay.data.io import load

    formats = parse_formats(format_, FORMATS)
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"--conf {conf}: expected a number between 0 and 1")
    report = compare(load(src_a), load(src_b), conf=conf, label_a=str(src_a), label_b=str(src_b))
    written: list[Path] = []
    if "text" in formats:
        console.print(str(report), markup=False, highlight=False, soft_wrap=True)
    if "json" in formats:
        out.mkdir(parents=True, exist_ok=True)
        path = out / "comparison.json"
        path.write_text(report.to_json() + "\n", encoding="utf-8")
        written.append(path)
    if "html" in formats:
        from assay.report.html import render_html

        written += render_html([report], out, title="Run comparison")
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)
