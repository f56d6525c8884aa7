"""Time and size of every HTML report on the 1,000,000-row benchmark workload.

Run by hand, not by the tests (issue 6, "Performance"):

    python bench/bench_html.py            # the large workload: 20,000 items in 2,000 clusters
                                          # x 5 arms x 10 runs, binary, usd and tokens
    python bench/bench_html.py --small    # a tenth of the items, for a quick look

For each report the analysis time and the page's render time are printed with the file's
size; the targets are under 15 s for rendering all pages and under 15 MB per page. Every
figure is drawn from aggregated numbers (one point per arm, bin or cell, never one per row);
plotly.js, embedded in every page, is about 4.6 MB of each file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_benchmark_report import WORKLOADS, make_frame  # noqa: E402

from assay.analysis.aggregate import aggregate  # noqa: E402
from assay.analysis.benchmark import (  # noqa: E402
    benchmark_report,
    benchmark_rows,
)
from assay.analysis.composite import composite_score_by_student  # noqa: E402
from assay.analysis.judges import (  # noqa: E402
    judge_agreement,
    robust_summary,
)
from assay.analysis.scores import score_summary  # noqa: E402
from assay.data.schema import Scale  # noqa: E402
from assay.data.table import Judgments  # noqa: E402
from assay.report.html import (  # noqa: E402
    interaction_page,
    judge_report_page,
    render_html,
    score_distribution_page,
)

TARGET_SECONDS = 15.0
TARGET_BYTES = 15 * 1024 * 1024


def _timed(label: str, make: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = make()
    seconds = time.perf_counter() - start
    print(f"  {label:<28} {seconds:7.2f} s", flush=True)
    return value, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="2,000 items, 100,000 rows")
    parser.add_argument("--out", type=Path, default=None, help="folder for the pages (default: temp)")
    args = parser.parse_args()
    spec = dict(WORKLOADS["large"][0])
    if args.small:
        spec.update(n_items=2_000, n_clusters=200)
    frame = make_frame(**spec).assign(judge="exact-match", criterion="correct", reportable=True)
    judgments = Judgments(frame, {"correct": Scale("binary")})
    print(f"workload: {len(frame):,} rows, {spec['n_items']:,} items in {spec['n_clusters']:,} "
          f"clusters x {spec['arms']} arms x {spec['runs']} runs", flush=True)

    print("analyses")
    reports: list[Any] = []
    analysis_total = 0.0
    for label, make in (
        ("scores", lambda: score_summary(judgments)),
        ("benchmark (B = 2000)", lambda: benchmark_report(benchmark_rows(judgments), B=2000, seed=1)),
        ("aggregate (10,000 resamples)", lambda: aggregate(judgments)),
        ("judges", lambda: judge_agreement(judgments)),
        ("composite", lambda: composite_score_by_student(judgments)),
        ("robust (B = 2000)", lambda: robust_summary(judgments, B=2000, seed=1)),
    ):
        report, seconds = _timed(label, make)
        reports.append(report)
        analysis_total += seconds
    print("pages built from the table (they count)")
    judges = reports[3]
    for label, make in (("judge report", lambda: judge_report_page(judgments, judges=judges)),
                        ("score distribution", lambda: score_distribution_page(judgments)),
                        ("interaction matrix", lambda: interaction_page(judgments))):
        page, seconds = _timed(label, make)
        analysis_total += seconds
        if page is not None:
            reports.append(page)

    out = args.out or Path(tempfile.mkdtemp(prefix="assay-bench-html-"))
    print(f"rendering into {out}")
    render_total = 0.0
    sizes: dict[str, int] = {}
    for report in reports:
        start = time.perf_counter()
        paths = render_html([report], out / "single")
        seconds = time.perf_counter() - start
        render_total += seconds
        page = paths[1]
        sizes[page.name] = page.stat().st_size
        print(f"  {page.name:<28} {seconds:7.2f} s  {page.stat().st_size / 1e6:7.2f} MB", flush=True)
    start = time.perf_counter()
    paths = render_html(reports, out)
    together = time.perf_counter() - start
    print(f"all pages and index.html together: {together:.2f} s, "
          f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB in {len(paths)} files")
    print(f"analyses {analysis_total:.1f} s; rendering {together:.2f} s "
          f"(target < {TARGET_SECONDS:g} s: {'met' if together < TARGET_SECONDS else 'MISSED'}); "
          f"largest page {max(sizes.values()) / 1e6:.2f} MB (target < 15 MB: "
          f"{'met' if max(sizes.values()) < TARGET_BYTES else 'MISSED'})")


if __name__ == "__main__":
    main()
