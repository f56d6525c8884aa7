"""Take the screenshots in docs/screenshots/ of the demo's pages.

Run from the repository root (needs Chromium)::

    python -m tests.report.html.screenshots [OUT_DIR]

It writes the pages as ``assay demo`` does (seed 7) and shoots them in a window 1024 CSS
pixels wide, the narrowest the pages are made for (the dashboard's first screen at 1280 x 800,
a laptop's window: the verdict table and the judges' trust panel): the top of the
benchmark report, and of two reworked pages, the judge consistency page (one judge-pair matrix
per question set instead of a 2x2 map per statistic) and the aggregation page (a table of 17
columns that fits with its secondary columns behind "more columns").
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from tests.report.html._cdp import Chromium, find_chromium

REPO = Path(__file__).resolve().parents[3]
WIDTH = 1024
SHOTS = {"index": ("dashboard.png", 800, 1280), "benchmark": ("benchmark.png", 2400, WIDTH),
         "judges": ("judges.png", 1500, WIDTH), "aggregate": ("aggregate.png", 1100, WIDTH)}


def main(out: Path) -> list[Path]:
    binary = find_chromium()
    if binary is None:
        raise SystemExit("no Chromium binary found: install Debian's chromium or set ASSAY_CHROMIUM")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # The demo in its own process, as a user runs it (and the browser then starts from a
        # clean process: started after an in-process demo run, its pipe broke).
        subprocess.run([sys.executable, "-m", "assay", "demo", "--out", tmp], check=True,
                       capture_output=True)
        browser = Chromium(binary)
        written = []
        try:
            tab = browser.new_tab()
            for stem, (name, height, width) in SHOTS.items():
                page = Path(tmp) / "html" / f"{stem}.html"
                tab.load(page, width=width)
                if tab.problems():
                    raise SystemExit(f"{page.name}: {tab.problems()}")
                tab.screenshot(out / name, width=width, max_height=height)
                written.append(out / name)
        finally:
            browser.close()
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "screenshots"
    for path in main(target):
        print(path)
