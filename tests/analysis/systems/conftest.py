"""Fixtures of the systems-report tests: the demo's table, its systems report and composite
scores rendered once, and a headless browser (skipped, with the reason, without Chromium)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from assay.analysis.composite import CompositeScores, composite_score_by_student
from assay.analysis.systems import SystemsReport, systems_report
from assay.data.io import load
from assay.data.table import Judgments
from assay.demo.simulate import simulate_evaluation
from assay.report.html import render_html


@dataclass(frozen=True)
class Demo:
    judgments: Judgments
    report: SystemsReport
    composite: CompositeScores
    pages: dict[str, Path]
    """File stem -> path."""


@pytest.fixture(scope="session")
def systems_demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    root = tmp_path_factory.mktemp("systems")
    simulate_evaluation(root / "example", seed=7)
    judgments = load(root / "example")
    report = systems_report(judgments, B=200, seed=1)
    composite = composite_score_by_student(judgments)
    paths = render_html([report, composite], root / "html")
    return Demo(judgments, report, composite, {p.stem: p for p in paths})

