"""``assay export``: assay's JSON and CSV, AlpacaEval's CSV and a dataset folder, with their
errors (exit 2, one line) and spreadsheet-safe cells."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.data.validate import judgments_from_records
from tests.cli._judge_helpers import run


@pytest.fixture()
def table(tmp_path):
    """Two systems against a baseline: '=HYPERLINK()' wins 3 of 4 items, 'b' 1 of 4 and 1 draw."""
    rows = []
    for arm, scores in (("=HYPERLINK()", [1.0, 1.0, 1.0, 0.0]), ("b", [1.0, 0.0, 0.5, 0.0])):
        for i, score in enumerate(scores):
            rows.append({"arm": arm, "opponent": "base", "judge": "j", "criterion": "preference",
                         "cluster": f"c{i // 2}", "item": f"q{i}", "run": 1, "score": score})
    path = tmp_path / "t.parquet"
    judgments_from_records(rows, range(1, len(rows) + 1), path="t", sources=["t"],
                           scales={"preference": Scale.parse("range:0,1")}).save(path)
    return path


def test_alpaca_eval_csv_counts_worked_by_hand(table, tmp_path):
    out = tmp_path / "lb.csv"
    assert run(["export", str(table), "--format", "alpaca-eval-csv", "-o", str(out)]) == 0
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [r[""] for r in rows] == ["'=HYPERLINK()", "b"]  # best first, formula made inert
    first, second = rows
    assert float(first["win_rate"]) == pytest.approx(75.0)
    # sd of (1, 1, 1, 0) with ddof 1 is 0.5; / sqrt(4) = 0.25
    assert float(first["standard_error"]) == pytest.approx(25.0)
    assert (first["n_wins"], first["n_wins_base"], first["n_draws"], first["n_total"]) == ("3", "1", "0", "4")
    assert float(second["win_rate"]) == pytest.approx(37.5)
    assert float(second["discrete_win_rate"]) == pytest.approx(100 * (1 + 0.5) / 4)
    assert second["length_controlled_winrate"] == ""


def test_json_csv_and_dataset_hold_the_same_standings(table, tmp_path):
    assert run(["export", str(table), "--format", "leaderboard-json", "-o", str(tmp_path / "s.json")]) == 0
    assert run(["export", str(table), "--format", "LEADERBOARD-CSV", "-o", str(tmp_path / "s.csv")]) == 0
    assert run(["export", str(table), "--format", "hf-dataset", "-o", str(tmp_path / "hf")]) == 0
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["schema"] == "assay.standings/1"
    by_json = {r["system"]: r for r in data["standings"]}
    frame = pd.read_parquet(tmp_path / "hf" / "data" / "standings.parquet")
    by_csv = pd.read_csv(tmp_path / "s.csv").set_index("system")
    for system, record in by_json.items():
        assert record["estimate"] == pytest.approx(float(frame.set_index("system").loc[system, "estimate"]))
        shown = "'" + system if system.startswith("=") else system
        assert record["rank"] == int(by_csv.loc[shown, "rank"])
    assert by_json["=HYPERLINK()"]["rank"] == 1
    assert "data_files: data/standings.parquet" in (tmp_path / "hf" / "README.md").read_text()


@pytest.mark.parametrize("argv, message", [
    (["--format", "xml"], "--format 'xml': expected one of"),
    (["--format", "alpaca-eval-csv", "--judge", "nobody"], "match --judge"),
    (["--format", "leaderboard-json", "--conf", "1.5"], "--conf"),
])
def test_export_errors_are_one_line_and_exit_2(table, tmp_path, capsys, argv, message):
    assert run(["export", str(table), *argv, "-o", str(tmp_path / "x.out")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.out").exists()


def test_export_to_a_folder_named_as_a_file_is_refused(table, tmp_path, capsys):
    (tmp_path / "taken").mkdir()
    assert run(["export", str(table), "--format", "leaderboard-csv", "-o", str(tmp_path / "taken")]) == 2
    assert "is a folder" in capsys.readouterr().err
