"""``assay datapoints``: a local table sampled over its target attributes into a run folder,
whose attribute space the coverage report reads; errors name file, row and column."""

from __future__ import annotations

import csv
import json

import pytest

from tests.cli._judge_helpers import run


@pytest.fixture()
def questions(tmp_path):
    path = tmp_path / "questions.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["qid", "question", "answer", "difficulty", "doc"])
        for i in range(40):
            writer.writerow([f"q{i}", f"Question {i}?", f"answer {i}",
                             "hard" if i % 10 == 0 else "easy", f"doc{i // 4}"])
    return path


def test_stratified_sample_into_a_run_folder(questions, tmp_path, capsys):
    out = tmp_path / "run"
    assert run(["datapoints", str(questions), "--map", "qid=id,question=prompt,answer=reference,doc=cluster",
                "--attributes", "difficulty", "--sample-size", "8", "--task", "qa", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "8 of 40 items (stratified, seed 42), 2 of 2 strata sampled" in printed
    records = [json.loads(line) for line in (out / "datapoints.jsonl").read_text().splitlines()]
    # equal allocation: 4 hard (of the 4 the source holds) and 4 easy
    assert sorted(r["attributes"]["difficulty"] for r in records) == ["easy"] * 4 + ["hard"] * 4
    first = next(r for r in records if r["id"] == "q0")
    assert first == {"id": "q0", "task": "qa", "cluster": "doc0", "prompt": "Question 0?",
                     "reference": "answer 0", "split": None, "attributes": {"difficulty": "hard"}}
    space = json.loads((out / "attribute_space.json").read_text())
    assert space == {"attributes": {"difficulty": ["easy", "hard"]}}


def test_the_same_seed_gives_the_same_sample(questions, tmp_path):
    texts = []
    for name in ("a", "b"):
        assert run(["datapoints", str(questions), "--map", "question=prompt", "--attributes",
                    "difficulty", "--sample-size", "5", "--strategy", "random", "-o",
                    str(tmp_path / name)]) == 0
        texts.append((tmp_path / name / "datapoints.jsonl").read_text())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("argv, message", [
    (["--map", "question=prompt", "--attributes", "colour"], "no column 'colour' for --attributes"),
    (["--map", "question=body"], "'body' is not a datapoint field"),
    (["--map", "question=prompt", "--strategy", "cluster"], "--strategy 'cluster'"),
    (["--map", "question=prompt", "--sample-size", "0"], "--sample-size"),
    (["--map", "difficulty=id,question=prompt"], "duplicate id 'easy'"),
    ([], "column 'prompt'"),
])
def test_errors_are_one_line_and_exit_2(questions, tmp_path, capsys, argv, message):
    assert run(["datapoints", str(questions), *argv, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out" / "datapoints.jsonl").exists()


def test_a_row_without_a_prompt_is_named(tmp_path, capsys):
    path = tmp_path / "items.jsonl"
    path.write_text('{"prompt": "ok?"}\n{"prompt": "  "}\n')
    assert run(["datapoints", str(path), "-o", str(tmp_path / "out")]) == 2
    assert "items.jsonl, row 2, column 'prompt': required field is missing" in capsys.readouterr().err


def test_the_hub_without_its_extra_is_one_clear_error(tmp_path, capsys):
    try:
        import datasets  # noqa: F401
    except ImportError:
        assert run(["datapoints", "hf:xsum", "-o", str(tmp_path / "out")]) == 2
        assert "pip install 'assay[hub]'" in capsys.readouterr().err
    else:
        pytest.skip("datasets is installed here; this checks the message without it")


def test_the_coverage_report_counts_an_unjudged_value_of_the_source_as_a_gap(questions, tmp_path):
    out = tmp_path / "run"
    assert run(["datapoints", str(questions), "--map", "qid=id,question=prompt", "--attributes",
                "difficulty", "-o", str(out)]) == 0
    records = [json.loads(line) for line in (out / "datapoints.jsonl").read_text().splitlines()]
    easy = [r for r in records if r["attributes"]["difficulty"] == "easy"]
    # answers and judgments of the easy items only: "hard" was never judged
    (out / "responses.jsonl").write_text("".join(
        json.dumps({"id": f"r-{r['id']}", "datapoint_id": r["id"], "arm": "a", "text": "x"}) + "\n"
        for r in easy))
    (out / "evaluations.jsonl").write_text("".join(
        json.dumps({"id": f"e-{r['id']}", "response_id": f"r-{r['id']}", "judge": "j",
                    "scores": {"ok": 1}}) + "\n" for r in easy))
    assert run(["report", str(out), "--kind", "coverage", "--format", "json", "--out",
                str(tmp_path / "rep")]) == 0
    (coverage,) = json.loads((tmp_path / "rep" / "coverage.json").read_text())["coverage"]
    assert coverage["attribute_space"] == "declared"
    assert (coverage["n_strata"], coverage["n_covered"], coverage["acr"]) == (2, 1, 0.5)
