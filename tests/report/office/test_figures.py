"""PNG figures: valid files of sensible size, written only for the reports that have them."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.image import imread

from assay.analysis import BenchmarkReport
from assay.report.figures import write_figures
from tests.report.office.conftest import FakeReport

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR", path.name
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_demo_figures(demo: tuple[Any, dict[str, Any]], tmp_path: Path) -> None:
    _, reports = demo
    written = write_figures(list(reports.values()), tmp_path)
    assert [p.name for p in written] == ["benchmark_accuracy.png", "benchmark_contrasts.png",
                                         "cost_frontier.png", "composite_scores.png", "aggregate_scores.png"]
    for path in written:
        width, height = _size(path)
        assert 600 <= width <= 2000 and 300 <= height <= 2000, (path.name, width, height)
        assert 10_000 < path.stat().st_size < 500_000
        pixels = imread(path)
        # something is drawn: not one flat colour, and the background is white
        assert pixels[..., :3].std() > 0.05 and np.allclose(pixels[0, 0, :3], 1.0)


def test_descriptive_report_and_no_figures(tmp_path: Path) -> None:
    fake = FakeReport.of(BenchmarkReport, {
        "conf": 0.95, "method": "descriptive",
        "accuracy": [{"arm": "a", "estimate": 0.5, "lower": None, "upper": None},
                     {"arm": "b", "estimate": 0.75, "lower": None, "upper": None}],
        "contrasts": [], "simultaneous": [], "frontier": []})
    written = write_figures({"benchmark": fake}, tmp_path / "new")
    assert [p.name for p in written] == ["benchmark_accuracy.png"]
    _size(written[0])
    assert write_figures([object()], tmp_path / "none") == []
