"""JudgeBench output files: per-game correctness and JudgeBench's pair accuracy.

``judgebench/real/`` is an excerpt of a real output file of JudgeBench's repository
(ScalerLab/JudgeBench ``outputs/`` at e2c52c2, the Arena-Hard judge on Claude-3-Haiku; its
README). The expected figures are what JudgeBench's own ``compute_final_metrics``
(``utils/metrics.py`` at the same commit), called as ``run_judge.py`` calls it, printed on
that excerpt outside the test suite: ``mmlu-pro: 40.00%``, ``livebench-reasoning: 45.00%``,
``livebench-math: 30.00%``, ``livecodebench: 10.00%``, ``Overall: 31.25%``.

``judgebench/generated/`` is generated in the format for edge cases (tests/fixtures/README.md);
``compute_final_metrics`` prints ``Overall: 43.33%``, ``mmlu-pro: 50.00%``,
``livebench-reasoning: 33.33%`` on it.
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import detect_format, import_judgebench
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "judgebench" / "generated"
REAL = FIXTURE.parent / "real"
ARM = "arena_hard:gpt-4o-mini-2024-07-18"

_PRINTED = {"mmlu-pro": "40.00%", "livebench-reasoning": "45.00%", "livebench-math": "30.00%",
            "livecodebench": "10.00%", "": "31.25%"}
"""What JudgeBench's ``run_judge.py`` loop prints on ``judgebench/real/`` (``""`` = Overall)."""


def test_reproduces_what_judgebench_prints_on_a_real_output_file():
    j = import_judgebench([REAL])
    f = j.frame
    pairs = f[f["criterion"] == "pair_correct"]
    printed = {p: f"{100 * pairs.loc[pairs['task'].str.startswith(p), 'score'].mean():.2f}%"
               for p in _PRINTED}
    assert printed == _PRINTED
    rows = {r.criterion: r for r in score_summary(j).rows}
    assert rows["pair_correct"].arm == "arena_hard:claude-3-haiku-20240307"
    assert f"{100 * rows['pair_correct'].estimate:.2f}%" == "31.25%"
    games = f[f["criterion"] == "correct"]
    assert len(pairs) == 80 and len(games) == 160
    # three published games carry "decision": null: failed judgments, not wrong ones
    assert (games["failure_kind"] == "parse_error").sum() == 3
    assert detect_format(next(REAL.glob("*.jsonl"))) == "judgebench"


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
