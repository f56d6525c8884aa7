"""Coverage strata come from target attributes only: declared, or inferred without identifiers.

Regression tests for the default report running out of memory on a judge run with
``chunk_assertion`` (its ``attributes`` hold ids, statements, ranks and positions, whose
Cartesian product has billions of strata) and for ACR counting only observed values (a
benchmark with every "hard" item removed still had ACR 1.0).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from assay.analysis.coverage import AttributeSpace, coverage_ratio, coverage_report, read_attribute_space
from assay.analysis.coverage._space import infer_target_attributes, is_id_name
from assay.analysis.systems import performance_by_attribute
from assay.cli import main
from assay.data.io import load
from assay.errors import ConfigError, InputError
from tests.analysis.judges.conftest import make_table

SPACE = {"difficulty": ["easy", "medium", "hard"], "domain": ["law", "biology"]}
# every (difficulty, domain) of the declared space except the two "hard" ones, one item each
NO_HARD = [{"difficulty": d, "domain": m} for d in ("easy", "medium") for m in ("law", "biology")]


def _table(attributes, *, arms=("A", "B")):
    rows = [{"item": f"q{i}", "arm": arm, "score": 0.5, "judge": judge,
             "attributes": json.dumps(a)}
            for i, a in enumerate(attributes) for arm in arms for judge in ("j1", "j2")]
    return make_table(rows, {"score": "range:0,1"})


def test_without_hard_items_acr_is_below_one_once_the_space_is_declared():
    table = _table(NO_HARD)
    inferred = coverage_report(table).rows[0]
    # observed values only: 2 x 2 strata, all covered; the report says the space is inferred
    assert (inferred.attribute_space, inferred.n_strata, inferred.acr) == ("inferred", 4, 1.0)
    declared = coverage_report(table, attribute_space={"attributes": SPACE})
    row = declared.rows[0]
    # by hand: Omega = 3 difficulties x 2 domains = 6; covered 4; each stratum has < 3
    # natural items (no teacher column: every item is natural), so all 6 are rare, 4 covered
    assert (row.attribute_space, row.n_strata, row.n_covered) == ("declared", 6, 4)
    assert row.acr == pytest.approx(4 / 6) and row.rar == pytest.approx(4 / 6)
    gaps = [s.values for s in row.strata if s.count == 0]
    assert gaps == [{"difficulty": "hard", "domain": "law"},
                    {"difficulty": "hard", "domain": "biology"}]
    assert coverage_ratio(table, attribute_space=SPACE) == pytest.approx(4 / 6)


def _run_folder(folder: Path, attributes, criteria: dict) -> Path:
    folder.mkdir()
    points = [{"id": f"q{i}", "task": "qa", "prompt": f"question {i}", "attributes": a}
              for i, a in enumerate(attributes)]
    answers = [{"id": f"r{i}{arm}", "datapoint_id": f"q{i}", "arm": arm, "text": f"answer {arm}"}
               for i in range(len(attributes)) for arm in ("A", "B")]
    evaluations = [{"id": f"e{i}{arm}{judge}", "response_id": f"r{i}{arm}", "judge": judge,
                    "scores": {"quality": (i % 3) / 2}}
                   for i in range(len(attributes)) for arm in ("A", "B") for judge in ("j1", "j2")]
    for name, records in (("datapoints", points), ("responses", answers),
                          ("evaluations", evaluations)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records),
                                              encoding="utf-8")
    (folder / "criteria.json").write_text(json.dumps(criteria), encoding="utf-8")
    return folder


def test_a_run_folders_criteria_json_declares_the_space(tmp_path):
    folder = _run_folder(tmp_path / "run", NO_HARD, {
        "criteria": {"quality": {"scale": "range:0,1"}}, "attributes": SPACE})
    row = coverage_report(load(folder)).rows[0]
    assert (row.task, row.attribute_space, row.n_strata, row.n_covered) == ("qa", "declared", 6, 4)
    assert row.acr == pytest.approx(4 / 6)


def test_report_takes_the_space_from_a_file(tmp_path, capsys):
    folder = _run_folder(tmp_path / "run", NO_HARD, {"criteria": {"quality": {"scale": "range:0,1"}}})
    space = tmp_path / "space.json"
    space.write_text(json.dumps({"attributes": SPACE}), encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["report", str(folder), "--kind", "judges", "--format", "json", "--B", "100",
              "--attribute-space", str(space), "--out", str(tmp_path / "out")])
    assert info.value.code == 0, capsys.readouterr().err
    row = json.loads((tmp_path / "out" / "coverage.json").read_text())["coverage"][0]
    assert (row["n_strata"], row["n_covered"], row["attribute_space"]) == (6, 4, "declared")
    assert row["acr"] == pytest.approx(4 / 6)
    # a bad file is one line naming the file and the field, exit 2
    space.write_text(json.dumps({"attributes": {"difficulty": "hard"}}), encoding="utf-8")
    with pytest.raises(SystemExit) as info:
        main(["report", str(folder), "--kind", "judges", "--attribute-space", str(space)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "attributes.difficulty" in err and str(space) in err
    assert "Traceback" not in err


def _chunk_rows(n_questions=20, n_assertions=10, n_chunks=10):
    """What the chunk-level assertion judge writes into ``attributes``."""
    for q in range(n_questions):
        for a in range(n_assertions):
            for c in range(n_chunks):
                yield {"question_id": f"q{q}", "assertion_id": f"q{q}-a{a}",
                       "statement": f"The answer to question {q} states fact number {a} "
                                    "about the topic, in full.",
                       "rank": a + 1, "chunk_id": f"q{q}-c{c}", "position": c,
                       "chunk_rank": c + 1, "n_chunks": n_chunks}


def test_identifiers_and_measurements_are_not_strata():
    """2,000 items whose attribute product is 20 x 200 x 200 x 200 x 10 x 10 x 10 x 1 strata
    (the old code built it and ran out of memory): none of the keys is a target attribute."""
    table = _table(list(_chunk_rows()), arms=("bm25",))
    report = coverage_report(table)
    row = report.rows[0]
    assert (row.attributes, row.n_strata, row.strata, row.n_items) == ([], 0, [], 2000)
    assert math.isnan(row.acr)
    left_out = next(n for n in report.notes if "left out of the strata" in n)
    for key, why in (("question_id", "identifier"), ("chunk_id", "identifier"),
                     ("position", "numbers"), ("statement", "free text")):
        assert f"{key} (an {why}" in left_out or f"{key} ({why}" in left_out
    assert performance_by_attribute(table).rows == []


def test_a_space_over_the_limit_is_refused_before_it_is_built():
    table = _table(NO_HARD)
    report = coverage_report(table, attribute_space=SPACE, max_strata=5)
    row = report.rows[0]
    assert row.n_strata == 6 and row.strata == [] and math.isnan(row.acr)
    assert any("6 strata (3 (difficulty) x 2 (domain)), over the limit of 5" in n
               for n in report.notes)
    with pytest.raises(ConfigError, match="over the limit of 5"):
        coverage_ratio(table, attribute_space=SPACE, max_strata=5)
    # 1e12 strata: refused at once (nothing of that size is allocated)
    huge = {f"k{i}": [f"v{j}" for j in range(1000)] for i in range(4)}
    assert coverage_report(table, attribute_space=huge).rows[0].n_strata == 10 ** 12


def test_declared_values_outside_the_space_are_unplaced_with_a_note():
    table = _table([*NO_HARD, {"difficulty": "extreme", "domain": "law"}])
    report = coverage_report(table, attribute_space=SPACE)
    assert report.rows[0].n_items_unplaced == 1
    assert any("difficulty='extreme' (1)" in n for n in report.notes)


def test_per_task_spaces_and_file_errors(tmp_path):
    space = AttributeSpace.from_mapping({"attributes": SPACE,
                                         "task_attributes": {"t2": {"length": ["short", "long"]}}})
    assert space.for_task("t1") == SPACE and space.for_task("t2") == {"length": ["short", "long"]}
    path = tmp_path / "space.json"
    for text, where in (('{"attributes": {"a": []}}', "attributes.a"),
                        ('{"a": ["x", "x"]}', "attributes.a"),
                        ('{"task_attributes": {"t": {"a": "x"}}}', "task_attributes.t.a"),
                        ("[1, 2]", None), ("{not json", None)):
        path.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as info:
            read_attribute_space(path)
        assert str(path) in str(info.value)
        assert where is None or info.value.problem.column == where
    with pytest.raises(InputError, match="cannot read"):
        read_attribute_space(tmp_path / "missing.json")


def test_inference_rule():
    assert [is_id_name(k) for k in ("id", "doc_id", "chunkId", "assertion_ids", "question-id",
                                    "paid", "idiom", "valid", "Id")] == \
        [True, True, True, True, True, False, False, False, True]
    kept, left_out = infer_target_attributes(
        [{"tone": "formal", "hop": True, "n": 3, "tags": ["a"], "notes": "x" * 65,
          "many": f"v{i}", "doc_id": "d1"} for i in range(21)])
    assert kept == {"tone": ["formal"], "hop": ["true"]}
    assert left_out == {"doc_id": "an identifier", "many": "21 distinct values, over 20",
                        "n": "numbers, lists or objects, not labels",
                        "notes": "free text (values over 64 characters)",
                        "tags": "numbers, lists or objects, not labels"}
