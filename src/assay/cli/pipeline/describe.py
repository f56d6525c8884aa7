"""``assay describe CONFIG``: the plan of a config before any money is spent.

Builds the plan exactly as ``assay judge`` does (so every check of the run runs: inputs,
prompts, prices; a key the run needs and the environment lacks is a note, as nothing is
sent), then prints what it will send (per judge and per model: calls,
estimated tokens, cost, and the wall time at the configured concurrency) and, with
``--out``, writes the same as one self-contained HTML page.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli._app import app, check_out_folder
from assay.cli._terminal import say
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.judge.config import AssayConfig
    from assay.judge.judges import JudgeInputs
    from assay.pipeline.describe import BaselineLine, GenerationLine


@app.command("describe")
def describe_command(
    config: Annotated[Path, typer.Argument(help="The judge config (YAML), as assay judge reads it.")],
    out: Annotated[Path | None, typer.Option(
        "-o", "--out", help="Write the plan as one self-contained HTML file (e.g. plan.html).")] = None,
    run: Annotated[Path | None, typer.Option(
        "--run", help="A run folder: judgments it already holds are not counted again.")] = None,
    seconds_per_call: Annotated[float, typer.Option(
        "--seconds-per-call", help="Assumed wall time of one request, for the time estimate.")] = 3.0,
) -> None:
    """Show what a config will send, to which models, for how much and how long, before
    anything is sent: systems and items, calls per judge and per model, estimated tokens and
    cost (unknown, never $0, for a model without a price), and the time at the config's
    max_concurrency. Every check of assay judge runs first; no API key is needed (a missing
    one is a note).

    Example: assay describe judge.yaml --out plan.html
    """
    from assay.judge.config import load_config
    from assay.judge.inputs import load_inputs
    from assay.judge.plan import build_followups, build_plan, missing_credentials, preflight
    from assay.llm import STORE_FILENAME, RunStore
    from assay.pipeline.describe import describe_plan
    from assay.report.text.plan import format_plan

    if not seconds_per_call > 0:
        raise ConfigError(f"--seconds-per-call: expected a positive number, got {seconds_per_call:g}")
    if out is not None:
        check_out_folder(out.parent, shown=out)
    cfg = load_config(config)
    generation: tuple[GenerationLine, ...] = ()
    if cfg.systems:
        cfg, inputs, generation = _generation(cfg, run)
    else:
        inputs = load_inputs(cfg)
    plan = build_plan(cfg, inputs)
    problems = preflight(plan, credentials=False)  # nothing is sent: no key is needed
    missing = missing_credentials(plan)
    if cfg.systems:
        from assay.pipeline.generate import system_credentials, system_problems

        problems = system_problems(cfg, credentials=False) + problems
        missing = system_credentials(cfg) + missing
    if problems:
        raise ConfigError("; ".join(problems))
    stored = None
    if run is not None:
        if not (run / STORE_FILENAME).is_file():
            raise ConfigError(f"--run {run}: no {STORE_FILENAME} there (not a run folder)")
        with RunStore(run) as store:
            stored = store.status()
            build_followups(plan, store)
    description = describe_plan(plan, config=config.name, seconds_per_call=seconds_per_call,
                                stored=stored, generation=generation,
                                baselines=_baselines(cfg, inputs, run))
    say(format_plan(description))
    for line in missing:
        say(f"note: {line}; the run needs it, the description does not", error=True)
    if out is not None:
        from assay.data.atomic import write_text
        from assay.report.html.plan import render_plan_html

        out.parent.mkdir(parents=True, exist_ok=True)
        write_text(out, render_plan_html(description))
        say(f"wrote {out}")


def _generation(cfg: AssayConfig, run: Path | None) -> tuple[AssayConfig, JudgeInputs,
                                                             tuple[GenerationLine, ...]]:
    """A config with systems: the datapoints (the run folder's when it has them, else the
    config's sample, or stand-ins for a teacher's items), the generation phase's lines, and
    the answers the judges' plan counts (the run's, else stand-ins of the estimated length)."""
    from assay.cli.pipeline.generate import _sample
    from assay.judge.inputs import load_inputs
    from assay.llm import STORE_FILENAME, RunStore
    from assay.pipeline.generate import GENERATION_FOLDER, TEACHER_FOLDER, generated_inputs, read_datapoints
    from assay.pipeline.generate.plan import describe_generation, placeholder_inputs, teacher_placeholders

    section: Any = cfg.datapoints
    if run is not None and (run / "datapoints.jsonl").is_file():
        points: list[dict[str, Any]] = read_datapoints(run / "datapoints.jsonl")
    elif section is None:
        raise ConfigError("datapoints: the config has systems but no datapoints section (give "
                          "--run RUN with a datapoints.jsonl, or add the section)")
    elif section.kind == "table":
        points = _sample(cfg).datapoints
    elif section.kind == "file":
        points = read_datapoints(cfg.path(section.path))
    else:
        points = teacher_placeholders(cfg)

    def status(folder: str) -> dict[str, bool]:
        if run is None or not (run / folder / STORE_FILENAME).is_file():
            return {}
        with RunStore(run / folder) as store:
            return store.status()

    lines = describe_generation(cfg, points, stored=status(GENERATION_FOLDER),
                                teacher_stored=status(TEACHER_FOLDER))
    if run is not None and (run / "answers.jsonl").is_file():
        cfg = generated_inputs(cfg, run)
        return cfg, load_inputs(cfg), lines
    return cfg, placeholder_inputs(cfg, points), lines


def _baselines(cfg: AssayConfig, inputs: JudgeInputs, run: Path | None) -> tuple[BaselineLine, ...]:
    """The LLM baselines' calls of a config with a ``baselines:`` section (``assay run``'s
    baselines step): G-Eval on the run folder's responses when it has them, else on the
    answers the judges' plan counts; the judgments G-Eval's store holds are not counted."""
    if cfg.baselines is None:
        return ()
    from assay.llm import STORE_FILENAME, RunStore
    from assay.pipeline.baselines import (
        BASELINES_DIR,
        as_baselines_config,
        describe_baselines,
        run_targets,
    )
    from assay.pipeline.geval import GEvalTarget

    settings = as_baselines_config(cfg)
    if run is not None and (run / "datapoints.jsonl").is_file() \
            and (run / "responses.jsonl").is_file():
        targets = run_targets(run)
    else:
        targets = [GEvalTarget(f"{arm}/{item}", item, arm, answer.task or "all",
                               answer.question, answer.text)
                   for arm in inputs.arms for item in inputs.items(arm)
                   for answer in [inputs.answers[arm][item]]]
    stored: dict[str, bool] = {}
    if run is not None and (run / BASELINES_DIR / STORE_FILENAME).is_file():
        with RunStore(run / BASELINES_DIR) as store:
            stored = store.status()
    return describe_baselines(settings, targets, stored=stored)
