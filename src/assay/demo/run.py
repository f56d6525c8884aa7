"""``assay demo``: the whole job on a bundled, simulated evaluation, offline."""

from __future__ import annotations

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
from assay.report.text import table_overview


def run_demo(out: str | Path, *, seed: int = 7, console: Console | None = None) -> Path:
    """Simulate an evaluation into ``out/example``, load it back like a user's run folder,
    and write and print every report the data support. Returns the output folder."""
    console = console or Console()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    example = out / "example"

    def say(text: str, *, title: bool = False) -> None:
        console.print(text, style="bold" if title else None, markup=False, highlight=False,
                      soft_wrap=True)

    say(f"Simulating an evaluation (seed {seed}) into {example} ... (simulated data, see "
        f"{example / 'README.md'})")
    simulate_evaluation(example, seed=seed)
    judgments = load(example)
    written = judgments.save(out / "judgments.parquet")
    say("\nThe judgments table (loaded from the run folder)", title=True)
    say(table_overview(judgments))

    kinds = resolve_kinds("answer,all")
    say(f"\nMaking every report the data support ({', '.join(k.name for k in kinds)}) ...")
    outcome = build_reports(judgments, kinds, {
        "benchmark": BenchmarkOptions(criterion="correct", seed=seed),
        "aggregate": AggregateOptions(benchmark_name="assay-demo", benchmark_version="1"),
        "robust": RobustOptions(seed=seed),
        "coverage": CoverageOptions(seed=seed),
        "systems": SystemsOptions(seed=seed),
    })
    for name, made in outcome.made.items():
        say(f"\n{KINDS[name].title}" + (f" ({made.caption})" if made.caption else ""), title=True)
        say(str(made.result))
    for name, reason in outcome.skipped.items():
        say(f"{name} report skipped: {reason}")
    say(f"Writing the reports as JSON, Excel, LaTeX, PNG and HTML into {out} ...")
    files = write_reports(outcome, judgments, ("json", "xlsx", "latex", "png"), out)
    pages = write_reports(outcome, judgments, ("html",), out, html_dir=out / "html")

    say("Running the offline metric judges (assay judge) on run 1's answers ...")
    judged = run_metric_judges(example, out / "metric-judges")
    metric_outcome = build_reports(load(judged), [KINDS["scores"]])
    metric_scores = metric_outcome.made["scores"].result
    (out / "metric_scores.json").write_text(metric_scores.to_json() + "\n", encoding="utf-8")
    say("\nOffline metric judges run by assay judge on run 1's answers (no model needed)",
        title=True)
    say(str(metric_scores))

    say("\nFiles written:")
    for path in [example, *written, *files, *pages, judged, out / "metric_scores.json"]:
        say(f"  {path}")
    say(f"\nOpen the HTML dashboard: {pages[0]}")
    say(f"To browse the judgments (the question, each system's answers, the verdicts) with the "
        f"reports: assay view {_shell_word(out)}")
    return out


def _shell_word(path: Path) -> str:
    """``path`` as one word of a shell command line (quoted when it needs to be)."""
    import shlex

    return shlex.quote(str(path))
