"""promptfoo's results export (``promptfoo eval -o results.json``): the counts and means
promptfoo itself prints.

FIXTURE_DOC
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
