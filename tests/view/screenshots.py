"""Take the viewer's screenshots in docs/screenshots/: a pairwise judgment of the demo (its
question, the two answers in the order the judge saw them, the verdict) and the compare view of
one question.

Run from the repository root (needs Chromium)::

    python -m tests.view.screenshots [DEMO_OUT] [OUT_DIR]

DEMO_OUT is a folder ``assay demo --out`` wrote (made in a temporary folder when not given).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from assay.view import JudgmentIndex, Query, ViewServer
from tests.report.html._cdp import Chromium, find_chromium
from tests.view.conftest import open_view

REPO = Path(__file__).resolve().parents[2]
WIDTH = 1280
ITEM = "dp-0003"
"""A factoid question of the demo (seed 7): short answers, so the panel fits one screen."""


def shoot(demo: Path, out: Path) -> list[Path]:
    binary = find_chromium()
    if binary is None:
        raise SystemExit("no Chromium binary found: install Debian's chromium or set ASSAY_CHROMIUM")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with JudgmentIndex(demo / "judgments.parquet") as index, \
            ViewServer(index, reports=demo / "html") as server:
        server.start()
        pair = index.page(Query({"item": (ITEM,), "judge": ("judge-pairwise",)},
                                limit=500)).rows
        shown_second = next(r for r in pair if r["position"] == 2)
        browser = Chromium(binary)
        try:
            tab = browser.new_tab()
            for name, url, ready in (
                    ("viewer-judgment.png", f"?item={ITEM}&judge=judge-pairwise&open={shown_second['id']}",
                     f"window.assay.detailShown === {shown_second['id']}"),
                    ("viewer-compare.png", f"?compare={ITEM}", f"window.assay.compareShown === '{ITEM}'")):
                open_view(tab, server.url + url)
                tab.wait_for(ready)
                if tab.problems():
                    raise SystemExit(f"{name}: {tab.problems()}")
                tab.screenshot(out / name, width=WIDTH, max_height=1000)
                written.append(out / name)
        finally:
            browser.close()
    return written


def main(demo: Path | None, out: Path) -> list[Path]:
    if demo is not None:
        return shoot(demo, out)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "ASSAY_CACHE_DIR": str(Path(tmp) / "cache")}
        subprocess.run([sys.executable, "-m", "assay", "demo", "--out", str(Path(tmp) / "demo")],
                       check=True, capture_output=True, env=env)
        os.environ["ASSAY_CACHE_DIR"] = env["ASSAY_CACHE_DIR"]
        return shoot(Path(tmp) / "demo", out)


if __name__ == "__main__":
    given = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    target = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "docs" / "screenshots"
    for path in main(given, target):
        print(path)
