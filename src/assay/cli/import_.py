"""``assay import FORMAT SOURCE...``: another tool's files into one validated judgments table.

The module is ``import_`` because ``import`` is a Python keyword."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import (
    MapOption,
    MissingOption,
    ScaleOption,
    SetOption,
    _check_scales_used,
    _constants,
    _mapping,
    _missing,
    _scales,
    _sources,
    app,
    check_out_file,
    console,
)


@app.command("import")
def import_command(
    fmt: Annotated[str, typer.Argument(
        metavar="FORMAT", help="table | results-json | alpaca-eval | bench | mt-bench | "
        "arena-hard | qed | lm-eval | judgebench | inspect | promptfoo | coeval "
        "(docs/formats/FORMAT.md); qed-config: a BenchmarkQED settings YAML to an assay "
        "judge config")],
    sources: Annotated[list[Path], typer.Argument(help="Files or folders to read.")],
    out: Annotated[Path, typer.Option(
        "-o", "--out", help="Output table: .parquet (recommended), .csv, .jsonl or .json.")],
    map_: MapOption = None,
    set_: SetOption = None,
    scale: ScaleOption = None,
    missing: MissingOption = None,
    duplicates: Annotated[str | None, typer.Option(
        "--duplicates", metavar="error|first|last|mean|keep",
        help="How records repeating a judgment (an appended re-run) are read: refused "
        "(error), the first or last kept, averaged (mean: one row weighted by its scored "
        "repeats) or kept as further runs (keep). Default: as the format's own tool reads "
        "them (mt-bench mean, coeval keep; error for the others).")] = None,
    lc_difficulty: Annotated[Path | None, typer.Option(
        "--lc-difficulty", help="alpaca-eval: AlpacaEval's instruction difficulty CSV "
        "(instruction_difficulty.csv), so the leaderboard's length-controlled win rate is "
        "AlpacaEval's GLM")] = None,
    qed_install: Annotated[Path | None, typer.Option(
        "--qed-install", help="qed-config: the BenchmarkQED installation whose prompt files and "
        "default criteria are converted (its package folder, site-packages or venv); default: "
        "the benchmark_qed this Python finds")] = None,
) -> None:
    """Import judgments from another tool's files into one validated table.

    Example: assay import alpaca-eval results/ -o alpaca.parquet

    \b
    More examples:
      assay import mt-bench gpt-4_single.jsonl question.jsonl -o mt.parquet
      assay import arena-hard model_judgment/gpt-4-1106-preview -o arena.parquet
      assay import arena-hard old/model_judgment/gpt-4-1106-preview --set baseline=gpt-4-0314 \\
          -o arena.parquet            # the v0.1 layout names no baseline
      assay import qed win_rates.csv reference_scores-graph_rag.csv \\
          --scale correctness=range:1,10 -o qed.parquet
      assay import lm-eval output/EleutherAI__pythia-160m -o lm.parquet
      assay import promptfoo results.json -o promptfoo.parquet   # promptfoo eval -o results.json
      assay import coeval Runs/my-experiment-v1 -o coeval.parquet
      assay import inspect logs/ -o inspect.parquet     # pip install 'assay[inspect]'
      assay import qed-config pairwise_test/settings.yaml -o assay.yaml   # a judge config
      assay import table scores.csv --map question_id=item,model=arm --missing score=-1 -o t.parquet
    """
    if fmt == "qed-config":
        _qed_config(sources, out, qed_install)
        return
    from assay.data.io import run_importer
    from assay.report.text import table_overview

    check_out_file(out)
    scales = _scales(scale)
    fields = fmt != "table"  # an importer's --map and --set name its records' fields
    judgments = run_importer(fmt, _sources(sources), mapping=_mapping(map_, fields=fields),
                             constants=_constants(set_, fields=fields), scales=scales,
                             missing=_missing(missing), duplicates=duplicates,
                             lc_difficulty=lc_difficulty)
    _check_scales_used(judgments, scales)
    overview = table_overview(judgments)  # before writing: nothing is written for a table that fails
    written = judgments.save(out)
    console.print(overview, markup=False, highlight=False, soft_wrap=True)
    for note in judgments.read_notes:  # how repeats, undeclared scales and skipped files were read
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    for path in written:
        console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


def _qed_config(sources: list[Path], out: Path, qed_install: Path | None = None) -> None:
    """``assay import qed-config SETTINGS -o CONFIG.yaml``: BenchmarkQED settings to a judge config."""
    import yaml

    from assay.cli._app import check_out_folder
    from assay.errors import ConfigError
    from assay.judge.config import read_config_text, safe_yaml
    from assay.judge.qed_config import qed_settings_to_config

    if len(sources) != 1:
        raise ConfigError("qed-config takes one BenchmarkQED settings file")
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise ConfigError(f"--out {out}: the judge config is a YAML file (.yaml)")
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder; give a file name such as {out}/assay.yaml")
    check_out_folder(out.parent, shown=out)
    settings_path = sources[0]
    text = read_config_text(settings_path, "settings file")
    config, notes = qed_settings_to_config(safe_yaml(text, str(settings_path)),
                                           source=str(settings_path),
                                           folder=settings_path.parent, out_folder=out.parent,
                                           convert_prompts=True, qed_install=qed_install)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# assay judge config made by 'assay import qed-config' from "
                   f"{settings_path.name}\n" + yaml.safe_dump(config, sort_keys=False),
                   encoding="utf-8")
    for note in notes:
        console.print(f"note: {note}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)
