"""Every CSV and TSV assay writes goes through one writer (``assay.data.cells``), imports too;
what it writes reads back as it was given (issue 22, item 4)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import assay
from assay.cli import app
from assay.data.cells import FORMULA_START, safe_cell
from assay.data.schema import Scale

SRC = Path(assay.__file__).resolve().parent
WRITER = SRC / "data" / "cells.py"
# a CSV written by pandas or by the csv module's writers, whatever the spelling of the import
_CSV_WRITING = re.compile(r"\bto_csv\b|\bcsv\s*\.\s*(writer|DictWriter)\b|"
                          r"from\s+csv\s+import\s+[^\n]*\b(writer|DictWriter)\b")

ARMS = ['=HYPERLINK("http://x","y")', "+cmd|' /C calc'!A0", "@SUM(A1)", "-2+3", "\t=x",
        "'=quoted", "''@twice", "-1.5", "plain", "a=b", "'plain"]


def test_no_module_of_src_writes_a_csv_but_the_one_writer():
    assert WRITER.is_file()
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == WRITER:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if _CSV_WRITING.search(line):
                offenders.append(f"{path.relative_to(SRC)}:{number}: {line.strip()}")
    assert offenders == [], "CSV written outside assay.data.cells:\n" + "\n".join(offenders)


@pytest.mark.parametrize("line", ["frame.to_csv(path)", "w = csv.writer(handle)",
                                  "csv.DictWriter(out, fieldnames=f)", "from csv import writer"])
def test_the_check_sees_each_spelling(line):
    assert _CSV_WRITING.search(line)


@pytest.mark.parametrize("value", [*ARMS, "'", "''", "", "=", "'-1.5"])
def test_the_prefix_is_undone_exactly(value):
    from assay.data.cells import restore_cell

    assert restore_cell(safe_cell(value)) == value
    assert not str(safe_cell(value)).startswith(FORMULA_START) or value in ("-1.5",)


def _hostile_table(tmp_path: Path) -> Path:
    rows = [{"item": f"q{i // 2}", "arm": arm, "score": i % 2, "judge": "=judge()",
             "criterion": "@crit"} for i, arm in enumerate(ARMS)]
    path = tmp_path / "hostile.parquet"
    pd.DataFrame(rows).to_parquet(path)  # the raw values: Parquet keeps them as they are
    return path


def _cells(path: Path, sep: str) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle, delimiter=sep) for cell in row]


@pytest.mark.parametrize(("suffix", "sep"), [(".csv", ","), (".tsv", "\t")])
def test_an_import_to_csv_writes_no_formula_and_reads_back_as_given(tmp_path, suffix, sep):
    source = _hostile_table(tmp_path)
    runner = CliRunner()
    out = tmp_path / f"out{suffix}"
    result = runner.invoke(app, ["import", "table", str(source), "--scale", "@crit=binary",
                                 "-o", str(out)])
    assert result.exit_code == 0, result.output
    cells = _cells(out, sep)
    formulas = [c for c in cells if c.startswith(FORMULA_START) and c != "-1.5"]
    assert formulas == []
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "''=quoted" in cells
    raw = assay.load(source, scales={"@crit": Scale("binary")}).frame
    back = assay.load(out).frame
    for column in ("item", "arm", "judge", "criterion"):
        assert list(back[column]) == list(raw[column]) == list(raw[column].astype(str))
    assert list(back["arm"]) == ARMS
    parquet = tmp_path / "again.parquet"  # an import of the CSV gives the values of the source
    result = runner.invoke(app, ["import", "table", str(out), "-o", str(parquet)])
    assert result.exit_code == 0, result.output
    assert list(pd.read_parquet(parquet)["arm"]) == ARMS


def test_the_query_engine_reads_the_csv_back_as_the_pandas_reader(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    from assay.data.engine import scan_sql
    from assay.data.engine._source import resolve_source

    out = tmp_path / "out.csv"
    result = CliRunner().invoke(app, ["import", "table", str(_hostile_table(tmp_path)),
                                      "--scale", "@crit=binary", "-o", str(out)])
    assert result.exit_code == 0, result.output
    source = resolve_source(out)
    assert source is not None
    rows = duckdb.connect().execute(f"SELECT arm, judge FROM {scan_sql(source)} ORDER BY __row").fetchall()
    assert [r[0] for r in rows] == ARMS and {r[1] for r in rows} == {"=judge()"}


def test_a_qed_file_assay_wrote_imports_with_its_names(tmp_path):
    from assay.data.io import run_importer
    from assay.judge.qed_files import write_csv

    records = [{"question_set": "=qs", "question": "-what?", "trial": t, "base_name": "=A",
                "other_name": "@B", "criteria": "+c", "=A_score": s, "@B_score": 1 - s, "judge": "j"}
               for t, s in enumerate((1, 0.5))]
    path = write_csv(tmp_path / "win_rates.csv", records)
    assert not any(c.startswith(FORMULA_START) for c in _cells(path, ","))
    table = run_importer("qed", [path])
    assert set(table.frame["arm"]) | set(table.frame["opponent"]) == {"=A", "@B"}
    assert set(table.frame["criterion"]) == {"+c"}
