"""What ``assay judge`` prints: the plan of a dry run, progress, and how a run ended.

Text that comes from data or from a server (judge names, models, paths, error
messages) is printed through the CLI's consoles, which write control characters as
escapes (:func:`assay.data.cells.visible`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from assay.cli._app import err_console
from assay.cli._terminal import say

if TYPE_CHECKING:
    from assay.judge.plan import Plan, PlanLine
    from assay.judge.sequential import SequentialRun, StoppingRule
    from assay.llm import Progress, RunSummary


def stored_counts(plan: Plan, folder: Path) -> tuple[int, int]:
    """(stored, failed) of the plan's judgments in the run folder's store (0, 0 without one)."""
    from assay.llm import STORE_FILENAME, RunStore

    if not (folder / STORE_FILENAME).is_file():
        return 0, 0
    with RunStore(folder) as store:
        status = store.status()
    keys = [k for k in plan.keys if k in status]
    return len(keys), sum(status[k] for k in keys)


def cache_line(plan: Plan, folder: Path, cache: str | None) -> str:
    """Where the run's response cache is, in words."""
    from assay.llm import cache_path

    config = plan.config
    where = cache_path(config.cache if cache is None else cache, folder, base_dir=config.base_dir)
    return "response cache: off" if where is None else f"response cache: {where}"


def print_plan(plan: Plan, folder: Path, *, cache: str | None, missing: Sequence[str] = (),
               rule: StoppingRule | None = None) -> None:
    """The ``--dry-run`` plan: calls per judge, estimated tokens and cost, the cost total; then
    a note for each credential in ``missing`` (a run needs it, a dry run does not)."""
    from assay.llm import STORE_FILENAME, RunStore

    stored = None
    if (folder / STORE_FILENAME).is_file():
        from assay.judge.plan import build_followups

        with RunStore(folder) as store:
            stored = store.status()
            build_followups(plan, store)
    passed = "every check of the run passed" + (" but the key, see the note below" if missing else "")
    say(f"plan (dry run: nothing sent; {passed}) -> {folder}")
    header = ("judge", "kind", "model", "calls", "pending", "stage2<=", "tokens_in~", "tokens_out~", "usd~")
    lines = [header]
    plan_lines = plan.lines(stored)
    for line in plan_lines:
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
                "unknown" if line.usd is None else f"{line.usd:.4f}",
            )
        )
    lines = [tuple(_one_line(cell) for cell in row) for row in lines]
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    for row in lines:
        say("  ".join(cell.ljust(w) if i < 3 else cell.rjust(w)
                      for i, (cell, w) in enumerate(zip(row, widths, strict=True))))
    total_calls = sum(line.calls for line in plan_lines)
    say(f"total: {total_calls} judgments, {_estimated_cost(plan_lines)} (estimated: "
        "~4 characters a token in, 250 tokens out a call; stage2<=: second-stage calls at most, "
        "built from the first stage's verdicts, in the estimate)")
    llm = plan.config.llm
    if llm is not None and llm.transport == "batch":
        from assay.report.text.plan import batch_words

        say(batch_words(llm.batch_discount))
    say(cache_line(plan, folder, cache))
    if rule is not None:
        from assay.judge.sequential import cluster_order, comparisons, rule_words

        clusters = len(cluster_order(plan, rule.seed))
        say(f"sequential ({rule_words(rule)}): {clusters} clusters in a random order "
            f"(seed {rule.seed}), a look every {rule.per_look(clusters)}; stops once the rule is met for "
            f"{len(comparisons(plan))} comparisons: the totals above are at most")
    for line in missing:
        say(f"note: {line}; the run needs it, the dry run does not", error=True)


def _one_line(cell: str) -> str:
    """A table cell as it will be printed (escaped, on one line), so the columns line up."""
    from assay.data.cells import visible

    return visible(cell).replace("\n", "\\n").replace("\t", "\\t")


def _estimated_cost(lines: list[PlanLine]) -> str:
    """The cost total of a plan, or what is unknown about it (never $0 for an unpriced model)."""
    priced = sum(line.usd for line in lines if line.usd is not None)
    unpriced = sorted({str(line.model) for line in lines if line.usd is None})
    if not unpriced:
        return f"about ${priced:.4f}"
    what = f"cost unknown: no price for model {', '.join(unpriced)} (add it, or '*', to llm.prices)"
    return what if not priced else f"about ${priced:.4f} for the priced models, {what}"


def _cost(usd: float, unpriced: int) -> str:
    if not unpriced:
        return f"${usd:.4f}"
    unknown = f"unknown ({unpriced} replies unpriced)"
    return f"${usd:.4f} + {unknown}" if usd else f"cost {unknown}"


def run_with_progress(plan: Plan, folder: Path, *, retry_failed: bool, display: Literal["rich", "plain"],
                      cache: str | None, max_failures: int | None,
                      rule: StoppingRule | None = None) -> RunSummary | SequentialRun:
    """Run the plan (:func:`~assay.judge.plan.execute`) with a progress bar or plain lines; with
    a stopping ``rule``, in batches (:func:`~assay.judge.sequential.execute_sequential`), a line
    after each look."""
    from assay.judge.plan import execute

    def run(progress: Callable[[Progress], None], said: Callable[[str], None]) -> RunSummary | SequentialRun:
        if rule is None:
            return asyncio.run(execute(plan, folder, retry_failed=retry_failed, progress=progress,
                                       cache=cache, max_failures=max_failures))
        from assay.judge.sequential import execute_sequential, look_line

        return asyncio.run(execute_sequential(plan, folder, rule, retry_failed=retry_failed,
                                              progress=progress, cache=cache, max_failures=max_failures,
                                              on_look=lambda seen: said(look_line(seen))))

    if display == "plain":
        last = [0.0]

        def plain(p: Progress) -> None:
            if p.phase is not None:  # a batch run: what it waits for, each time it checks
                say(f"batch: {p.phase}", error=True)
                return
            now = time.monotonic()
            if now - last[0] < 5.0 and p.done < p.total:
                return
            last[0] = now
            eta = "-" if p.eta_s is None else f"{p.eta_s:.0f}s"
            say(f"judged {p.done}/{p.total} ({p.skipped} stored before), {p.calls_per_s:.1f}/s, "
                f"{p.failed} failed, {_cost(p.usd, p.unpriced)}, ETA {eta}", error=True)

        return run(plain, lambda text: say(text, error=True))
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
    from rich.progress import Progress as Bar

    with Bar(
        TextColumn("judging"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f}/s  failed {task.fields[failed]}  {task.fields[cost]}"),
        TimeRemainingColumn(),
        console=err_console,
        transient=False,
    ) as bar:
        task = bar.add_task("judging", total=None, rate=0.0, failed=0, cost="$0.0000")

        def rich_progress(p: Progress) -> None:
            if p.phase is not None:
                bar.console.print(f"batch: {p.phase}", markup=False, highlight=False)
            bar.update(task, total=p.total, completed=p.done, rate=p.calls_per_s, failed=p.failed,
                       cost=_cost(p.usd, p.unpriced))

        return run(rich_progress, lambda text: bar.console.print(text, markup=False, highlight=False))


def print_summary(plan: Plan, summary: RunSummary, folder: Path, *, allow_failures: float,
                  resume: str) -> int:
    """Print how the run ended; return its exit status (0, or 3 when stopped early, when a
    planned judgment is not stored, or when failures are above ``allow_failures``)."""
    from assay.cli._stored import print_notes, print_stored
    from assay.llm.progress import stored_line

    print_notes(summary.notes)
    paid_twice = f", {summary.paid_twice} paid twice" if summary.paid_twice else ""
    say(f"{summary.done} judged ({summary.failed} failed, {summary.cached} from cache), "
        f"{summary.skipped} already stored, {summary.calls} calls{paid_twice}, "
        f"{_cost(summary.usd, summary.unpriced)}, {summary.elapsed_s:.1f} s -> {folder}")
    say(summary.token_line())
    code = 0
    planned = summary.planned
    stored = summary.stored if summary.stored is not None else stored_counts(plan, folder)[0]
    if summary.stopped == "cost_limit":
        limit = plan.config.llm.cost_limit_usd if plan.config.llm is not None else None
        say(stored_line(stored, planned))
        say(f"stopped: the cost limit (${limit}) is spent with {stored} of {planned} planned judgments "
            f"stored; raise llm.cost_limit_usd, then resume: {resume}", error=True)
        code = 3
    elif summary.stopped == "max_failures":
        say(stored_line(stored, planned))
        say(f"stopped: {summary.failed} judgments failed (--max-failures); fix the cause, then resume "
            f"with: {resume} --retry-failed", error=True)
        code = 3
    else:
        code = print_stored(stored, planned, "judgments", resume=resume, noted=bool(summary.notes))
    failed = summary.failed_stored if summary.failed_stored is not None else summary.failed
    if failed and summary.stopped is None:
        rate = failed / planned if planned else 1.0
        if rate > allow_failures:
            say(f"{failed} of {planned} planned judgments are stored as failed ({rate:.1%}, above "
                f"--allow-failures {allow_failures:g}): exit 3; ask them again with: {resume} --retry-failed",
                error=True)
            code = 3
        else:
            say(f"{failed} of {planned} planned judgments are stored as failed ({rate:.1%}, within "
                f"--allow-failures {allow_failures:g}); ask them again with --retry-failed", error=True)
    say(f"report: assay report {folder} --kind winrate")
    return code


def print_interrupted(plan: Plan, folder: Path, resume: str) -> None:
    """After Ctrl-C: what is stored, and the command that resumes."""
    stored, failed = stored_counts(plan, folder)
    say(f"interrupted: {stored} of {len(plan.keys)} planned judgments are stored in {folder} "
        f"({failed} failed); resume with: {resume}", error=True)


def print_sequential(run: SequentialRun) -> None:
    """How a sequential run ended: whether the rule stopped it early, each comparison's interval
    at the last look, and what was not bought (:func:`~assay.judge.sequential.ended_lines`)."""
    from assay.judge.sequential import ended_lines

    for line in ended_lines(run):
        say(line)
