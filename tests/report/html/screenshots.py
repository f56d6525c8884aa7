"""Take the screenshots in docs/screenshots/ of the demo's dashboard and benchmark page.

Run from the repository root (needs Chromium)::

    python -m tests.report.html.screenshots [OUT_DIR]

It renders the demo's reports as ``assay demo`` does (seed 7) and writes
``dashboard.png`` and ``benchmark.png``, full pages 1280 CSS pixels wide.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from assay.analysis.benchmark import benchmark_report, benchmark_rows
from assay.analysis.scores import score_summary
from assay.data.io import load
from assay.demo.simulate import simulate_evaluation
from assay.report.html import render_html
from tests.report.html._cdp import Chromium, find_chromium

REPO = Path(__file__).resolve().parents[3]
SHOTS = {"index": "dashboard.png", "benchmark": "benchmark.png"}


def main(out: Path) -> list[Path]:
    binary = find_chromium()
    if binary is None:
        raise SystemExit("no Chromium binary found: install Debian's chromium or set ASSAY_CHROMIUM")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        simulate_evaluation(Path(tmp) / "example", seed=7)
        judgments = load(Path(tmp) / "example")
        rows = benchmark_rows(judgments, criterion="correct")
        caption = f"judge {rows.attrs['judge']}, criterion {rows.attrs['criterion']}"
        pages = render_html([score_summary(judgments), benchmark_report(rows, seed=7)],
                            Path(tmp) / "html", captions={"benchmark": caption})
        browser = Chromium(binary)
        written = []
        try:
            tab = browser.new_tab()
            for page in pages:
                if page.stem in SHOTS:
                    tab.load(page)
                    if tab.problems():
                        raise SystemExit(f"{page.name}: {tab.problems()}")
                    tab.screenshot(out / SHOTS[page.stem])
                    written.append(out / SHOTS[page.stem])
        finally:
            browser.close()
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"
    for path in main(target):
        print(path)
