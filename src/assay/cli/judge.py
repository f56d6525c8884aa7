"""``assay judge CONFIG.yaml``: run the config's judges into a run folder (a rerun resumes).

Registered on the ``assay`` typer app (imported by :mod:`assay.cli`).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from assay.cli._app import app, console, err_console
from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.judge.engine import RunSummary
    from assay.judge.plan import Plan

DEFAULT_CONFIG_NAME = "assay.yaml"


@app.command("judge")
def judge_command(
    config: Annotated[
        Path | None,
        typer.Argument(
            help="The config (YAML). With --init: where to write the example (default assay.yaml)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="The run folder (created; a rerun resumes). Default: runs/<config name>."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print the plan (calls per judge, estimated tokens and cost); send nothing."
        ),
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Ask again the judgments stored as failed.")
    ] = False,
    init: Annotated[bool, typer.Option("--init", help="Write a commented example config and exit.")] = False,
    display: Annotated[
        str,
        typer.Option(
            "--display", help="Progress: rich (a live bar) or plain (a line every few seconds, for CI)."
        ),
    ] = "rich",
    csv: Annotated[
        bool,
        typer.Option(
            "--csv/--no-csv",
            help="Also write BenchmarkQED's CSVs (win_rates.csv, reference_scores*.csv, differential scores, "
            "assertion and hierarchical summaries, chunk coverage).",
        ),
    ] = True,
) -> None:
    """Judge answers with the config's judges into a run folder; a rerun skips what is stored.

    Example: assay judge --init judge.yaml; assay judge judge.yaml --out runs/first --dry-run
    """
    from assay.judge.engine import EXAMPLE_CONFIG, load_config

    if display not in ("rich", "plain"):
        raise ConfigError(f"--display: expected rich or plain, got {display!r}")
    if init:
        target = config or Path(DEFAULT_CONFIG_NAME)
        if target.exists():
            raise ConfigError(f"{target}: already exists; --init does not overwrite a file")
        target.write_text(EXAMPLE_CONFIG, encoding="utf-8")
        console.print(f"wrote {target}: edit it, then run: assay judge {target} --dry-run", markup=False)
        return
    if config is None:
        raise ConfigError("CONFIG: give the config file (or --init to write an example)")
    from assay.judge.inputs import load_inputs
    from assay.judge.plan import build_plan

    cfg = load_config(config)
    inputs = load_inputs(cfg)
    plan = build_plan(cfg, inputs)
    folder = out if out is not None else Path("runs") / config.stem
    if dry_run:
        _print_plan(plan, folder)
        return
    mode: Literal["rich", "plain"] = "plain" if display == "plain" else "rich"
    summary = _run(plan, folder, retry_failed=retry_failed, display=mode)
    if csv:
        from assay.judge.qed_files import write_assertion_csvs, write_qed_csvs

        write_qed_csvs(plan, plan.inputs or inputs, folder)
        write_assertion_csvs(plan, folder)
    line = (
        f"{summary.done} judged ({summary.failed} failed, {summary.cached} from cache), "
        f"{summary.skipped} already stored, {summary.calls} calls, ${summary.usd:.4f}, "
        f"{summary.elapsed_s:.1f} s -> {folder}"
    )
    console.print(line, markup=False, highlight=False)
    if summary.stopped == "cost_limit":
        limit = cfg.llm.cost_limit_usd if cfg.llm is not None else None
        console.print(
            f"stopped: the cost limit (${limit}) is spent; raise llm.cost_limit_usd and rerun to resume",
            markup=False,
            highlight=False,
        )
    elif summary.failed:
        console.print(
            "some judgments failed: rerun with --retry-failed to ask them again",
            markup=False,
            highlight=False,
        )
    console.print(f"report: assay report {folder} --kind winrate", markup=False, highlight=False)


def _print_plan(plan: Plan, folder: Path) -> None:
    from assay.judge.engine import STORE_FILENAME, RunStore

    stored = None
    if (folder / STORE_FILENAME).is_file():
        from assay.judge.plan import build_followups

        with RunStore(folder) as store:
            stored = store.status()
            build_followups(plan, store)
    say = console.print
    say(f"plan (dry run: nothing sent) -> {folder}", markup=False, highlight=False)
    header = ("judge", "kind", "model", "calls", "pending", "stage2<=", "tokens_in~", "tokens_out~", "usd~")
    lines = [header]
    total_calls, total_usd = 0, 0.0
    for line in plan.lines(stored):
        total_calls += line.calls
        total_usd += line.usd or 0.0
        lines.append(
            (
                line.judge,
                line.kind,
                line.model or "(offline)",
                str(line.calls),
                "-" if line.pending is None else str(line.pending),
                str(line.followups) if line.followups else "-",
                str(line.tokens_in),
                str(line.tokens_out),
                "-" if line.usd is None else f"{line.usd:.4f}",
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    for row in lines:
        say(
            "  ".join(
                cell.ljust(w) if i < 3 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            ),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    console.print(
        f"total: {total_calls} judgments, about ${total_usd:.4f} (estimated: "
        "~4 characters a token in, 250 tokens out a call; stage2<=: second-stage calls at most, "
        "built from the first stage's verdicts, in the estimate)",
        markup=False,
        highlight=False,
    )


def _run(plan: Plan, folder: Path, *, retry_failed: bool, display: Literal["rich", "plain"]) -> RunSummary:
    from assay.judge.engine import Progress
    from assay.judge.plan import execute

    if display == "plain":
        last = [0.0]

        def plain(p: Progress) -> None:
            now = time.monotonic()
            if now - last[0] < 5.0 and p.done < p.total:
                return
            last[0] = now
            eta = "-" if p.eta_s is None else f"{p.eta_s:.0f}s"
            err_console.print(
                f"judged {p.done}/{p.total} ({p.skipped} stored before), {p.calls_per_s:.1f}/s, "
                f"{p.failed} failed, ${p.usd:.4f}, ETA {eta}",
                markup=False,
                highlight=False,
            )

        return asyncio.run(execute(plan, folder, retry_failed=retry_failed, progress=plain))
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    with Bar(
        TextColumn("judging"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f}/s  failed {task.fields[failed]}  ${task.fields[usd]:.4f}"),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
    ) as bar:
        task = bar.add_task("judging", total=None, rate=0.0, failed=0, usd=0.0)

        def rich_progress(p: Progress) -> None:
            bar.update(task, total=p.total, completed=p.done, rate=p.calls_per_s, failed=p.failed, usd=p.usd)

        return asyncio.run(execute(plan, folder, retry_failed=retry_failed, progress=rich_progress))
