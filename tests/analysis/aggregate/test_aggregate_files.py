"""results.json, aggregated.json and summary.txt as seed 000 shows them.

Oracles: the seed's field lists and layout (copied below); the results-json importer, which
reads results.json back independently of the writer's caller; the report objects for the
numbers the files print (the files must say what the analysis found, rounded only in text).
"""

from __future__ import annotations

import json
import re

import pytest

from assay.analysis.aggregate import aggregate
from assay.data.importers import import_results_json
from assay.report.files import format_summary, write_aggregate_files

# Seed 000, "2. aggregated.json": the fields of the file, of an aggregation, of a reliability.
TOP_FIELDS = ["benchmark_config_name", "benchmark_version", "quiz_ids", "total_runs",
              "aggregations", "inter_rater_reliability"]
AGGREGATION_FIELDS = ["metric_name", "evaluator_model", "mean", "median", "std_dev", "min", "max",
                      "ci_lower", "ci_upper", "per_run_scores", "num_runs"]
RELIABILITY_FIELDS = ["icc", "icc_ci_lower", "icc_ci_upper", "mad", "spearman_rho", "num_raters"]


def _no_constants(name: str) -> None:
    raise AssertionError(f"aggregated.json holds the non-JSON constant {name}")


@pytest.fixture(scope="module")
def seed_like_out(tmp_path_factory, seed_like_judgments):
    report = aggregate(seed_like_judgments, benchmark_config_name="comprehensive_eval",
                       benchmark_version="1.0.0")
    out = tmp_path_factory.mktemp("seed_like")
    paths = write_aggregate_files(report, seed_like_judgments, out)
    return report, out, paths


def test_three_files_written(seed_like_out):
    _, out, paths = seed_like_out
    assert [p.name for p in paths] == ["results.json", "aggregated.json", "summary.txt"]
    assert all(p.parent == out and p.stat().st_size > 0 for p in paths)


def test_aggregated_json_has_the_seeds_fields_in_order(seed_like_out):
    report, out, _ = seed_like_out
    data = json.loads((out / "aggregated.json").read_text(encoding="utf-8"),
                      parse_constant=_no_constants)
    assert list(data)[:6] == TOP_FIELDS
    assert data["benchmark_config_name"] == "comprehensive_eval"
    assert data["benchmark_version"] == "1.0.0"
    assert data["quiz_ids"] == ["python_quiz_1", "python_quiz_2", "advanced_python"]
    assert data["total_runs"] == 5
    assert sorted(data["aggregations"]) == sorted(
        f"{m}_{e}" for m in ("clarity", "distractor_quality")
        for e in ("gpt-4", "claude-3-opus-20240229"))
    for key, stats in data["aggregations"].items():
        assert list(stats)[:11] == AGGREGATION_FIELDS
        assert key == f"{stats['metric_name']}_{stats['evaluator_model']}"
        assert len(stats["per_run_scores"]) == stats["num_runs"] == 5
        assert stats["ci_lower"] <= stats["mean"] <= stats["ci_upper"]
        assert stats["min"] <= stats["median"] <= stats["max"]
        interval = stats["items_interval"]
        assert interval["method"] == "cluster_robust_t"
        assert (interval["n_items"], interval["n_clusters"]) == (12, 3)
    for metric, irr in data["inter_rater_reliability"].items():
        assert list(irr)[:6] == RELIABILITY_FIELDS
        assert irr["num_raters"] == 2 and metric in ("clarity", "distractor_quality")
        assert irr["icc_ci_lower"] <= irr["icc"] <= irr["icc_ci_upper"]
    assert data == report.to_dict()


def test_results_json_reads_back_as_the_same_scores(seed_like_out, seed_like_judgments):
    _, out, _ = seed_like_out
    records = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert set(records[0]) == {"benchmark_id", "quiz_id", "question_id", "run_number", "metrics"}
    assert set(records[0]["metrics"][0]) == {"metric_name", "metric_version", "score",
                                             "evaluator_model", "evaluated_at", "raw_response"}
    back = import_results_json([out / "results.json"]).frame
    key = ["item", "run", "judge", "criterion"]
    original = seed_like_judgments.frame.sort_values(key).reset_index(drop=True)
    back = back.sort_values(key).reset_index(drop=True)
    assert back["score"].tolist() == original["score"].tolist()
    assert back["cluster"].tolist() == original["task"].tolist()


def test_summary_layout_follows_the_seed(seed_like_out):
    report, out, _ = seed_like_out
    text = (out / "summary.txt").read_text(encoding="utf-8")
    assert text == format_summary(report) + "\n"
    lines = text.splitlines()
    assert lines[:8] == ["=" * 80, "BENCHMARK RESULTS SUMMARY", "=" * 80,
                         "Configuration: comprehensive_eval", "Version: 1.0.0", "Total Runs: 5",
                         "Quizzes Evaluated: 3", ""]
    assert lines[lines.index("INTER-RATER RELIABILITY") + 1] == "-" * 80
    clarity = next(r for r in report.reliability if r.criterion == "clarity")
    block = lines[lines.index("clarity:"):lines.index("clarity:") + 5]
    assert block[0] == "clarity:"
    assert block[1].startswith(f"  ICC(2,1): {clarity.icc.estimate:.4f} [95% CI: "
                               f"{clarity.icc.lower:.4f}, {clarity.icc.upper:.4f}]")
    assert block[2].startswith(f"  MAD (Mean Absolute Difference): {clarity.mad.estimate:.2f} "
                               "points")
    assert block[3].startswith(f"  Spearman rho: {clarity.spearman.estimate:.4f}")
    assert block[4] == "  Number of Raters: 2"
    start = lines.index("CLARITY")
    assert lines[start + 1] == "-" * 80 and lines[start + 2] == ""
    gpt4 = next(a for a in report.aggregations if (a.criterion, a.judge) == ("clarity", "gpt-4"))
    at = lines.index("  Evaluator: gpt-4", start)
    assert lines[at + 1:at + 9] == [
        f"    Mean:   {gpt4.mean:.2f}", f"    Median: {gpt4.median:.2f}",
        f"    Std Dev: {gpt4.std_dev:.2f}",
        f"    95% CI: [{gpt4.ci_lower:.2f}, {gpt4.ci_upper:.2f}]  (bootstrap over 5 run means)",
        f"    Min:    {gpt4.minimum:.2f}", f"    Max:    {gpt4.maximum:.2f}", "    N:      5",
        f"    Items:  {gpt4.items_interval.estimate:.2f} [95% CI: "
        f"{gpt4.items_interval.lower:.2f}, {gpt4.items_interval.upper:.2f}] over 12 items in "
        "3 clusters"]
    assert "DISTRACTOR_QUALITY" in lines
    assert any("Evaluator without a version: gpt-4:" in line for line in lines)


def test_demo_files(tmp_path, demo_report, demo_judgments):
    paths = write_aggregate_files(demo_report, demo_judgments, tmp_path / "bundle")
    results = json.loads(paths[0].read_text(encoding="utf-8"))
    assert sum(len(r["metrics"]) for r in results) == len(demo_judgments.frame)
    data = json.loads(paths[1].read_text(encoding="utf-8"), parse_constant=_no_constants)
    assert set(data["aggregations"]) == {"correct_exact-match", "quality_judge-lenient",
                                         "quality_judge-strict", "helpfulness_judge-ordinal"}
    assert list(data["inter_rater_reliability"]) == ["quality"]
    assert data["quiz_ids"] == ["summarisation", "factoid_qa"] and data["total_runs"] == 5
    text = paths[2].read_text(encoding="utf-8")
    assert re.search(r"^  ICC\(2,1\): 0\.\d{4} \[95% CI: 0\.\d{4}, 0\.\d{4}\]", text, re.M)
    assert "Quizzes Evaluated: 2" in text and "Configuration: demo" in text
    assert all(len(line) <= 80 for line in text.splitlines())
