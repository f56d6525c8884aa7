"""A page of your own in an assay HTML report: lay out any numbers as a Page of sections,
tables and a chart, and write it beside the dashboard.

    python examples/custom_page.py [OUT_DIR]

The page gets what every report page has: sortable, filterable tables with CSV export,
the chart drawn offline by the folder's plotly.min.js, the glossary in the navigation.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assay.report.html import Column, Figure, Page, Section, Table, render_html

LATENCY = [{"system": "small", "p50_ms": 120.0, "p95_ms": 310.0},
           {"system": "large", "p50_ms": 480.0, "p95_ms": 1250.0}]


def latency_page() -> Page:
    table = Table.from_records(LATENCY, (Column("system", "system"),
                                         Column("p50_ms", "median (ms)", "int"),
                                         Column("p95_ms", "95th percentile (ms)", "int")),
                               caption="Latency per system", name="latency")
    chart = Figure(data=({"type": "bar", "x": [r["system"] for r in LATENCY],
                          "y": [r["p95_ms"] for r in LATENCY], "name": "95th percentile"},),
                   layout={"yaxis": {"title": {"text": "ms"}}, "height": 300},
                   caption="95th percentile latency")
    return Page(slug="latency", title="Latency", summary="How long each system takes to answer.",
                sections=(Section(title="Latency", tables=(table,), figures=(chart,)),))


def main(out: Path) -> None:
    pages = render_html([latency_page()], out / "html", title="My evaluation")
    print(f"Open {pages[0]}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("example-out"))
