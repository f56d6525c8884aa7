"""Every report writer with hostile names in every id column: nothing written outside the
output folder, no two outputs under one name, and no CSV or xlsx cell a spreadsheet would
run as a formula (OWASP's prefix ``'``; numbers stay numbers).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from assay.analysis.assertions import assertion_significance, assertion_summary, hierarchical_summary
from assay.cli import main
from tests.report.files._cells import FORMULA_START, csv_cells, inert, is_number

openpyxl = pytest.importorskip("openpyxl")

ARMS = ["=HYPERLINK(\"http://x\")", "../../ESCAPED", "/abs/arm", "@arm", "-arm"]
JUDGES = ["+judge", "openai/gpt-4o"]


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    for item in range(4):
        base = {"item": f"=item{item}", "cluster": f"@c{item % 3}", "run": 1, "task": "../task",
                "reasoning": "=cmd|' /C calc'!A0", "attributes": json.dumps({"-level": "+x"})}
        for arm in ARMS[:3]:
            for judge in JUDGES:
                rows.append({**base, "arm": arm, "judge": judge, "criterion": "correct",
                             "score": float(rng.integers(0, 2))})
                for opponent in ARMS[:3]:
                    if opponent > arm:
                        for position in (1, 2):
                            rows.append({**base, "arm": arm, "opponent": opponent,
                                         "position": position, "judge": judge,
                                         "criterion": "pref",
                                         "score": float(rng.choice([0.0, 0.5, 1.0]))})
    return pd.DataFrame(rows)


def test_report_writers_keep_to_their_folder_and_write_no_formula(tmp_path, capsys):
    source, out = tmp_path / "in" / "t.csv", tmp_path / "a" / "b" / "out"
    source.parent.mkdir()
    _table().to_csv(source, index=False)
    with pytest.raises(SystemExit) as info:
        main(["report", str(source), "--kind", "all", "--format", "json,xlsx,latex",
              "--out", str(out), "--B", "100", "--scale", "correct=binary",
              "--scale", "pref=range:0,1"])
    assert info.value.code == 0, capsys.readouterr().err
    outside = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_relative_to(out)
               and p != source]
    assert outside == []
    written = [p for p in out.rglob("*") if p.is_file()]
    assert len({p.as_posix().casefold() for p in written}) == len(written)
    csvs = [p for p in written if p.suffix == ".csv"]
    assert {"win_rates.csv", "winrates_sig_tests.csv"} <= {p.name for p in csvs}
    assert any(p.parent.name == "tables" for p in csvs)
    for path in csvs:
        bad = [c for c in csv_cells(path) if not inert(c)]
        assert not bad, (path.name, bad[:3])
    trials = pd.read_csv(out / "win_rates.csv")
    assert set(trials["base_name"]) <= {"'" + a if a.startswith(FORMULA_START) else a for a in ARMS}
    scores = trials.filter(like="_score")
    assert len(scores.columns) == 3 and all(scores.dtypes == np.float64)  # scores stay numbers
    book = openpyxl.load_workbook(out / "analysis.xlsx")
    cells = [c.value for sheet in book for row in sheet.iter_rows() for c in row]
    assert any(isinstance(v, str) and v.startswith("'=HYPERLINK") for v in cells)
    assert not [v for v in cells if isinstance(v, str) and not inert(v)]
    assert any(isinstance(v, float) for v in cells)  # numbers are written as numbers
    assert not [v for v in cells if isinstance(v, str) and is_number(v) and v.startswith("'")]


def test_assertion_tables_and_significance_write_no_formula(tmp_path):
    rows = []
    for q in range(6):
        for a in range(3):
            for arm in ARMS[:3]:
                rows.append({"item": f"q{q}#a{a}", "cluster": f"q{q}", "arm": arm, "run": 1,
                             "judge": "=judge", "criterion": "assertion", "task": "@set",
                             "score": float((q + a + len(arm)) % 2)})
    frame = pd.DataFrame(rows)
    summary = assertion_summary(frame)
    paths = summary.write_csvs(tmp_path)
    paths += assertion_significance([summary], n_resamples=200, seed=1).write_csvs(tmp_path)
    assert {p.name for p in paths} >= {"assertion_scores_summary.csv", "significance_summary.csv"}
    for path in paths:
        cells = csv_cells(path)
        assert "'=judge" in cells and not [c for c in cells if not inert(c)], path.name
    hierarchical = hierarchical_summary(frame.assign(criterion="assertion_hierarchical"))
    for path in hierarchical.write_csvs(tmp_path / "h"):
        assert not [c for c in csv_cells(path) if not inert(c)], path.name


def test_html_csv_export_names_are_safe_and_unique_on_a_page():
    from assay.report.html._model import Column, Table
    from assay.report.html._render import PageBuilder

    builder = PageBuilder(partial=False)
    names = [builder.table(Table.from_records([{"x": 1}], (Column("x", "x"),), name=n))["name"]
             for n in ("pairs-a/b", "pairs-a b", "pairs-a-b", "../../x", "PAIRS-A-B", "scores")]
    assert names[2] == "pairs-a-b" and names[5] == "scores"  # plain names as they were
    assert len({n.casefold() for n in names}) == len(names)
    assert all("/" not in n and not n.startswith(".") for n in names)
