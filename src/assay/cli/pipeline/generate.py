"""``assay generate CONFIG --out RUN``: the systems under test answer the datapoints."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli._app import app, check_out_folder
from assay.cli._terminal import say
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.datapoints import DatapointSample
    from assay.judge.config import AssayConfig
    from assay.llm import Progress
    from assay.pipeline.generate import Generation

EXIT_INCOMPLETE = 3


@app.command("generate")
def generate_command(
    config: Annotated[Path, typer.Argument(help="The config (YAML) with systems and datapoints.")],
    out: Annotated[Path, typer.Option("--out", help="The run folder (created; a rerun resumes).")],
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Count the answers each system would be asked for; send nothing, "
        "write nothing, need no API key.")] = False,
    limit: Annotated[int | None, typer.Option(
        "--limit", metavar="N", min=1, help="Answer only the first N datapoints of each task (a "
        "smoke run; a later run without --limit adds the rest).")] = None,
    retry_failed: Annotated[bool, typer.Option(
        "--retry-failed", help="Ask again the answers stored as failed.")] = False,
    cache: Annotated[str | None, typer.Option(
        "--cache", metavar="WHERE", help="The response cache: run (the default), shared, off or "
        "a file; overrides the config's cache key.")] = None,
    keep_datapoints: Annotated[bool, typer.Option(
        "--keep-datapoints", help="Answer RUN/datapoints.jsonl as it is instead of building the "
        "config's datapoints first (assay run builds them in its own step).")] = False,
    datapoints_only: Annotated[bool, typer.Option(
        "--datapoints-only", help="Build the config's datapoints into RUN/datapoints.jsonl, "
        "then stop (assay run's first step).")] = False,
) -> None:
    """Have each system of the config answer each datapoint, through the judges' engine
    (concurrency, retries, the response cache, the cost limit), into the run folder:
    responses.jsonl (every answer; a failed one has no text and its failure_kind) and
    answers.jsonl (the good answers, which assay judge on the same config and run folder
    judges). The config's datapoints section is built first into datapoints.jsonl; without
    one, RUN/datapoints.jsonl is answered. A rerun asks only what is not stored.

    Exit status: 0 every answer is stored and good; 2 a user error; 3 answers failed, a
    planned answer or teacher prompt is not stored (the cost limit, a batch that expired or
    lost result lines: the notes say which), and the command that resumes is printed (a
    rerun resumes; --retry-failed asks the failed ones again).

    Example: assay generate eval.yaml --out runs/exp1 --dry-run
    """
    from assay.config.dotenv import dotenv_paths, load_dotenv
    from assay.judge.config import load_config
    from assay.llm import RunLock

    load_dotenv(dotenv_paths(config))  # keys from .env, never over a variable already set
    cfg = load_config(config)
    if datapoints_only and cfg.datapoints is None:
        raise ConfigError(f"{config}: --datapoints-only: the config has no datapoints section")
    if not cfg.systems and not datapoints_only:
        raise ConfigError(f"{config}: systems: the config declares no systems to answer the datapoints")
    check_out_folder(out)
    from assay.cli.judge import _cache_setting

    setting = _cache_setting(cache)
    if dry_run:
        _dry_run(cfg, out, limit)
        return
    words = [*(["--limit", str(limit)] if limit is not None else []),
             *(["--cache", cache] if cache is not None else []),
             *(["--keep-datapoints"] if keep_datapoints else []),
             *(["--datapoints-only"] if datapoints_only else [])]
    resume = shlex.join(["assay", "generate", str(config), "--out", str(out), *words])
    with RunLock(out) as lock:
        if lock.note:
            say(f"note: {lock.note}")
        points = _datapoints(cfg, out, keep=keep_datapoints, cache=setting, resume=resume)
        if datapoints_only:
            return
        if limit is not None:
            points = first_per_task(points, limit)
        from assay.pipeline.generate import generate_answers

        result = generate_answers(cfg, out, points, cache=setting, retry_failed=retry_failed,
                                  progress=_progress())
    code = print_generation(result, resume=resume)
    if code:
        raise typer.Exit(code)


def first_per_task(points: list[dict[str, object]], limit: int) -> list[dict[str, object]]:
    """The first ``limit`` datapoints of each task, in file order."""
    seen: dict[object, int] = {}
    out = []
    for point in points:
        task = point.get("task")
        if seen.get(task, 0) < limit:
            seen[task] = seen.get(task, 0) + 1
            out.append(point)
    return out


def _datapoints(cfg: AssayConfig, out: Path, *, keep: bool, cache: str | None,
                resume: str) -> list[dict[str, object]]:
    """The datapoints to answer, built first when the config declares them; a teacher phase
    that left a prompt unstored ends the command (exit 3, before any system is asked)."""
    from assay.pipeline.generate import build_datapoints, read_datapoints

    target = out / "datapoints.jsonl"
    if cfg.datapoints is not None and not keep:
        built = None if cfg.datapoints.kind == "table" else build_datapoints(cfg, out, cache=cache)
        for line in _sampled(cfg, out) if built is None else built.lines:
            say(line)
        if built is not None and built.planned:  # a teacher's prompts
            from assay.cli._stored import print_stored

            code = print_stored(built.stored, built.planned, "teacher prompts", resume=resume)
            if code:
                raise typer.Exit(code)
    elif not target.is_file():
        raise ConfigError(f"datapoints: the config declares none and {target} does not exist "
                          "(add a datapoints section, or run assay datapoints into the run folder)")
    return read_datapoints(target)


def _sample(cfg: AssayConfig) -> DatapointSample:
    """The config's table of items sampled over its target attributes (as assay datapoints)."""
    from assay.datapoints import load_items, sample_items

    section: Any = cfg.datapoints
    source = section.source if section.source.startswith("hf:") else str(cfg.path(section.source))
    items = load_items(source, mapping=section.map, attributes=section.attributes,
                       task=section.task, split=section.split)
    return sample_items(items, section.sample_size or len(items), strategy=section.strategy,
                        seed=section.seed)


def _sampled(cfg: AssayConfig, out: Path) -> list[str]:
    """Sample the config's table into ``out``: datapoints.jsonl and attribute_space.json (the
    same files for the same config: the sample is seeded)."""
    from assay.datapoints import write_datapoints

    sample = _sample(cfg)
    write_datapoints(sample, out)
    return [f"wrote {out / 'datapoints.jsonl'}: {len(sample.datapoints)} of {sample.population} items "
            f"({sample.strategy}, seed {sample.seed}), {sample.strata_sampled} of {sample.strata} "
            "strata sampled", *(f"note: {n}" for n in sample.notes)]


def _dry_run(cfg: AssayConfig, out: Path, limit: int | None) -> None:
    """What a run would ask, sending and writing nothing (and needing no key)."""
    from assay.pipeline.generate import generate_answers, read_datapoints, system_credentials

    section = cfg.datapoints
    target = out / "datapoints.jsonl"
    if section is not None and section.kind == "teacher":
        from assay.pipeline.generate.teacher import strata

        n = sum(len(strata(t)) for t in section.tasks)
        say(f"dry run: teacher {section.model} would be asked {n} prompts (one per stratum) for up to "
            f"{n * section.items_per_stratum} items; each system answers each item")
        if not target.is_file():
            return
        points = read_datapoints(target)
    elif section is not None and section.kind == "table":
        points = _sample(cfg).datapoints
    elif section is not None:
        points = read_datapoints(cfg.path(section.path))
    else:
        points = read_datapoints(target)
    if limit is not None:
        points = first_per_task(points, limit)
    result = generate_answers(cfg, out, points, dry_run=True)
    say(f"dry run: {len(points)} datapoints x {len(result.systems)} systems; nothing sent")
    for s in result.systems:
        stored = s.good + s.failed
        say(f"  {s.system} ({s.endpoint}): {s.planned} answers, {stored} stored, "
            f"{s.planned - stored} to ask")
    for missing in system_credentials(cfg):
        say(f"note: {missing}; the run needs it, the dry run does not", error=True)


def _progress() -> object:
    import time

    last = [0.0]

    def show(system: str, p: Progress) -> None:
        now = time.monotonic()
        if now - last[0] >= 5.0 and p.done < p.total:
            last[0] = now
            say(f"  {system}: {p.done} of {p.total} answers ({p.failed} failed)")

    return show


def print_generation(result: Generation, *, resume: str) -> int:
    """A line per system, the engine's notes, what is stored of the plan; the exit status (0,
    or 3 when an answer failed or is not stored)."""
    from assay.cli._stored import print_notes, print_stored

    for s in result.systems:
        if s.summary is None:
            say(f"{s.system} ({s.endpoint}): not asked (the cost limit stopped the run)")
            continue
        print_notes(s.summary.notes)
        failures = ", ".join(f"{n} {kind}" for kind, n in sorted(s.failures.items()))
        cost = f"${s.summary.usd:.4f}" + (" + unpriced" if s.summary.unpriced else "")
        say(f"{s.system} ({s.endpoint}): {s.good} of {s.planned} answers good"
            + (f", {s.failed} failed ({failures})" if s.failed else "")
            + f"; {s.summary.calls} calls, {s.summary.cached} from the cache, {s.summary.skipped} "
            f"already stored, {cost}")
    for path in result.paths:
        say(f"wrote {path}")
    if result.stopped:
        say(f"stopped: {result.stopped.replace('_', ' ')}")
    failed = sum(s.failed for s in result.systems)
    stored = sum(s.good + s.failed for s in result.systems)
    noted = any(s.summary is not None and s.summary.notes for s in result.systems)
    code = print_stored(stored, sum(s.planned for s in result.systems), "answers", resume=resume,
                        failed=failed, noted=noted or result.stopped is not None)
    return 0 if result.complete and not failed and not code else EXIT_INCOMPLETE
