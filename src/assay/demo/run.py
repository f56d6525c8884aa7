"""``assay demo``: the whole job on a bundled, simulated evaluation, offline."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.analysis.selection import benchmark_rows
from assay.data.io import load
from assay.demo.simulate import simulate_evaluation
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

    summary = score_summary(judgments)
    (out / "scores.json").write_text(summary.to_json() + "\n", encoding="utf-8")
    say("\nScores per criterion, judge and arm", title=True)
    say(str(summary))

    rows = benchmark_rows(judgments, criterion="correct")
    report = benchmark_report(rows, seed=seed)
    (out / "benchmark.json").write_text(report.to_json() + "\n", encoding="utf-8")
    say(f"\nBenchmark report (judge {rows.attrs['judge']}, criterion "
        f"{rows.attrs['criterion']}; failures count as wrong)", title=True)
    say(str(report))

    say("\nFiles written:")
    for path in [example, *written, out / "scores.json", out / "benchmark.json"]:
        say(f"  {path}")
    return out
