"""``assay export SRC... --format F -o OUT``: standings for leaderboards.

Per criterion, judge and opponent, every system's mean score with its interval and rank
(:func:`assay.analysis.standings.standings`), written as assay's versioned JSON or CSV
(``docs/export.md``), AlpacaEval's leaderboard CSV, or a Hugging Face dataset folder.
"""

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
from assay.cli._terminal import say
from assay.errors import ConfigError, did_you_mean

EXPORT_FORMATS = ("leaderboard-json", "leaderboard-csv", "alpaca-eval-csv", "hf-dataset")


@app.command("export")
def export_command(
    files: Annotated[list[Path], typer.Argument(help="Judgments tables or run folders.")],
    format_: Annotated[str, typer.Option(
        "--format", help="leaderboard-json, leaderboard-csv, alpaca-eval-csv or hf-dataset (a folder).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The file to write (a folder for hf-dataset).")],
    judge: Annotated[str | None, typer.Option(help="alpaca-eval-csv: the judge (annotator).")] = None,
    baseline: Annotated[str | None, typer.Option(help="alpaca-eval-csv: the baseline system.")] = None,
    criterion: Annotated[str | None, typer.Option(help="alpaca-eval-csv: the criterion.")] = None,
    conf: Annotated[float, typer.Option(help="Confidence level of every interval.")] = 0.95,
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    missing: MissingOption = None,
) -> None:
    """Export every system's score, interval and rank per criterion, judge and opponent, for
    a leaderboard: assay's versioned JSON or CSV (schema assay.standings/1, docs/export.md),
    AlpacaEval's leaderboard CSV (one judge against one baseline), or a Hugging Face dataset
    folder (data/standings.parquet and a dataset card).

    Example: assay export judgments.parquet --format alpaca-eval-csv --judge weighted_alpaca_eval_gpt4_turbo
    -o leaderboard.csv
    """
    from assay.analysis.standings import standings
    from assay.report.files import leaderboard as writers

    chosen = format_.strip().lower()
    if chosen not in EXPORT_FORMATS:
        raise ConfigError(f"--format {format_!r}: expected one of {', '.join(EXPORT_FORMATS)}"
                          f"{did_you_mean(chosen, EXPORT_FORMATS)}")
    if not 0 < conf < 1:
        raise ConfigError(f"--conf: expected a level in (0, 1), got {conf:g}")
    check_out_folder(out if chosen == "hf-dataset" else out.parent, shown=out)
    if chosen != "hf-dataset" and out.is_dir():
        raise ConfigError(f"--out {out}: is a folder; give a file name")
    result = standings(load_inputs(files, map_, set_, scale, missing), conf=conf)
    if chosen != "hf-dataset":
        out.parent.mkdir(parents=True, exist_ok=True)
    if chosen == "leaderboard-json":
        writers.write_standings_json(result, out)
    elif chosen == "leaderboard-csv":
        writers.write_standings_csv(result, out)
    elif chosen == "alpaca-eval-csv":
        writers.write_alpaca_eval_csv(result, out, judge=judge, baseline=baseline, criterion=criterion)
    else:
        writers.write_hf_dataset(result, out)
    boards = len({(r.criterion, r.judge, r.opponent) for r in result.rows})
    say(f"wrote {out}: {len(result.rows)} standings on {boards} boards ({chosen})")
