"""``assay demo``: the whole job on a bundled, simulated evaluation, offline."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from assay.analysis.scores import score_summary
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
    console.print(f"Simulating an evaluation (seed {seed}) into {example} ...")
    simulate_evaluation(example, seed=seed)
    judgments = load(example)
    written = judgments.save(out / "judgments.parquet")
    console.print("\n[bold]The judgments table[/bold] (loaded from the run folder)", highlight=False)
    console.print(table_overview(judgments), highlight=False, markup=False, soft_wrap=True)
    summary = score_summary(judgments)
    (out / "scores.json").write_text(summary.to_json() + "\n", encoding="utf-8")
    console.print("\n[bold]Scores per criterion, judge and arm[/bold]", highlight=False)
    console.print(str(summary), highlight=False, markup=False, soft_wrap=True)
    console.print("\nFiles written:", highlight=False)
    for path in [example, *written, out / "scores.json"]:
        console.print(f"  {path}", highlight=False, markup=False, soft_wrap=True)
    return out
