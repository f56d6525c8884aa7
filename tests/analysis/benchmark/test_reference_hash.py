"""The registration's reference hash covers the items and their answers.

Regression test: the hash covered item ids only although the registration says "items and
answers", so an answer key edited under the same ids passed a registered report.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from assay.analysis.benchmark import Registration, benchmark_rows, reference_hash
from assay.analysis.benchmark._errors import RegistrationMismatchError
from assay.cli import main
from assay.data.io import load


def test_hash_by_hand_and_answers_count():
    frame = pd.DataFrame({"cluster": ["d1", "d1", "d1"], "item": ["q2", "q1", "q2"],
                          "reference_score": [1.0, 0.5, 1.0]})
    text = ("assay-reference-v2\x1e" "d1\x1fq1\x1freference_score=0.5\x1e"
            "d1\x1fq2\x1freference_score=1.0\x1e")
    assert reference_hash(frame) == hashlib.sha256(text.encode()).hexdigest()
    edited = frame.assign(reference_score=[0.0, 0.5, 0.0])  # same ids, another key
    assert reference_hash(edited) != reference_hash(frame)
    # ids only (no answers): still not the version 1 hash of the same ids
    ids = frame[["cluster", "item"]]
    v1 = hashlib.sha256(b"d1\x1fq1\x1ed1\x1fq2\x1e").hexdigest()
    assert reference_hash(ids) != v1


def _run_folder(folder: Path, *, answers: dict[str, str] | None = None) -> Path:
    """36 questions in 12 documents with a reference answer each; arms a and b, 5 runs;
    correctness from a seeded generator."""
    folder.mkdir(exist_ok=True)
    rng = np.random.default_rng(3)
    points = [{"id": f"q{i}", "cluster": f"doc{i // 3}", "split": "test",
               "prompt": f"question {i}", "reference": (answers or {}).get(f"q{i}", str(i * 7))}
              for i in range(36)]
    responses, evaluations = [], []
    for i in range(36):
        for arm, p in (("a", 0.8), ("b", 0.7)):
            for run in range(1, 6):
                rid = f"r{i}{arm}{run}"
                responses.append({"id": rid, "datapoint_id": f"q{i}", "arm": arm, "run": run,
                                  "text": f"answer {rid}"})
                evaluations.append({"id": f"e{rid}", "response_id": rid, "judge": "em",
                                    "scores": {"correct": int(rng.random() < p)}})
    for name, records in (("datapoints", points), ("responses", responses),
                          ("evaluations", evaluations)):
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records),
                                              encoding="utf-8")
    (folder / "criteria.json").write_text(json.dumps(
        {"criteria": {"correct": {"scale": "binary"}}}), encoding="utf-8")
    return folder


def _cli(args, capsys):
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_run_folder_references_enter_the_hash(tmp_path):
    folder = _run_folder(tmp_path / "run")
    table = load(folder)
    before = reference_hash(table)
    assert reference_hash(benchmark_rows(table)) == before  # the report hashes its rows
    _run_folder(folder, answers={"q5": "an edited answer"})
    assert reference_hash(load(folder)) != before


def test_an_answer_key_edited_after_registration_is_refused(tmp_path, capsys):
    folder = _run_folder(tmp_path / "run")
    reg = tmp_path / "reg.json"
    code, out, err = _cli(["register", folder, "--contrast", "b:a:0.2", "-o", reg], capsys)
    assert code == 0, err
    assert "holds no answers" not in out
    report = ["report", folder, "--kind", "benchmark", "--registration", reg, "--B", "200",
              "--format", "json", "--out", tmp_path / "r"]
    code, _, err = _cli(report, capsys)
    assert code == 0, err
    _run_folder(folder, answers={"q5": "an edited answer"})  # same ids, another answer key
    code, _, err = _cli(report, capsys)
    assert code == 2 and "the bench was scored on" in err and "Traceback" not in err


def test_a_version_1_registration_says_how_to_register_again(tmp_path, capsys):
    folder = _run_folder(tmp_path / "run")
    reg = tmp_path / "reg.json"
    assert _cli(["register", folder, "--contrast", "b:a:0.2", "-o", reg], capsys)[0] == 0
    # what the previous format wrote: version 1, content hash over that content
    old = json.loads(reg.read_text())
    old["version"] = 1
    content = {k: v for k, v in old.items() if k != "hash"}
    old["hash"] = hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":"))
                                 .encode()).hexdigest()
    reg.write_text(json.dumps(old))
    Registration.from_dict(old).verify()  # intact, only old
    with pytest.raises(RegistrationMismatchError, match="Register the contrasts again"):
        Registration.from_dict(old).check_version()
    code, _, err = _cli(["report", folder, "--kind", "benchmark", "--registration", reg],
                        capsys)
    assert code == 2 and "assay register REFERENCE --contrast" in err
    assert "item ids only" in err and "Traceback" not in err


def test_register_design_mdd_and_a_table_without_answers(tmp_path, capsys):
    bench = tmp_path / "bench.csv"
    pd.DataFrame([{"cluster": f"d{i // 3}", "item": f"q{i}", "arm": arm, "run": run,
                   "correct": "TRUE" if (i + run) % 3 else "FALSE", "split": "test"}
                  for i in range(36) for arm in ("a", "b") for run in range(1, 6)]
                 ).to_csv(bench, index=False)
    reg = tmp_path / "reg.json"
    code, out, err = _cli(["register", bench, "--contrast", "b:a:0.1", "--design",
                           "p_disc=0.3,n_eff=60,n_clusters=12", "-o", reg], capsys)
    assert code == 0, err
    # hr_report's design MDD: (t_{C-1, 1-alpha} + t_{C-1, power}) sqrt(p_disc / n_eff)
    expected = (stats.t.ppf(1 - 0.025, 11) + stats.t.ppf(0.8, 11)) * np.sqrt(0.3 / 60)
    assert json.loads(reg.read_text())["contrasts"][0]["mdd_design"] == pytest.approx(expected)
    assert f"design MDD of b vs a: {expected:.4f}" in out
    assert "holds no answers" in out  # a bare bench has no answer key: said, not hidden
    for bad in ("p_disc=0.3", "p_disc=x,n_eff=60,n_clusters=12", "p_disc=0.3,n_eff=60,n_clusters=1.5"):
        code, _, err = _cli(["register", bench, "--contrast", "b:a:0.1", "--design", bad, "-o",
                             reg], capsys)
        assert code == 2 and "--design" in err and "Traceback" not in err
