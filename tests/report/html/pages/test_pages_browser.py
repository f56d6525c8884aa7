"""The bespoke pages in headless Chromium, checked against the demo's data.

Every page loads offline with no console error and draws every chart with data; the numbers
a chart carries are checked against the report object it came from or, for the pages that
count (score distribution, interaction matrix), against pandas counts and means of the
demo's judgments table computed here.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from assay.analysis.compare import compare
from assay.report.html import render_html
from tests.report.html._parse import fetched_by, parse_page

CHARTS = """Array.from(document.querySelectorAll('.plot')).map(gd => ({
  id: gd.id,
  types: (gd.data || []).map(t => t.type || 'scatter'),
  values: (gd.data || []).map(t => (t.z || t.x || t.y || []).flat()
                                     .filter(v => v !== null).length),
  marks: gd.querySelectorAll('.point, .hm image, .hm').length,
}))"""

PAGES = ("index", "aggregate", "judges", "winrates", "robust", "consistency", "coverage",
         "judge-report", "score-distribution", "interaction")


def figure(tab, fig_id):
    return tab.evaluate(f"JSON.parse(JSON.stringify(document.getElementById({json.dumps(fig_id)})"
                        ".data))")


def test_every_page_loads_offline_without_errors_and_every_chart_has_data(demo, tab):
    assert set(PAGES) <= set(demo.pages)
    for stem in PAGES:
        path = demo.pages[stem]
        tab.load(path, offline=True)
        assert tab.problems() == [], stem
        assert tab.evaluate("window.assay.errors") == [], stem
        # The page and plotly.min.js beside it; plotly draws heatmaps as data: images it makes.
        assert [u for u in tab.requested_urls() if not u.startswith("data:image/png;base64,")] \
            == fetched_by(path)
        expected = parse_page(path).data["figures"]
        charts = tab.evaluate(CHARTS)
        assert [c["id"] for c in charts] == [f["id"] for f in expected], stem
        if stem not in ("index",):
            assert charts, stem  # every bespoke page of the demo has at least one chart
        for chart in charts:
            assert chart["values"] and all(n > 0 for n in chart["values"]), (stem, chart)
            assert chart["marks"] >= 1, (stem, chart)


def test_aggregate_page_names_both_intervals_and_carries_the_reports_numbers(demo, tab):
    """Each system on its own (issue 23: the page pooled the systems): the lines, the forest
    and the table are per judge and system, from ``report.per_arm``."""
    report = demo.reports["aggregate"]
    tab.load(demo.pages["aggregate"])
    text = tab.evaluate("document.body.innerText")
    assert "run-bootstrap lower" in text and "items-interval lower" in text
    first = report.per_arm[0]
    mine = [a for a in report.per_arm if a.criterion == first.criterion]
    runs, forest = figure(tab, "fig-1"), figure(tab, "fig-2")
    assert [t["name"] for t in runs] == [f"{a.arms[0]} ({a.judge})" for a in mine]
    assert_allclose(runs[0]["y"], first.per_run_scores, rtol=1e-12)
    boot, items = forest
    assert boot["name"] == "bootstrap over run means"
    assert items["name"] == "cluster-robust t over questions"
    assert_allclose(boot["x"], [a.mean for a in mine], rtol=1e-12)
    assert_allclose(np.add(boot["x"], boot["error_x"]["array"]), [a.ci_upper for a in mine],
                    rtol=1e-12)
    assert_allclose(np.subtract(items["x"], items["error_x"]["arrayminus"]),
                    [a.items_interval.lower for a in mine], rtol=1e-12)
    # The per-run means against pandas on the demo table: exact-match/correct, reportable,
    # scored, of the first system.
    f = demo.judgments.frame
    rows = f[f["reportable"] & f["score"].notna() & (f["judge"] == first.judge)
             & (f["criterion"] == first.criterion) & (f["arm"] == first.arms[0])]
    assert_allclose(rows.groupby("run")["score"].mean().to_numpy(), first.per_run_scores,
                    rtol=1e-12)


def test_winrate_tables_show_adjusted_p_values_per_criterion_and_task(demo, tab):
    report = demo.reports["winrates"]
    page = parse_page(demo.pages["winrates"])
    tab.load(demo.pages["winrates"])
    table = page.table_with("judge", "arm", "opponent", "win_rate", "lower", "upper")
    keys = table.keys
    assert keys[12:14] == ["p_value", "p_adjusted"]
    shown = tab.evaluate(f"Array.from(document.getElementById({json.dumps(table.id)}).tBodies[0]"
                         ".rows).map(r => Array.from(r.cells).map(c => c.getAttribute('data-value')"
                         " || c.textContent))")
    first = report.records[0]
    expected = [r for r in report.records if (r.criterion, r.task) == (first.criterion, first.task)
                and r.arm != r.opponent]
    assert len(shown) == len(expected) > 0, keys
    assert [row[1] for row in shown] == [r.arm for r in expected]
    p_col = 13  # RECORD_COLUMNS: ... p_value (12), p_adjusted (13)
    assert_allclose([float(row[p_col]) for row in shown], [r.p_adjusted for r in expected],
                    rtol=1e-12)
    titles = tab.evaluate("Array.from(document.querySelectorAll('section h2')).map(h => h.textContent)")
    tasks = {r.task for r in report.records if r.task is not None}
    assert any("all tasks" in t for t in titles) and all(any(f"task {k}" in t for t in titles)
                                                         for k in tasks)


def test_judge_consistency_matrix_holds_the_pair_statistics(demo, tab):
    """One judge-pair matrix per criterion and question set: a row per pair, a column per
    statistic, each cell the report's value (not a 2x2 map per statistic)."""
    report = demo.reports["judges"]
    tab.load(demo.pages["judges"])
    figures = parse_page(demo.pages["judges"]).data["figures"]
    heatmaps = [f for f in figures if f["data"][0]["type"] == "heatmap"]
    groups = list(dict.fromkeys((p.criterion, p.task) for p in report.pairs))
    assert len(heatmaps) == len(groups)
    data = figure(tab, heatmaps[0]["id"])[0]
    pairs = [p for p in report.pairs if (p.criterion, p.task) == groups[0]]
    assert data["y"] == [f"{p.judge_a} / {p.judge_b}" for p in pairs]
    column = {label: data["x"].index(label) for label in data["x"]}
    for row, p in enumerate(pairs):
        assert data["z"][row][column["Spearman rho"]] == pytest.approx(p.spearman_rho, abs=1e-12)
        assert data["z"][row][column["ICC(2,1)"]] == pytest.approx(p.icc, abs=1e-12)
        assert data["z"][row][column["agreement rate"]] == pytest.approx(p.agreement_rate,
                                                                          abs=1e-12)
    # Its height follows the pairs: one row is a strip, not a square.
    assert heatmaps[0]["layout"]["height"] <= 140 + 40 * len(pairs)
    if report.drift:
        assert any(f["data"][0].get("mode") == "lines+markers" for f in figures)


def test_score_distribution_counts_match_pandas(demo, tab):
    tab.load(demo.pages["score-distribution"])
    f = demo.judgments.frame
    scored = f[f["reportable"] & f["score"].notna()]
    # helpfulness is ordinal Low/Medium/High: counts per judge and level, by value_counts.
    helpful = scored[scored["criterion"] == "helpfulness"]
    expected = helpful.groupby("arm")["score"].value_counts().unstack(fill_value=0)
    page = parse_page(demo.pages["score-distribution"])
    captions = re.findall(r"<figcaption[^>]*>(.*?)</figcaption>", page.source)
    figures = [{**fig, "caption": c} for fig, c in zip(page.data["figures"], captions, strict=True)]
    by_arm = next(fig for fig in figures if fig["caption"].startswith("helpfulness by arm"))
    traces = figure(tab, by_arm["id"])
    for trace in traces:
        assert trace["x"] == ["Low", "Medium", "High"]
        assert trace["y"] == expected.loc[trace["name"]].reindex([0.0, 1.0, 2.0]).tolist()
    # Total counted for quality (range 0-100, ten bins) equals its scored rows.
    quality = next(fig for fig in figures if fig["caption"].startswith("quality by judge"))
    total = sum(sum(t["y"]) for t in figure(tab, quality["id"]))
    assert total == int((scored["criterion"] == "quality").sum())


def test_interaction_matrix_means_and_self_teaching_marks(demo, tab):
    tab.load(demo.pages["interaction"])
    j = demo.judgments
    f = j.frame.assign(v=j.normalised_scores())
    # the composite's rows: pointwise (no opponent), reportable, with a normalised score
    f = f[f["reportable"] & f["v"].notna() & f["opponent"].isna()]
    expected = f.pivot_table(index="teacher", columns="arm", values="v", aggfunc="mean")
    data = figure(tab, "fig-1")[0]
    got = pd.DataFrame(data["z"], index=data["y"], columns=data["x"])
    assert_allclose(got.loc[expected.index, expected.columns].to_numpy(), expected.to_numpy(),
                    rtol=1e-12)
    for i, teacher in enumerate(data["y"]):
        for k, arm in enumerate(data["x"]):
            assert data["text"][i][k].endswith(" *") == (teacher == arm)
    effects = figure(tab, "fig-2")[0]
    grand = np.nanmean(expected.to_numpy())
    row = dict(zip(effects["x"], effects["y"], strict=True))
    for teacher in expected.index:
        assert row[f"teacher {teacher}"] == pytest.approx(np.nanmean(expected.loc[teacher]) - grand,
                                                          abs=1e-12)
    for arm in expected.columns:
        assert row[f"arm {arm}"] == pytest.approx(np.nanmean(expected[arm]) - grand, abs=1e-12)


def test_comparison_page_loads_and_plots_the_deltas(demo, tab, tmp_path):
    frame = demo.judgments.frame.copy()
    flip = (frame["criterion"] == "correct") & (frame["item"].str[-1] == "3")
    frame.loc[flip, "score"] = 1.0
    from dataclasses import replace
    report = compare(demo.judgments, replace(demo.judgments, frame=frame))
    path = render_html([report], tmp_path)[1]
    tab.load(path)
    assert tab.problems() == []
    charts = tab.evaluate(CHARTS)
    assert charts and all(c["marks"] >= 1 for c in charts)
    trace = figure(tab, "fig-1")[0]
    correct = [d for d in report.deltas if d.criterion == "correct"]
    assert trace["y"] == [d.arm for d in correct]
    assert_allclose(trace["x"], [d.estimate for d in correct], rtol=1e-12)
    assert all(d.estimate >= 0 for d in correct) and any(d.estimate > 0 for d in correct)
