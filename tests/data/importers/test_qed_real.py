"""BenchmarkQED 0.4.0's own output, read by ``assay import qed``: its figures to the last digit.

No BenchmarkQED output files are published, so ``tests/fixtures/qed/real/`` was made by running
``benchmark-qed autoe pairwise-scores`` and ``reference-scores`` (0.4.0) here against a local
keyed judge (its README and ``run_benchmark_qed.py``). The expected figures are read from what
BenchmarkQED wrote, not computed here: every column of its ``winrates_sig_tests.csv`` (means,
Shapiro-Wilk p-values, the test it chose, statistic, p-values before and after its correction)
and the means of the "Reference Scores Summary" it printed (``stdout.txt``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from numpy.testing import assert_allclose

from assay.analysis.scores import score_summary
from assay.cli import main
from assay.data.importers import import_qed
from assay.data.io import load

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "qed" / "real"
KEYS = ["question_set", "criteria", "base_name", "other_name"]


def _cli(args: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 0


def test_import_and_report_give_benchmark_qeds_winrates_sig_tests(tmp_path):
    table = tmp_path / "qed.parquet"
    _cli(["import", "qed", str(REAL / "pairwise" / "win_rates.csv"), "-o", str(table)])
    _cli(["report", str(table), "--kind", "winrates", "--format", "json", "--out", str(tmp_path / "r")])
    theirs = pd.read_csv(REAL / "pairwise" / "winrates_sig_tests.csv")
    ours = pd.read_csv(tmp_path / "r" / "winrates_sig_tests.csv")
    both = theirs.merge(ours, on=KEYS, suffixes=("_qed", "_assay"), validate="one_to_one")
    assert len(both) == len(theirs) == len(ours) == 8
    for column in theirs.columns.difference(KEYS):
        a, b = both[f"{column}_qed"], both[f"{column}_assay"]
        if pd.api.types.is_float_dtype(a):
            assert_allclose(b.to_numpy(float), a.to_numpy(float), rtol=1e-12, atol=0, err_msg=column)
        else:
            assert (a.astype(str) == b.astype(str)).all(), column
    # one figure spelled out: activity_local relevance, paired t-test, p = 0.21516994256955002
    row = both.set_index(["question_set", "criteria"]).loc[("activity_local", "relevance")]
    assert row["test_assay"] == "paired t-test"
    assert row["p_value_assay"] == pytest.approx(0.21516994256955002, rel=1e-12)


def test_per_pair_files_read_as_win_rates_csv():
    per_pair = import_qed(sorted((REAL / "pairwise").glob("*_vector_rag--graph_rag.csv"))).frame
    whole = import_qed([REAL / "pairwise" / "win_rates.csv"]).frame
    keys = ["task", "item", "criterion", "run", "position"]
    a = per_pair.sort_values(keys).reset_index(drop=True)[[*keys, "arm", "opponent", "score"]]
    b = whole.sort_values(keys).reset_index(drop=True)[[*keys, "arm", "opponent", "score"]]
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 8 * 4 * 4  # questions x criteria x trials


def test_the_whole_output_folder_imports_as_its_win_rates_csv(tmp_path):
    """The folder BenchmarkQED wrote (win_rates.csv, the per-pair CSVs it concatenates, its
    significance file) reads as win_rates.csv alone: the parts are passed over, with a note."""
    folder = import_qed([REAL / "pairwise"])
    whole = import_qed([REAL / "pairwise" / "win_rates.csv"])
    pd.testing.assert_frame_equal(folder.frame.drop(columns="source_file", errors="ignore"),
                                  whole.frame.drop(columns="source_file", errors="ignore"))
    notes = " ".join(folder.read_notes)
    assert "2 per-pair file(s) passed over" in notes and "win_rates.csv" in notes
    assert "winrates_sig_tests.csv" in notes  # the derived file, skipped as before
    _cli(["import", "qed", str(REAL / "pairwise"), "-o", str(tmp_path / "q.parquet")])
    assert len(load(tmp_path / "q.parquet").frame) == len(whole.frame)


def _printed_summary(text: str) -> dict[tuple[str, str], float]:
    """(generated, criterion) -> mean from BenchmarkQED's printed Reference Scores Summary tables."""
    means: dict[tuple[str, str], float] = {}
    generated = ""
    for line in text.splitlines():
        if (title := re.search(r"Reference Scores Summary for (\S+)", line)):
            generated = title.group(1)
        elif (row := re.match(r"\W*(\w+)\s*│\s*([0-9.]+)\s*│", line)) and generated:
            means[generated, row.group(1)] = float(row.group(2))
    return means


def test_reference_means_are_benchmark_qeds_printed_summary(tmp_path):
    printed = _printed_summary((REAL / "reference" / "stdout.txt").read_text(encoding="utf-8"))
    assert len(printed) == 4  # 2 generated x 2 criteria
    table = tmp_path / "ref.parquet"
    _cli(["import", "qed", str(REAL / "reference"), "-o", str(table)])
    means = {(r.arm, r.criterion): r.estimate for r in score_summary(load(table)).rows}
    assert means == pytest.approx(printed, abs=1e-12)
    assert printed["graph_rag", "correctness"] == 3.625
    # with BenchmarkQED's 1..10 declared, the summary is on [0, 1]: (mean - 1) / 9
    _cli(["import", "qed", str(REAL / "reference"), "-o", str(table),
          "--scale", "correctness=range:1,10", "--scale", "completeness=range:1,10"])
    scaled = {(r.arm, r.criterion): r.estimate for r in score_summary(load(table)).rows}
    assert scaled == pytest.approx({k: (v - 1) / 9 for k, v in printed.items()}, abs=1e-12)
