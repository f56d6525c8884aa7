"""AlpacaEval on real files: answer lengths kept, arms named as its leaderboard names them, and
its own length-controlled GLM given its instruction difficulty.

Fixture ``tests/fixtures/alpaca_eval/`` (see its README): the first 100 real annotations of
``NullModel`` and ``gpt-3.5-turbo-0301`` by ``weighted_alpaca_eval_gpt4_turbo`` against
``gpt4_1106_preview``, and a difficulty file in AlpacaEval's format.

Oracle: AlpacaEval 0.6.6's ``get_length_controlled_winrate`` run on the same files (the script
``alpaca_eval_lc_oracle.py`` beside this test, its output in its docstring). With the solver's
tolerance tightened to 1e-10 it gives NullModel 86.18932023184406 and gpt-3.5-turbo-0301
3.6759177379291725 (lc_standard_error 1.9897451909993333 and 1.4761534560388816); with
liblinear's default tolerance 1e-4 it stops early, at 86.1628903672979 and 3.8017537748311967
(an objective 138.6032 against the optimum's 138.5976 for gpt-3.5-turbo-0301).
"""

import csv
import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from assay.analysis.leaderboard import leaderboard
from assay.cli import app, main
from assay.data.importers import import_alpaca_eval
from assay.data.io import run_importer
from assay.errors import ConfigError, InputError, ValidationError

FIXTURE = Path(__file__).parents[2] / "fixtures" / "alpaca_eval"
RESULTS = FIXTURE / "results"
DIFFICULTY = FIXTURE / "instruction_difficulty.csv"
ORACLE = {"NullModel": (86.18932023184406, 1.9897451909993333),
          "gpt-3.5-turbo-0301": (3.6759177379291725, 1.4761534560388816)}
ORACLE_DEFAULT_TOLERANCE = {"NullModel": 86.1628903672979, "gpt-3.5-turbo-0301": 3.8017537748311967}


def test_arms_are_named_as_the_leaderboard_names_them_and_lengths_are_kept():
    f = import_alpaca_eval(RESULTS).frame
    assert sorted(set(f["arm"])) == ["NullModel", "gpt-3.5-turbo-0301"]  # not "example"
    raw = json.loads((RESULTS / "NullModel" / "weighted_alpaca_eval_gpt4_turbo"
                      / "annotations.json").read_text())
    null = f[f["arm"] == "NullModel"]
    assert null["answer_length"].tolist() == [len(r["output_2"]) for r in raw]
    assert null["opponent_length"].tolist() == [len(r["output_1"]) for r in raw]
    assert "difficulty" not in f or f["difficulty"].isna().all()


def test_without_difficulty_the_lc_runs_and_says_it_is_not_alpaca_evals():
    report = leaderboard(import_alpaca_eval(RESULTS), B=20)
    assert {r.arm for r in report.length_controlled} == set(ORACLE)
    assert all("without instruction difficulty" in r.method and "not AlpacaEval's LC" in r.method
               for r in report.length_controlled)
    text = report.to_text()
    assert "computed without instruction difficulty" in text and "not AlpacaEval's LC" in text
    assert "no answer lengths" not in text


def test_with_alpaca_evals_difficulty_the_lc_is_alpaca_evals_glm():
    j = import_alpaca_eval(RESULTS, difficulty=DIFFICULTY)
    report = leaderboard(j, B=20)
    got = {r.arm: r for r in report.length_controlled}
    assert set(got) == set(ORACLE)
    for arm, (lc, se) in ORACLE.items():
        assert 100 * got[arm].lc_win_rate == pytest.approx(lc, abs=1e-3)
        assert 100 * got[arm].standard_error == pytest.approx(se, abs=1e-3)
        assert got[arm].method.startswith("AlpacaEval's length-controlled GLM")
    # AlpacaEval as it runs by default stops its solver early: within 0.03 points for
    # NullModel, 0.13 for gpt-3.5-turbo-0301 (see the module docstring)
    for arm, lc in ORACLE_DEFAULT_TOLERANCE.items():
        assert abs(100 * got[arm].lc_win_rate - lc) < 0.15
    assert "AlpacaEval's length-controlled GLM" in report.to_text()


def test_the_cli_reads_the_difficulty_file(tmp_path):
    out = tmp_path / "a.parquet"
    res = CliRunner().invoke(app, ["import", "alpaca-eval", str(RESULTS), "-o", str(out),
                                   "--lc-difficulty", str(DIFFICULTY)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["report", str(out), "--kind", "leaderboard"])
    assert res.exit_code == 0, res.output
    assert "AlpacaEval's length-controlled GLM" in res.output
    assert "86.2" in res.output and "3.7" in res.output


def test_a_bad_difficulty_file_is_named(tmp_path, capsys):
    bad = tmp_path / "difficulty.csv"
    bad.write_text(",instruction_difficulty\n0,0.5\n1,hard\n")
    with pytest.raises(InputError, match=r"difficulty.csv.*row 3.*instruction_difficulty"):
        import_alpaca_eval(RESULTS, difficulty=bad)
    short = tmp_path / "short.csv"
    short.write_text(",instruction_difficulty\n0,0.5\n")
    with pytest.raises(ValidationError, match="no difficulty for instruction index 1"):
        import_alpaca_eval(RESULTS, difficulty=short)
    with pytest.raises(ConfigError, match="--lc-difficulty applies to the 'alpaca-eval'"):
        run_importer("coeval", [RESULTS], lc_difficulty=DIFFICULTY)
    with pytest.raises(SystemExit) as info:
        main(["import", "alpaca-eval", str(RESULTS), "-o", str(tmp_path / "x.parquet"),
              "--lc-difficulty", str(bad)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and "row 3" in err and "Traceback" not in err
    assert not (tmp_path / "x.parquet").exists()


def test_real_leaderboard_names(alpaca_results, alpaca_leaderboards):
    """Every arm of the shared AlpacaEval 2 results is a row name of AlpacaEval 2's leaderboard."""
    path = alpaca_leaderboards / "alpaca_eval_2" / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
    with path.open() as handle:
        names = {row[""] for row in csv.DictReader(handle)}
    f = import_alpaca_eval(alpaca_results / "gpt-3.5-turbo-0301"
                           / "weighted_alpaca_eval_gpt4_turbo").frame
    assert set(f["arm"]) <= names
    report = leaderboard(f, B=20)
    assert len(report.length_controlled) == 1 and report.length_controlled[0].n == 805
    assert math.isfinite(report.length_controlled[0].lc_win_rate)
