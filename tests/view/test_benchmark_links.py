"""The benchmark page's failure counts link to exactly the judgments they count: the report's
judge and criterion, the arm and the failure kinds; the filter of each link is run over the
viewer's index of the same table and must find that many rows, and the rows named by the
table's design. Failed rows of the dev split are not counted, and the links leave them out
by the viewer's ``reportable=yes``; a report that cannot name its failures exactly (some
left out as pairwise) links none."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from assay.analysis.benchmark import benchmark_report
from assay.data.io import load
from assay.data.schema import Scale
from assay.report.html._benchmark import benchmark_page
from assay.view import JudgmentIndex, parse_query
from tests.view.conftest import write_csv

FAILED = {("q2", "a", 1): "parse_error", ("q3", "a", 2): "refusal", ("q5", "b", 1): "parse_error",
          ("q6", "a", 1): "parse_error"}
"""Runs of the correctness criterion without a score, by (item, arm, run)."""


def _rows(extra: list[dict[str, object]] = ()) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for i in range(1, 9):
        for arm in ("a", "b"):
            for run in (1, 2):
                kind = FAILED.get((f"q{i}", arm, run), "")
                base = {"item": f"q{i}", "cluster": f"c{(i - 1) // 2}", "arm": arm, "run": run,
                        "judge": "exact", "opponent": ""}
                rows.append({**base, "criterion": "correct", "score": "" if kind else (i + run) % 2,
                             "failure_kind": kind})
                # the same judge fails on another criterion: a filter without it over-counts
                rows.append({**base, "criterion": "style", "score": "" if i == 4 else 3,
                             "failure_kind": "parse_error" if i == 4 else ""})
    return rows + list(extra)


def _links(table: Path) -> list[tuple[str, object, str]]:
    """(table, the count shown, its link) of every linked cell of the benchmark page."""
    report = benchmark_report(load(table, scales={"correct": Scale.parse("binary")}))
    page = benchmark_page(report)
    tables = [t for s in page.sections for t in s.tables] + \
        [t for h in page.highlights for t in h.section.tables]
    return [(t.name.removeprefix("benchmark-"), row[c], link) for t in tables if t.links
            for row, links in zip(t.rows, t.links, strict=True)
            for c, link in enumerate(links) if link is not None]


DEV = [{"split": "dev", "item": f"q{i}", "cluster": "c9", "arm": "a", "run": 1, "judge": "exact",
        "opponent": "", "criterion": "correct", "score": "", "failure_kind": kind}
       for i, kind in ((9, "parse_error"), (10, "refusal"))]
"""Failed runs of the dev split: not reportable, not counted, in the table the viewer reads."""


@pytest.mark.parametrize("dev", [False, True], ids=["test split only", "with dev rows"])
def test_each_failure_count_links_to_exactly_the_judgments_it_counts(tmp_path, dev):
    rows = _rows()
    if dev:
        rows = [{"split": "test", **r} for r in rows] + DEV
    table = write_csv(tmp_path / "t.csv", rows)
    links = _links(table)
    by_arm = {arm: [k for (_, a, _), k in FAILED.items() if a == arm] for arm in ("a", "b")}
    expected = {("failures", len(by_arm["a"]), "arm=a&failure_kind=parse_error&failure_kind=refusal"),
                ("failures", 2, "arm=a&failure_kind=parse_error"),
                ("failures", 1, "arm=a&failure_kind=refusal"),
                ("failures", 1, "arm=b&failure_kind=parse_error"),  # n_failures and parse_error
                ("quality", 3, "arm=a&failure_kind=parse_error&failure_kind=refusal"),
                ("quality", 1, "arm=b&failure_kind=parse_error")}
    assert {(name, count, link.removeprefix("judge=exact&criterion=correct&")
             .removesuffix("&reportable=yes")) for name, count, link in links} == expected
    assert all(link.endswith("&reportable=yes") for _, _, link in links)
    assert len(links) == 7  # arm b's failures and its parse errors: two cells, one link
    with JudgmentIndex(table) as index:
        for _, count, link in links:
            page = index.page(parse_query(urllib.parse.parse_qs(link) | {"limit": ["500"]}))
            shown = {(r["item"], r["arm"], r["run"]) for r in page.rows}
            params = urllib.parse.parse_qs(link)
            design = {(i, a, r) for (i, a, r), kind in FAILED.items()
                      if a == params["arm"][0] and kind in params["failure_kind"]}
            assert page.total == count == len(design) and shown == design, link


def test_a_report_whose_failures_a_filter_cannot_name_links_none(tmp_path):
    # a failed pairwise judgment of the same judge and criterion: left out of the report,
    # and no viewer filter leaves it out
    extra = {"item": "q1", "cluster": "c0", "arm": "a", "run": 1, "judge": "exact", "opponent": "b",
             "criterion": "correct", "score": "", "failure_kind": "refusal"}
    table = write_csv(tmp_path / "t.csv", _rows([extra]))
    assert _links(table) == []
