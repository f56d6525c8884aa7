"""Names from the data cannot run on the systems page.

Script and event-handler payloads go into attribute keys and values, arm and task names; the
systems page is rendered from that table and loaded in Chromium with the
Content-Security-Policy bypassed (so escaping alone is tested): nothing may run, and the
payloads must be shown as text.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from assay.analysis.systems import systems_report
from assay.data.io import load
from assay.report.html import render_html
from tests.report.html._parse import parse_page

SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
BREAK = "</script><script>window.__pwned = 'break'</script>"
PAYLOADS = (SCRIPT, IMG, BREAK)


@pytest.fixture(scope="module")
def hostile(systems_demo, tmp_path_factory):
    root = tmp_path_factory.mktemp("systems-xss")
    j = systems_demo.judgments
    arms = {a: f"{a} {PAYLOADS[i % 3]}" for i, a in enumerate(j.arms)}
    frame = j.frame.copy()
    frame["arm"] = frame["arm"].map(arms)
    frame["opponent"] = frame["opponent"].map(arms)
    frame["teacher"] = frame["teacher"].map(lambda t: arms.get(t, t))
    frame["task"] = frame["task"] + f" {BREAK}"
    frame["attributes"] = frame["attributes"].map(lambda text: json.dumps(
        {f"{k} {SCRIPT}" if k == "domain" else k: f"{v} {IMG}" for k, v in json.loads(text).items()}))
    saved = replace(j, frame=frame).save(root / "hostile.parquet")
    report = systems_report(load(saved[0]), B=50, seed=1)
    assert any(IMG in r.value for r in report.attributes.rows)
    assert any(SCRIPT in k for k in report.attributes.attributes)
    return render_html([report], root / "html"), report


def test_no_payload_reaches_the_source_unescaped(hostile):
    pages, _ = hostile
    for path in pages:
        text = parse_page(path).source
        for payload in PAYLOADS:
            assert payload not in text, (path.name, payload)
        assert "<img" not in text


def test_nothing_runs_in_the_browser_and_the_payload_shows_as_text(hostile, tab):
    pages, report = hostile
    tab.send("Page.setBypassCSP", {"enabled": True})
    for path in pages:
        tab.load(path)
        assert tab.evaluate("typeof window.__pwned") == "undefined", path.name
        assert tab.problems() == [], path.name
        assert tab.evaluate("document.images.length") == 0, path.name
        assert tab.evaluate("document.querySelectorAll('table.data script').length") == 0
    tab.load(pages[1])
    text = tab.evaluate("document.body.innerText")
    assert report.attributes.rows[0].value in text  # "easy <img src=x onerror=...>" as text
    assert f"domain {SCRIPT}" in text and report.rankings.arms[0].arm in text
