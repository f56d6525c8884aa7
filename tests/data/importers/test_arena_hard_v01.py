"""Arena-Hard-Auto's v0.1 layout, and one rule for a question with one game left.

``tests/fixtures/arena_hard_v0.1/`` holds real judgment files of the v0.1 layout
(``{question_id, model, judge, games}``, no ``baseline``) from a fork that still writes
it (qwopqwop200/ko-arena-hard-auto, baseline ``claude-3.7-sonnet`` in its
``config/judge_config.yaml``): 100 judgments of o4-mini-high, whose 73rd question has one
game only, and 40 of the baseline judged against itself.

The expected score is Arena-Hard v0.1's own counting, reimplemented here from its
``show_result.get_battles_from_row`` (every game a battle repeated ``weight`` times, 3 for a
strong verdict, a game without a verdict weight 0; scikit-learn, which its Bradley-Terry fit
needs, is not installed here): with one model against the baseline the Bradley-Terry win
probability is that weighted mean of the battles.
"""

import json
import shutil
from pathlib import Path

import pytest

from assay.analysis.leaderboard import leaderboard
from assay.analysis.scores import score_summary
from assay.cli._app import main
from assay.data.io import run_importer
from assay.errors import ConfigError, InputError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "arena_hard_v0.1"
MODEL, BASELINE = "o4-mini-high", "claude-3.7-sonnet"
_VERDICTS = {"A=B": (0.5, 1), "A>B": (1.0, 1), "A>>B": (1.0, 3), "B>A": (0.0, 1),
             "B>>A": (0.0, 3)}


def arena_hard_v01_battles(path):
    """Arena-Hard v0.1's battles of a judgment file as model scores (1 win, 0.5 tie)."""
    battles = []
    for line in path.read_text(encoding="utf-8").splitlines():
        games = json.loads(line)["games"]
        for index, game in enumerate(games):
            if (game or {}).get("score") not in _VERDICTS:
                continue  # weight 0
            a, weight = _VERDICTS[game["score"]]
            battles += [1.0 - a if index == 0 else a] * weight  # game 1: baseline is A
    return battles


def read(**options):
    return run_importer("arena-hard", [FIXTURE], **options)


def test_v01_layout_is_read_with_the_baseline_given():
    j = read(constants={"baseline": BASELINE})
    f = j.frame[j.frame["arm"] == MODEL]
    assert f["item"].nunique() == 100 and set(f["opponent"]) == {BASELINE}
    one_game = f[f["item"] == "02b50e3f5bd94b70817a97dfb34f4e9d"]
    assert one_game["failure_kind"].tolist().count("parse_error") == 1  # the game missing


def test_v01_layout_without_a_baseline_is_refused_naming_the_field():
    with pytest.raises(InputError) as info:
        read()
    text = str(info.value)
    assert "column 'baseline'" in text and "v0.1" in text and "--set baseline=" in text
    assert "row 1" in text


def test_unknown_layout_is_refused_naming_the_fields_and_versions(tmp_path):
    bad = tmp_path / "m.jsonl"
    bad.write_text(json.dumps({"id": "q1", "model": "m", "games": []}) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        run_importer("arena-hard", [bad])
    text = str(info.value)
    assert "'uid'" in text and "'question_id'" in text and "v0.1" in text and "v2" in text


def test_map_and_set_apply_to_the_records(tmp_path):
    j = read(mapping={"question_id": "uid"}, constants={"baseline": BASELINE})
    assert j.frame["item"].nunique() == 113  # the 100 questions and the 13 more of the A/A file
    with pytest.raises(InputError, match="named in --map but no record"):
        read(mapping={"questionid": "uid"}, constants={"baseline": BASELINE})
    with pytest.raises(ConfigError, match="--map and --set apply"):
        run_importer("inspect", [tmp_path], mapping={"a": "b"})


def test_cli_takes_set_baseline_for_an_importer(tmp_path, capsys):
    shutil.copy(FIXTURE / f"{MODEL}.jsonl", tmp_path / f"{MODEL}.jsonl")
    with pytest.raises(SystemExit) as info:
        main(["import", "arena-hard", str(tmp_path / f"{MODEL}.jsonl"), "--set",
              f"baseline={BASELINE}", "-o", str(tmp_path / "a.parquet")])
    assert info.value.code == 0, capsys.readouterr().err
    assert (tmp_path / "a.parquet").exists()


def test_scores_and_leaderboard_share_the_per_game_rule():
    battles = arena_hard_v01_battles(FIXTURE / f"{MODEL}.jsonl")
    expected = sum(battles) / len(battles)  # 236 / 325 = 0.7261538...
    j = read(constants={"baseline": BASELINE})
    summary = score_summary(j)
    (row,) = summary.rows  # the baseline against itself is left out
    assert (row.arm, row.opponent) == (MODEL, BASELINE)
    assert row.estimate == pytest.approx(expected, abs=1e-12)
    board = leaderboard(j, B=10)
    rating = {r.arm: r.rating for r in board.ratings}
    implied = 1 / (1 + 10 ** ((rating[BASELINE] - rating[MODEL]) / 400))
    assert implied == pytest.approx(expected, abs=1e-6)
    assert "80 A/A trials (an arm against itself) carry no information on the scores and are " \
        "left out." in summary.notes
    assert any(n.startswith("80 A/A trials (an arm against itself)") for n in board.notes)
