"""MT-Bench (FastChat llm_judge) judgments: the figures FastChat's show_result.py prints.

The expected numbers are show_result.py's printed output on the fixtures (run with
FastChat at commit 0e6d3e4, pandas 3.1.1; see tests/fixtures/README.md), not computed here.
``pair/gpt-4_pair.jsonl`` is a real pairwise file (Stefanstud/FastChat at cd4412a, texts
removed); its figures are what that fork's own show_result.py printed on it.
"""

import json
import math
from pathlib import Path

import pytest

from assay.analysis.scores import score_summary
from assay.cli._app import main
from assay.data.importers import import_mt_bench
from assay.data.io import run_importer
from assay.errors import InputError, ValidationError

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mt_bench"
SINGLE = FIXTURES / "gpt-4_single.jsonl"
PAIR = FIXTURES / "gpt-4_pair.jsonl"
REAL_PAIR = FIXTURES / "pair" / "gpt-4_pair.jsonl"
QUESTIONS = FIXTURES / "question.jsonl"


def row(summary, criterion, arm):
    (found,) = [r for r in summary.rows if r.criterion == criterion and r.arm == arm]
    return found


def test_single_reproduces_show_result_average_and_turns():
    j = import_mt_bench([SINGLE, QUESTIONS])
    # show_result.py --mode single: Average 7.846154, First turn 7.75, Second turn 9.0
    r = row(score_summary(j), "rating", "granite-7b-lab")
    assert round(r.estimate, 6) == 7.846154
    assert (r.n, r.n_failed) == (13, 47)  # 47 of 60 replies FastChat could not parse (-1)
    f = j.frame
    turn = f["attributes"].map(lambda a: json.loads(a)["turn"])
    assert f.loc[turn == 1, "score"].mean() == 7.75
    assert f.loc[turn == 2, "score"].mean() == 9.0


def test_single_score_minus_one_is_a_parse_failure_not_a_score():
    f = import_mt_bench([SINGLE]).frame
    failed = f[f["failure_kind"] == "parse_error"]
    assert len(failed) == 47 and failed["score"].isna().all()
    assert (f["score"].dropna() >= 0).all()


def test_single_reads_categories_clusters_and_the_judge_prompt():
    f = import_mt_bench([SINGLE, QUESTIONS]).frame.set_index("item")
    assert f.loc["143/turn2", "cluster"] == "143"
    assert f.loc["143/turn2", "task"] == "stem"
    assert f.loc["143/turn2", "judge"] == "gpt-4"
    assert f.loc["143/turn2", "metric_version"] == "single-v1-multi-turn"
    assert f.loc["117/turn1", "score"] == 10
    assert f.loc["117/turn1", "evaluated_at"].startswith("2024-06-17T")


def test_pairwise_reproduces_show_result_win_rate_adjusted():
    s = score_summary(import_mt_bench([PAIR]))
    # show_result.py --mode pairwise-baseline: win_rate_adjusted 0.650000 and 0.444444
    assert round(row(s, "preference_both_orders", "vicuna-13b-v1.3").estimate, 6) == 0.65
    assert round(row(s, "preference_both_orders", "llama-13b").estimate, 6) == 0.444444
    # ... over the records without an error game: 10 and 9 of 12
    assert row(s, "preference_both_orders", "llama-13b").n == 9


def test_real_pairwise_file_reproduces_show_result_pairwise_all():
    """show_result.py --mode pairwise-all --input-file pair/gpt-4_pair.jsonl printed::

                   win  loss  tie  win_rate  loss_rate  win_rate_adjusted
        phi-3-dpo   20    18   35  0.273973   0.246575           0.513699
        phi-3       18    20   35  0.246575   0.273973           0.486301

    (and the phi-3-dpo line alone with --mode pairwise-baseline --baseline-model phi-3).
    Two of its 75 records hold an ``error`` game and are left out, as show_result.py drops them.
    """
    j = import_mt_bench([REAL_PAIR, QUESTIONS])
    r = row(score_summary(j), "preference_both_orders", "phi-3")
    assert round(r.estimate, 6) == 0.486301
    assert round(1 - r.estimate, 6) == 0.513699  # phi-3-dpo, the opponent's side
    assert (r.n, r.n_failed) == (73, 2)
    f = j.frame
    both = f.loc[f["criterion"] == "preference_both_orders", "score"].dropna()
    assert ((both == 1).sum(), (both == 0).sum(), (both == 0.5).sum()) == (18, 20, 35)
    assert round((both == 1).mean(), 6) == 0.246575 and round((both == 0).mean(), 6) == 0.273973
    assert set(f["opponent"]) == {"phi-3-dpo"} and set(f["metric_version"]) == {
        "pair-v2", "pair-math-v1"}
    assert f.set_index("item").loc["81/turn1", "task"].iloc[0] == "writing"


def test_pairwise_records_without_turn_are_read_as_show_result_reads_them(tmp_path):
    """A pairwise record without ``turn`` (FastChat's single-type judge in pairwise mode
    writes ``m1_score``/``m2_score`` and no turn) is read; show_result.py ignores turn there."""
    records = [json.loads(line) for line in REAL_PAIR.read_text().splitlines()]
    for rec in records:
        del rec["turn"]
    records[0].update({"m1_score": 8, "m2_score": 6, "g1_winner": "model_1",
                       "g2_winner": "model_1"})
    path = tmp_path / "gpt-4_pair.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    f = import_mt_bench([path]).frame
    both = f[f["criterion"] == "preference_both_orders"].set_index("item")
    assert both.loc["81", "score"] == 1.0 and both["attributes"].isna().all()
    # the single-type record is one comparison, not two games in swapped orders
    games = f[f["criterion"] == "preference"]
    assert "81" not in set(games["item"]) and len(games) == 2 * (len(records) - 1)


def test_single_records_without_turn_are_refused_naming_the_versions(tmp_path):
    lines = SINGLE.read_text().splitlines()[:2]
    records = [json.loads(line) for line in lines]
    for rec in records:
        del rec["turn"]
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    with pytest.raises(ValidationError) as info:
        import_mt_bench([path])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (1, "turn")
    assert "b494d0c6" in str(info.value) and "--set turn=1" in str(info.value)
    read = run_importer("mt-bench", [path], constants={"turn": 1}).frame
    assert set(read["item"]) == {f"{records[0]['question_id']}/turn1",
                                 f"{records[1]['question_id']}/turn1"}


def test_pairwise_games_keep_their_positions():
    f = import_mt_bench([PAIR]).frame
    games = f[f["criterion"] == "preference"]
    first = json.loads(PAIR.read_text().splitlines()[0])
    mine = games[(games["item"] == f"{first['question_id']}/turn{first['turn']}")
                 & (games["arm"] == first["model_1"])].set_index("position")["score"]
    values = {"model_1": 1.0, "model_2": 0.0, "tie": 0.5}
    for position, game in ((1, "g1"), (2, "g2")):
        expected = values.get(first[f"{game}_winner"], math.nan)
        assert mine[position] == expected or (math.isnan(expected) and math.isnan(mine[position]))
    assert set(games["position"]) == {1, 2}


def test_a_bad_record_names_file_line_and_field(tmp_path):
    bad = tmp_path / "gpt-4_single.jsonl"
    lines = SINGLE.read_text().splitlines()[:3]
    broken = json.loads(lines[1])
    broken["score"] = "nine"
    bad.write_text("\n".join([lines[0], json.dumps(broken), lines[2]]) + "\n")
    with pytest.raises(ValidationError) as info:
        import_mt_bench([bad])
    problem = info.value.problems[0]
    assert (problem.row, problem.column) == (2, "score")
    assert str(bad) in str(info.value)


def test_a_file_of_another_format_is_refused(tmp_path):
    other = tmp_path / "x.jsonl"
    other.write_text('{"item": "q", "arm": "a", "score": 1}\n')
    with pytest.raises(InputError, match="not an MT-Bench file"):
        run_importer("mt-bench", [other])


def test_cli_import_exits_2_with_one_line_on_a_bad_file(tmp_path, capsys):
    bad = tmp_path / "gpt-4_pair.jsonl"
    record = json.loads(PAIR.read_text().splitlines()[0])
    record["g2_winner"] = "model_3"
    bad.write_text(json.dumps(record) + "\n")
    with pytest.raises(SystemExit) as info:
        main(["import", "mt-bench", str(bad), "-o", str(tmp_path / "out.parquet")])
    out = capsys.readouterr()
    assert info.value.code == 2
    assert "g2_winner" in out.err + out.out and "Traceback" not in out.err + out.out
    assert not (tmp_path / "out.parquet").exists()
