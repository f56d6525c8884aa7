"""BenchmarkQED result CSVs: the figures BenchmarkQED's own analysis prints.

The fixture is generated in the format ``get_pairwise_scores`` and ``get_reference_scores``
write (no real BenchmarkQED output is published; tests/fixtures/README.md). The expected
numbers are what BenchmarkQED's ``analyze_criteria`` (commit 464dc2b) and its reference
summary (``groupby("criteria")["score"].mean()``) give on it, not computed here.
"""

from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.analysis.winrates import win_rates
from assay.data.importers import import_qed
from assay.errors import InputError, ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qed"


def test_pairwise_reproduces_analyze_criteria_means_and_p_value():
    j = import_qed([FIXTURE / "win_rates.csv"])
    report = win_rates(j, test="auto")
    rates = {r.criterion: r for r in report.records}
    # analyze_criteria: other_mean 0.53125 (comprehensiveness), 0.6458333333333334 (diversity);
    # the records are read from the base's side (base_mean = 1 - other_mean), as BenchmarkQED's
    assert {(r.arm, r.opponent) for r in report.records} == {("vector_rag", "graph_rag")}
    assert rates["comprehensiveness"].win_rate == pytest.approx(1 - 0.53125, abs=1e-12)
    assert rates["diversity"].win_rate == pytest.approx(1 - 0.6458333333333334, abs=1e-12)
    # its paired t-test on diversity (normal question means): p = 0.022758351113340573
    assert rates["diversity"].p_value == pytest.approx(0.022758351113340573, rel=1e-9)


def test_reference_scores_reproduce_the_summary_means():
    s = score_summary(import_qed([FIXTURE / "reference_scores-graph_rag.csv"]))
    means = {r.criterion: r.estimate for r in s.rows}
    assert means == pytest.approx({"completeness": 7.125, "correctness": 7.083333333333333})
    assert {r.arm for r in s.rows} == {"graph_rag"}


def test_trials_become_runs_and_positions():
    f = import_qed([FIXTURE / "win_rates.csv"]).frame
    assert sorted(f["run"].unique()) == [1, 2]
    assert sorted(f["position"].unique()) == [1, 2]
    counts = f.groupby(["item", "criterion", "run"])["position"].nunique()
    assert (counts == 2).all()  # each run holds both orders


def test_a_bad_score_names_file_row_and_column(tmp_path):
    lines = (FIXTURE / "win_rates.csv").read_text().splitlines()
    broken = lines[2].replace(",0.0,1.0,", ",0.0,2.0,")
    assert broken != lines[2]
    path = tmp_path / "win_rates.csv"
    path.write_text("\n".join([lines[0], lines[1], broken]) + "\n")
    with pytest.raises(ValidationError) as info:
        import_qed([path])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (2, "graph_rag_score")


def test_another_csv_is_refused(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("item,arm,score\nq,a,1\n")
    with pytest.raises(InputError, match="not a BenchmarkQED score file"):
        import_qed([path])


def test_base_and_other_keep_their_names_in_winrates_sig_tests(tmp_path):
    # the fixture's base is vector_rag; analyze_criteria's rows read base_name vector_rag,
    # other_mean 0.53125 / 0.6458333 and the paired t p = 0.022758 on diversity
    import pandas as pd

    win_rates(import_qed([FIXTURE / "win_rates.csv"])).write_csvs(tmp_path)
    sig = pd.read_csv(tmp_path / "winrates_sig_tests.csv").set_index("criteria")
    assert set(sig["base_name"]) == {"vector_rag"} and set(sig["other_name"]) == {"graph_rag"}
    assert sig.loc["comprehensiveness", "other_mean"] == pytest.approx(0.53125, abs=1e-12)
    assert sig.loc["diversity", "other_mean"] == pytest.approx(0.6458333333333334, abs=1e-12)
    assert sig.loc["diversity", "test"] == "paired t-test"
    assert sig.loc["diversity", "p_value"] == pytest.approx(0.022758351113340573, rel=1e-9)
