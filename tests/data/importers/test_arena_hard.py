"""Arena-Hard-Auto judgments: two games per question, strong verdicts weighted 3.

Fixture: 13 real judgment records of gpt-4-0613 against gpt-4-0314 judged by
gpt-4-1106-preview (tests/fixtures/README.md). Arena-Hard's show_result.py
``load_judgments`` on it gives 34 battle scores with mean 0.220588 (7.5 / 34), the score its
leaderboard bootstraps (the printed "Scores (%)" is the mean of 100 unseeded bootstrap
means of it: 21.0 with numpy seed 0).
"""

import json
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.data.importers import import_arena_hard
from assay.data.io import run_importer
from assay.errors import ValidationError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "arena_hard"


def test_reproduces_arena_hard_score_of_the_sample():
    j = import_arena_hard([FIXTURE])
    (row,) = score_summary(j).rows
    assert (row.arm, row.opponent, row.n, row.n_items) == ("gpt-4-0613", "gpt-4-0314", 26, 13)
    # hand count over the 13 records: strong verdicts count 3 times, 34 battles, 7.5 won
    assert row.estimate == pytest.approx(7.5 / 34, abs=1e-12)
    assert round(row.estimate, 6) == 0.220588


def test_games_become_positions_and_strong_verdicts_weight_three():
    f = import_arena_hard([FIXTURE]).frame.set_index(["item", "position"])
    # record fd86...: game 1 A>>B (the baseline, shown as A, much better), game 2 B>>A
    assert tuple(f.loc[("fd86dff7ac084b99889d294e135f82a4", 2), ["score", "weight"]]) == (0.0, 3.0)
    assert tuple(f.loc[("fd86dff7ac084b99889d294e135f82a4", 1), ["score", "weight"]]) == (0.0, 3.0)
    # record e5db...: game 1 B>A (the model, shown as B, better), game 2 A>B
    assert tuple(f.loc[("e5dbb699f7dc4e3583137b3b6f7414ba", 2), ["score", "weight"]]) == (1.0, 1.0)
    assert tuple(f.loc[("e5dbb699f7dc4e3583137b3b6f7414ba", 1), ["score", "weight"]]) == (1.0, 1.0)
    assert set(f["task"]) == {"arena-hard-v0.1"}


def test_a_null_game_is_a_failed_judgment(tmp_path):
    record = {"uid": "u1", "category": "c", "judge": "j", "model": "m", "baseline": "b",
              "games": [{"score": None, "judgment": "no verdict"}, {"score": "A>>B"}]}
    (tmp_path / "m.jsonl").write_text(json.dumps(record) + "\n")
    f = import_arena_hard([tmp_path]).frame.set_index("position")
    assert f.loc[2, "failure_kind"] == "parse_error" and f["score"].isna()[2]
    assert (f.loc[1, "score"], f.loc[1, "weight"]) == (1.0, 3.0)


def test_an_unknown_verdict_names_file_line_and_field(tmp_path):
    good = FIXTURE.joinpath("gpt-4-0613.jsonl").read_text().splitlines()[0]
    bad = json.loads(good)
    bad["games"][1]["score"] = "A>>>B"
    path = tmp_path / "m.jsonl"
    path.write_text(good + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValidationError) as info:
        run_importer("arena-hard", [path])
    problem = info.value.problems[0]
    assert (problem.path, problem.row, problem.column) == (str(path), 2, "games[1].score")
