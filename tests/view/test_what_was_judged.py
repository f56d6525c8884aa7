"""The viewer opens on what was judged (issue 23, item 5), in headless Chromium: the question,
the answers in the order the judge saw them and the reference above the verdict and the
metadata; the compare view; sorting; the keyboard; and ``assay view`` on a folder holding a
run (as ``assay demo --out`` writes one), served with its reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.judge.judges import Answer, JudgeContext, JudgeInputs, PairwiseJudge, PairwiseSettings
from assay.llm import Reply, RunStore
from assay.view import JudgmentIndex, Query, ViewServer, export_html
from tests.view.conftest import open_view, texts, write_csv

ARMS = ("alpha", "beta", "gamma")
ITEMS = ("q1", "q2")
QUESTION = {"q1": "Which river flows through <b>Lyon</b>?", "q2": "Name the capital of Peru."}
REFERENCE = {"q1": "The Rhône and the Saône", "q2": "Lima"}
# the grader's 1-10 scores, per (item, arm, run); beta's q2 run 2 failed
GRADES = {("q1", "alpha", 1): 3.0, ("q1", "alpha", 2): 4.0, ("q1", "beta", 1): 9.0,
          ("q1", "beta", 2): 8.0, ("q1", "gamma", 1): 6.0, ("q1", "gamma", 2): 7.0,
          ("q2", "alpha", 1): 5.0, ("q2", "alpha", 2): 2.0, ("q2", "beta", 1): 10.0,
          ("q2", "beta", 2): None, ("q2", "gamma", 1): 1.0, ("q2", "gamma", 2): 6.0}
PAIRS = (("alpha", "beta"), ("alpha", "gamma"), ("beta", "gamma"))


def answer(item: str, arm: str, run: int) -> str:
    return f"{arm}'s answer to {item} in run {run}: <i>not markup</i>"


def _rows() -> list[dict[str, Any]]:
    rows = []
    for (item, arm, run), grade in GRADES.items():
        rows.append({"item": item, "arm": arm, "opponent": None, "position": None, "run": run,
                     "judge": "grader", "criterion": "quality", "score": grade,
                     "failure_kind": "timeout" if grade is None else None,
                     "question": QUESTION[item], "answer": answer(item, arm, run),
                     "opponent_answer": None, "reference": REFERENCE[item],
                     "reasoning": f"graded {item} of {arm}"})
    for item in ITEMS:
        for arm, opponent in PAIRS:
            for position in (1, 2):  # the earlier arm wins shown first, loses shown second
                rows.append({"item": item, "arm": arm, "opponent": opponent, "position": position,
                             "run": 1, "judge": "pair", "criterion": "preference",
                             "score": 1.0 if position == 1 else 0.0, "failure_kind": None,
                             "question": QUESTION[item], "answer": answer(item, arm, 1),
                             "opponent_answer": answer(item, opponent, 1),
                             "reference": None, "reasoning": f"{arm} vs {opponent}"})
    return rows


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache for the module's indexes (the conftest's is per test)."""
    folder = tmp_path_factory.mktemp("view-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ASSAY_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(scope="module")
def run_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder as ``assay demo --out`` writes one: a judgments table and a report folder."""
    out = tmp_path_factory.mktemp("demo-like") / "demo-out"
    out.mkdir()
    write_csv(out / "judgments.csv", _rows())
    (out / "html").mkdir()
    (out / "html" / "index.html").write_text(
        '<!DOCTYPE html><html><head><title>Dashboard</title></head><body><header><nav '
        'aria-label="Reports"><a href="index.html">Dashboard</a></nav></header>'
        "<main><h1>Dashboard</h1></main></body></html>", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def served_table(run_out: Path, cache: Path) -> Iterator[ViewServer]:
    with JudgmentIndex(run_out / "judgments.csv") as index, \
            ViewServer(index, reports=run_out / "html") as server:
        server.start()
        yield server


def _row_id(server: ViewServer, **filters: str) -> int:
    rows = server.index.page(Query({k: (v,) for k, v in filters.items()})).rows
    assert len(rows) == 1, rows
    return int(rows[0]["id"])


def _box(tab: Any, selector: str) -> dict[str, float]:
    return tab.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                        ".getBoundingClientRect(); return {top: r.top, bottom: r.bottom, "
                        "left: r.left, right: r.right}; })()")


def _key(tab: Any, key: str) -> None:
    """A trusted key press (keyDown with its text, keyUp), as a user types it."""
    codes = {"j": ("KeyJ", 74, "j"), "k": ("KeyK", 75, "k"), "c": ("KeyC", 67, "c"),
             "/": ("Slash", 191, "/"), "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
             "ArrowDown": ("ArrowDown", 40, ""), "ArrowUp": ("ArrowUp", 38, "")}
    code, vk, text = codes[key]
    down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk}
    if text:
        down["text"] = text
    tab.send("Input.dispatchKeyEvent", down)
    tab.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                        "windowsVirtualKeyCode": vk})


def test_the_panel_shows_question_answers_in_shown_order_and_reference_above_the_metadata(
        tab, served_table):
    # alpha against beta, alpha shown second: the judge saw beta's answer first
    target = _row_id(served_table, item="q1", arm="alpha", opponent="beta", judge="pair",
                     verdict="loss")
    open_view(tab, served_table.url + f"?open={target}")
    tab.wait_for(f"window.assay.detailShown === {target}")
    assert texts(tab, "#judged pre.question") == [QUESTION["q1"]]
    assert [t.split(":")[0] for t in texts(tab, "#judged .answer h4")] == [
        "Answer 1 (shown first)", "Answer 2 (shown second)"]
    assert [t.split(": ", 1)[1] for t in texts(tab, "#judged .answer h4")] == [
        "beta", "alphathe row's system"]
    assert texts(tab, "#judged .answer pre") == [answer("q1", "beta", 1), answer("q1", "alpha", 1)]
    # side by side: the two answers share a line
    first, second = _box(tab, "#judged .answer:nth-child(1)"), _box(tab, "#judged .answer:nth-child(2)")
    assert first["right"] <= second["left"] and first["top"] == second["top"]
    # then the verdict and the reasoning, then the metadata
    headings = texts(tab, "#detail h3")
    assert headings.index("The verdict") < headings.index("Judgment") < headings.index("The judge's reply")
    verdict = dict(zip(texts(tab, "#detail dt"), texts(tab, "#detail dd"), strict=True))
    assert verdict["Verdict"] == "loss (score 0) for alpha against beta"
    assert verdict["Reasoning"] == "alpha vs beta"
    judged, metadata = _box(tab, "#judged"), _box(tab, "#detail dl")
    assert judged["bottom"] <= metadata["top"]
    # a graded row: one answer and the reference
    graded = _row_id(served_table, item="q2", arm="gamma", run="1", judge="grader")
    tab.evaluate(f"document.querySelector('#rows tbody tr[data-id=\"{graded}\"]').click()")
    tab.wait_for(f"window.assay.detailShown === {graded}")
    assert texts(tab, "#judged .answer pre") == [answer("q2", "gamma", 1)]
    assert texts(tab, "#judged pre.reference") == [REFERENCE["q2"]]
    assert tab.evaluate("document.querySelectorAll('#detail b, #detail i').length") == 0
    assert tab.problems() == []


def test_the_compare_view_shows_every_systems_answer_and_verdicts(tab, served_table):
    open_view(tab, served_table.url + "?compare=q2")
    tab.wait_for("window.assay.compareShown === 'q2'")
    assert tab.evaluate("document.querySelector('main').offsetParent === null")  # the list is hidden
    assert texts(tab, "#compare pre.question") == [QUESTION["q2"]]
    assert texts(tab, "#compare pre.reference") == [REFERENCE["q2"]]
    assert texts(tab, "#compare .system h3") == list(ARMS)
    assert texts(tab, "#compare .system > pre") == [answer("q2", arm, 1) for arm in ARMS]
    boxes = [_box(tab, f"#compare .system:nth-child({k})") for k in (1, 2, 3)]
    assert boxes[0]["top"] == boxes[1]["top"] == boxes[2]["top"]  # side by side
    # run 1: the grade, then each pairwise verdict of the system's own rows
    beta = texts(tab, "#compare .system:nth-child(2) tbody td:nth-child(3)")
    assert beta == ["score 10", "win (score 1) vs gamma, shown first",
                    "loss (score 0) vs gamma, shown second"]
    tab.evaluate("[...document.querySelectorAll('#compare .compare-actions button')]"
                 ".find(b => b.textContent === '2').click()")
    tab.wait_for("document.querySelector('#compare h3:last-of-type') !== null && "
                 "location.search.includes('compare_run=2')")
    tab.wait_for("[...document.querySelectorAll('#compare .system > pre')].some("
                 "p => p.textContent.includes('run 2'))")
    assert texts(tab, "#compare .system > pre") == [answer("q2", arm, 2) for arm in ARMS]
    assert texts(tab, "#compare .system:nth-child(2) tbody td:nth-child(3)") == [
        "no score: timeout"]
    # a verdict opens its judgment
    tab.click("#compare .system:nth-child(1) tbody tr")
    tab.wait_for("window.assay.detailShown !== null && window.assay.detailShown !== undefined")
    assert tab.evaluate("document.querySelector('#compare').hidden")
    assert tab.problems() == []


def _scores(tab: Any) -> list[str]:
    return texts(tab, "#rows tbody td:nth-child(7)")


def test_a_column_sorts_up_down_and_back_to_storing_order(tab, served_table):
    open_view(tab, served_table.url + "?judge=grader")
    stored = _scores(tab)
    grades = [g for g in GRADES.values() if g is not None]
    up = [f"{g:g}" for g in sorted(grades)] + [""]  # a row without a score last
    loads = tab.evaluate("window.assay.loads")
    tab.click("#rows th[data-sort=score]")
    tab.wait_for(f"window.assay.loads > {loads}")
    assert _scores(tab) == up and "sort=score" in tab.evaluate("location.search")
    loads = tab.evaluate("window.assay.loads")
    tab.click("#rows th[data-sort=score]")
    tab.wait_for(f"window.assay.loads > {loads}")
    assert _scores(tab) == [f"{g:g}" for g in sorted(grades, reverse=True)] + [""]
    assert tab.evaluate("document.querySelector('#rows th[data-sort=score]')"
                        ".getAttribute('aria-sort')") == "descending"
    loads = tab.evaluate("window.assay.loads")
    tab.click("#rows th[data-sort=score]")
    tab.wait_for(f"window.assay.loads > {loads}")
    assert _scores(tab) == stored and "sort" not in tab.evaluate("location.search")
    # by system, descending: ties stay in storing order
    loads = tab.evaluate("window.assay.loads")
    open_view(tab, served_table.url + "?judge=grader&sort=-arm")
    assert texts(tab, "#rows tbody td:nth-child(3)") == [a for a in reversed(ARMS) for _ in range(4)]
    assert tab.problems() == []


def test_the_index_sorts_every_column_as_python_does(served_table):
    index = served_table.index
    every = index.page(Query(limit=500)).rows
    for name in ("item", "arm", "opponent", "judge", "criterion", "score", "position", "run"):
        for down in (False, True):
            shown = [r["id"] for r in index.page(Query(limit=500, sort=("-" if down else "") + name)).rows]
            present = [r for r in every if r[name] is not None]
            expected = sorted(present, key=lambda r: r[name], reverse=down)
            if down:  # ties in storing order (a reversed sort reverses them too)
                expected = sorted(present, key=lambda r: (r[name], -r["id"]), reverse=True)
            expected += [r for r in every if r[name] is None]
            assert shown == [r["id"] for r in expected], name


def test_the_keys_move_open_compare_go_back_and_filter(tab, served_table):
    open_view(tab, served_table.url + "?judge=grader")
    ids = [int(i) for i in tab.evaluate("[...document.querySelectorAll('#rows tbody tr')]"
                                         ".map(tr => tr.dataset.id)")]
    assert tab.evaluate("window.assay.cursor") == ids[0]
    _key(tab, "j")
    _key(tab, "ArrowDown")
    assert tab.evaluate("window.assay.cursor") == ids[2]
    _key(tab, "k")
    assert tab.evaluate("window.assay.cursor") == ids[1]
    _key(tab, "Enter")
    tab.wait_for(f"window.assay.detailShown === {ids[1]}")
    _key(tab, "j")  # with a judgment open, the next one opens
    tab.wait_for(f"window.assay.detailShown === {ids[2]}")
    item = tab.evaluate(f"document.querySelector('#rows tbody tr[data-id=\"{ids[2]}\"] "
                        "td:nth-child(2)').textContent")
    _key(tab, "c")
    tab.wait_for(f"window.assay.compareShown === {json.dumps(item)}")
    _key(tab, "Escape")  # back from the comparison to the list and the judgment
    tab.wait_for("window.assay.compareShown === null")
    assert not tab.evaluate("document.querySelector('#detail').hidden")
    _key(tab, "Escape")  # then the judgment closes
    assert tab.evaluate("document.querySelector('#detail').hidden")
    assert "open=" not in tab.evaluate("location.search")
    _key(tab, "/")
    assert tab.evaluate("document.activeElement.name") == "q"
    _key(tab, "j")  # typed into the filter, not a move
    assert tab.evaluate("document.activeElement.value") == "j"
    assert tab.evaluate("window.assay.cursor") == ids[2]
    assert tab.problems() == []


def test_the_header_counts_and_scores_each_system(tab, served_table):
    open_view(tab, served_table.url)
    head = texts(tab, "#systems thead th")
    assert head[:3] == ["System", "Judgments", "No score"]
    assert sorted(head[3:]) == ["preference (wins)", "quality"]
    rows = tab.evaluate("[...document.querySelectorAll('#systems tbody tr')].map("
                        "tr => [...tr.children].map(td => td.textContent))")
    quality, wins_at = head.index("quality"), head.index("preference (wins)")
    for arm in ARMS:
        grades = [g for (_, a, _), g in GRADES.items() if a == arm]
        scored = [g for g in grades if g is not None]
        # its pairwise share from both sides: the earlier arm of a pair wins when shown first
        wins = [(1.0 if p == 1 else 0.0) if a == arm else (0.0 if p == 1 else 1.0)
                for a, b in PAIRS if arm in (a, b) for _ in ITEMS for p in (1, 2)]
        rows_as_arm = len([a for a, _ in PAIRS if a == arm]) * len(ITEMS) * 2
        # as the scores report: each item's runs averaged first, then the items (a raw scale)
        by_item = [[g for (i, a, _), g in GRADES.items() if a == arm and i == item and g is not None]
                   for item in ITEMS]
        means = [sum(g) / len(g) for g in by_item if g]
        mean = sum(means) / len(means)
        assert scored
        row = next(r for r in rows if r[0] == arm)
        assert row[1] == str(len(grades) + rows_as_arm) and row[2] == str(grades.count(None))
        assert float(row[quality]) == pytest.approx(mean, abs=5e-3)
        assert float(row[wins_at]) == pytest.approx(sum(wins) / len(wins), abs=5e-3)
    assert tab.problems() == []


def test_links_lead_to_the_reports_and_back(tab, served_table):
    open_view(tab, served_table.url)
    assert tab.evaluate("document.querySelector('#reports-link').hidden") is False
    tab.click("#reports-link")
    tab.wait_for("location.pathname === '/reports/index.html' && document.readyState === 'complete'")
    assert texts(tab, "nav a") == ["Dashboard", "Judgments"]
    tab.click("nav a.assay-viewer")
    tab.wait_for("window.assay !== undefined && window.assay.ready === true")
    assert tab.evaluate("location.pathname") == "/"


def test_a_run_of_assay_judge_keeps_and_shows_what_each_judgment_judged(tab, tmp_path):
    inputs = JudgeInputs(answers={arm: {"q1": Answer("q1", QUESTION["q1"], answer("q1", arm, 1), arm)}
                                  for arm in ("alpha", "beta")})
    judge = PairwiseJudge.from_config(PairwiseSettings(base="alpha", trials=2, criteria=["relevance"]),
                                      JudgeContext(model="m"))
    requests = judge.requests(inputs)
    assert [r.meta["position"] for r in requests] == [1, 2]
    with RunStore(tmp_path / "run", config={"judge": "m"}) as store:
        for request in requests:
            reply = Reply(key=request.key, verdict=None, text="no verdict", failure_kind="parse_error")
            store.put(request, reply, judge.rows(request, reply))
    with JudgmentIndex(tmp_path / "run") as index, ViewServer(index) as server:
        server.start()
        second = index.page(Query({"run": ("2",)})).rows[0]["id"]
        open_view(tab, server.url + f"?open={second}")
        tab.wait_for(f"window.assay.detailShown === {second}")
        assert texts(tab, "#judged pre.question") == [QUESTION["q1"]]
        # trial 2 shows beta's answer first, as its prompt did
        prompt = requests[1].messages[1][1]
        assert prompt.index(answer("q1", "beta", 1)) < prompt.index(answer("q1", "alpha", 1))
        assert texts(tab, "#judged .answer pre") == [answer("q1", "beta", 1), answer("q1", "alpha", 1)]
        assert tab.problems() == []


def _serve(argv: list[str], cache: Path) -> tuple[subprocess.Popen[str], str]:
    """``assay view ARGS --no-browser`` in a subprocess; its process and the page's address."""
    env = {**os.environ, "ASSAY_CACHE_DIR": str(cache)}
    process = subprocess.Popen([sys.executable, "-m", "assay", "view", *argv, "--no-browser"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    assert process.stdout is not None
    deadline = time.monotonic() + 60
    lines = []
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if " at http://" in line and "rows of" in line:
            return process, line.split(" at ", 1)[1].split()[0]
    _stop(process)
    raise AssertionError("assay view never served:\n" + "".join(lines))


def _stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.wait()
    if process.stdout is not None:
        process.stdout.close()


def test_assay_view_opens_a_folder_that_holds_a_run_with_its_reports(run_out, tmp_path):
    process, url = _serve([str(run_out)], tmp_path / "cache")
    try:
        with urllib.request.urlopen(url + "api/summary") as reply:
            summary = json.load(reply)
        assert summary["source"] == str(run_out / "judgments.csv") and summary["rows"] == len(_rows())
        assert summary["reports"] == "/reports/index.html"
        with urllib.request.urlopen(url + "reports/index.html") as reply:
            assert b'<a class="assay-viewer" href="/">Judgments</a></nav>' in reply.read()
    finally:
        _stop(process)


def test_an_export_compares_sorts_and_counts_by_itself(tab, served_table, tmp_path):
    out = tmp_path / "q2.html"
    export_html(served_table.index, Query({"item": ("q2",)}), out)
    open_view(tab, out.resolve().as_uri() + "?compare=q2")
    tab.wait_for("window.assay.compareShown === 'q2'")
    assert texts(tab, "#compare .system > pre") == [answer("q2", arm, 1) for arm in ARMS]
    assert texts(tab, "#compare .system:nth-child(2) tbody td:nth-child(3)") == [
        "score 10", "win (score 1) vs gamma, shown first", "loss (score 0) vs gamma, shown second"]
    _key(tab, "Escape")
    tab.wait_for("window.assay.compareShown === null")
    head = texts(tab, "#systems thead th")
    rows = {r[0]: r for r in tab.evaluate("[...document.querySelectorAll('#systems tbody tr')]"
                                          ".map(tr => [...tr.children].map(td => td.textContent))")}
    assert rows["beta"][head.index("quality")] == "10" and rows["beta"][2] == "1"  # q2 only
    loads = tab.evaluate("window.assay.loads")
    tab.click("#rows th[data-sort=score]")
    tab.wait_for(f"window.assay.loads > {loads}")
    shown = [s for s in _scores(tab)]
    grades = sorted(g for (i, _, _), g in GRADES.items() if i == "q2" and g is not None)
    assert shown[-1] == "" and [float(s) for s in shown[:-1]] == sorted(
        grades + [1.0, 0.0] * len(PAIRS))
    assert tab.requested_urls() == [out.resolve().as_uri() + "?compare=q2"]
    assert tab.problems() == []


def test_a_folder_holding_a_run_is_told_apart_from_a_run(tmp_path, run_out):
    from assay.data.runfolder import is_run_folder
    from assay.demo.simulate import simulate_evaluation
    from assay.view import find_run

    simulate_evaluation(tmp_path / "out" / "example", n_documents=2, n_questions=3, runs=1)
    assert is_run_folder(tmp_path / "out" / "example") and find_run(tmp_path / "out" / "example") is None
    found = find_run(tmp_path / "out")  # no table: its one run folder, no reports
    assert found is not None and found.judgments == tmp_path / "out" / "example" and found.reports is None
    assert find_run(run_out) == type(found)(run_out / "judgments.csv", (run_out / "html").resolve())
    (tmp_path / "two" / "a").mkdir(parents=True)
    (tmp_path / "two" / "b").mkdir()
    for name in ("a", "b"):
        simulate_evaluation(tmp_path / "two" / name, n_documents=1, n_questions=1, runs=1)
    assert find_run(tmp_path / "two") is None  # two runs: which one is not guessed
