"""The systems page and the composite page in headless Chromium: they load offline with no
console error, every chart has data, and every number shown equals the report object's."""

from __future__ import annotations

import json
import math

import pytest
from numpy.testing import assert_allclose

from assay.report.html import page_for, render_html
from tests.analysis.systems.test_systems_analysis import tiny
from tests.report.html._parse import fetched_by, parse_page

CHARTS = """Array.from(document.querySelectorAll('.plot')).map(gd => ({
  id: gd.id,
  values: (gd.data || []).map(t => (t.x || []).filter(v => v !== null).length),
  marks: gd.querySelectorAll('.point').length,
}))"""

TABLES = """Object.fromEntries(Array.from(document.querySelectorAll('table.data')).map(t => [
  t.caption ? t.caption.textContent.trim() : t.id,
  {keys: Array.from(t.tHead.rows[0].cells).map(c => c.dataset.key),
   rows: Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c =>
     c.hasAttribute('data-value') ? Number(c.dataset.value)
       : c.hasAttribute('data-missing') ? null : c.textContent))}]))"""


def shown(tab, caption):
    """The rows of the table with that caption, as records keyed by column."""
    table = tab.evaluate(TABLES)[caption]
    return [dict(zip(table["keys"], row, strict=True)) for row in table["rows"]]


def same(a, b):
    if b is None or (isinstance(b, float) and math.isnan(b)):
        return a is None
    if isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12, abs=1e-300)
    return a == b


def check(records, expected, keys):
    assert len(records) == len(expected) > 0
    for got, want in zip(records, expected, strict=True):
        for key in keys:
            assert same(got[key], getattr(want, key)), (key, got[key], getattr(want, key))


def test_pages_load_offline_without_errors_and_every_chart_has_data(systems_demo, tab):
    for stem in ("systems", "composite", "index"):
        path = systems_demo.pages[stem]
        tab.load(path, offline=True)
        assert tab.problems() == [], stem
        assert tab.evaluate("window.assay.errors") == [], stem
        assert tab.requested_urls() == fetched_by(path), stem
        charts = tab.evaluate(CHARTS)
        assert [c["id"] for c in charts] == [f["id"] for f in parse_page(path).data["figures"]]
        if stem != "index":
            assert charts, stem
        for chart in charts:
            assert chart["values"] and all(n > 0 for n in chart["values"]), (stem, chart)
            assert chart["marks"] >= 1, (stem, chart)
    # rankings, per task, head-to-head, one per attribute key
    assert len(parse_page(systems_demo.pages["systems"]).data["figures"]) == 5


def test_systems_page_numbers_equal_the_report(systems_demo, tab):
    report = systems_demo.report
    tab.load(systems_demo.pages["systems"])
    check(shown(tab, "Systems in rank order"), report.rankings.arms,
          ("rank", "arm", "estimate", "lower", "upper", "rank_lower", "rank_upper", "n_items"))
    per_task = [r for r in report.composite.rows if r.task is not None]
    check(shown(tab, "Composite Q per task"), per_task,
          ("arm", "task", "estimate", "lower", "upper", "standard_error", "n", "n_failed"))
    pairs = shown(tab, "Pairs of systems")
    check(pairs, report.head_to_head, ("arm", "opponent", "estimate", "lower", "upper",
                                       "standard_error", "p_value", "p_adjusted", "n",
                                       "n_clusters"))
    assert [p["task"] for p in pairs] == [r.task or "all tasks" for r in report.head_to_head]
    for key in report.attributes.attributes:
        check(shown(tab, f"Composite Q by {key}"),
              [r for r in report.attributes.rows if r.attribute == key],
              ("attribute", "value", "arm", "estimate", "lower", "upper", "n", "n_clusters"))
    # The head-to-head chart: one trace per task scope, x the estimates, bars to the bounds.
    figures = parse_page(systems_demo.pages["systems"]).data["figures"]
    fig_id = figures[2]["id"]
    traces = tab.evaluate(f"JSON.parse(JSON.stringify(document.getElementById("
                          f"{json.dumps(fig_id)}).data))")
    assert [t["name"] for t in traces] == ["all tasks", *sorted({r.task for r in report.head_to_head
                                                                  if r.task})]
    overall = [r for r in report.head_to_head if r.task is None]
    assert traces[0]["y"] == [f"{r.arm} - {r.opponent}" for r in overall]
    assert_allclose(traces[0]["x"], [r.estimate for r in overall], rtol=1e-12)
    assert_allclose([x - m for x, m in zip(traces[0]["x"], traces[0]["error_x"]["arrayminus"],
                                           strict=True)], [r.lower for r in overall], rtol=1e-12)


def test_composite_page_numbers_equal_the_scores(systems_demo, tab):
    composite = systems_demo.composite
    tab.load(systems_demo.pages["composite"])
    overall = sorted((r for r in composite.rows if r.task is None), key=lambda r: -r.estimate)
    check(shown(tab, "Systems, highest Q first"), overall,
          ("arm", "estimate", "lower", "upper", "standard_error", "n", "n_clusters"))
    check(shown(tab, "Composite Q per task"), [r for r in composite.rows if r.task is not None],
          ("arm", "task", "estimate", "lower", "upper"))


def test_without_tasks_or_attributes_sections_say_why(tmp_path):
    from assay.analysis.systems import systems_report

    page = page_for(systems_report(tiny(attributes=False), B=20))
    missing = {s.title: s.missing for s in page.sections if s.missing}
    assert "no task column" in missing["Per-task breakdown"]
    assert "no attributes column" in missing["Performance by attribute"]
    path = render_html([page], tmp_path)[1]
    assert "Not available: The table has no task column" in path.read_text()
