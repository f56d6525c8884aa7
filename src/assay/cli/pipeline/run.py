"""``assay run CONFIG --out RUN``: the whole evaluation from one config, step by step.

The steps are :data:`STEPS`, in order; each applies when the config declares its section,
prints what it does (the command that does the same on its own) and runs it. Adding a step
is one entry. Every step resumes: the datapoints are rebuilt deterministically (a table's
sample is seeded; a teacher's replies are stored), the answers and judgments come from
their run stores and the response cache, and the files after them are rewritten, so
rerunning after a kill pays no call twice.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from assay.cli._app import app, check_out_folder
from assay.cli._terminal import say
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.judge.config import AssayConfig


@dataclass(frozen=True)
class Context:
    """What a step is given: the config as read, its file and the run folder."""

    config: AssayConfig
    path: Path
    run: Path


@dataclass(frozen=True)
class Step:
    """One step of ``assay run``."""

    name: str
    applies: Callable[[AssayConfig], bool]
    """Whether the config asks for this step."""
    commands: Callable[[Context], list[list[str]]]
    """The ``assay`` commands the step runs (printed, then run in this process)."""


def _generate(ctx: Context) -> list[list[str]]:
    keep = ["--keep-datapoints"] if ctx.config.datapoints is not None else []
    return [["generate", str(ctx.path), "--out", str(ctx.run), *keep]]


def _judge(ctx: Context) -> list[list[str]]:
    return [["judge", str(ctx.path), "--out", str(ctx.run), "--display", "plain"]]


def _native(ctx: Context) -> list[list[str]]:
    step = ctx.config.native_scores
    if step is None:
        return []
    extra = ["--model-path", step.model_path] if step.model_path else []
    return [["native-scores", str(ctx.run), "--metric", step.metric, *extra]]


def _report(ctx: Context) -> list[list[str]]:
    step = ctx.config.report
    space = ctx.run / "attribute_space.json"
    extra = ["--attribute-space", str(space)] if space.is_file() else []
    if step.calibrate:
        extra.append("--calibrate")
    return [["report", str(ctx.run), "--kind", ",".join(step.kinds), "--format", ",".join(step.formats),
             "--out", str(_inside(ctx, step.out, "report.out")), *extra]]


def _export(ctx: Context) -> list[list[str]]:
    return [["export", str(ctx.run), "--format", e.format,
             "--out", str(_inside(ctx, e.out, f"export[{i}].out"))]
            for i, e in enumerate(ctx.config.export)]


def _inside(ctx: Context, out: str, key: str) -> Path:
    """``RUN/out``, refused when it resolves outside the run folder (through a link inside
    it: the config's text was checked when it was read)."""
    target = ctx.run / out
    root = ctx.run.resolve()
    if not target.resolve().is_relative_to(root):
        raise ConfigError(f"{ctx.path}: {key}: {out!r} resolves to {target.resolve()}, outside "
                          f"the run folder {ctx.run} (a link in it leads out)")
    return target


def _datapoints(ctx: Context) -> list[list[str]]:
    return [["generate", str(ctx.path), "--out", str(ctx.run), "--datapoints-only"]]


def _baselines(ctx: Context) -> list[list[str]]:
    methods = (ctx.config.baselines or {}).get("methods")
    listed = ["--methods", ",".join(map(str, methods))] if isinstance(methods, list) else []
    return [["baselines", str(ctx.run), "--config", str(ctx.path), *listed]]


STEPS: tuple[Step, ...] = (
    Step("datapoints", lambda c: c.datapoints is not None, _datapoints),
    Step("generate", lambda c: bool(c.systems), _generate),
    Step("judge", lambda c: bool(c.judges), _judge),
    Step("native-scores", lambda c: c.native_scores is not None, _native),
    # The judge baselines (BERTScore, G-Eval): `assay baselines` reads the config's baselines
    # section (with its llm and cache) like any other step's command.
    Step("baselines", lambda c: c.baselines is not None, _baselines),
    Step("report", lambda c: bool(c.judges), _report),
    Step("export", lambda c: bool(c.export) and bool(c.judges), _export),
)
"""The steps of ``assay run``, in order."""


@app.command("run")
def run_command(
    config: Annotated[Path, typer.Argument(help="The config (YAML) of the whole evaluation.")],
    out: Annotated[Path, typer.Option("--out", help="The run folder (created; a rerun resumes).")],
    steps: Annotated[str | None, typer.Option(
        "--steps", metavar="NAME,...", help="Run only these steps (datapoints, generate, judge, "
        "native-scores, baselines, report, export).")] = None,
) -> None:
    """Run the whole evaluation a config declares: datapoints (if declared), the systems'
    answers, the judges, native scores (if declared), baselines (if declared), the reports
    (kinds from the config, default all) and the exports (if declared). Each step prints the
    command that does it on its own. Rerunning after a stop or a kill resumes: nothing
    stored is asked again.

    Exit status: 0 every step finished; 2 a user error; 3 a step finished with failures or
    stopped early (later steps are not run; the same command resumes).

    Example: assay run eval.yaml --out runs/exp1
    """
    from assay.config.dotenv import dotenv_paths, load_dotenv
    from assay.judge.config import load_config

    load_dotenv(dotenv_paths(config))  # keys from .env, never over a variable already set
    cfg = load_config(config)
    check_out_folder(out)
    chosen = [s for s in STEPS if s.applies(cfg)]
    if steps is not None:
        names = [n.strip() for n in steps.split(",") if n.strip()]
        unknown = [n for n in names if n not in {s.name for s in STEPS}]
        if unknown:
            raise ConfigError(f"--steps {unknown[0]!r}: expected some of {', '.join(s.name for s in STEPS)}")
        chosen = [s for s in chosen if s.name in names]
    if not chosen:
        raise ConfigError(f"{config}: declares nothing to run (datapoints, systems or judges)")
    ctx = Context(cfg, config, out)
    for key, path in [("report.out", cfg.report.out),
                      *((f"export[{i}].out", e.out) for i, e in enumerate(cfg.export))]:
        _inside(ctx, path, key)  # before the first step: nothing is paid for a run that cannot finish
    resume = shlex.join(["assay", "run", str(config), "--out", str(out)])
    for number, step in enumerate(chosen, start=1):
        for words in step.commands(ctx):
            say(f"[{number}/{len(chosen)}] {step.name}: {shlex.join(['assay', *words])}")
            code = _invoke(words)
            if code:
                say(f"step {step.name} ended with exit status {code}; later steps not run; "
                    f"to resume: {resume}")
                raise typer.Exit(code)
    say(f"done: {len(chosen)} steps into {out}")


def _invoke(words: list[str]) -> int:
    """Run one ``assay`` command in this process; its exit status."""
    from assay.cli._app import command

    code = command().main(words, prog_name="assay", standalone_mode=False)
    return code if isinstance(code, int) else 0
