"""Below 5 runs: descriptive by default, a named method honoured, and labels that do not lie.

Regression test: ``--method cluster_t`` was silently ignored at 1 to 4 runs (most benchmarks
are scored once), although an interval over items is valid for any number of runs, and
figures and LaTeX captions announced "with 95% intervals" over a column of dashes.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from scipy import special, stats

from assay.analysis.benchmark import benchmark_report, register_contrasts
from assay.errors import DesignError


def test_default_is_descriptive_and_says_how_to_get_intervals(make_bench):
    report = benchmark_report(make_bench(runs=1))
    assert report.descriptive and report.method == "descriptive"
    assert "--method cluster_t" in report.method_reason
    assert any("--method cluster_t" in n for n in report.notes)
    assert "--method cluster_t" in str(report)


@pytest.mark.parametrize("runs", [1, 3])
def test_a_named_method_is_honoured_below_five_runs(make_bench, runs):
    frame = make_bench(runs=runs)
    report = benchmark_report(frame, method="cluster_t", B=200)
    assert not report.descriptive and report.method == "cluster_t"
    assert any(f"{runs} run(s) per item, fewer than 5" in n for n in report.notes)
    # by hand: item accuracy (mean over runs), cluster sums, ratio r, and the standard error
    # of statsmodels' cluster-robust OLS on a constant (its small-sample factor is C/(C-1))
    for record in report.accuracy:
        rows = frame[frame["arm"] == record["arm"]]
        items = rows.groupby(["cluster", "item"])["correct"].mean().reset_index()
        fit = sm.OLS(items["correct"].to_numpy(float), np.ones(len(items))).fit(
            cov_type="cluster", cov_kwds={"groups": items["cluster"].astype("category").cat.codes},
            use_t=True)
        r, se = float(fit.params[0]), float(fit.bse[0])
        n_clusters = items["cluster"].nunique()
        half = stats.t.ppf(0.975, n_clusters - 1) * se / (r * (1 - r))
        assert record["method"] == "logit_cluster_robust_t"
        assert record["estimate"] == pytest.approx(r, abs=1e-12)
        assert record["standard_error"] == pytest.approx(se, rel=1e-9)
        assert_allclose([record["lower"], record["upper"]],
                        special.expit([special.logit(r) - half, special.logit(r) + half]),
                        rtol=1e-9)
        assert record["rank_lower"] is not None
    assert all(r["lower"] is not None for r in report.contrasts)
    json.loads(report.to_json())


def test_evidence_still_needs_five_runs_whatever_the_method(make_bench):
    frame = make_bench(runs=3).assign(split="test")
    frame.attrs["reference_hash"] = "ref"
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.1}],
                             reference_hash="ref")
    with pytest.raises(DesignError, match="at least 5 runs"):
        benchmark_report(frame, method="cluster_t", registration=reg, reference_hash="ref")


def test_cli_honours_method_at_one_run(make_bench, tmp_path, capsys):
    from assay.cli import main

    frame = make_bench(runs=1)
    frame.assign(correct=frame["correct"].map({True: "TRUE", False: "FALSE"})).to_csv(
        tmp_path / "bench.csv", index=False)
    for method, bounded in (("auto", False), ("cluster_t", True)):
        with pytest.raises(SystemExit) as info:
            main(["report", str(tmp_path / "bench.csv"), "--kind", "benchmark", "--method", method,
                  "--format", "text,json", "--out", str(tmp_path / method), "--B", "200"])
        out, err = capsys.readouterr()
        assert info.value.code == 0, err
        accuracy = json.loads((tmp_path / method / "benchmark.json").read_text())["accuracy"]
        assert all((r["lower"] is not None) is bounded for r in accuracy)
        assert ("--method cluster_t" in out) is not bounded
