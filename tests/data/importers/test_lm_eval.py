"""lm-evaluation-harness ``samples_*.jsonl`` (--log_samples): the values its table prints.

The fixture is generated in the format lm-eval's evaluator logs (no small real samples file
is published; tests/fixtures/README.md). The expected values are what lm-eval's own
``mean`` aggregation (lm_eval/api/metrics.py, commit 4e7e0d4) gives on it, printed to 4
digits as lm-eval's results table prints them: arc_easy acc 0.2750, acc_norm 0.4000;
gsm8k exact_match strict-match 0.2500, flexible-extract 0.5000.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import detect_format, import_lm_eval
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "lm_eval"
MODEL = "EleutherAI__pythia-160m"


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
