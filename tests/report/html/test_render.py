"""What render_html writes, read back without a browser: files, links, values, policy, sections.

The oracle for every number on a page is the report object it came from (its records at
full precision); the shown text is checked against hand-worked roundings.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path

import plotly
import pytest

import assay.report.html._write as html_module
from assay.analysis.benchmark import benchmark_report
from assay.report._glossary import method_words
from assay.report.html import Column, Figure, Highlight, Page, Section, Table, page_for, render_html
from tests.report.html._frames import WinRates, small_bench
from tests.report.html._parse import parse_page

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def test_index_comes_first_then_one_file_per_report(demo):
    assert list(demo.pages) == ["index", "scores", "benchmark"]
    assert all(p.parent == demo.pages["index"].parent for p in demo.pages.values())


def test_pages_link_the_dashboard_and_each_other(demo):
    for path in demo.pages.values():
        urls = parse_page(path).urls
        assert {"index.html", "scores.html", "benchmark.html"} <= set(urls)


def test_pages_share_one_plotly_file_copied_from_the_installed_package(demo):
    folder = demo.pages["index"].parent
    assert (hashlib.sha256((folder / "plotly.min.js").read_bytes()).hexdigest()
            == hashlib.sha256(PLOTLY_JS.read_bytes()).hexdigest())
    for path in demo.pages.values():
        page = parse_page(path)
        assert "link" not in page.tags and "img" not in page.tags and "iframe" not in page.tags
        assert page.plotly == ""  # not inlined
        charts = bool(page.data["figures"])
        assert [s.attrs.get("src") for s in page.scripts if s.attrs.get("src")] == \
            ["plotly.min.js"] * charts
        # Every URL is a sibling page, an anchor or plotly.min.js: no network, and no link to
        # the judgments behind a number (/?QUERY opened from disk is the file system's root;
        # the address waits in data-view for assay view to make it a link as it serves it)
        assert all(u.endswith((".html", ".js")) or u.startswith("#") for u in page.urls), page.urls
        assert "http://" not in " ".join(page.urls) and "https://" not in " ".join(page.urls)
        assert len(page.executable_scripts) == 1 + charts  # plotly.min.js, assay.js inline
    assert sum(p.stat().st_size for p in folder.glob("*.html")) < 1_000_000


def test_counts_written_to_disk_hold_the_viewers_address_but_no_link(demo):
    # the scores page links its failure counts when served (assay view); the file itself
    # holds each address in data-view, on an <a> without href: plain text from disk
    source = demo.pages["scores"].read_text(encoding="utf-8")
    counts = source.count('<a class="view-link" data-view="/?')
    assert counts > 0 and source.count('class="view-link"') == counts
    assert 'href="/?' not in source and "href='/?" not in source


def test_single_file_report_holds_every_page_as_a_tab_and_plotly_once(demo, tmp_path):
    paths = render_html([demo.summary, demo.report], tmp_path, single_file=True)
    assert [p.name for p in paths] == ["index.html"]
    assert not (tmp_path / "plotly.min.js").exists()
    page = parse_page(paths[0])
    assert len(page.plotly) == len(PLOTLY_JS.read_text(encoding="utf-8"))
    assert not [s for s in page.scripts if s.attrs.get("src")]
    assert 'id="tab-scores"' in page.source and 'id="tab-benchmark"' in page.source
    assert all(u.startswith("#") for u in page.urls), page.urls  # tabs only: no /?QUERY link
    ids = [f["id"] for f in page.data["figures"]]
    assert len(ids) == len(set(ids)) >= 2
    assert "'self'" not in page.csp


def test_content_security_policy_allows_exactly_the_page_scripts(demo):
    for path in demo.pages.values():
        page = parse_page(path)
        policy = dict(part.strip().split(" ", 1) for part in page.csp.split(";"))
        expected = {"'sha256-" + base64.b64encode(hashlib.sha256(s.text.encode()).digest()).decode()
                    + "'" for s in page.executable_scripts if not s.attrs.get("src")}
        if page.data["figures"]:
            expected.add("'self'")  # plotly.min.js beside the page
        assert set(policy["script-src"].split()) == expected
        assert policy["default-src"] == "'none'"
        assert policy["connect-src"] == "'none'"


def test_accuracy_table_holds_the_reports_values_at_full_precision(demo):
    page = parse_page(demo.pages["benchmark"])
    table = page.table_with("arm", "estimate", "lower", "upper", "standard_error")
    assert [row[0].text for row in table.rows] == demo.report.arms
    for row, record in zip(table.rows, demo.report.accuracy, strict=True):
        cells = dict(zip(table.keys, row, strict=True))
        for key in ("estimate", "lower", "upper", "standard_error", "rank_lower", "rank_upper"):
            assert float(cells[key].value) == record[key]
        assert cells["estimate"].text == f"{record['estimate']:.3f}"
        # The method in words; the identifier stays in the JSON (and the cell's tooltip).
        assert cells["method"].text == method_words(record["method"]) != record["method"]
        assert f'title="{record["method"]}"' in page.source


def test_dashboard_ranks_arms_by_the_reports_accuracy(demo):
    page = parse_page(demo.pages["index"])
    ranking = page.table_with("arm", "estimate", "lower", "upper", "rank_lower")
    expected = sorted(demo.report.accuracy, key=lambda r: r["estimate"], reverse=True)
    assert [row[0].text for row in ranking.rows] == [r["arm"] for r in expected]
    scores = page.table_with("criterion", "scale", "judge", "arm")
    assert len(scores.rows) == len(demo.summary.rows)


def test_scores_page_has_a_forest_plot_and_a_table_per_criterion(demo):
    page = parse_page(demo.pages["scores"])
    criteria = list(dict.fromkeys(r.criterion for r in demo.summary.rows))
    assert [h for h in page.headings if h in criteria] == criteria
    figures = page.data["figures"]
    assert len(figures) == len(criteria)
    quality = [r for r in demo.summary.rows if r.criterion == "quality"]
    forest = figures[criteria.index("quality")]
    assert sorted(x for trace in forest["data"] for x in trace["x"]) == sorted(
        r.estimate for r in quality)
    assert {trace["name"] for trace in forest["data"]} == {r.judge for r in quality}


def test_numbers_are_shown_rounded_and_kept_exact_hand_worked(tmp_path):
    columns = (Column("name", "name"), Column("p", "p", "fixed"), Column("usd", "usd", "sig"),
               Column("n", "n", "int"), Column("flag", "flag", "bool"))
    rows = [{"name": "a", "p": 0.12345, "usd": 2.5e-05, "n": 367.0, "flag": True},
            {"name": "b", "p": None, "usd": 1234.5678, "n": 12, "flag": False},
            {"name": "c", "p": float("nan"), "usd": 0.1, "n": None, "flag": None}]
    page = Page(slug="numbers", title="Numbers", sections=(
        Section(title="t", tables=(Table.from_records(rows, columns),)),))
    table = parse_page(render_html([page], tmp_path)[1]).table_with("name", "p")
    shown = [[c.text for c in row] for row in table.rows]
    # 0.12345 to 3 decimals is 0.123; 2.5e-05 and 1234.5678 to 4 significant digits are
    # 0.000025 (trailing zeros dropped) and 1235; a whole 367.0 count is 367.
    assert shown == [["a", "0.123", "0.000025", "367", "yes"],
                     ["b", "-", "1235", "12", "no"],
                     ["c", "-", "0.1", "-", "-"]]
    assert [c.value for c in table.rows[0]] == [None, "0.12345", "2.5e-05", "367.0", None]
    assert [c.missing for c in table.rows[2]] == [False, True, False, True, True]


def test_sections_without_data_say_why(tmp_path):
    report = benchmark_report(small_bench(runs=3), B=200)  # 3 runs: descriptive, no usd
    paths = render_html([report], tmp_path)
    page = parse_page(paths[1])
    reasons = " ".join(page.missing)
    assert "No cost: the judgments have no usd or tokens columns." in reasons
    assert "No frontier: it needs dollar costs" in reasons
    assert "No registration was given" in reasons
    assert "Only reported with method = bayes" in reasons
    accuracy = page.table_with("arm", "estimate", "lower", "upper")
    assert all(row[2].missing and row[3].missing for row in accuracy.rows)  # no intervals
    dashboard = parse_page(paths[0])
    dashboard_reasons = " ".join(dashboard.missing)
    assert "The benchmark report has no cost" in dashboard_reasons
    assert "No report in this set measures agreement between judges" in dashboard_reasons


def test_partial_run_marks_every_page_preliminary(demo):
    for name, path in demo.partial.items():
        page = parse_page(path)
        assert 'id="partial-banner"' in page.source, name
        assert "(preliminary)" in page.source.split("<title>")[1].split("</title>")[0]
        sections = page.source.count('class="report-section"')
        badges = page.source.count('class="badge prelim"')
        assert sections > 0 and badges > sections  # the title, each section, each caption
        for figure in page.data["figures"]:
            assert "PRELIMINARY" in [a["text"] for a in figure["layout"]["annotations"]]
    for path in demo.pages.values():
        page = parse_page(path)
        assert 'id="partial-banner"' not in page.source
        assert 'class="badge prelim"' not in page.source
        assert all("annotations" not in f["layout"] for f in page.data["figures"])


def test_pages_stay_small_and_charts_are_aggregated(demo):
    for path in demo.pages.values():
        page = parse_page(path)
        assert page.plotly == ""
        assert len(page.source) < 150_000
        for figure in page.data["figures"]:
            points = sum(len(t.get("x", t.get("y", []))) for t in figure["data"])
            assert 0 < points <= 40  # one point per arm, pair or k, never per judgment


def test_text_is_escaped_and_chart_data_cannot_close_its_script(tmp_path):
    evil = "</script><script>window.x = 1</script><!--"
    figure = Figure(data=({"type": "scatter", "x": [1.0], "y": [evil], "name": evil,
                           "customdata": [[evil]], "hovertemplate": "%{y}<br>x<extra></extra>"},))
    page = Page(slug="evil", title=f"Title {evil}", sections=(
        Section(title=evil, figures=(figure,), notes=(f"note <b>{evil}</b>",),
                tables=(Table.from_records([{"a": evil}], (Column("a", "a"),), caption=evil),)),))
    source = render_html([page], tmp_path, captions={"evil": evil}, skipped={evil: evil})
    for path in source:
        text = parse_page(path).source
        assert "<script>window.x" not in text and "<b>" not in text
        assert "<!--" not in text
    parsed = parse_page(tmp_path / "evil.html")
    assert len(parsed.executable_scripts) == 2  # plotly.min.js by src, assay.js inline
    trace = parsed.data["figures"][0]["data"][0]
    assert [html.unescape(trace["y"][0]), html.unescape(trace["name"])] == [evil, evil]
    assert trace["hovertemplate"] == "%{y}<br>x<extra></extra>"  # templates are code
    assert parsed.tables["tbl-1"].rows[0][0].text == evil  # shown as text, intact


def test_registered_builders_generic_pages_and_unique_slugs(tmp_path, monkeypatch):
    monkeypatch.setattr(html_module, "_BUILDERS", dict(html_module._BUILDERS))

    class Agreement:
        icc = 0.71

    def agreement_page(obj: Agreement) -> Page:
        section = Section(title="ICC", tables=(Table.from_records(
            [{"icc": obj.icc}], (Column("icc", "ICC(2,1)", "fixed"),)),))
        return Page(slug="judges", title="Judge agreement", sections=(section,),
                    highlights=(Highlight("agreement", section),))

    with pytest.raises(TypeError, match="no HTML page for a Agreement"):
        page_for(Agreement())
    html_module.register_page(Agreement, agreement_page)
    plain = Page(slug="index", title="Plain", sections=(Section(title="s", notes=("n",)),))
    paths = render_html([Agreement(), Agreement(), plain], tmp_path,
                        skipped={"win rates": "no pairwise judgments"})
    assert [p.name for p in paths] == ["index.html", "judges.html", "judges-2.html",
                                       "index-2.html"]
    dashboard = parse_page(paths[0])
    assert "No report in this set measures agreement" not in dashboard.source
    assert [row[0].text for t in dashboard.tables.values() for row in t.rows] == ["0.710", "0.710"]
    assert "no pairwise judgments" in dashboard.source
    assert "<h1>Plain</h1>" in parse_page(paths[3]).source
    with pytest.raises(TypeError, match="kind must be a class"):
        html_module.register_page("Agreement", agreement_page)  # type: ignore[arg-type]


def test_dashboard_without_reports_says_so(tmp_path):
    paths = render_html([], tmp_path, skipped={"benchmark": "no binary criterion"})
    page = parse_page(paths[0])
    assert len(paths) == 1
    assert "no report could be made" in " ".join(page.missing)
    assert "no binary criterion" in page.source
    assert len(page.executable_scripts) == 1  # no charts: plotly.js is left out
    assert json.loads(page.scripts[0].text)["figures"] == []


def test_objects_without_a_builder_are_laid_out_from_to_dict(tmp_path):
    page = page_for(WinRates())
    assert (page.slug, page.title) == ("win-rates", "Win rates")
    assert page.facts == (("conf", "0.95"), ("correction", "holm"))
    assert [s.title for s in page.sections] == ["records", "aa", "by judge", "totals", "Notes"]
    records, empty, by_judge, totals, notes = page.sections
    table = records.tables[0]
    assert [c.key for c in table.columns] == ["judge", "arm", "opponent", "win_rate", "lower",
                                              "upper", "n", "significant", "tasks"]
    assert [c.kind for c in table.columns] == ["text", "text", "text", "fixed", "fixed", "fixed",
                                               "int", "bool", "text"]
    assert table.rows[1] == ("j", "a1", "b", 0.26, 0.125, 0.5, 40, False, '["x"]')
    forest = records.figures[0]
    assert forest.data[0]["x"] == [0.25, 0.26] and forest.data[0]["y"] == ["j · a0 · b",
                                                                           "j · a1 · b"]
    # The bars reach the bounds: 0.25 - 0.125 below, 0.5 - 0.25 above.
    assert forest.data[0]["error_x"]["arrayminus"][0] == 0.125
    assert forest.data[0]["error_x"]["array"][0] == 0.25
    assert empty.missing == "The report holds no rows here."
    assert by_judge.tables[0].rows == (("j", 3, 0.5),)
    assert totals.tables[0].rows == (("wins", 7), ("ties", 2))
    assert notes.notes == ("Holm over 2 comparisons.",)
    paths = render_html([WinRates()], tmp_path)
    assert [p.name for p in paths] == ["index.html", "win-rates.html"]


def test_generic_tables_too_long_to_plot_get_a_note_not_a_chart():
    section = page_for(WinRates(n_records=61)).sections[0]
    assert section.figures == ()
    assert section.notes == ("61 rows are too many to plot; filter the table instead.",)
    assert len(page_for(WinRates(n_records=60)).sections[0].figures) == 1


def test_to_dict_must_give_a_mapping():
    class Odd:
        def to_dict(self):
            return [1, 2]

    with pytest.raises(TypeError, match=r"Odd.to_dict\(\) gave a list, not a mapping"):
        page_for(Odd())


def test_p_values_read_as_readers_quote_them(tmp_path):
    page = Page(slug="p", title="p", sections=(Section(title="p", tables=(Table.from_records(
        [{"p_value": 3.979e-10}, {"p_value": 0.04321}, {"p_value": 0.5}],
        (Column("p_value", "p-value", "p"),)),)),))
    table = parse_page(render_html([page], tmp_path)[1]).table_with("p_value")
    assert [r[0].text for r in table.rows] == ["< 0.001", "0.0432", "0.500"]
    assert [float(r[0].value) for r in table.rows] == [3.979e-10, 0.04321, 0.5]  # CSV keeps all


def test_glossary_page_beside_the_pages_spells_out_every_abbreviation(demo):
    glossary = parse_page(demo.pages["index"].parent / "glossary.html")
    terms = glossary.table_with("term", "full", "meaning")
    written = {r[0].text: r[1].text for r in terms.rows}
    assert written["ICC(2,1)"] == "intraclass correlation coefficient"
    assert written["TARa"] and written["MDD"] and written["CI"]
    assert "glossary.html" in parse_page(demo.pages["benchmark"]).urls
    # An abbreviated header carries its meaning as a tooltip.
    source = parse_page(demo.pages["benchmark"]).source
    assert '<abbr title="minimum detectable difference: ' in source or "MDD" not in source
    assert '<abbr title="total agreement rate of answers: ' in source


def test_tables_name_things_as_readers_do(demo):
    page = parse_page(demo.pages["benchmark"])
    assert ">system</button>" in page.source and ">arm</button>" not in page.source
