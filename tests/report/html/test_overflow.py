"""Every page fits the window: screenshots at 1024 and 1400 CSS pixels, and no element of the
content box reaches past it (no sideways scrolling of the page, no table cut by its scroll
box, no chart wider than its column).

The full check runs ``assay demo`` (in its own process) on every page it makes (marked slow: about a
minute on two cores); the three pages of the shared ``demo`` fixture are checked at 1024 px in
the default run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WIDTHS = (1024, 1400)
DEMO_HTML_BUDGET = 12_000_000
"""Bytes: the demo's whole HTML folder (pages and plotly.min.js), from 57 MB when each page
inlined plotly.js."""

OVERFLOW = """(() => {
  const main = document.querySelector('main');
  const box = main.getBoundingClientRect();
  const style = getComputedStyle(main);
  const left = box.left + parseFloat(style.paddingLeft) - 1;
  const right = box.right - parseFloat(style.paddingRight) + 1;
  const name = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ')[0] : '');
  const found = [];
  const page = document.documentElement.scrollWidth;
  if (page > window.innerWidth) { found.push('page is ' + page + ' px wide'); }
  main.querySelectorAll('*').forEach(el => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || el.closest('.table-scroll') !== null && el.tagName !== 'TABLE') { return; }
    if (el.closest('svg') !== null) { return; }
    if (r.right > right || r.left < left) {
      found.push(name(el) + ' spans ' + Math.round(r.left) + '-' + Math.round(r.right)
                 + ' outside ' + Math.round(left) + '-' + Math.round(right));
    }
  });
  main.querySelectorAll('.table-scroll').forEach(s => {
    if (s.scrollWidth > s.clientWidth + 1) {
      found.push('table ' + s.querySelector('table').id + ' is cut: ' + s.scrollWidth + ' px in '
                 + s.clientWidth);
    }
  });
  main.querySelectorAll('.plot').forEach(p => {
    const svg = p.querySelector('.main-svg');
    if (svg && svg.getBoundingClientRect().width > p.getBoundingClientRect().width + 1) {
      found.push('chart ' + p.id + ' is wider than its column');
    }
  });
  return found;
})()"""


def overflow(tab, path: Path, width: int) -> list[str]:
    tab.load(path, width=width)
    assert tab.problems() == [], (path.name, width)
    return tab.evaluate(OVERFLOW)


def test_the_check_sees_a_table_that_does_not_fit(tab, tmp_path):
    """The oracle fails where it should: a row of long unbreakable numbers is cut."""
    from assay.report.html import Column, Page, Section, Table, render_html

    wide = Table.from_records([{f"c{i}": 123456789.123456 for i in range(30)}],
                              [Column(f"c{i}", f"column {i}", "fixed") for i in range(30)])
    path = render_html([Page(slug="wide", title="Wide", sections=(
        Section(title="Wide", tables=(wide,)),))], tmp_path)[1]
    assert any(f.startswith("table tbl-1 is cut") for f in overflow(tab, path, 1024))


def test_shared_demo_pages_fit_1024_pixels(demo, tab):
    folder = demo.pages["index"].parent
    for path in [*demo.pages.values(), folder / "glossary.html"]:
        assert overflow(tab, path, 1024) == [], path.name


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("assay-demo")
    src = str(Path(__file__).resolve().parents[3] / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-m", "assay", "demo", "--out", str(out)], check=True,
                   capture_output=True, env=env, timeout=600)
    return out / "html"


@pytest.mark.slow
def test_demo_html_stays_within_its_budget(demo_site):
    files = sorted(demo_site.iterdir())
    total = sum(f.stat().st_size for f in files)
    assert total <= DEMO_HTML_BUDGET, {f.name: f.stat().st_size for f in files}
    assert [f.name for f in files if f.suffix == ".js"] == ["plotly.min.js"]


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_every_demo_page_fits_the_window(demo_site, tab, width, tmp_path):
    pages = sorted(demo_site.glob("*.html"))
    assert len(pages) >= 12
    found = {}
    for path in pages:
        problems = overflow(tab, path, width)
        tab.screenshot(tmp_path / f"{path.stem}-{width}.png", width=width)
        if problems:
            found[path.name] = problems[:5]
    assert found == {}
    assert len(list(tmp_path.glob("*.png"))) == len(pages)
