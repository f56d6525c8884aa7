"""A CoEval run folder: CoEval's composite score Q and its validity classes.

The fixture ``tests/fixtures/coeval/run-v1`` is generated in the layout CoEval's analyzer
reads (``Code/analyzer/loader.py`` of github.com/ApartsinProjects/CoEval): two tasks (an LLM
judge's High/Medium/Low on a two-factor rubric; a metric judge's BERTScore floats), two
students, six datapoints each, and one evaluation of each validity class. CoEval's
``composite_score_by_student`` (mean score_norm over the valid (response, factor) units,
High 1, Medium 0.5, Low 0, floats as they are) gives, computed by hand from the files
outside the test suite: student-a 0.889 (0.8886166666666667), student-b 0.574
(0.5743777777777778), each over 18 units.
"""

import json
import shutil
from pathlib import Path

import pytest

from assay.analysis.composite import composite_score_by_student
from assay.data.importers import import_coeval
from assay.errors import InputError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "coeval" / "run-v1"
Q = {"student-a": 0.8886166666666667, "student-b": 0.5743777777777778}


def test_reproduces_coevals_composite_score_per_student():
    scores = composite_score_by_student(import_coeval([FIXTURE]))
    assert {arm: round(scores[arm], 12) for arm in Q} == {a: round(q, 12) for a, q in Q.items()}
    assert {arm: f"{scores[arm]:.3f}" for arm in Q} == {"student-a": "0.889",
                                                          "student-b": "0.574"}


def test_levels_and_metric_floats_keep_their_declared_scales():
    t = import_coeval([FIXTURE])
    assert t.scale("accuracy").kind == "ordinal" and t.scale("similarity").kind == "range"
    f = t.frame
    assert set(f["judge"]) == {"judge-llm", "bertscore-f1"}
    assert set(f["task"]) == {"qa", "summary"} and set(f["teacher"]) == {"teacher-x"}
    assert len(f) == 2 * 6 * 2 + 2 * 6


def test_each_validity_class_is_kept_aside_and_counted():
    invalid = import_coeval([FIXTURE]).invalid
    assert dict(zip(invalid["record_id"], invalid["validity_class"], strict=True)) == {
        "ev-missing-response": "MISSING_RESPONSE", "ev-missing-datapoint": "MISSING_DATAPOINT",
        "ev-incomplete": "INCOMPLETE_SCORES", "ev-invalid-value": "INVALID_SCORE_VALUE"}


def test_a_factor_with_levels_and_floats_is_refused(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(FIXTURE, run)
    path = run / "phase5_evaluations" / "qa.teacher-x.judge-llm.evaluations.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    first["scores"]["accuracy"] = "0.5"
    path.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(InputError, match="accuracy"):
        import_coeval([run])


def test_a_folder_that_is_not_a_run_is_refused(tmp_path):
    with pytest.raises(InputError, match="phase3_datapoints"):
        import_coeval([tmp_path])
