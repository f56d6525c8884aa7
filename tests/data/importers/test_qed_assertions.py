"""BenchmarkQED assertion score CSVs: the overall accuracy BenchmarkQED prints.

The fixture (``tests/fixtures/qed_assertions/data_local/{rag}_assertion_scores.csv``) is
generated (seeded script) in the format of BenchmarkQED's ``evaluate_rag_method``: 8
questions x 3 assertions x 2 trials per RAG method. BenchmarkQED's own summary lines
(``benchmark_qed/autoe/assertion_scores.py``: an assertion passes when its mean over trials
exceeds pass_threshold 0.5; accuracy = passed / assertions), run on these files outside the
test suite, print ``vector_rag (data_local) - Overall accuracy: 0.417 (10/24)`` and
``graph_rag (data_local) - Overall accuracy: 0.625 (15/24)``.
"""

from pathlib import Path

import pytest

from assay.analysis.assertions import assertion_summary
from assay.data.importers import detect_format, import_qed
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qed_assertions"
PRINTED = {"vector_rag": ("0.417", 10, 24), "graph_rag": ("0.625", 15, 24)}


def test_reproduces_benchmarkqeds_printed_overall_accuracy():
    judgments = import_qed([FIXTURE])
    overall = assertion_summary(judgments, pass_threshold=0.5).overall
    got = {r.arm: (f"{r.overall_accuracy:.3f}", int(r.passed_assertions),
                   int(r.total_assertions)) for r in overall.itertuples()}
    assert got == PRINTED
    assert set(overall["task"]) == {"data_local"}


def test_assertion_rows_map_questions_to_clusters_and_trials_to_runs():
    f = import_qed([FIXTURE]).frame
    assert len(f) == 2 * 8 * 3 * 2
    assert f["cluster"].nunique() == 8 and f["item"].nunique() == 24
    assert sorted(f["run"].unique()) == [1, 2] and set(f["criterion"]) == {"assertion"}
    files = sorted((FIXTURE / "data_local").glob("*.csv"))
    assert all(detect_format(p) == "qed" for p in files)


def test_a_score_other_than_0_or_1_names_file_row_and_field(tmp_path):
    source = FIXTURE / "data_local" / "graph_rag_assertion_scores.csv"
    lines = source.read_text().splitlines()
    head, first = lines[0], lines[1].split(",")
    first[2] = "7"
    path = tmp_path / "graph_rag_assertion_scores.csv"
    path.write_text("\n".join([head, ",".join(first), *lines[2:]]) + "\n")
    with pytest.raises(ValidationError) as info:
        import_qed([path])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (1, "score")


def test_an_output_folder_with_its_significance_files_imports_with_a_note(tmp_path, capsys):
    # BenchmarkQED's assertion output folder holds its significance tests and summaries beside
    # the score files; they are derived from the scores, skipped and named
    import shutil

    from tests.cli._judge_helpers import run

    folder = tmp_path / "out"
    shutil.copytree(FIXTURE, folder)
    derived = {"significance_group_stats.csv": "group,mean\nvector_rag,0.4\n",
               "significance_omnibus.csv": "test_name,statistic,p_value\nwilcoxon,3,0.2\n",
               "significance_pairwise.csv": "group1,group2,p_value\nvector_rag,graph_rag,0.2\n",
               "vector_rag_summary_by_question.csv": "question,success,fail\nq,1,2\n"}
    for name, text in derived.items():
        (folder / "data_local" / name).write_text(text)
    table = import_qed([folder])
    assert len(table.frame) == 2 * 8 * 3 * 2  # the scores, all of them
    skipped = [n for n in table.read_notes if "derives from its scores" in n]
    assert len(skipped) == 1 and "4 file(s)" in skipped[0]
    assert all(name in skipped[0] for name in derived)
    assert run(["import", "qed", str(folder), "-o", str(tmp_path / "a.parquet")]) == 0
    out = capsys.readouterr().out
    assert "note: 4 file(s) BenchmarkQED derives" in out and "significance_pairwise.csv" in out


def test_a_csv_that_is_neither_scores_nor_derived_is_still_refused(tmp_path):
    import shutil

    from assay.errors import InputError

    folder = tmp_path / "out"
    shutil.copytree(FIXTURE, folder)
    (folder / "data_local" / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="not a BenchmarkQED score file"):
        import_qed([folder])
