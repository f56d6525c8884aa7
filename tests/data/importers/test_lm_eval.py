"""lm-evaluation-harness ``samples_*.jsonl`` (--log_samples): the values its table prints.

The fixture is generated in the format lm-eval's evaluator logs (no small real samples file
is published; tests/fixtures/README.md). The expected values are what lm-eval's own
``mean`` aggregation (lm_eval/api/metrics.py, commit 4e7e0d4) gives on it, printed to 4
digits as lm-eval's results table prints them: arc_easy acc 0.2750, acc_norm 0.4000;
gsm8k exact_match strict-match 0.2500, flexible-extract 0.5000.

``lm_eval_dummy/`` is real: lm-eval 0.4.13 run here with its ``dummy`` model on a local
task (no real samples file is published; its README). The expected figures are lm-eval's
own, read from the ``results_*.json`` it wrote beside the samples file.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import detect_format, import_lm_eval
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "lm_eval"
MODEL = "EleutherAI__pythia-160m"
REAL = FIXTURE.parent / "lm_eval_dummy" / "out" / "qdpv68r5"


def test_reproduces_results_json_of_a_real_lm_eval_run():
    results = json.loads(next(REAL.glob("results_*.json")).read_text())["results"]["capitals"]
    # lm-eval printed acc 0.25 ± 0.0993, acc_norm 0.35 ± 0.1094 (results_*.json, full precision)
    assert (results["acc,none"], results["acc_norm,none"]) == (0.25, 0.35)
    j = import_lm_eval([REAL])
    rows = {r.criterion: r for r in score_summary(j).rows}
    assert set(rows) == {"acc,none", "acc_norm,none"}
    for metric in ("acc", "acc_norm"):
        r = rows[f"{metric},none"]
        assert r.estimate == pytest.approx(results[f"{metric},none"], abs=1e-12)
        assert r.n == results["sample_len"] == 20
        # lm-eval's mean_stderr (sample sd with n - 1, over sqrt(n)) of the imported
        # per-document scores is the stderr it printed: the same 20 values, not only their mean
        scores = j.frame.loc[j.frame["criterion"] == f"{metric},none", "score"].astype(float)
        assert scores.std(ddof=1) / len(scores) ** 0.5 == pytest.approx(
            results[f"{metric}_stderr,none"], rel=1e-9)
    assert {r.arm for r in rows.values()} == {"qdpv68r5"}
    assert set(j.frame["task"]) == {"capitals"}
    assert detect_format(next(REAL.glob("samples_*.jsonl"))) == "lm-eval"


def test_reproduces_lm_eval_printed_values():
    s = score_summary(import_lm_eval([FIXTURE]))
    printed = {"acc,none": "0.2750", "acc_norm,none": "0.4000",
               "exact_match,strict-match": "0.2500", "exact_match,flexible-extract": "0.5000"}
    got = {r.criterion: f"{r.estimate:.4f}" for r in s.rows}
    assert got == printed
    assert {r.arm for r in s.rows} == {MODEL}


def test_documents_tasks_and_filters_map_to_items_tasks_and_criteria():
    f = import_lm_eval([FIXTURE]).frame
    assert set(f["task"]) == {"arc_easy", "gsm8k"}
    gsm = f[f["task"] == "gsm8k"]
    assert gsm["item"].nunique() == 20 and len(gsm) == 40
    assert set(gsm["criterion"]) == {"exact_match,strict-match", "exact_match,flexible-extract"}
    assert f.loc[f["item"] == "arc_easy/0", "criterion"].tolist() == ["acc,none", "acc_norm,none"]


def test_a_listed_metric_without_value_names_file_line_and_field(tmp_path):
    folder = tmp_path / MODEL
    folder.mkdir()
    source = next(FIXTURE.joinpath(MODEL).glob("samples_arc_easy_*.jsonl"))
    lines = source.read_text().splitlines()[:2]
    broken = json.loads(lines[1])
    del broken["acc_norm"]
    path = folder / source.name
    path.write_text(lines[0] + "\n" + json.dumps(broken) + "\n")
    with pytest.raises(ValidationError) as info:
        import_lm_eval([path])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (2, "acc_norm")


def test_corpus_metrics_without_per_sample_values_are_left_out(tmp_path):
    path = tmp_path / "m" / "samples_wmt_2026-01-01T00-00-00.0.jsonl"
    path.parent.mkdir()
    path.write_text(json.dumps({"doc_id": 0, "filter": "none", "metrics": ["bleu", "chrf"],
                                "bleu": ["ref", "hyp"], "chrf": 0.5}) + "\n")
    f = import_lm_eval([path]).frame
    assert f["criterion"].tolist() == ["chrf,none"]
    assert detect_format(path) == "lm-eval"
