"""One policy against spreadsheet formula injection (``assay.data.cells``): OWASP's prefix."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest

from assay.data.cells import safe_cell, safe_frame, write_csv_frame, write_csv_rows

FORMULAS = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\t=x", "\r=x", "=HYPERLINK(\"http://x\")",
            "-", "+", "=", "-x"]


@pytest.mark.parametrize("text", FORMULAS)
def test_text_a_spreadsheet_would_run_gets_a_quote(text):
    assert safe_cell(text) == "'" + text


@pytest.mark.parametrize("value", ["a=b", "x-1", "", "plain", "'already", "1-2"])
def test_other_text_is_left_alone(value):
    assert safe_cell(value) == value


@pytest.mark.parametrize("value", [-1.5, -1, 0.0, np.float64(-2.5), "-1.5", "+3", "-1e-3", ".5", None,
                                   True, float("nan")])
def test_numbers_stay_numbers(value):
    out = safe_cell(value)
    assert out is value or (isinstance(value, float) and np.isnan(value) and np.isnan(out))


def test_a_frame_keeps_its_numbers_and_loses_its_formulas(tmp_path):
    frame = pd.DataFrame({"=name": ["=cmd", "ok", None], "score": [-1.0, 0.5, np.nan],
                          "n": [-1, 2, 3], "flag": [True, False, True]})
    path = write_csv_frame(frame, tmp_path / "t.csv")
    rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    assert rows == [["'=name", "score", "n", "flag"], ["'=cmd", "-1.0", "-1", "True"],
                    ["ok", "0.5", "2", "False"], ["", "", "3", "True"]]
    assert list(safe_frame(frame)["score"]) == pytest.approx([-1.0, 0.5, np.nan], nan_ok=True)
    assert frame.loc[0, "=name"] == "=cmd"  # the caller's frame is not modified


def test_plain_rows_are_written_with_the_same_rule(tmp_path):
    path = write_csv_rows(tmp_path / "r.csv", [["a", "-b"], ["@x", -0.25], [None, "=1"]])
    assert path.read_text(encoding="utf-8") == "a,'-b\n'@x,-0.25\n,'=1\n"
