"""Names from the data cannot run in the bespoke pages.

Script and event-handler payloads go into arm, judge, criterion, task, teacher and attribute
names; every bespoke page is rendered from that table and loaded in Chromium with the
Content-Security-Policy bypassed (so escaping alone is tested): nothing may run, and the
payloads must be shown as text.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from assay.analysis.compare import compare
from assay.data.io import load
from assay.report.html import render_html
from tests.report.html._parse import parse_page
from tests.report.html.pages.conftest import build_reports

SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
BREAK = "</script><script>window.__pwned = 'break'</script>"
SVG = "\"><svg onload=\"window.__pwned = 'svg'\">"
PAYLOADS = (SCRIPT, IMG, BREAK, SVG)


@pytest.fixture(scope="module")
def hostile(demo, tmp_path_factory):
    root = tmp_path_factory.mktemp("pages-xss")
    j = demo.judgments
    arms = {a: f"{a} {PAYLOADS[i % 4]}" for i, a in enumerate(j.arms)}
    judges = {k: f"{k} {PAYLOADS[(i + 1) % 4]}" for i, k in enumerate(pd_unique(j.frame["judge"]))}
    criteria = {"quality": f"quality {SCRIPT}", "helpfulness": f"helpfulness {IMG}"}
    frame = j.frame.copy()
    frame["arm"] = frame["arm"].map(arms)
    frame["opponent"] = frame["opponent"].map(arms)
    frame["teacher"] = frame["teacher"].map(lambda t: arms.get(t, f"{t} {SVG}"))
    frame["judge"] = frame["judge"].map(judges)
    frame["criterion"] = frame["criterion"].replace(criteria)
    frame["task"] = frame["task"] + f" {BREAK}"
    frame["attributes"] = frame["attributes"].map(
        lambda text: json.dumps({k: f"{v} {IMG}" for k, v in json.loads(text).items()}))
    scales = {criteria.get(k, k): v for k, v in j.scales.items()}
    saved = replace(j, frame=frame, scales=scales).save(root / "hostile.parquet")
    table = load(saved[0])
    reports = list(build_reports(table, root).values())
    reports.append(compare(table, table))
    return render_html(reports, root / "html"), [*arms.values(), *judges.values()]


def pd_unique(series):
    return list(dict.fromkeys(series))


def test_no_payload_reaches_the_source_unescaped(hostile):
    pages, _ = hostile
    assert len(pages) == 11
    for path in pages:
        text = parse_page(path).source
        for payload in PAYLOADS:
            assert payload not in text, (path.name, payload)
        assert "<img" not in text and "<svg" not in text


@pytest.mark.slow  # every page in Chromium; the source check below stays in the default run
def test_nothing_runs_in_the_browser_with_escaping_alone(hostile, tab):
    pages, names = hostile
    tab.send("Page.setBypassCSP", {"enabled": True})
    for path in pages:
        tab.load(path)
        assert tab.evaluate("typeof window.__pwned") == "undefined", path.name
        assert tab.problems() == [], path.name
        assert tab.evaluate("document.images.length") == 0, path.name
        if path.stem in ("aggregate", "robust", "winrates", "interaction", "compare"):
            text = tab.evaluate("document.body.innerText")
            assert any(n in text for n in names), path.name  # shown as the literal text
