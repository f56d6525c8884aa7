"""Repeated records as each tool reads them: real files with appended re-runs.

``tests/fixtures/mt_bench/rerun/gpt-4_single.jsonl`` is a real FastChat judgment file whose
first run was interrupted (4 replies scored -1) and re-run, appended: 10 judgments appear
twice. FastChat's own ``show_result.py --mode single --input-file ...`` (run outside the
test suite on this file, FastChat code at dreaming-panda/MTBench f4bb6e4, pandas 3.1.1)
prints: First turn 9.615385, Second turn 8.0, Average 8.913043 — its groupby mean counts
every record with a score other than -1 once, the re-runs included.

``tests/fixtures/coeval/medium-benchmark`` is an excerpt of CoEval's own reference run
(``Runs/medium-benchmark``): one evaluations file in which 10 responses were evaluated
twice. CoEval's ``load_ees`` and ``compute_student_scores`` (``Code/analyzer/loader.py``
and ``metrics.py`` at e6ad005, run outside the test suite on this excerpt) count 660
units and give the students' overall scores below; qwen2p5-1b5 holds the re-evaluations.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.composite import composite_score_by_student
from assay.analysis.scores import score_summary
from assay.cli._app import main
from assay.data.importers import import_coeval, import_mt_bench
from assay.data.io import run_importer
from assay.errors import ConfigError, ValidationError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
RERUN = FIXTURES / "mt_bench" / "rerun" / "gpt-4_single.jsonl"
COEVAL = FIXTURES / "coeval" / "medium-benchmark"
MODEL = "Meta-Llama-3-8B-Instruct-Normal"
# CoEval's compute_student_scores(...)[student].overall on the excerpt, printed by CoEval
COEVAL_OVERALL = {"gpt-3.5-turbo": 0.9041666666666667, "gpt-4o-mini": 0.9458333333333333,
                  "qwen2p5-0b5": 0.7583333333333333, "qwen2p5-1b5": 0.9277777777777778,
                  "smollm2-1b7": 0.9}


def turn_mean(judgments, turn):
    f = judgments.frame
    mask = f["attributes"].map(lambda a: json.loads(a)["turn"]) == turn
    return (f.loc[mask, "score"] * f.loc[mask, "weight"]).sum() / f.loc[mask, "weight"].sum()


def test_fastchat_rerun_reads_as_show_result_averages_it():
    j = import_mt_bench([RERUN])
    (r,) = score_summary(j).rows
    assert r.arm == MODEL
    assert round(r.estimate, 6) == 8.913043  # show_result.py's Average
    assert round(turn_mean(j, 1), 6) == 9.615385  # its First turn
    assert round(turn_mean(j, 2), 6) == 8.0  # its Second turn
    (note,) = j.read_notes
    assert "10 judgments repeated (10 more records" in note and "show_result.py" in note
    assert "--duplicates mean" in note


def test_fastchat_rerun_refused_on_request_names_file_and_line_once_per_judgment():
    with pytest.raises(ValidationError) as info:
        import_mt_bench([RERUN], duplicates="error")
    problems = info.value.problems
    assert len(problems) == 10
    assert {p.path for p in problems} == {str(RERUN)}
    assert [p.row for p in problems] == list(range(11, 21))  # the re-run's lines
    assert "same item '81/turn1'" in problems[0].message and "as row 1" in problems[0].message


def test_fastchat_first_and_last_keep_one_record():
    first = import_mt_bench([RERUN], duplicates="first")
    last = import_mt_bench([RERUN], duplicates="last")
    assert first.frame["failure_kind"].notna().sum() == 4  # the interrupted run's -1 replies
    assert last.frame["failure_kind"].notna().sum() == 0
    assert len(first) == len(last) == 40


def test_coeval_reevaluations_counted_as_coevals_loader_counts_them():
    j = import_coeval([COEVAL])
    assert len(j) == 660  # CoEval's load_ees: 660 analytical units
    scores = composite_score_by_student(j)
    assert {a: round(scores[a], 12) for a in COEVAL_OVERALL} == \
        {a: round(q, 12) for a, q in COEVAL_OVERALL.items()}
    (note,) = j.read_notes
    assert note.startswith("10 judgments repeated (10 more records, in ")
    assert "code_explanation.gpt-4o-mini.gpt-3.5-turbo.evaluations.jsonl" in note


def test_coeval_repeats_refused_one_line_per_record_naming_the_file():
    with pytest.raises(ValidationError) as info:
        import_coeval([COEVAL], duplicates="error")
    problems = info.value.problems
    assert len(problems) == 10  # one per re-evaluated response, not one per factor (60)
    evaluations = str(COEVAL / "phase5_evaluations" /
                      "code_explanation.gpt-4o-mini.gpt-3.5-turbo.evaluations.jsonl")
    assert {p.path for p in problems} == {evaluations}
    assert all("(6 criteria)" in p.message for p in problems)


def run_cli(args):
    with pytest.raises(SystemExit) as info:
        main(args)
    return info.value.code


def test_cli_prints_the_note_and_takes_duplicates(tmp_path, capsys):
    assert run_cli(["import", "mt-bench", str(RERUN), "-o", str(tmp_path / "m.parquet")]) == 0
    out = capsys.readouterr().out
    assert "note: 10 judgments repeated" in out
    code = run_cli(["import", "mt-bench", str(RERUN), "--duplicates", "error", "-o",
                    str(tmp_path / "e.parquet")])
    assert code == 2 and not (tmp_path / "e.parquet").exists()
    assert "duplicate judgment" in capsys.readouterr().err


def test_table_reads_repeats_by_duplicates(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("item,arm,score\nq1,a,1\nq2,a,0\nq1,a,3\n", encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        run_importer("table", [path])
    assert [p.row for p in info.value.problems] == [3]
    mean = run_importer("table", [path], duplicates="mean")
    assert mean.frame.set_index("item").loc["q1", ["score", "weight"]].tolist() == [2.0, 2.0]
    keep = run_importer("table", [path], duplicates="keep")
    assert sorted(keep.frame["run"]) == [1, 1, 2]
    assert run_importer("table", [path], duplicates="last").frame["score"].tolist() == [0.0, 3.0]
    with pytest.raises(ConfigError, match="--duplicates 'twice'"):
        run_importer("table", [path], duplicates="twice")


def test_qed_repeated_statement_pools_as_benchmark_qeds_scorer(tmp_path):
    # No real BenchmarkQED output is published: the generated assertion fixture, with one
    # statement repeated within its question (its two trials appended once more, scores
    # flipped), stands in. BenchmarkQED's evaluate_rag_method groups the scores by
    # (question, assertion) text, so the copies pool: reimplemented here with pandas.
    import pandas as pd

    source = FIXTURES / "qed_assertions" / "data_local" / "graph_rag_assertion_scores.csv"
    rows = source.read_text(encoding="utf-8").splitlines()
    repeated = [r for r in rows[1:] if "fact 1 of report 0." in r]
    flipped = [r.replace(",supported,1,", ",not supported,0,") if ",1," in r else
               r.replace(",not supported,0,", ",supported,1,") for r in repeated]
    path = tmp_path / "graph_rag_assertion_scores.csv"
    path.write_text("\n".join(rows + flipped) + "\n", encoding="utf-8")
    pooled = pd.read_csv(path).groupby(["question", "assertion"])["score"].mean()
    j = run_importer("qed", [path])
    (note,) = j.read_notes
    assert "2 judgments repeated (2 more records" in note and "BenchmarkQED" in note
    f = j.frame
    item = f[f["attributes"].str.contains("fact 1 of report 0.", regex=False)]["item"].iloc[0]
    runs = f[f["item"] == item]
    assert sorted(runs["run"]) == [1, 2, 3, 4]
    key = ("What does report 0 say about topic A?", "The answer states fact 1 of report 0.")
    assert runs["score"].mean() == pooled[key] == 0.5
    with pytest.raises(ValidationError):
        run_importer("qed", [path], duplicates="error")


def test_many_repeats_list_the_first_and_count_the_rest(tmp_path):
    path = tmp_path / "t.csv"
    lines = [f"q{i},a,{c},1" for i in range(250) for c in ("x", "y")]
    path.write_text("item,arm,criterion,score\n" + "\n".join(lines + lines) + "\n",
                    encoding="utf-8")
    with pytest.raises(ValidationError) as info:
        run_importer("table", [path])
    problems = info.value.problems
    assert len(problems) == 201  # 200 repeated rows listed, the rest counted
    listed = [p for p in problems if p.row is not None]
    assert listed[0].row == 501 and "(criterion 'x') as row 1;" in listed[0].message
    assert [p.message for p in problems if p.row is None] == [
        "... and 300 more repeated judgments"]
