"""Fixtures of the bespoke-page tests: the demo's analyses, their pages rendered once, and a
headless browser (skipped, with the reason, when no Chromium binary is found)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from assay.analysis.aggregate import aggregate
from assay.analysis.coverage import coverage_report
from assay.analysis.judges import calibrate_judges, judge_agreement, judge_consistency, robust_summary
from assay.analysis.winrates import win_rates
from assay.data.table import Judgments
from assay.report.html import interaction_page, judge_report_page, render_html, score_distribution_page


@dataclass(frozen=True)
class Demo:
    judgments: Judgments
    reports: dict[str, Any]
    """Page slug -> the analysis object (or table) it was made from."""
    pages: dict[str, Path]
    """File stem -> path."""


def build_reports(judgments: Judgments, out: Path) -> dict[str, Any]:
    judges = judge_agreement(judgments)
    calibration = calibrate_judges(judgments, out_dir=out / "calibration")
    reports: dict[str, Any] = {
        "aggregate": aggregate(judgments, n_resamples=500),
        "judges": judges,
        "winrates": win_rates(judgments),
        "robust": robust_summary(judgments, B=200, seed=1),
        "consistency": judge_consistency(judgments),
        "coverage": coverage_report(judgments, seed=1),
        "judge-report": judge_report_page(judgments, judges=judges, calibration=calibration),
        "score-distribution": score_distribution_page(judgments),
    }
    interaction = interaction_page(judgments)
    if interaction is not None:
        reports["interaction"] = interaction
    return reports


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_table: Judgments) -> Demo:
    root = tmp_path_factory.mktemp("html-pages")
    judgments = demo_table
    reports = build_reports(judgments, root)
    paths = render_html(list(reports.values()), root / "html")
    return Demo(judgments, reports, {p.stem: p for p in paths})

