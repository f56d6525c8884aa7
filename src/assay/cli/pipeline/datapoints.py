"""``assay datapoints SRC -o DIR``: the items of an evaluation, sampled over target attributes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli._app import app, check_out_folder
from assay.cli._terminal import say
from assay.errors import ConfigError


@app.command("datapoints")
def datapoints_command(
    src: Annotated[str, typer.Argument(help="A table of items (JSONL, CSV, Parquet), or hf:NAME "
                                       "for a Hugging Face hub dataset (needs assay[hub]).")],
    out: Annotated[Path, typer.Option("-o", "--out", help="The run folder to write into.")],
    sample_size: Annotated[int | None, typer.Option(
        help="Items to sample (all when omitted).")] = None,
    strategy: Annotated[str, typer.Option(
        help="random, frequency (proportional to each stratum's size) or stratified (equal "
        "per stratum: covers the most strata).")] = "stratified",
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 42,
    attributes: Annotated[str | None, typer.Option(
        help="Comma-separated source columns that are the target attributes (the strata).")] = None,
    map_: Annotated[list[str] | None, typer.Option(
        "--map", help="COLUMN=FIELD onto id, task, cluster, prompt, reference, split "
        "(repeatable), e.g. question=prompt.")] = None,
    task: Annotated[str | None, typer.Option(help="The task of items that name none.")] = None,
    split: Annotated[str | None, typer.Option(help="hf: the split to read (train).")] = None,
) -> None:
    """Load the items of an evaluation and sample them over the strata of their target
    attributes; write datapoints.jsonl and attribute_space.json (the values the source holds,
    so that a value the sample missed is a gap in the coverage report).

    Example: assay datapoints questions.csv --map question=prompt,answer=reference
    --attributes difficulty,domain --sample-size 200 --strategy stratified -o runs/exp1
    """
    from assay.datapoints import STRATEGIES, load_items, sample_items, write_datapoints

    chosen = strategy.strip().lower()
    if chosen not in STRATEGIES:
        raise ConfigError(f"--strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if sample_size is not None and sample_size < 1:
        raise ConfigError(f"--sample-size: expected at least 1, got {sample_size}")
    mapping: dict[str, str] = {}
    for option in map_ or []:
        for pair in option.split(","):
            column, sep, target = pair.partition("=")
            if not sep or not column.strip() or not target.strip():
                raise ConfigError(f"--map {pair!r}: expected COLUMN=FIELD, e.g. question=prompt")
            mapping[column.strip()] = target.strip()
    keys = [a.strip() for a in (attributes or "").split(",") if a.strip()]
    check_out_folder(out)
    items = load_items(src, mapping=mapping, attributes=keys, task=task, split=split)
    sample = sample_items(items, sample_size or len(items), strategy=chosen, seed=seed)  # type: ignore[arg-type]
    paths = write_datapoints(sample, out)
    say(f"wrote {paths[0]}: {len(sample.datapoints)} of {sample.population} items ({chosen}, seed "
        f"{seed}), {sample.strata_sampled} of {sample.strata} strata sampled")
    say(f"wrote {paths[1]}: the target attributes and the values the source holds")
    for note in sample.notes:
        say(f"note: {note}")
