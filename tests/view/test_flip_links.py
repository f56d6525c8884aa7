"""From a report's count of flips or of failed judgments to exactly those judgments:
``assay view TABLE --reports DIR``, a click in headless Chromium, and the rows shown
checked against a count made here from the table's design."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cli import main
from assay.view import JudgmentIndex, ViewServer, parse_query
from tests.view.conftest import texts, write_csv

FLIPPED = {"q2": 0.0, "q5": 0.0, "q9": 0.5}
"""Items whose second trial (arm a shown second) changes the verdict of the first (a wins)."""
UNPAIRED = "q11"
"""Its second trial timed out: no trial pair, no flip."""
FAILED = {("q3", "a"): "parse_error", ("q4", "a"): "refusal", ("q7", "b"): "parse_error"}
"""Judgments of the scored criterion without a score."""


def _table(path: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for i in range(1, 13):
        item, cluster = f"q{i}", f"c{(i - 1) // 3}"
        for run in (1, 2):
            second = FLIPPED.get(item, 1.0) if run == 2 else 1.0
            failed = item == UNPAIRED and run == 2
            rows.append({"item": item, "cluster": cluster, "arm": "a", "opponent": "base",
                         "position": run, "run": run, "judge": "P", "criterion": "pref",
                         "score": "" if failed else second,
                         "failure_kind": "timeout" if failed else "",
                         "reasoning": f"P on {item} trial {run}"})
        for arm in ("a", "b"):
            kind = FAILED.get((item, arm), "")
            rows.append({"item": item, "cluster": cluster, "arm": arm, "opponent": "",
                         "position": "", "run": 1, "judge": "J", "criterion": "quality",
                         "score": "" if kind else 1 + (i + len(arm)) % 5,
                         "failure_kind": kind, "reasoning": f"J on {item}"})
    write_csv(path, rows)
    return rows


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[dict]]:
    folder = tmp_path_factory.mktemp("flips")
    rows = _table(folder / "t.csv")
    with pytest.raises(SystemExit) as done:
        main(["report", str(folder / "t.csv"), "--kind", "judges,scores", "--format", "html",
              "--out", str(folder / "out"), "--scale", "quality=range:1,5",
              "--scale", "pref=range:0,1"])
    assert done.value.code in (0, None)
    return folder / "t.csv", folder / "out", rows


def _click(tab, server, page: str, href_part: str, column: int) -> tuple[str, str, list[str], str]:
    """Click the link of ``page`` whose href holds ``href_part``; the link's text, the
    viewer's status line, the shown rows' cells of ``column`` (1-based) and the query."""
    tab.send("Page.navigate", {"url": server.url + "reports/" + page})
    tab.wait_for("document.querySelector('a.view-link') !== null", timeout=60)
    selector = f"a.view-link[href*='{href_part}']"
    shown_count = tab.evaluate(f"document.querySelector({selector!r}).textContent")
    tab.click(selector)
    tab.wait_for("location.pathname === '/' && window.assay !== undefined && "
                 "window.assay.ready === true && document.querySelector('#status')"
                 ".textContent.startsWith('Rows')", timeout=60)
    return (shown_count, tab.evaluate("document.querySelector('#status').textContent"),
            texts(tab, f"#rows tbody tr td:nth-child({column})"), tab.evaluate("location.search"))


@pytest.mark.slow  # two report kinds, then Chromium: about 10 s on an idle machine
def test_a_flip_count_and_a_failure_count_open_exactly_their_judgments(tab, reports):
    table, out, rows = reports
    # counted from the design, not by the viewer or the analysis
    flip_rows = [r for r in rows if r["criterion"] == "pref" and r["item"] in FLIPPED]
    failed_a = [r for r in rows if r["criterion"] == "quality" and r["arm"] == "a"
                and r["failure_kind"]]
    assert len(flip_rows) == 2 * len(FLIPPED) == 6 and len(failed_a) == 2
    with JudgmentIndex(table) as index, ViewServer(index, reports=out) as server:
        server.start()
        flips, flip_status, flip_shown, flip_search = _click(tab, server, "judges.html",
                                                             "flipped=yes", 2)  # item
        fails, fail_status, fail_shown, _ = _click(
            tab, server, "scores.html", "criterion=quality&judge=J&arm=a&verdict=failed", 8)
        problems = tab.problems()
        unflipped = index.page(parse_query({"flipped": ["no"], "limit": ["500"]})).total
    assert "judge=P" in flip_search and "criterion=pref" in flip_search
    assert int(flips) == len(FLIPPED)  # the report counts trial pairs, each of two judgments
    assert flip_status == f"Rows 1\u2013{len(flip_rows)} of {len(flip_rows)}."
    assert sorted(flip_shown) == sorted(r["item"] for r in flip_rows)
    assert unflipped == 2 * (12 - len(FLIPPED) - 1)  # every complete pair that holds
    assert int(fails) == len(failed_a) and fail_status == f"Rows 1\u20132 of {len(failed_a)}."
    assert sorted(fail_shown) == sorted(str(r["failure_kind"]) for r in failed_a)
    assert problems == []
