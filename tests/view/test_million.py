"""A run of a million judgments opens and filters in Chromium once its index is built, each
action within a ceiling a full scan of the store would not meet. Slow: writing the store and
indexing it take about a minute on this machine's two cores. The speed itself (under a
second per action) is measured by ``bench/bench_view.py``, not here: CI's machine is
loaded by the suite's own workers, so this ceiling leaves room for that."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.view import JudgmentIndex, ViewServer
from tests.view.big_store import write_big_store
from tests.view.conftest import open_view

N = 1_000_000
SECONDS = 3.0


@pytest.fixture(scope="module")
def million(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewServer]:
    folder = write_big_store(tmp_path_factory.mktemp("million") / "run", N)
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ASSAY_CACHE_DIR", str(cache))
        JudgmentIndex(folder).close()  # the first open indexes the store, once
        with JudgmentIndex(folder) as index, ViewServer(index) as server:
            server.start()
            yield server


def _best_of_two(action, undo=None) -> float:
    """The faster of two tries (``undo`` runs untimed between them): a busy shared machine
    may stall one."""
    times = []
    for attempt in range(2):
        if attempt and undo is not None:
            undo()
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def _choose(tab, name: str, value: str) -> None:
    loads = tab.evaluate("window.assay.loads")
    tab.evaluate(f"(() => {{ const s = document.querySelector('select[name={name}]');"
                 f" s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")
    tab.wait_for(f"window.assay.loads > {loads}", timeout=60)


def _type(tab, text: str) -> None:
    loads = tab.evaluate("window.assay.loads")
    tab.evaluate(f"(() => {{ document.querySelector('input[name=q]').value = {json.dumps(text)};"
                 " document.getElementById('filters').requestSubmit(); })()")
    tab.wait_for(f"window.assay.loads > {loads}", timeout=60)


@pytest.mark.slow
def test_a_million_judgments_open_and_filter_from_the_index(tab, million):
    assert million.index.count == N
    opened = _best_of_two(lambda: open_view(tab, million.url, timeout=60))
    assert tab.evaluate("document.querySelector('#status').textContent") == "Rows 1\u201350 of 1,000,000."
    timings = {"open": opened}
    found = {}
    for text in ("oint 777777 of", "zebra crossing", "Q7"):  # inside a word, nowhere, short
        timings[f"q={text}"] = _best_of_two(lambda t=text: _type(tab, t),
                                            undo=lambda: _type(tab, ""))
        found[text] = tab.evaluate("document.querySelector('#status').textContent")
    _type(tab, "")
    assert found == {"oint 777777 of": "Rows 1\u20131 of 1.",
                     "zebra crossing": "No judgment matches these filters.",
                     "Q7": "Rows 1\u201350 of 1,000 or more."}, found
    for name, value in (("judge", "judge1"), ("arm", "arm3"), ("criterion", "criterion2"),
                        ("verdict", "failed"), ("failure_kind", "parse_error")):
        timings[f"{name}={value}"] = _best_of_two(lambda n=name, v=value: _choose(tab, n, v),
                                                  undo=lambda n=name: _choose(tab, n, ""))
    status = tab.evaluate("document.querySelector('#status').textContent")
    for name in ("verdict", "failure_kind"):  # a failed judgment is in no trial pair
        _choose(tab, name, "")
    timings["flipped=yes"] = _best_of_two(lambda: _choose(tab, "flipped", "yes"),
                                          undo=lambda: _choose(tab, "flipped", ""))
    flipped = tab.evaluate("document.querySelector('#status').textContent")

    def detail() -> None:
        tab.evaluate("window.assay.detailShown = undefined")
        tab.click("#rows tbody tr")
        tab.wait_for("window.assay.detailShown !== undefined", timeout=60)

    timings["detail"] = _best_of_two(detail)
    partner = tab.evaluate("document.querySelector('#detail .links button').textContent")
    slow = {k: round(v, 3) for k, v in timings.items() if v >= SECONDS}
    assert not slow, f"over {SECONDS} s: {slow} (all: {timings})"
    assert status.startswith("Rows 1\u2013") and "position" in partner
    assert flipped.startswith("Rows 1\u201350 of ")
    assert tab.problems() == []


def test_the_big_store_is_what_the_bench_says(tmp_path: Path):
    """The generator's layout on a small run: pairs at positions 1 and 2, one failure in 997."""
    folder = write_big_store(tmp_path / "run", 2000)
    with JudgmentIndex(folder) as index:
        assert index.count == 2000
        assert index.page(index_query(verdict=["failed"])).total == 3  # i = 0, 997, 1994
        first = index.detail(1)
    assert [(p["position"], p["run"]) for p in first["partners"]] == [(2, 2)]


def index_query(**params: list[str]):
    from assay.view import parse_query

    return parse_query(params)
