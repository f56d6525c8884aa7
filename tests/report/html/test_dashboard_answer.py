"""The dashboard is the answer: at 1280 x 800 its first screen holds the verdict table (the
systems ranked, each pair's difference) and the judges' trust panel; a report not made has
no card; no label on any written page names the sources assay's methods come from.

The pages are written by the CLI (``assay report FILE --format html``) on a small table of
3 systems x 40 questions in 8 topics x 2 runs, and by ``assay demo`` (slow).
"""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import assay

SRC = str(Path(assay.__file__).resolve().parents[1])  # the assay under test
FIRST_SCREEN = 800
SOURCE_NAMES = re.compile(r"coeval|table 7|hr_report|quizz?(?:es)?\b|results aggregator",
                          re.IGNORECASE)


def _assay(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "assay", *args], check=True, text=True,
                          capture_output=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def small_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``assay report s.csv --format html`` on 3 systems x 40 questions x 2 runs, 0/1 scores,
    system c clearly ahead of a."""
    root = tmp_path_factory.mktemp("dashboard-small")
    rng = np.random.default_rng(3)
    path = root / "s.csv"
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["question_id", "model", "topic", "run", "judge", "criterion", "score"])
        for q in range(40):
            for model, p in (("alpha", 0.45), ("beta", 0.6), ("gamma", 0.85)):
                for run in range(2):
                    out.writerow([f"q{q}", model, f"t{q % 8}", run, "j1", "correct",
                                  int(rng.random() < p)])
    _assay("report", str(path), "--map", "question_id=item,model=arm,topic=cluster",
           "--format", "html", "--out", str(root / "out"))
    return root / "out"


def first_screen(tab, index: Path) -> dict[str, dict[str, float] | None]:
    tab.load(index, width=1280)
    tab.send("Emulation.setDeviceMetricsOverride",
             {"width": 1280, "height": FIRST_SCREEN, "deviceScaleFactor": 1, "mobile": False})
    return tab.evaluate("""(() => {
      const box = sel => { const el = document.querySelector(sel);
        if (!el) return null; const r = el.getBoundingClientRect();
        return {top: r.top + window.scrollY, bottom: r.bottom + window.scrollY}; };
      return {verdicts: box('#verdict-table table.systems-ranked'),
              pairs: box('#verdict-table table.pairs'), trust: box('#trust-panel'),
              trust_heading: box('#trust-panel h2')};
    })()""")


def _html_index(site: Path) -> Path:
    found = sorted(site.rglob("index.html"))
    assert found, sorted(p.name for p in site.rglob("*"))
    return found[0]


def test_small_table_dashboard_opens_on_the_verdict_and_the_trust(small_site, tab):
    index = _html_index(small_site)
    boxes = first_screen(tab, index)
    for name in ("verdicts", "pairs", "trust"):
        assert boxes[name] is not None, (name, boxes)
        assert boxes[name]["bottom"] <= FIRST_SCREEN, (name, boxes)
    text = tab.evaluate("document.querySelector('#verdict-table').innerText")
    # The ranking and every pair, in the systems' own names.
    assert text.index("gamma") < text.index("beta") < text.index("alpha"), text
    assert "gamma - alpha" in text and "adjusted p" in text, text


def test_no_card_for_a_report_not_made(small_site):
    text = _html_index(small_site).read_text(encoding="utf-8")
    assert "Not made" not in text and "not made</span>" not in text
    assert 'class="card skipped"' not in text
    # One line says how many and how to see why; the reasons are folded under it.
    line = re.search(r'<details class="skipped-line"[^>]*><summary>(.*?)</summary>', text, re.S)
    assert line is not None and "--kind list" in line.group(1), text[-3000:]
    assert re.match(r"\d+ other reports? not made", line.group(1)), line.group(1)


def _visible_text(html: str) -> str:
    """The page's text and its attribute labels (titles, aria labels), scripts left out."""
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html, flags=re.S)
    labels = " ".join(re.findall(r'(?:title|aria-label|alt)="([^"]*)"', html))
    return re.sub(r"<[^>]+>", " ", html) + " " + labels


def test_no_source_name_in_the_small_tables_pages(small_site):
    found = {}
    for page in sorted(small_site.rglob("*.html")):
        hits = SOURCE_NAMES.findall(_visible_text(page.read_text(encoding="utf-8")))
        if hits:
            found[page.name] = sorted(set(hits))
    assert found == {}


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dashboard-demo")
    _assay("demo", "--out", str(out))
    return out / "html"


@pytest.mark.slow
def test_demo_dashboard_opens_on_the_verdict_and_names_no_source(demo_site, tab):
    boxes = first_screen(tab, demo_site / "index.html")
    # The first criterion's verdict whole, and the trust panel begun, on the first screen.
    for name in ("verdicts", "pairs", "trust_heading"):
        assert boxes[name] is not None and boxes[name]["bottom"] <= FIRST_SCREEN, (name, boxes)
    found = {}
    for page in sorted(demo_site.glob("*.html")):
        text = page.read_text(encoding="utf-8")
        assert "Not made" not in text, page.name
        hits = SOURCE_NAMES.findall(_visible_text(text))
        if hits:
            found[page.name] = sorted(set(hits))
    assert found == {}


@pytest.fixture(scope="module")
def humans_site(tmp_path_factory: pytest.TempPathFactory, demo_example: Path) -> Path:
    """``assay report`` of the demo's run folder (human labels on 18% of its questions), the
    answer only, as HTML."""
    out = tmp_path_factory.mktemp("dashboard-humans")
    _assay("report", str(demo_example), "--kind", "answer", "--format", "html", "--out",
           str(out))
    return out


def test_the_dashboard_says_what_humans_would_say(humans_site, small_site, tab):
    index = _html_index(humans_site)
    tab.load(index, width=1280)
    shown = tab.evaluate("""(() => {
      const el = document.querySelector('#humans');
      if (!el) return null;
      const r = el.getBoundingClientRect();
      const wide = [...el.querySelectorAll('table')].map(t => t.scrollWidth - t.clientWidth);
      return {text: el.innerText, width: r.width, height: r.height,
              overflow: Math.max(0, ...wide),
              page: document.documentElement.scrollWidth - document.documentElement.clientWidth};
    })()""")
    assert shown is not None and shown["height"] > 0 and shown["width"] > 0, shown
    assert shown["overflow"] <= 0 and shown["page"] <= 0, shown
    text = shown["text"]
    assert "What humans would say" in text and "judge judge-biased" in text, text
    assert "beacon-13b - cirrus-70b" in text and "atlas-7b vs beacon-13b" in text, text
    assert "humans (PPI++)" in text and "judge alone" in text and "worth" in text, text
    # a table without human labels gets one line saying so, not a table
    small = _html_index(small_site).read_text(encoding="utf-8")
    assert "What humans would say: no human labels" in small
    assert "humans-table" not in small
