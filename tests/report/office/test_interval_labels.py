"""No figure, caption or intro announces "with 95% intervals" over a column of dashes.

Regression test: a benchmark scored once (descriptive report, no intervals) got PNG titles,
a LaTeX caption and HTML captions saying "with 95% intervals".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import assay.report.figures as figures
from assay.analysis.benchmark import benchmark_report
from assay.report.html import page_for
from assay.report.office import write_paper_tables
from tests.analysis.benchmark.conftest import build_bench


@pytest.fixture(scope="module")
def reports() -> dict[str, Any]:
    frame = build_bench(runs=1)
    return {"descriptive": benchmark_report(frame),
            "cluster_t": benchmark_report(frame, method="cluster_t", B=200)}


def _png_titles(report: Any, out: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    titles: dict[str, str] = {}
    real = figures._save

    def save(fig: Any, path: Path) -> Path:
        titles[path.name] = fig.axes[0].get_title()
        return real(fig, path)

    monkeypatch.setattr(figures, "_save", save)
    figures.write_figures([report], out)
    return titles


def test_png_titles(reports, tmp_path, monkeypatch):
    titles = _png_titles(reports["descriptive"], tmp_path / "d", monkeypatch)
    assert set(titles) == {"benchmark_accuracy.png", "benchmark_contrasts.png", "cost_frontier.png"}
    for name in ("benchmark_accuracy.png", "benchmark_contrasts.png"):
        assert "intervals" not in titles[name].replace("gives intervals", "")
        assert "point estimates only" in titles[name] and "--method cluster_t" in titles[name]
    titles = _png_titles(reports["cluster_t"], tmp_path / "c", monkeypatch)
    assert titles["benchmark_accuracy.png"].startswith("Accuracy per arm with 95% intervals")
    assert titles["benchmark_contrasts.png"] == "Paired differences with 95% intervals"


def test_latex_caption(reports, tmp_path):
    for kind, expected in (("descriptive", "point estimates only"),
                           ("cluster_t", "with cluster-robust interval")):
        write_paper_tables([reports[kind]], tmp_path / kind)
        tex = (tmp_path / kind / "benchmark_accuracy.tex").read_text(encoding="utf-8")
        caption = next(line for line in tex.splitlines() if line.startswith("\\caption"))
        assert expected in caption, caption


def test_html_captions(reports):
    def texts(report: Any) -> list[str]:
        page = page_for(report)
        out = []
        for section in page.sections:
            out += [section.intro] + [f.caption for f in section.figures]
            out += [t.caption for t in section.tables]
        return out

    descriptive = texts(reports["descriptive"])
    assert not [t for t in descriptive if "95%" in t]
    assert any("point estimates only" in t for t in descriptive)
    assert any("with 95% intervals" in t for t in texts(reports["cluster_t"]))
