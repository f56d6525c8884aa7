"""Every writer takes rows without a score, an opponent, a position or any optional value.

Regression (item 2 of the robustness issue): ``assay import alpaca-eval`` of annotations with
null preferences, then ``assay report --kind winrate --format json``, crashed with
"AttributeError: 'float' object has no attribute 'encode'" in the trial rows of
``win_rates.csv`` (a table without positions: NaN in an id column). Then every writer (text,
json, csv, html, xlsx, latex, png) runs on generated tables with NaN or None in every
optional column.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pandas as pd
import pytest

from assay.cli import main
from assay.data.schema import COLUMNS, KEY_COLUMNS

OPTIONAL = [c.name for c in COLUMNS if not c.required and c.name not in KEY_COLUMNS]
"""The optional columns a row may leave empty (an empty run, judge or criterion in a column
the table has is a duplicate or an input error, refused by validation: not a writer's case)."""


def _cli(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


def _annotations(n: int = 12) -> list[dict]:
    return [{"instruction": f"question {i}", "generator_1": "baseline", "generator_2": "model",
             "annotator": "gpt4", "dataset": "helpful", "output_1": "a", "output_2": "b",
             "preference": None if i % 4 == 0 else (2.0 if i % 3 else 1.0)} for i in range(n)]


def test_alpaca_eval_with_null_preferences_gives_its_win_rate_files(tmp_path, capsys):
    folder = tmp_path / "results" / "model" / "gpt4"
    folder.mkdir(parents=True)
    (folder / "annotations.json").write_text(json.dumps(_annotations()), encoding="utf-8")
    table, out = tmp_path / "a.parquet", tmp_path / "report"
    code, _, err = _cli(["import", "alpaca-eval", str(tmp_path / "results"), "-o", str(table)], capsys)
    assert code == 0, err
    code, _, err = _cli(["report", str(table), "--kind", "winrate", "--format", "json",
                         "--out", str(out)], capsys)
    assert code == 0, err
    records = json.loads((out / "winrates.json").read_text(encoding="utf-8"))
    assert [(r["arm"], r["opponent"], r["n"], r["n_failed"]) for r in records] == [
        ("model", "baseline", 9, 3)]
    # 9 scored: i = 1..11 without 4, 8; preference 2 (model wins) unless i % 3 == 0 (3, 6, 9)
    assert records[0]["win_rate"] == pytest.approx(6 / 9)
    with (out / "win_rates.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 12 and len({r["score_id"] for r in rows}) == 12
    failed = [r for r in rows if r["failure_kind"] == "missing_judgment"]
    assert len(failed) == 3 and all(r["model_score"] == r["baseline_score"] == "" for r in failed)
    assert all(r["answer_1_name"] == r["position"] == "" for r in rows)  # no position known


def _table(seed: int, *, pairwise: bool, pointwise: bool, arms: int, judges: int) -> pd.DataFrame:
    """A small table whose every optional column holds some None / NaN (and never all of
    them: a column entirely empty is a column the table lacks, tested by its absence)."""
    rng = np.random.default_rng(seed)
    rows = []
    names = [f"arm{a}" for a in range(arms)]
    for item in range(6):
        for arm in names:
            for j in range(judges):
                base = {"item": f"i{item}", "cluster": f"c{item % 3}", "arm": arm, "run": 1,
                        "judge": f"j{j}", "task": f"t{item % 2}", "teacher": "g",
                        "attributes": json.dumps({"level": ["low", "high"][item % 2]}),
                        "reasoning": "because", "usd": 0.001, "usd_provenance": "reported",
                        "tokens_in": 10.0, "tokens_out": 5.0, "latency_s": 0.1,
                        "reference_score": float(rng.random()), "outcome": "o",
                        "split": "test", "evaluated_at": "2024-01-01T00:00:00",
                        "metric_version": "v1", "raw_response": "{}"}
                if pointwise:
                    rows.append({**base, "criterion": "correct",
                                 "score": float(rng.integers(0, 2))})
                for opponent in names:
                    if pairwise and opponent > arm:
                        for position in (1, 2):
                            rows.append({**base, "criterion": "preference", "opponent": opponent,
                                         "position": position,
                                         "score": float(rng.choice([0.0, 0.5, 1.0]))})
    frame = pd.DataFrame(rows)
    for column in OPTIONAL:
        if column in frame and len(frame) > 2:
            holes = rng.random(len(frame)) < 0.3
            holes[0] = False  # at least one value stays
            frame[column] = frame[column].astype(object).where(~holes, None if seed % 2 else np.nan)
    holes = rng.random(len(frame)) < 0.2
    frame["score"] = frame["score"].where(~holes, np.nan)
    frame.loc[holes, "failure_kind"] = "parse_error"
    if "opponent" in frame:  # some pairwise judgments made once, with no position recorded
        key = frame["item"] + frame["arm"] + frame["opponent"].fillna("") + frame["judge"]
        once = key.isin(rng.choice(key.unique(), size=2, replace=False))
        frame = frame[~(once & (frame["position"] == 2))].copy()
        frame.loc[once & (frame["position"] == 1), "position"] = np.nan
    return frame


CASES = {
    "pairwise-and-pointwise": dict(seed=1, pairwise=True, pointwise=True, arms=3, judges=2),
    "pairwise-only-one-judge": dict(seed=2, pairwise=True, pointwise=False, arms=2, judges=1),
    "pointwise-only-one-arm": dict(seed=3, pairwise=False, pointwise=True, arms=1, judges=2),
}


@pytest.mark.parametrize("case", CASES)
def test_every_writer_takes_missing_values(case, tmp_path, capsys):
    frame = _table(**CASES[case])
    source, out = tmp_path / "t.csv", tmp_path / "report"
    frame.to_csv(source, index=False)
    args = ["report", str(source), "--kind", "all", "--format", "text,json,html,xlsx,latex,png",
            "--out", str(out), "--B", "100"]
    for criterion, scale in (("correct", "binary"), ("preference", "range:0,1")):
        if criterion in set(frame["criterion"]):
            args += ["--scale", f"{criterion}={scale}"]
    code, stdout, err = _cli(args, capsys)
    assert code == 0, err
    assert "Traceback" not in stdout + err and "internal error" not in stdout + err
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"index.html", "analysis.xlsx", "tables/SUMMARY.md", "scores.json"} <= written
    for name in written:
        if name.endswith(".json"):  # strict JSON: a missing number is null, never NaN
            constants: list[str] = []
            json.loads((out / name).read_text(encoding="utf-8"), parse_constant=constants.append)
            assert not constants, name
        if name.endswith(".csv"):
            assert "nan" not in {c.lower() for row in csv.reader(
                (out / name).read_text(encoding="utf-8").splitlines()) for c in row}, name
    if "winrates.json" in written:
        assert {"win_rates.csv", "winrates_sig_tests.csv"} <= written
