"""Fixtures of the HTML report tests: the demo's reports rendered once, and a headless browser.

The browser tests skip, with the reason, when no Chromium binary is found (CI installs
Debian's ``chromium``; set ``ASSAY_CHROMIUM`` to use another binary).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.analysis.benchmark import BenchmarkReport, benchmark_report
from assay.analysis.scores import ScoreSummary, score_summary
from assay.data.table import Judgments
from assay.report.html import render_html

BENCHMARK_CAPTION = "judge exact-match, criterion correct"


@dataclass(frozen=True)
class Demo:
    judgments: Judgments
    summary: ScoreSummary
    report: BenchmarkReport
    pages: dict[str, Path]
    """File stem -> path: index, scores, benchmark."""
    partial: dict[str, Path]
    """The same pages rendered with partial=True."""


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_table: Judgments) -> Demo:
    root = tmp_path_factory.mktemp("html-demo")
    judgments = demo_table
    summary = score_summary(judgments)
    report = benchmark_report(judgments, seed=7, B=500)
    reports = [summary, report]
    pages = render_html(reports, root / "html", captions={"benchmark": BENCHMARK_CAPTION})
    partial = render_html(reports, root / "partial", partial=True)
    return Demo(judgments, summary, report, {p.stem: p for p in pages},
                {p.stem: p for p in partial})

