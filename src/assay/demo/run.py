"""``assay demo``: the whole job on a bundled, simulated evaluation, offline."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from assay.analysis.aggregate import aggregate
from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.composite import composite_score_by_student
from assay.analysis.coverage import coverage_report
from assay.analysis.judges import judge_agreement, robust_summary
from assay.analysis.scores import score_summary
from assay.analysis.systems import systems_report
from assay.analysis.winrates import win_rates
from assay.data.io import load
from assay.demo.judging import run_metric_judges
from assay.demo.simulate import simulate_evaluation
from assay.report.figures import write_figures
from assay.report.files import write_aggregate_files
from assay.report.html import interaction_page, judge_report_page, render_html, score_distribution_page
from assay.report.office import write_paper_tables, write_workbook
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

    aggregated = aggregate(judgments, benchmark_config_name="assay-demo", benchmark_version="1")
    aggregate_files = write_aggregate_files(aggregated, judgments, out)
    say("\nAggregation across runs and the judges' reliability (the results aggregator)", title=True)
    say(str(aggregated))

    judges = judge_agreement(judgments)
    composite = composite_score_by_student(judgments)
    robust = robust_summary(judgments, seed=seed)
    coverage = coverage_report(judgments, seed=seed)
    for name, result in (("judges", judges), ("composite", composite), ("robust", robust),
                         ("coverage", coverage)):
        (out / f"{name}.json").write_text(result.to_json() + "\n", encoding="utf-8")
    say("\nAgreement between judges (CoEval)", title=True)
    say(str(judges))
    say("\nComposite scores, robust summary and coverage (CoEval)", title=True)
    say(f"{composite}\n\n{robust}\n\n{coverage}")

    winrates = win_rates(judgments)
    (out / "winrates.json").write_text(winrates.to_json() + "\n", encoding="utf-8")
    winrate_files = winrates.write_csvs(out)
    say("\nWin rates of the pairwise judge (BenchmarkQED)", title=True)
    say(str(winrates))

    systems = systems_report(judgments, seed=seed)
    (out / "systems.json").write_text(systems.to_json() + "\n", encoding="utf-8")
    say("\nSystems report: per-task scores, rank intervals, head-to-head, by attribute", title=True)
    say(str(systems))

    table_pages = [judge_report_page(judgments, judges=judges), score_distribution_page(judgments),
                   *filter(None, [interaction_page(judgments)])]
    pages = render_html([summary, report, aggregated, judges, systems, robust, coverage, winrates,
                         *table_pages], out / "html",
                        captions={"benchmark": f"judge {rows.attrs['judge']}, "
                                               f"criterion {rows.attrs['criterion']}"})

    judged = run_metric_judges(example, out / "metric-judges")
    metric_scores = score_summary(load(judged))
    (out / "metric_scores.json").write_text(metric_scores.to_json() + "\n", encoding="utf-8")
    say("\nOffline metric judges run by assay judge on run 1's answers (no model needed)",
        title=True)
    say(str(metric_scores))

    reports = [summary, report, aggregated, judges, composite, robust, coverage, winrates]
    workbook = write_workbook(reports, judgments, out / "analysis.xlsx")
    tables = write_paper_tables(reports, out / "tables")
    figures = write_figures(reports, out / "figures")

    say("\nFiles written:")
    for path in [example, *written, out / "scores.json", out / "benchmark.json", *aggregate_files,
                 *(out / f"{n}.json" for n in ("judges", "composite", "robust", "coverage",
                                               "winrates")), *winrate_files, *pages,
                 workbook, *tables, *figures, judged, out / "metric_scores.json",
                 out / "systems.json"]:
        say(f"  {path}")
    say(f"\nOpen the HTML dashboard: {pages[0]}")
    return out
