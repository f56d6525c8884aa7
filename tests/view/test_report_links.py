"""From a number in a report page to the judgments behind it: ``assay view RUN --reports DIR``
serves the report folder under /reports/, so a page's links to ``/?QUERY`` open the viewer
(same origin), filtered to exactly the judgments the number counts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from assay.cli import main
from assay.view import JudgmentIndex, ViewServer
from tests.view.conftest import texts, write_csv

DISAGREED = {("q3", "a"): {"j1": 1, "j2": 5, "j3": 3}, ("q7", "b"): {"j1": 5, "j2": 1, "j3": 1}}


def _table(path: Path) -> Path:
    """Three judges agreeing on every unit but two (item q3 of arm a, q7 of arm b)."""
    rows = []
    for i in range(1, 13):
        for arm in ("a", "b"):
            for judge in ("j1", "j2", "j3"):
                score = DISAGREED.get((f"q{i}", arm), {}).get(judge, 2 + (i + len(arm)) % 3)
                rows.append({"item": f"q{i}", "cluster": f"c{(i - 1) // 3}", "arm": arm,
                             "judge": judge, "criterion": "quality", "score": score,
                             "reasoning": f"{judge} on q{i}"})
    return write_csv(path, rows)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("links")
    table = _table(folder / "t.csv")
    with pytest.raises(SystemExit) as done:
        main(["report", str(table), "--kind", "judges", "--format", "html", "--out",
              str(folder / "out"), "--scale", "quality=range:1,5"])
    assert done.value.code in (0, None)
    return table, folder / "out"


@pytest.mark.slow  # the judges' report pages, then Chromium: about 10 s on an idle machine
def test_clicking_a_count_of_judges_opens_exactly_their_judgments(tab, reports):
    table, out = reports
    with JudgmentIndex(table) as index, ViewServer(index, reports=out) as server:
        server.start()
        tab.send("Page.navigate", {"url": server.url + "reports/judges.html"})
        tab.wait_for("document.querySelector('a.view-link') !== null", timeout=60)
        links = tab.evaluate("[...document.querySelectorAll('a.view-link')]"
                             ".map(a => [a.textContent, a.getAttribute('href')])")
        assert len(links) == 2 and all(href.startswith("/?") for _, href in links)
        count = int(links[0][0])
        tab.click("a.view-link")
        tab.wait_for("location.pathname === '/' && window.assay !== undefined && "
                     "window.assay.ready === true && document.querySelector('#status')"
                     ".textContent.startsWith('Rows')", timeout=60)
        search = tab.evaluate("location.search")
        status = tab.evaluate("document.querySelector('#status').textContent")
        shown = texts(tab, "#rows tbody tr")
        problems = tab.problems()
    item, arm = next((i, a) for (i, a) in DISAGREED if f"item={i}&" in search)
    assert f"arm={arm}" in search and "run=1" in search and "verdict=scored" in search
    assert count == 3 and status == f"Rows 1\u20133 of {count}." and len(shown) == count
    assert all(item in row and arm in row for row in shown), shown
    assert sorted(judge for row in shown for judge in ("j1", "j2", "j3") if judge in row) == \
        ["j1", "j2", "j3"]
    assert problems == []


@pytest.mark.slow  # the judges' report pages (the fixture)
def test_the_report_folder_is_served_and_nothing_outside_it(reports):
    table, out = reports
    with JudgmentIndex(table) as index, ViewServer(index, reports=out) as server:
        server.start()
        with urllib.request.urlopen(server.url + "reports/judges.html") as reply:
            page = reply.read().decode("utf-8")
            assert reply.headers["Content-Type"].startswith("text/html")
        assert 'class="view-link" href="/?criterion=quality&amp;item=q3&amp;arm=a&amp;run=1&amp;' \
            'verdict=scored&amp;reportable=yes" data-rows="3"' in page  # a link once served
        assert 'data-view=' not in page
        assert 'data-view="/?criterion=quality&amp;item=q3' in (out / "judges.html").read_text(
            encoding="utf-8")  # in the file: an address, not a link
        for escape in ("reports/../t.csv", "reports/%2e%2e/t.csv", "reports/..%2ft.csv"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(server.url + escape)
            assert refused.value.code == 404
            refused.value.close()
        with urllib.request.urlopen(server.url + "api/rows?item=q3&arm=a&run=1&verdict=scored") \
                as reply:
            rows = json.load(reply)["rows"]
    assert sorted((r["judge"], r["score"]) for r in rows) == [("j1", 1.0), ("j2", 5.0),
                                                               ("j3", 3.0)]
