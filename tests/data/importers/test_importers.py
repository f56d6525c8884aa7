import csv
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.data.importers import (
    import_alpaca_eval,
    import_bench,
    import_results_json,
    results_records,
    write_results_json,
)
from assay.data.io import run_importer
from assay.data.schema import Scale
from assay.errors import ConfigError, InputError, ValidationError


def leaderboard_row(folder: Path, annotator: str, model: str) -> dict | None:
    path = folder / f"{annotator}_leaderboard.csv"
    if not path.exists():
        return None
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row[""] == model:
                return row
    return None


def test_alpaca_eval_reproduces_the_published_leaderboards(alpaca_results, alpaca_leaderboards):
    j = import_alpaca_eval([alpaca_results])
    f = j.frame
    sizes = f.groupby(["arm", "judge"]).size()
    assert len(sizes) == 7 and (sizes == 805).all()
    checked = 0
    for (arm, judge), group in f.groupby(["arm", "judge"]):
        raw = json.loads((alpaca_results / arm / judge / "annotations.json").read_text())
        nulls = sum(r["preference"] is None for r in raw)
        assert (group["failure_kind"] == "missing_judgment").sum() == nulls
        assert group["score"].isna().sum() == nulls
        row = leaderboard_row(alpaca_leaderboards, judge, arm)
        if row is None:
            continue
        scores = group["score"].dropna().to_numpy()
        # leaderboard: 100 x mean, and 100 x sample SD / sqrt(n) over non-null judgments
        assert 100 * scores.mean() == pytest.approx(float(row["win_rate"]), abs=1e-9)
        se = 100 * scores.std(ddof=1) / math.sqrt(len(scores))
        assert se == pytest.approx(float(row["standard_error"]), rel=1e-9)
        checked += 1
    assert checked == 5  # the (model, annotator) pairs that have a leaderboard row
    assert set(f["opponent"]) == {"text_davinci_003", "gpt4_1106_preview"}  # the baselines
    assert set(f["task"]) == {"helpful_base", "koala", "oasst", "selfinstruct", "vicuna"}
    assert j.scale("preference") == Scale.parse("range:0,1")
    # the item id is a stable function of the instruction: the same across annotators
    per_judge = f.groupby(["arm", "judge"])["item"].apply(lambda s: tuple(sorted(s)))
    assert per_judge.nunique() == 1


def test_alpaca_eval_old_draw_code_zero_is_a_draw(tmp_path):
    folder = tmp_path / "results" / "m" / "ann"
    folder.mkdir(parents=True)
    records = [{"instruction": f"q{i}", "output_1": "a", "output_2": "b", "generator_1": "base",
                "generator_2": "m", "annotator": "ann", "dataset": "d", "preference": p}
               for i, p in enumerate([2, 1, 0, 1.5, None])]
    (folder / "annotations.json").write_text(json.dumps(records))
    f = import_alpaca_eval([tmp_path / "results"]).frame
    assert f["score"].tolist()[:4] == [1.0, 0.0, 0.5, 0.5]
    assert math.isnan(f["score"].iloc[4]) and f["failure_kind"].iloc[4] == "missing_judgment"


def test_alpaca_eval_bad_records_are_named(tmp_path):
    folder = tmp_path / "m" / "ann"
    folder.mkdir(parents=True)
    (folder / "annotations.json").write_text(json.dumps(
        [{"instruction": "q", "generator_1": "b", "generator_2": "m", "annotator": "a",
          "preference": "left"}, {"generator_1": "b"}]))
    with pytest.raises(ValidationError) as info:
        import_alpaca_eval([tmp_path])
    assert [(p.row, p.column) for p in info.value.problems][:2] == [(1, "preference"),
                                                                   (2, "instruction")]


SEED_000_RESULTS = [
    {"benchmark_id": "benchmark-20250512-123456", "quiz_id": "python_quiz_1",
     "question_id": "q_001", "run_number": 1,
     "metrics": [{"metric_name": "clarity", "metric_version": "1.0", "score": 78.5,
                  "evaluator_model": "gpt-4", "evaluated_at": "2025-05-12T12:34:56Z",
                  "raw_response": "{...full LLM response...}"},
                 {"metric_name": "clarity", "metric_version": "1.0", "score": 80,
                  "evaluator_model": "claude-3-opus-20240229",
                  "evaluated_at": "2025-05-12T12:35:10Z", "raw_response": None}]},
    {"benchmark_id": "benchmark-20250512-123456", "quiz_id": "python_quiz_1",
     "question_id": "q_001", "run_number": 2,
     "metrics": [{"metric_name": "clarity", "metric_version": "1.0", "score": 81.2,
                  "evaluator_model": "gpt-4", "evaluated_at": "2025-05-12T12:45:22Z",
                  "raw_response": "{...full LLM response...}"}]},
]


def test_results_json_round_trip_is_exact(tmp_path):
    source = tmp_path / "results.json"
    source.write_text(json.dumps(SEED_000_RESULTS, indent=2))
    j = import_results_json([source], scales={"clarity": Scale.parse("range:0,100")})
    f = j.frame
    assert f["item"].tolist() == ["q_001"] * 3 and f["run"].tolist() == [1, 1, 2]
    assert f["judge"].tolist() == ["gpt-4", "claude-3-opus-20240229", "gpt-4"]
    assert f["cluster"].tolist() == ["python_quiz_1"] * 3
    assert results_records(j) == SEED_000_RESULTS
    out = write_results_json(j, tmp_path / "again" / "results.json")
    assert json.loads(out.read_text()) == SEED_000_RESULTS
    # through a saved table too
    j.save(tmp_path / "t.parquet")
    again = run_importer("table", [tmp_path / "t.parquet"])
    assert results_records(again) == SEED_000_RESULTS


def test_results_json_problems_are_named(tmp_path):
    source = tmp_path / "results.json"
    source.write_text(json.dumps([{"quiz_id": "q", "question_id": "x", "run_number": 1,
                                   "metrics": [{"metric_name": "c", "score": "high"}]}]))
    with pytest.raises(ValidationError) as info:
        import_results_json([source])
    assert (1, "benchmark_id") in [(p.row, p.column) for p in info.value.problems]
    source.write_text('[{"benchmark_id": ')
    with pytest.raises(InputError, match="not valid JSON"):
        import_results_json([source])


def test_bench_frame_with_logical_correct(tmp_path):
    path = tmp_path / "bench.csv"
    pd.DataFrame({"cluster": ["d1", "d1", "d2", "d2"], "item": ["q1", "q1", "q2", "q2"],
                  "arm": "short", "run": [1, 2, 1, 2],
                  "correct": ["TRUE", "FALSE", "TRUE", "TRUE"],
                  "usd": 0.001, "failure_kind": [None, "refusal", None, None]}).to_csv(
        path, index=False)
    j = import_bench(path)
    assert j.scale("correct") == Scale.parse("binary")
    assert j.frame["score"].tolist() == [1.0, 0.0, 1.0, 1.0]
    assert j.frame["criterion"].unique().tolist() == ["correct"]
    np.testing.assert_allclose(j.frame["usd"], 0.001)


def test_bench_shares_make_a_range_scale_and_unknown_columns_are_refused(tmp_path):
    path = tmp_path / "bench.csv"
    pd.DataFrame({"cluster": ["d1"], "item": ["q1"], "arm": ["a"], "run": [1],
                  "correct": [0.4]}).to_csv(path, index=False)
    assert import_bench(path).scale("correct") == Scale.parse("range:0,1")
    pd.DataFrame({"cluster": ["d1"], "item": ["q1"], "arm": ["a"], "run": [1],
                  "correct": [2], "bogus": [1]}).to_csv(path, index=False)
    with pytest.raises(ValidationError) as info:
        import_bench(path)
    assert [p.column for p in info.value.problems] == ["bogus"]


def test_unknown_format_and_misplaced_options():
    with pytest.raises(ConfigError, match="unknown import format"):
        run_importer("excel", ["x"])
    with pytest.raises(ConfigError, match="--map"):
        run_importer("inspect", ["x"], mapping={"a": "item"})


def test_alpaca_eval_takes_one_path_as_it_is(alpaca_results):
    # a string is one path, never a sequence of one-letter paths ("/" would be the root)
    one = import_alpaca_eval(str(alpaca_results / "cohere"))
    listed = import_alpaca_eval([alpaca_results / "cohere"])
    assert len(one.frame) == len(listed.frame) == 3 * 805
    assert one.sources == listed.sources
