"""promptfoo's results export (``promptfoo eval -o results.json``): the counts and means
promptfoo itself prints.

The fixture ``tests/fixtures/promptfoo/results.json`` is a real export written by promptfoo
0.120.27 (``promptfoo eval -c promptfooconfig.yaml -o results.json``, run here on the config
and the deterministic stand-in provider beside it, plus promptfoo's ``echo`` provider; no
network): 12 tests x 2 providers. promptfoo printed ``Results: 7 passed, 16 failed, 1 error
(29.17%)`` and ``Eval: 243 (220 prompt, 23 completion)``; its ``stats`` block holds
successes 7, failures 16, errors 1, and its per-column metrics: mock-model score 9 (sum of
test scores), Correctness 8 of 11, 7 passes, 4 failures, 1 error; echo score 6,
Correctness 0 of 12, 12 failures.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.cli import main
from assay.data.importers import detect_format, import_promptfoo
from assay.errors import InputError, ValidationError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "promptfoo"
FIXTURE = FIXTURES / "results.json"
OLDER = ["v1_simple_cli_output.json", "v2_replicate_llama2_output.json",
         "v2_node_package_output.json"]


def _export(records, tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"evalId": "e", "results": {
        "version": 3, "results": records, "stats": {"successes": 0, "failures": 0}}}))
    return path


def _record(test, provider="p", **extra):
    return {"testIdx": test, "promptIdx": 0, "provider": {"id": provider, "label": ""},
            "success": True, "score": 1, "namedScores": {}, "failureReason": 0,
            "gradingResult": {"pass": True, "score": 1, "reason": "ok", "componentResults": [
                {"pass": True, "score": 1, "reason": "ok",
                 "assertion": {"type": "contains", "value": "x"}},
                {"pass": True, "score": 1, "reason": "ok",
                 "assertion": {"type": "contains", "value": "y"}}]},
            **extra}


def test_an_error_record_is_a_failed_judgment_not_a_failed_test(tmp_path):
    path = _export([_record(0), _record(1, success=False, failureReason=2, error="boom",
                                        gradingResult=None)], tmp_path)
    f = import_promptfoo([path]).frame
    failed = f[f["item"] == "test-1"]
    assert failed["criterion"].tolist() == ["pass"] and failed["score"].isna().all()
    assert failed["failure_kind"].tolist() == ["api_error"]
    passed = f[f["item"] == "test-0"]
    assert sorted(passed["criterion"]) == ["assert:contains", "assert:contains#2", "pass",
                                           "score"]
    assert detect_format(path) == "promptfoo"


def test_a_record_without_provider_names_its_position_and_field(tmp_path):
    record = _record(0)
    record["provider"] = {}
    with pytest.raises(ValidationError) as info:
        import_promptfoo([_export([_record(1), record], tmp_path)])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (2, "provider")


def test_another_json_file_is_refused_by_name(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"results": [1, 2]}))
    with pytest.raises(InputError, match="not a promptfoo results export"):
        import_promptfoo([path])
    assert detect_format(path) is None


def test_reproduces_promptfoos_printed_counts_tokens_and_scores():
    t = import_promptfoo([FIXTURE])
    f = t.frame
    passed = f[f["criterion"] == "pass"]
    counts = (int((passed["score"] == 1).sum()), int((passed["score"] == 0).sum()),
              int(passed["score"].isna().sum()))
    assert counts == (7, 16, 1)
    assert f"{counts[0] / sum(counts):.2%}" == "29.17%"
    assert (passed["tokens_in"].sum(), passed["tokens_out"].sum()) == (220, 23)
    summary = {(r.criterion, r.arm): r for r in score_summary(t).rows}
    assert (summary["Correctness", "mock-model"].estimate,
            summary["Correctness", "echo"].estimate) == (8 / 11, 0.0)
    scores = f[f["criterion"] == "score"].groupby("arm")["score"].sum()
    assert scores.to_dict() == {"echo": 6.0, "mock-model": 9.0}
    by_arm = passed.groupby("arm")["score"]
    assert by_arm.sum().to_dict() == {"echo": 0.0, "mock-model": 7.0}
    assert by_arm.count().to_dict() == {"echo": 12, "mock-model": 11}  # the error left out
    assert detect_format(FIXTURE) == "promptfoo"


def test_a_folder_of_mixed_files_reads_the_promptfoo_export_by_its_content(tmp_path):
    import shutil

    from assay.data.importers import folder_formats
    from assay.data.io import import_folder

    shutil.copy(FIXTURE, tmp_path / "results.json")
    qed = FIXTURE.parents[1] / "qed_assertions" / "data_local" / "graph_rag_assertion_scores.csv"
    shutil.copy(qed, tmp_path / "graph_rag_assertion_scores.csv")
    assert sorted(folder_formats(tmp_path).values()) == ["promptfoo", "qed"]
    assert set(import_folder(tmp_path).frame["arm"]) == {"echo", "mock-model", "graph_rag"}


def _stats(path):
    document = json.loads(path.read_text())
    summary = document["results"] if isinstance(document["results"], dict) else document
    return summary


@pytest.mark.parametrize("name", OLDER)
def test_an_older_version_reproduces_the_stats_promptfoo_printed(name):
    """Versions 1 and 2 (real files from promptfoo's examples, see the fixtures' README):
    promptfoo printed ``Successes`` and ``Failures`` and the token usage of its ``stats``
    block; the passes and failures of the ``pass`` rows and their tokens give them back.
    These versions count an error as a failure; the files hold none."""
    path = FIXTURES / name
    summary = _stats(path)
    stats = summary["stats"]
    f = import_promptfoo([path]).frame
    passed = f[f["criterion"] == "pass"]
    assert len(passed) == len(summary["results"])
    assert (int((passed["score"] == 1).sum()), int((passed["score"] == 0).sum()) +
            int(passed["score"].isna().sum())) == (stats["successes"], stats["failures"])
    for key, column in (("prompt", "tokens_in"), ("completion", "tokens_out")):
        total = passed[column].sum() if column in passed else 0
        assert total == stats["tokenUsage"][key]
    # every cell of promptfoo's table is one judgment: tests x columns, none twice
    table = summary["table"]
    assert len(passed) == len(table["body"]) * len(table["head"]["prompts"])
    assert not passed.duplicated(["item", "arm"]).any()
    assert detect_format(path) == "promptfoo"


def test_version_1_arms_are_promptfoos_columns_and_items_its_rows():
    f = import_promptfoo([FIXTURES / "v1_simple_cli_output.json"]).frame
    assert sorted(set(f["arm"])) == ["Rephrase this in {{language}}: {{body}}",
                                     "Translate this to conversational {{language}}: {{body}}"]
    # table.body row 2 is ("Hello world", "Pirate"); the record is placed by its vars
    row = f[(f["item"] == "test-2") & (f["arm"] == "Rephrase this in {{language}}: {{body}}")]
    assert row["criterion"].tolist() == ["pass"]


def test_version_2_column_metrics_are_promptfoos_per_column_figures():
    """promptfoo's version 2 columns carry ``metrics`` (its column summary): the score sum,
    passes and cost of each column come back from the rows of its arm."""
    path = FIXTURES / "v2_node_package_output.json"
    columns = _stats(path)["table"]["head"]["prompts"]
    f = import_promptfoo([path]).frame
    for i, column in enumerate(columns):
        rows = f[f["arm"] == f"{column['provider']}#{i}"]
        metrics = column["metrics"]
        assert rows.loc[rows["criterion"] == "score", "score"].sum() == metrics["score"]
        assert (rows.loc[rows["criterion"] == "pass", "score"] == 1).sum() == \
            metrics["testPassCount"]
        cost = rows.loc[rows["criterion"] == "pass", "usd"].sum()
        assert cost == pytest.approx(metrics["cost"], rel=1e-12, abs=1e-15)


def test_version_2_without_providers_reads_the_one_in_config():
    f = import_promptfoo([FIXTURES / "v2_replicate_llama2_output.json"]).frame
    model = "replicate:replicate/llama70b-v2-chat:" \
        "e951f18578850b652510200860fc4ea62b3b16fac280f83ff32282f87bbd2e48"
    assert sorted(set(f["arm"])) == [f"{model}#0", f"{model}#1"]
    assert f["item"].nunique() == 5


def test_an_older_record_in_no_cell_names_its_position(tmp_path):
    document = json.loads((FIXTURES / "v1_simple_cli_output.json").read_text())
    document["results"][3]["vars"] = {"body": "nowhere", "language": "French"}
    path = tmp_path / "output.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ValidationError) as info:
        import_promptfoo([path])
    assert [(p.row, p.column) for p in info.value.problems] == [(4, "vars")]


def test_an_unknown_version_is_refused_in_one_line_naming_the_field(tmp_path, capsys):
    document = json.loads(FIXTURE.read_text())
    document["results"]["version"] = 4
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document))
    assert detect_format(path) == "promptfoo"
    with pytest.raises(InputError, match=r"version 4 is not read: expected the field "
                                         r"results.version to be 1, 2 or 3"):
        import_promptfoo([path])
    with pytest.raises(SystemExit) as info:
        main(["import", "promptfoo", str(path), "-o", str(tmp_path / "out.parquet")])
    err = capsys.readouterr().err
    assert info.value.code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "results.version to be 1, 2 or 3" in lines[0], err


def test_an_older_record_without_an_answer_is_a_failed_judgment_promptfoo_counted_failed(
        tmp_path):
    document = json.loads((FIXTURES / "v2_node_package_output.json").read_text())
    failing = next(r for r in document["results"] if r["success"] is False)
    failing["response"] = {"error": "API error: 500"}
    path = tmp_path / "output.json"
    path.write_text(json.dumps(document))
    passed = import_promptfoo([path]).frame.query("criterion == 'pass'")
    errors = passed[passed["failure_kind"] == "api_error"]
    assert errors["reasoning"].tolist() == ["API error: 500"] and errors["score"].isna().all()
    # promptfoo's stats (8 failures) counted it as a failure: 7 failed tests + 1 failed judgment
    assert ((passed["score"] == 0).sum(), len(errors)) == (7, 1)
