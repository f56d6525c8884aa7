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
from assay.data.importers import detect_format, import_promptfoo
from assay.errors import InputError, ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "promptfoo" / "results.json"


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
