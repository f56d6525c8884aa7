"""``assay demo``: the whole job on a bundled, simulated evaluation, offline.

On the terminal the demo prints what ``assay report`` prints by default, the answer, then
what it wrote, a few lines of folders, and the commands that print every report or browse
the judgments; the files hold every report (``assay report TABLE --kind all`` prints them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console

from assay.data.io import load
from assay.demo.judging import run_metric_judges
from assay.demo.simulate import simulate_evaluation
from assay.report.kinds import (
    KINDS,
    AggregateOptions,
    BenchmarkOptions,
    CoverageOptions,
    RobustOptions,
    SystemsOptions,
    build_reports,
    resolve_kinds,
    write_reports,
)


def run_demo(out: str | Path, *, seed: int = 7, console: Console | None = None,
             progress: Callable[[str], None] | None = None, until: str | None = None) -> Path:
    """Simulate an evaluation into ``out/example``, load it back like a user's run folder,
    write every report the data support, and print the answer and what was written.

    ``progress`` is told each step as it starts (the command shows it as a spinner; it is
    not part of the output). ``until`` (``decided`` or ``width=W``, as ``assay judge
    --until``) also replays the simulated LLM judges' verdicts through sequential judging
    (:mod:`assay.demo.sequential`) and says where it stopped and what it saved. Returns the
    output folder.

    Raises
    ------
    ConfigError
        A bad ``until`` (the message of ``assay judge --until``), before anything is written.
    """
    from assay.judge.sequential import stopping_rule

    rule = stopping_rule(None, until=until) if until is not None else None
    console = console or Console()
    step = progress or (lambda text: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    example = out / "example"

    def say(text: str, *, title: bool = False) -> None:
        console.print(text, style="bold" if title else None, markup=False, highlight=False,
                      soft_wrap=True)

    step(f"simulating an evaluation (seed {seed}) into {example}")
    simulate_evaluation(example, seed=seed)
    judgments = load(example)
    written = judgments.save(out / "judgments.parquet")
    step("making every report the data support")
    outcome = build_reports(judgments, resolve_kinds("answer,all"), {
        "benchmark": BenchmarkOptions(criterion="correct", seed=seed),
        "aggregate": AggregateOptions(benchmark_name="assay-demo", benchmark_version="1"),
        "robust": RobustOptions(seed=seed),
        "coverage": CoverageOptions(seed=seed),
        "systems": SystemsOptions(seed=seed),
    })
    step(f"writing the reports into {out}")
    files = write_reports(outcome, judgments, ("json", "xlsx", "latex", "png"), out)
    pages = write_reports(outcome, judgments, ("html",), out, html_dir=out / "html")
    step("running the offline metric judges (assay judge) on run 1's answers")
    judged = run_metric_judges(example, out / "metric-judges")
    metric_outcome = build_reports(load(judged), [KINDS["scores"]])
    metric_scores = out / "metric_scores.json"
    metric_scores.write_text(metric_outcome.made["scores"].result.to_json() + "\n",
                             encoding="utf-8")
    sequential: list[str] = []
    if rule is not None:
        from assay.demo.sequential import SEQUENTIAL_REPORT, sequential_lines

        step(f"judging the simulated verdicts sequentially (--until {rule.words})")
        sequential = sequential_lines(example, out, rule)
        (out / SEQUENTIAL_REPORT).write_text("\n".join(sequential) + "\n", encoding="utf-8")

    say(KINDS["answer"].title, title=True)
    say(str(outcome.made["answer"].result))
    if sequential:
        say("")
        say(sequential[0], title=True)
        for line in sequential[1:]:
            say(line)
    table = out / "judgments.parquet"
    say(f"\nWritten into {out} (simulated data: {example.name}/README.md says how):")
    for line in _written(out, example, table, [*written, *files], pages, judged,
                         metric_scores, n_invalid=len(judgments.invalid), sequential=bool(sequential)):
        say(f"  {line}")
    say(f"\nTo print every report: assay report {_shell_word(table)} --kind all")
    say(f"Open the HTML dashboard: {pages[0]}")
    say(f"To browse the judgments (the question, each system's answers, the verdicts) with the "
        f"reports: assay view {_shell_word(out)}")
    return out


def _written(out: Path, example: Path, table: Path, files: Sequence[Path],
             pages: Sequence[Path], judged: Path, metric_scores: Path, *,
             n_invalid: int, sequential: bool = False) -> list[str]:
    """What the demo wrote, a line per folder or kind of file (counted from ``files``)."""
    def count(paths: Sequence[Path], what: str) -> str:
        return f"{len(paths)} {what}" if len(paths) != 1 else f"1 {what.rstrip('s')}"

    def inside(folder: str) -> list[Path]:
        return [p for p in files if p.parent == out / folder]

    loose = [p for p in files if p.parent == out and p != table and p.suffix != ".xlsx"
             and p.name != "judgments.invalid.jsonl"]
    jsons = [p for p in loose if p.suffix == ".json"]
    csvs = [p for p in loose if p.suffix == ".csv"]
    beside = [p.name for p in loose if p not in jsons and p not in csvs]
    if csvs:
        beside.append(count(csvs, "CSV tables"))
    lines = [
        f"{example.name}/  the simulated evaluation as a run folder (what assay judge writes)",
        f"{table.name}  the judgments table loaded back from it"
        + (f"; {n_invalid} invalid records kept aside in judgments.invalid.jsonl"
           if n_invalid else ""),
        f"*.json  every report as JSON ({count(jsons, 'files')})"
        + (f", beside {', '.join(beside)}" if beside else ""),
    ]
    if any(p.suffix == ".xlsx" for p in files):
        lines.append("analysis.xlsx  every report's tables as Excel sheets")
    for folder, what in (("tables", "LaTeX and CSV tables"), ("figures", "PNG figures")):
        if inside(folder):
            lines.append(f"{folder}/  {what} ({len(inside(folder))} files)")
    html = [p for p in pages if p.suffix == ".html"]
    if pages:
        lines.append(f"{pages[0].parent.name}/  the HTML dashboard ({pages[0].name}) and a page "
                     f"per report ({count(html, 'pages')}; opens from disk, offline)")
    lines.append(f"{judged.relative_to(out)}/, {metric_scores.name}  the offline metric judges' "
                 f"run folder (assay judge) and their scores")
    if sequential:
        from assay.demo.sequential import SEQUENTIAL_FOLDER, SEQUENTIAL_REPORT

        lines.append(f"{SEQUENTIAL_FOLDER}/, {SEQUENTIAL_REPORT}  the sequential run of the replayed "
                     "verdicts (a run folder per rule, its looks in sequential.json) and how it ended")
    return lines


def _shell_word(path: Path) -> str:
    """``path`` as one word of a shell command line (quoted when it needs to be)."""
    import shlex

    return shlex.quote(str(path))
