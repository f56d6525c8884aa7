"""Text from models and users cannot run in a report.

Script and event-handler payloads go into arm names, judge names, a criterion name,
reasoning and answers (the ``outcome`` column), into captions, notes and the reasons of
skipped reports; each payload sets ``window.__pwned`` if it runs. In the browser nothing
may run, with the page's Content-Security-Policy on and also with it bypassed (so escaping
alone is tested), and every payload must be shown as the literal text it is.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.data.io import load
from assay.report.html import Column, Page, Section, Table, render_html
from tests.report.html._parse import parse_page

SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
BREAK = "</script><script>window.__pwned = 'break'</script>"
SVG = "\"><svg onload=\"window.__pwned = 'svg'\">"
LINK = "<a href=\"javascript:window.__pwned = 'link'\">click</a>"
COMMENT = "<!--<script>window.__pwned = 'comment'</script>-->"
FORMULA = "=HYPERLINK(\"http://127.0.0.1/\",\"x\")"
PAYLOADS = (SCRIPT, IMG, BREAK, SVG, LINK, COMMENT)

ARMS = {"atlas-7b": f"atlas {SCRIPT}", "beacon-13b": f"beacon {IMG}",
        "cirrus-70b": f"cirrus {BREAK}"}
JUDGES = {"exact-match": f"exact {SVG}", "judge-lenient": f"lenient {LINK}",
          "judge-strict": f"{FORMULA} strict", "judge-ordinal": f"ordinal {COMMENT}",
          "judge-pairwise": f"pairwise {IMG}", "judge-biased": f"biased {SVG}",
          "human:annotator-1": f"human:one {LINK}", "human:annotator-2": "human:annotator-2"}
CRITERIA = {"quality": f"quality {SCRIPT}"}


@dataclass(frozen=True)
class Hostile:
    pages: list[Path]
    arms: list[str]


@pytest.fixture(scope="module")
def hostile(demo, tmp_path_factory) -> Hostile:
    root = tmp_path_factory.mktemp("xss")
    frame = demo.judgments.frame.copy()
    frame["arm"] = frame["arm"].map(ARMS)
    frame["opponent"] = frame["opponent"].map(ARMS)
    frame["judge"] = frame["judge"].map(JUDGES)
    frame["criterion"] = frame["criterion"].replace(CRITERIA)
    frame["reasoning"] = [PAYLOADS[i % len(PAYLOADS)] for i in range(len(frame))]
    frame["outcome"] = [f"answer {PAYLOADS[-1 - i % len(PAYLOADS)]}" for i in range(len(frame))]
    scales = {CRITERIA.get(k, k): v for k, v in demo.judgments.scales.items()}
    # Through a saved file and the loader, as a user's data would come.
    saved = replace(demo.judgments, frame=frame, scales=scales).save(root / "hostile.parquet")
    judgments = load(saved[0])
    assert judgments.arms == list(ARMS.values())
    samples = judgments.frame.head(12)
    answers = Page(slug="samples", title=f"Samples {SCRIPT}", summary=f"Reasoning {IMG}",
                   sections=(Section(
                       title=f"Reasoning and answers {SVG}", intro=f"Intro {LINK}",
                       notes=(f"Note {BREAK}",),
                       tables=(Table.from_records(
                           samples.to_dict("records"),
                           (Column("item", "item"), Column("arm", "arm"), Column("judge", "judge"),
                            Column("reasoning", "reasoning"), Column("outcome", "answer")),
                           caption=f"Caption {COMMENT}", name=f"samples {SCRIPT}"),)),))
    pages = render_html(
        [score_summary(judgments), benchmark_report(judgments, seed=7, B=200), answers],
        root / "html", captions={"benchmark": f"judge {IMG}"},
        skipped={f"win rates {SCRIPT}": f"because {IMG}"}, title=f"Dashboard {SVG}")
    return Hostile(pages, judgments.arms)


def test_no_payload_reaches_the_source_unescaped(hostile):
    for path in hostile.pages:
        text = parse_page(path).source  # the page without plotly.js
        for payload in PAYLOADS:
            assert payload not in text, (path.name, payload)
        assert "window.__pwned" in text  # the payloads are there, as escaped text
        assert "<img" not in text and "<svg" not in text and 'href="javascript' not in text


@pytest.mark.parametrize("bypass_csp", [False, True], ids=["with-csp", "escaping-only"])
def test_nothing_runs_in_the_browser(hostile, tab, bypass_csp):
    tab.send("Page.setBypassCSP", {"enabled": bypass_csp})
    for path in hostile.pages:
        tab.load(path)
        assert tab.evaluate("typeof window.__pwned") == "undefined", path.name
        assert tab.problems() == [], path.name  # no dialog, no error, no policy violation
        assert tab.evaluate("document.images.length") == 0
        assert tab.evaluate("document.querySelectorAll('svg a, a[href^=\"javascript\"]').length") == 0
        # The JSON block, plotly.js and assay.js; a page without charts has no plotly.js.
        assert tab.evaluate("document.scripts.length") == (2 if path.stem == "samples" else 3)
        text = tab.evaluate("document.body.innerText")
        if path.stem != "samples":
            assert ARMS["atlas-7b"] in text and ARMS["beacon-13b"] in text, path.name
        else:
            assert all(p in text for p in (SCRIPT, IMG, SVG, LINK, COMMENT, BREAK))


def test_chart_labels_show_payloads_as_text_and_clicks_filter_by_the_plain_name(hostile, tab):
    tab.load(hostile.pages[2])  # benchmark.html
    labels = tab.evaluate("Array.from(document.querySelectorAll('#fig-1 .ytick text'))"
                          ".map(t => t.textContent)")
    assert sorted(labels) == sorted(hostile.arms)
    legend = tab.evaluate("Array.from(document.querySelectorAll('.legendtext'))"
                          ".map(t => t.textContent)")
    assert ARMS["cirrus-70b"] in legend  # the pass^k legend names the arms
    key = tab.evaluate("window.assay.decode(document.getElementById('fig-1').data[0]"
                       ".customdata[1][0])")
    assert key == ARMS["beacon-13b"]


def test_csv_export_neutralises_formulas(hostile, tab):
    tab.load(hostile.pages[1])  # scores.html
    table_id = tab.evaluate("Array.from(document.querySelectorAll('table.data')).find(t =>"
                            " t.tBodies[0].textContent.includes('HYPERLINK')).id")
    tab.evaluate(f"window.assay.filterTable({json.dumps(table_id)}, 'strict')")
    rows = list(csv.reader(io.StringIO(tab.evaluate(
        f"window.assay.tableCsv({json.dumps(table_id)})"))))
    judges = {r[0] for r in rows[1:]}
    assert judges == {"'" + JUDGES["judge-strict"]}  # a leading ' keeps it text in a spreadsheet
