"""The viewer's page in headless Chromium: served and exported, filters, deep links, details,
and hostile text shown as text (never run, never parsed as HTML)."""

from __future__ import annotations

import json

from assay.view import JudgmentIndex, Query, export_html
from tests.view.conftest import (
    HOSTILE_ARM,
    HOSTILE_ITEM,
    HOSTILE_PROMPT,
    HOSTILE_REASONING,
    HOSTILE_REPLY,
    open_view,
    texts,
)


def _column(tab, name: str) -> list[str]:
    index = ["#", "Item", "System", "Opponent", "Judge", "Criterion", "Score", "Failure", "Pos.",
             "Run"].index(name) + 1
    return texts(tab, f"#rows tbody td:nth-child({index})")


def _fields(tab) -> dict[str, str]:
    labels = texts(tab, "#detail dt")
    values = texts(tab, "#detail dd")
    return dict(zip(labels, values, strict=True))


def _choose(tab, name: str, value: str) -> None:
    loads = tab.evaluate("window.assay.loads")
    tab.evaluate(f"(() => {{ const s = document.querySelector('select[name={name}]');"
                 f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")
    tab.wait_for(f"window.assay.loads > {loads}")


def test_the_page_lists_filters_and_pages_the_judgments(tab, served):
    open_view(tab, served.url)
    assert tab.evaluate("document.querySelector('#status').textContent") == "Rows 1\u20138 of 8."
    _choose(tab, "judge", "rubric-j")
    assert _column(tab, "Criterion") == ["clarity", "depth"]
    assert tab.evaluate("location.search") == "?judge=rubric-j"
    _choose(tab, "judge", "")
    _choose(tab, "verdict", "failed")
    assert _column(tab, "Item") == ["q2"] and _column(tab, "Failure") == ["parse_error"]
    assert tab.problems() == []


def test_a_deep_link_opens_the_rows_and_the_judgment_it_names(tab, served):
    with JudgmentIndex(served.index.source) as index:
        target = index.page(Query({"item": ("q2",)})).rows[0]["id"]
    open_view(tab, served.url + f"?judge=gpt-j&item=q1&item=q2&open={target}")
    assert _column(tab, "Item") == ["q1", "q1", "q2", "q2"]
    tab.wait_for(f"window.assay.detailShown === {target}")
    fields = _fields(tab)
    assert fields["Item"] == "q2" and fields["Position of the system"] == "1"
    assert fields["Prompt tokens"] == "121" and fields["Cost (USD)"] == "0.0021"
    assert fields["Retries"] == "0" and fields["Split"] == "not recorded"
    assert fields["Rendered prompt"] == "[system]\nYou are a judge.\n\n[user]\njudge q2 trial 1"
    assert tab.evaluate("document.querySelector('input[name=item]').placeholder") == "2 values from the link"
    # the counterbalanced partner: the same pair, shown the other way round (it failed)
    partner = texts(tab, "#detail .links button")
    assert partner == [f"row {target + 1}: position 2, run 2, score none (parse_error)"]
    tab.click("#detail .links button")
    tab.wait_for(f"window.assay.detailShown === {target + 1}")
    assert _fields(tab)["Error"] == "reply is not JSON"
    assert f"open={target + 1}" in tab.evaluate("location.search")
    assert tab.problems() == []


def test_hostile_text_is_shown_as_text_and_never_runs(tab, served):
    open_view(tab, served.url)
    _choose(tab, "arm", HOSTILE_ARM)
    assert _column(tab, "Item") == [HOSTILE_ITEM, HOSTILE_ITEM]
    assert _column(tab, "System") == [HOSTILE_ARM, HOSTILE_ARM]
    tab.click("#rows tbody tr")
    tab.wait_for("window.assay.detailShown !== undefined")
    fields = _fields(tab)
    # ESC and NUL are shown as their control pictures; the markup stays characters
    assert fields["Reasoning"] == HOSTILE_REASONING.replace("\x1b", "\u241b").replace("\x00", "\u2400")
    assert fields["Raw reply"] == HOSTILE_REPLY
    shown_prompt = HOSTILE_PROMPT.replace("\x1b", "\u241b")
    assert fields["Rendered prompt"] == f"[system]\nYou are a judge.\n\n[user]\n{shown_prompt}"
    assert tab.evaluate("window.pwned") is None
    assert tab.evaluate("document.querySelectorAll('img, b, textarea').length") == 0
    assert tab.evaluate("document.querySelectorAll('script').length") == 2
    assert tab.problems() == []


def test_an_export_opens_offline_and_filters_by_itself(tab, served, tmp_path):
    out = tmp_path / "shared view.html"
    export_html(served.index, Query({"judge": ("gpt-j",)}), out)
    open_view(tab, out.resolve().as_uri())
    assert tab.evaluate("window.assay.mode") == "static"
    assert len(_column(tab, "Item")) == 6
    assert "exported: judge=gpt-j" in tab.evaluate("document.querySelector('#source').textContent")
    _choose(tab, "verdict", "win")
    assert _column(tab, "Score") == ["1", "1", "1"]
    tab.type_into("input[name=q]", "TRIAL 1 OF Q2")
    loads = tab.evaluate("window.assay.loads")
    tab.evaluate("document.querySelector('#filters').requestSubmit()")
    tab.wait_for(f"window.assay.loads > {loads}")
    assert _column(tab, "Item") == ["q2"]
    tab.click("#rows tbody tr")
    tab.wait_for("window.assay.detailShown !== undefined")
    assert _fields(tab)["Raw reply"] == "reply 1.1"
    # hostile rows are in the file too: written inside JSON that cannot close its element
    _choose(tab, "verdict", "")
    tab.evaluate("document.querySelector('input[name=q]').value = ''")
    _choose(tab, "arm", HOSTILE_ARM)
    assert _column(tab, "Item") == [HOSTILE_ITEM, HOSTILE_ITEM]
    assert tab.evaluate("window.pwned") is None
    assert tab.requested_urls() == [out.resolve().as_uri()]
    assert tab.problems() == []


def test_an_export_takes_the_same_deep_links(tab, served, tmp_path):
    out = tmp_path / "all.html"
    export_html(served.index, Query({}), out)
    open_view(tab, out.resolve().as_uri() + "?verdict=tie&judge=gpt-j")
    assert _column(tab, "Score") == ["0.5", "0.5"]
    assert tab.evaluate("document.querySelector('select[name=verdict]').value") == "tie"
    assert tab.problems() == []
