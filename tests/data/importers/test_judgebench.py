"""JudgeBench output files: per-game correctness and JudgeBench's pair accuracy.

The fixture is generated in the format of JudgeBench's ``run_judge.py`` output (its
repository publishes no licence for its data, and its output files are stored with Git LFS;
tests/fixtures/README.md). The expected figures are what JudgeBench's own
``compute_final_metrics`` (utils/metrics.py, commit of the mirror) prints on it:
``Overall: 43.33%``, ``mmlu-pro: 50.00%``, ``livebench-reasoning: 33.33%``.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import detect_format, import_judgebench
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "judgebench"
ARM = "arena_hard:gpt-4o-mini-2024-07-18"


def test_reproduces_judgebench_overall_accuracy():
    j = import_judgebench([FIXTURE])
    rows = {r.criterion: r for r in score_summary(j).rows}
    assert rows["pair_correct"].arm == ARM
    assert f"{100 * rows['pair_correct'].estimate:.2f}%" == "43.33%"
    f = j.frame[j.frame["criterion"] == "pair_correct"]
    by_prefix = {p: f"{100 * f.loc[f['task'].str.startswith(p), 'score'].mean():.2f}%"
                 for p in ("mmlu-pro", "livebench-reasoning")}
    assert by_prefix == {"mmlu-pro": "50.00%", "livebench-reasoning": "33.33%"}


def test_inconsistent_verdicts_count_as_wrong_and_game_two_is_read_flipped(tmp_path):
    path = tmp_path / "x,judge_name=j,judge_model=m.jsonl"
    records = [
        {"pair_id": "p1", "source": "s", "label": "A>B",  # right, then right (flipped B>A)
         "judgments": [{"decision": "A>B"}, {"decision": "B>A"}]},
        {"pair_id": "p2", "source": "s", "label": "A>B",  # right, then wrong: inconsistent
         "judgments": [{"decision": "A>B"}, {"decision": "A>B"}]},
        {"pair_id": "p3", "source": "s", "label": "B>A",  # right, then no verdict
         "judgments": [{"decision": "B>A"}, None]},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    f = import_judgebench([path]).frame.set_index(["item", "criterion", "run"])
    assert f.loc[("p1", "pair_correct", 1), "score"] == 1.0
    assert f.loc[("p2", "pair_correct", 1), "score"] == 0.0
    assert f.loc[("p2", "correct", 2), "score"] == 0.0
    assert f.loc[("p3", "pair_correct", 1), "score"] == 1.0
    assert f.loc[("p3", "correct", 2), "failure_kind"] == "parse_error"
    assert set(f["arm"]) == {"j:m"}
    assert detect_format(path) == "judgebench"


def test_a_bad_label_names_file_line_and_field(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps({"pair_id": "p", "label": "A=B", "judgments": [None]}) + "\n")
    with pytest.raises(ValidationError) as info:
        import_judgebench([path])
    assert (info.value.problems[0].row, info.value.problems[0].column) == (1, "label")
