"""``assay report`` and ``assay register`` end to end on files a user would have."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from assay.cli import main
from assay.errors import ConfigError
from assay.report.kinds import parse_contrasts


def seed_example_bench(path, *, runs: int = 5, split: bool = False):
    """Seed 003's design: 12 documents with 3 questions each, two arms, `runs` runs."""
    rng = np.random.default_rng(2)
    rows = []
    for i in range(36):
        for arm, p, usd in (("short", 0.7, 0.001), ("long", 0.8, 0.004)):
            for run in range(1, runs + 1):
                rows.append({"cluster": f"doc{i // 3 + 1}", "item": f"q{i + 1}", "arm": arm,
                             "run": run, "correct": "TRUE" if rng.random() < p else "FALSE",
                             "usd": usd})
    frame = pd.DataFrame(rows)
    if split:
        frame["split"] = "test"
    frame.to_csv(path, index=False)
    return frame


def run(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


def test_report_on_a_bench_csv_prints_the_seed_sections(tmp_path, capsys):
    frame = seed_example_bench(tmp_path / "bench.csv")
    code, _, err = run(["import", "bench", str(tmp_path / "bench.csv"), "-o",
                        str(tmp_path / "bench.parquet")], capsys)
    assert code == 0, err
    code, out, err = run(["report", str(tmp_path / "bench.parquet"), "--kind", "benchmark",
                          "--format", "text,json", "--out", str(tmp_path / "r"), "--B", "500"],
                         capsys)
    assert code == 0, err
    for section in ("Accuracy (arms in benchmark order, not ranked; failures count as wrong):",
                    "Paired differences (first minus second):", "Stability across runs:",
                    "Reliability:", "Cost:", "Failures (all counted wrong):",
                    "Variance on the probability scale", "Note:"):
        assert section in out
    report = json.loads((tmp_path / "r" / "benchmark.json").read_text())
    assert report["arms"] == ["short", "long"] and report["B"] == 500
    # the point estimates by hand: mean over runs within item, then over items
    correct = frame.assign(c=frame["correct"] == "TRUE")
    by_hand = correct.groupby(["arm", "item"])["c"].mean().groupby("arm").mean()
    for record in report["accuracy"]:
        assert record["estimate"] == pytest.approx(by_hand[record["arm"]], abs=1e-12)
        # the logit CR2 t, with the run component added where the runs show one (issue 26)
        assert record["method"] in ("logit_cluster_robust_t", "logit_cluster_run_t")


def test_register_then_confirmatory_report(tmp_path, capsys):
    seed_example_bench(tmp_path / "bench.csv", split=True)
    code, _, err = run(["import", "bench", str(tmp_path / "bench.csv"), "-o",
                        str(tmp_path / "bench.parquet")], capsys)
    assert code == 0, err
    code, out, err = run(["register", str(tmp_path / "bench.parquet"), "--contrast",
                          "long:short:0.05", "-o", str(tmp_path / "reg.json")], capsys)
    assert code == 0, err and "registered 1 contrast" in out
    code, out, err = run(["report", str(tmp_path / "bench.parquet"), "--kind", "benchmark",
                          "--registration", str(tmp_path / "reg.json"), "--format", "json",
                          "--out", str(tmp_path / "r"), "--B", "200"], capsys)
    assert code == 0, err
    report = json.loads((tmp_path / "r" / "benchmark.json").read_text())
    assert report["confirmatory"] is True
    assert [r["label"] for r in report["ni"]] == ["long vs short"]
    assert report["ni"][0]["verdict"] in ("passed", "failed")
    # a registration edited after it was made is refused, with exit 2 and no traceback
    reg = json.loads((tmp_path / "reg.json").read_text())
    reg["contrasts"][0]["margin"] = 0.5
    (tmp_path / "reg.json").write_text(json.dumps(reg))
    code, out, err = run(["report", str(tmp_path / "bench.parquet"), "--kind", "benchmark",
                          "--registration", str(tmp_path / "reg.json")], capsys)
    assert code == 2 and "changed after it was made" in err and "Traceback" not in err


def test_unbalanced_bench_is_refused_with_the_missing_cells(tmp_path, capsys):
    frame = seed_example_bench(tmp_path / "bench.csv")
    frame.iloc[1:].to_csv(tmp_path / "bench.csv", index=False)  # q1/short loses run 1
    code, _, err = run(["import", "bench", str(tmp_path / "bench.csv"), "-o",
                        str(tmp_path / "b.parquet")], capsys)
    assert code == 0, err
    code, _, err = run(["report", str(tmp_path / "b.parquet"), "--kind", "benchmark"], capsys)
    assert code == 2 and "q1" in err and "short" in err


def test_all_kinds_skip_the_benchmark_when_no_correctness_criterion(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("item,arm,score\nq1,a,3\nq2,a,4\nq1,b,5\nq2,b,2\n")
    code, out, err = run(["report", str(path), "--kind", "all"], capsys)
    assert code == 0, err
    assert "benchmark report skipped" in out and "Scores per criterion" in out


def test_contrast_parsing_handles_dashes_in_arm_names():
    arms = ["gpt-4o", "gpt-4o-mini", "atlas-7b"]
    assert parse_contrasts("gpt-4o-mini-gpt-4o", arms) == [("gpt-4o-mini", "gpt-4o")]
    assert parse_contrasts("atlas-7b - gpt-4o", arms) == [("atlas-7b", "gpt-4o")]
    with pytest.raises(ConfigError, match="matches no two arms"):
        parse_contrasts("atlas-gpt", arms)
    assert parse_contrasts(None, arms) is None


def test_report_reads_a_bench_csv_directly(tmp_path, capsys):
    seed_example_bench(tmp_path / "bench.csv")
    code, out, err = run(["report", str(tmp_path / "bench.csv"), "--kind", "benchmark",
                          "--B", "200"], capsys)
    assert code == 0, err
    assert "Benchmark report (judge unspecified, criterion correct)" in out
    assert "Accuracy (arms in benchmark order, not ranked; failures count as wrong):" in out


@pytest.mark.slow  # a few seconds: the default suite stays under 10 minutes
def test_every_kind_writes_its_files(tmp_path, capsys):
    from assay.demo.simulate import simulate_evaluation

    simulate_evaluation(tmp_path / "run", seed=3)
    code, _, err = run(["report", str(tmp_path / "run"), "--format", "json", "--out",
                          str(tmp_path / "r"), "--B", "200", "--calibrate"], capsys)
    assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "r").iterdir())
    assert names == sorted(["answer.json", "scores.json", "benchmark.json", "results.json", "aggregated.json",
                            "summary.txt", "judges.json", "composite.json", "robust.json",
                            "coverage.json", "calibration.json", "calibration_params.json",
                            "winrates.json", "win_rates.csv", "winrates_sig_tests.csv",
                            "winrates_cluster_tests.csv",
                            "systems.json", "leaderboard.json", "skipped.json", "cost.json",
                            "teachers.json", "calibration_curves.json", "sampling.json",
                            "ensemble.json", "factors.json", "interaction.json",
                            "human.json"])
    skipped = json.loads((tmp_path / "r" / "skipped.json").read_text())["skipped"]
    # the simulation has no assertion judge (its human labels give human.json)
    assert [s["report"] for s in skipped] == ["assertions"]
    code, _, err = run(["report", str(tmp_path / "run"), "--kind", "everything"], capsys)
    assert code == 2 and "--kind 'everything'" in err
    code, _, err = run(["report", str(tmp_path / "run"), "--kind", "winrate", "--format",
                          "html", "--out", str(tmp_path / "h")], capsys)
    assert code == 0, err
    pages = sorted(p.name for p in (tmp_path / "h").glob("*.html"))
    assert {"index.html", "winrates.html", "score-distribution.html"} <= set(pages)


def interval_study(path):
    """One system scored by three judges on an interval scale: the basic inter-rater study."""
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):
        truth = rng.normal(5, 2)
        for judge in ("j1", "j2", "j3"):
            rows.append({"item": f"q{i}", "arm": "sys", "judge": judge, "criterion": "quality",
                         "score": round(truth + rng.normal(0, 1), 2)})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def pairwise_study(path):
    """Pairwise verdicts (1 win, 0.5 tie, 0 loss) of six judges on two arms against a base."""
    rng = np.random.default_rng(1)
    rows = [{"item": f"q{i}", "arm": arm, "opponent": "base", "judge": f"j{j}",
             "criterion": "preference", "score": float(rng.choice([0.0, 0.5, 1.0]))}
            for i in range(20) for j in range(6) for arm in ("m1", "m2")]
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("make, fix", [
    (interval_study, "declare `--scale quality=range:MIN,MAX` to put its scores in the composite"),
    (pairwise_study, "every row is a pairwise preference"),
])
def test_judges_group_makes_agreement_when_the_composite_cannot_be_made(tmp_path, capsys, make, fix):
    path = make(tmp_path / "t.csv")
    code, out, err = run(["report", str(path), "--kind", "judges", "--format", "text,json,html",
                          "--out", str(tmp_path / "r")], capsys)
    assert code == 0, err
    assert "Agreement between judges" in out
    judges = json.loads((tmp_path / "r" / "judges.json").read_text())
    assert len(judges["agreement"]) == 1 and judges["agreement"][0]["n_units"] > 0
    skipped = json.loads((tmp_path / "r" / "skipped.json").read_text())["skipped"]
    reasons = {s["report"]: s["reason"] for s in skipped}
    assert set(reasons) == {"composite", "robust", "systems", "coverage"}
    for name in ("composite", "robust", "systems"):
        assert fix in reasons[name]
        assert f"{name} report skipped: " in out
    assert not (tmp_path / "r" / "composite.json").exists()
    dashboard = (tmp_path / "r" / "index.html").read_text()
    assert 'class="card skipped"' not in dashboard  # one line, not a card each
    assert "4 other reports not made" in dashboard
    assert dashboard.count("no valid pointwise units") == 3


def test_interval_scores_enter_the_composite_once_declared(tmp_path, capsys):
    path = interval_study(tmp_path / "t.csv")
    code, _, err = run(["report", str(path), "--kind", "composite", "--scale",
                          "quality=range:-5,15", "--format", "json", "--out", str(tmp_path / "r")],
                         capsys)
    assert code == 0, err
    composite = json.loads((tmp_path / "r" / "composite.json").read_text())
    assert [r["arm"] for r in composite["composite"]] == ["sys"]


def test_a_report_named_alone_that_cannot_be_made_is_an_error(tmp_path, capsys):
    path = interval_study(tmp_path / "t.csv")
    code, _, err = run(["report", str(path), "--kind", "composite", "--out", str(tmp_path / "r")],
                         capsys)
    assert code == 2 and "--scale quality=range:MIN,MAX" in err and "Traceback" not in err
    assert err.count("\n") == 1 and not (tmp_path / "r").exists()
    code, _, err = run(["report", str(tmp_path / "missing.csv"), "--kind", "judges"], capsys)
    assert code == 2 and "missing.csv" in err


def test_every_report_name_is_a_kind(tmp_path, capsys):
    """--kind systems was refused although --kind all wrote systems.html."""
    path = tmp_path / "t.csv"
    rows = [{"item": f"q{i}", "cluster": f"d{i // 2}", "arm": arm, "judge": judge,
             "criterion": "ok", "score": int((i + len(arm) + len(judge)) % 3 > 0)}
            for i in range(12) for arm in ("a", "bb") for judge in ("j", "kk")]
    pd.DataFrame(rows).to_csv(path, index=False)
    code, _, err = run(["report", str(path), "--kind", "systems", "--scale", "ok=binary",
                        "--format", "json", "--B", "50", "--out", str(tmp_path / "r")], capsys)
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["skipped.json", "systems.json"]
