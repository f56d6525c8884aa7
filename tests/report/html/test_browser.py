"""The pages in headless Chromium: load offline without errors, draw every chart with data,
filter, sort and export tables, filter a table from a click on its chart.

The oracle for what the browser shows is the report object the page was made from.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from assay.analysis.benchmark import benchmark_report
from assay.analysis.scores import score_summary
from assay.data.importers import import_alpaca_eval
from assay.report.html import render_html
from tests.report.html._frames import WinRates, small_bench
from tests.report.html._parse import fetched_by, parse_page

CHARTS = """Array.from(document.querySelectorAll('.plot')).map(gd => ({
  id: gd.id,
  traces: (gd.data || []).length,
  values: (gd.data || []).map(t => (t.x || t.y || []).filter(v => v !== null).length),
  marks: gd.querySelectorAll('.point').length,
}))"""

SHOWN = """Array.from(document.getElementById(%s).tBodies[0].rows).filter(r => !r.hidden)
  .map(r => Array.from(r.cells).map(c => c.hasAttribute('data-missing') ? ''
       : (c.hasAttribute('data-value') ? c.getAttribute('data-value') : c.textContent)))"""


def shown_rows(tab, table_id):
    return tab.evaluate(SHOWN % json.dumps(table_id))


def test_every_page_loads_offline_without_errors_and_every_chart_has_data(demo, tab):
    for path in [*demo.pages.values(), *demo.partial.values()]:
        tab.load(path, offline=True)
        assert tab.problems() == [], path.name
        assert tab.evaluate("window.assay.errors") == []
        # The page itself and plotly.min.js beside it: no style, font, image or network.
        assert tab.requested_urls() == fetched_by(path)
        expected = parse_page(path).data["figures"]
        charts = tab.evaluate(CHARTS)
        assert [c["id"] for c in charts] == [f["id"] for f in expected]
        for chart in charts:
            assert chart["traces"] >= 1 and all(n > 0 for n in chart["values"]), (path, chart)
            assert chart["marks"] >= 1, (path, chart)  # points or bars were drawn


def test_accuracy_chart_shows_the_reports_intervals(demo, tab):
    tab.load(demo.pages["benchmark"])
    trace = tab.evaluate("(() => { const t = document.getElementById('fig-1').data[0];"
                         " return {x: t.x, y: t.y, up: t.error_x.array,"
                         " down: t.error_x.arrayminus}; })()")
    assert trace["y"] == demo.report.arms
    for i, record in enumerate(demo.report.accuracy):
        assert trace["x"][i] == record["estimate"]
        assert trace["x"][i] + trace["up"][i] == pytest.approx(record["upper"], abs=1e-12)
        assert trace["x"][i] - trace["down"][i] == pytest.approx(record["lower"], abs=1e-12)
    hover = tab.evaluate("document.getElementById('fig-1').data[0].hovertemplate")
    assert "%{x:.3f}" in hover  # hover shows the exact value


def test_filter_sort_and_csv_export_of_the_rows_shown(demo, tab, tmp_path):
    table = parse_page(demo.pages["benchmark"]).table_with("arm", "k", "pass_k", "lower", "upper")
    selector = f'input.table-filter[data-table="{table.id}"]'
    tab.load(demo.pages["benchmark"])
    assert len(shown_rows(tab, table.id)) == len(demo.report.pass_k) == 9

    tab.type_into(selector, "cirrus")
    rows = shown_rows(tab, table.id)
    assert [r[0] for r in rows] == ["cirrus-70b"] * 3
    assert tab.evaluate(f"document.querySelector('.row-count[data-table=\"{table.id}\"]')"
                        ".textContent") == "3 of 9 rows"
    tab.type_into(selector, "BEACON")  # any case
    assert [r[0] for r in shown_rows(tab, table.id)] == ["beacon-13b"] * 3
    tab.type_into(selector, "cirrus beacon")  # every term must be in the row
    assert shown_rows(tab, table.id) == []
    tab.type_into(selector, "cirrus")

    sort = f'#{table.id} th[data-key="pass_k"] button.sort'
    tab.click(sort)
    mine = [r for r in demo.report.pass_k if r["arm"] == "cirrus-70b"]
    ascending = sorted(r["pass_k"] for r in mine)
    assert [float(r[2]) for r in shown_rows(tab, table.id)] == ascending
    tab.click(sort)
    assert [float(r[2]) for r in shown_rows(tab, table.id)] == ascending[::-1]

    saved = tab.download(f'button.csv-export[data-table="{table.id}"]', tmp_path)
    assert saved.suggested_name == "benchmark-pass-k.csv"
    exported = list(csv.reader(io.StringIO(saved.path.read_text(encoding="utf-8"))))
    assert exported[0] == ["arm", "k", "pass_k", "lower", "upper"]
    assert exported[1:] == shown_rows(tab, table.id)
    by_k = sorted(mine, key=lambda r: r["pass_k"], reverse=True)
    assert [[r[0], int(float(r[1])), float(r[2]), float(r[3]), float(r[4])] for r in exported[1:]] \
        == [[r["arm"], r["k"], r["pass_k"], r["lower"], r["upper"]] for r in by_k]

    tab.type_into(selector, "")
    assert len(shown_rows(tab, table.id)) == 9


def test_csv_export_leaves_missing_values_empty(tmp_path, tab):
    from assay.report.html import Column, Page, Section, Table

    page = Page(slug="gaps", title="Gaps", sections=(Section(title="t", tables=(Table.from_records(
        [{"arm": "a, the first", "p": None}, {"arm": 'say "hi"', "p": 0.25}],
        (Column("arm", "arm"), Column("p", "p", "fixed"))),)),))
    path = render_html([page], tmp_path)[1]
    tab.load(path)
    # RFC 4180: fields with a comma or quote are quoted, quotes doubled; a missing value is empty.
    assert tab.evaluate("window.assay.tableCsv('tbl-1')") == (
        'arm,p\r\n"a, the first",\r\n"say ""hi""",0.25\r\n')


def test_click_on_a_point_filters_its_table(demo, tab):
    table = parse_page(demo.pages["benchmark"]).table_with("arm", "estimate", "lower", "upper")
    tab.load(demo.pages["benchmark"])
    box = tab.evaluate("(() => { const gd = document.getElementById('fig-1');"
                       " gd.scrollIntoView({block: 'center'});"
                       " const p = gd.querySelectorAll('.point')[2].getBoundingClientRect();"
                       " return [p.left + p.width / 2, p.top + p.height / 2]; })()")
    tab.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    record = demo.report.accuracy[2]
    tab.wait_for("document.querySelector('.hoverlayer .hovertext') !== null", timeout=5)
    hover = tab.evaluate("document.querySelector('.hoverlayer .hovertext').textContent")
    # The hover label gives the arm, its estimate and its interval.
    assert hover.startswith(record["arm"])
    assert f"estimate {record['estimate']:.3f}" in hover
    assert f"interval [{record['lower']:.3f}, {record['upper']:.3f}]" in hover
    for kind in ("mousePressed", "mouseReleased"):
        tab.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1],
                                              "button": "left", "clickCount": 1})
    third = demo.report.arms[2]
    tab.wait_for(f"document.querySelector('input.table-filter[data-table=\"{table.id}\"]')"
                 f".value === {json.dumps(third)}", timeout=5)
    assert [r[0] for r in shown_rows(tab, table.id)] == [third]


def test_descriptive_report_without_intervals_loads_cleanly(tab, tmp_path):
    report = benchmark_report(small_bench(runs=3), B=200)  # below 5 runs: no intervals
    assert all(r["lower"] is None for r in report.accuracy)
    paths = render_html([report], tmp_path)
    for path in paths:
        tab.load(path)
        assert tab.problems() == [], path.name
        charts = tab.evaluate(CHARTS)
        assert charts and all(c["marks"] >= 1 for c in charts)


def test_generic_page_from_to_dict_loads_and_plots(tab, tmp_path):
    path = render_html([WinRates(n_records=3)], tmp_path)[1]
    tab.load(path)
    assert tab.problems() == []
    charts = tab.evaluate(CHARTS)
    assert len(charts) == 1 and charts[0]["marks"] == 3


def test_real_alpaca_eval_scores_page(alpaca_results, tab, tmp_path):
    summary = score_summary(import_alpaca_eval([alpaca_results]))
    paths = render_html([summary], tmp_path)
    tab.load(paths[1])
    assert tab.problems() == []
    charts = tab.evaluate(CHARTS)
    assert len(charts) == 1 and charts[0]["marks"] == len(summary.rows)
    table = parse_page(paths[1]).table_with("judge", "arm", "opponent")
    assert [(r[0], r[1], r[2]) for r in shown_rows(tab, table.id)] == [
        (r.judge, r.arm, r.opponent) for r in summary.rows]


def test_single_file_report_shows_one_tab_at_a_time_and_sizes_its_charts(demo, tab, tmp_path):
    path = render_html([demo.summary, demo.report], tmp_path, single_file=True)[0]
    tab.load(path)
    assert tab.problems() == [] and tab.evaluate("window.assay.errors") == []
    assert tab.requested_urls() == [path.resolve().as_uri()]  # plotly.js is inside
    visible = "Array.from(document.querySelectorAll('.tab-panel')).filter(p => !p.hidden).map(p => p.id)"
    assert tab.evaluate(visible) == ["tab-index"]
    tab.click('header.top a[href="#benchmark"]')
    tab.wait_for("!document.getElementById('tab-benchmark').hidden")
    assert tab.evaluate(visible) == ["tab-benchmark"]
    # The benchmark's first chart was drawn hidden (plotly's default 700 px); shown, it is
    # resized to fill its panel.
    widths = ("(() => { const gd = document.querySelector('#tab-benchmark .plot');"
              " return [gd.getBoundingClientRect().width,"
              " gd.querySelector('.main-svg').getBoundingClientRect().width]; })()")
    try:
        tab.wait_for(f"(([a, b]) => a > 800 && Math.abs(a - b) < 2)({widths})", timeout=10)
    except TimeoutError:
        pytest.fail(f"chart not resized to its panel: {tab.evaluate(widths)}")


def test_optional_columns_hide_until_asked_and_always_export(tab, tmp_path):
    from assay.report.html import Column, Page, Section, Table

    table = Table.from_records([{"arm": "a", "mean": 0.5, "median": 0.25}],
                               (Column("arm", "arm"), Column("mean", "mean", "fixed"),
                                Column("median", "median", "fixed", optional=True)))
    path = render_html([Page(slug="t", title="T", sections=(Section(title="T", tables=(table,)),))],
                       tmp_path)[1]
    tab.load(path)
    shown = ("Array.from(document.querySelectorAll('#tbl-1 th')).filter(th =>"
             " getComputedStyle(th).display !== 'none').map(th => th.dataset.key)")
    assert tab.evaluate(shown) == ["arm", "mean"]
    assert tab.evaluate("window.assay.tableCsv('tbl-1')").splitlines()[0] == "arm,mean,median"
    tab.click("button.more-columns")
    assert tab.evaluate(shown) == ["arm", "mean", "median"]
    assert tab.evaluate("document.querySelector('button.more-columns').textContent") == \
        "fewer columns"
