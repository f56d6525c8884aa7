"""The engine finds the problems pandas finds, worded the same, with file, row and column."""

from __future__ import annotations

import pandas as pd
import pytest

import assay
from assay.analysis.pushdown import open_table
from assay.data.validate import MAX_PROBLEMS_PER_CHECK
from tests.analysis.pushdown._tables import SCALES, problems, rich_table, write


def broken(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    frame.loc[3, "item"] = None
    frame.loc[5, "arm"] = "  "
    frame.loc[7, "run"] = 0
    frame.loc[10, "score"] = 2.0           # correct is binary
    frame.loc[12, "score"] = None          # no failure kind either
    frame.loc[12, "failure_kind"] = None
    frame.loc[14, "usd"] = -1.0
    frame.loc[16, "split"] = "holdout"
    frame.loc[18, "usd_provenance"] = "guessed"
    return frame


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_row_problems_are_those_of_pandas(fmt, tmp_path):
    path = write(broken(rich_table(n_items=10)), tmp_path, fmt)
    engine = problems(lambda: open_table(path, scales=SCALES))
    pandas = problems(lambda: assay.load(path, scales=SCALES))
    assert sorted(engine) == sorted(pandas)
    assert len(engine) == 9  # eight rows, and run 0 breaks the run numbers 1..R of its arm
    shown = "'2.0'" if fmt == "csv" else "2.0"  # a CSV cell is text, as pandas reads it
    assert f"{path}, row 11, column 'score': criterion 'correct': expected 0 or 1 (binary " \
        f"scale), got {shown}" in engine


def test_duplicates_and_run_gaps_are_those_of_pandas(tmp_path):
    frame = rich_table(n_items=10)
    frame = pd.concat([frame, frame.iloc[[4, 6]]], ignore_index=True)
    frame = frame[~((frame["arm"] == "mid") & (frame["judge"] == "claude")
                    & (frame["run"] == 2))].reset_index(drop=True)
    path = write(frame, tmp_path, "parquet")
    engine = problems(lambda: open_table(path, scales=SCALES))
    pandas = problems(lambda: assay.load(path, scales=SCALES))
    assert sorted(engine) == sorted(pandas)
    assert any("duplicate judgment: same item " in p and " as row 5;" in p for p in engine)
    assert any("run numbers of arm 'mid' (judge 'claude'" in p for p in engine)


def test_many_problems_show_the_first_ones_and_count_the_rest(tmp_path):
    frame = rich_table(n_items=40)
    correct = frame.index[frame["criterion"] == "correct"]
    frame.loc[correct, "score"] = 3.0
    frame.loc[correct, "failure_kind"] = None
    path = write(frame, tmp_path, "parquet")
    engine = problems(lambda: open_table(path, scales=SCALES))
    pandas = problems(lambda: assay.load(path, scales=SCALES))
    assert engine == pandas
    more = len(correct) - MAX_PROBLEMS_PER_CHECK
    assert engine[0] == f"{path}, column 'score': ... the same problem in {more} more rows"
    assert len(engine) == MAX_PROBLEMS_PER_CHECK + 1


def test_a_folder_names_the_file_of_each_problem(tmp_path):
    frame = rich_table(n_items=10)
    frame.loc[len(frame) - 2, "usd"] = -3.0
    folder = write(frame, tmp_path, "folder")
    engine = problems(lambda: open_table(folder, scales=SCALES))
    last = sorted(folder.iterdir())[-1]
    row = (len(frame) - 2) % 150 + 1
    assert engine == [f"{last}, row {row}, column 'usd': expected a number >= 0"]


def test_unknown_and_missing_columns(tmp_path):
    frame = rich_table(n_items=4).drop(columns="arm").assign(model="m")
    path = write(frame, tmp_path, "parquet")
    engine = problems(lambda: open_table(path, scales=SCALES))
    assert sorted(engine) == sorted(problems(lambda: assay.load(path, scales=SCALES)))
