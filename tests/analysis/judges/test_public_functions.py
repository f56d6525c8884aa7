"""Seed 001's programmatic API snippets, run unchanged on the demo (names mapped to assay's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assay.analysis.composite import composite_score_by_student
from assay.analysis.coverage import coverage_ratio
from assay.analysis.judges import judge_consistency, load_or_fit_calibration
from assay.data.table import Judgments
from assay.stats.calibration import apply_calibration


def test_a_path_is_loaded(demo_table: Judgments, demo_folder: Path) -> None:
    assert dict(composite_score_by_student(str(demo_folder))) == dict(
        composite_score_by_student(demo_table))


def test_metrics_snippet(demo: Judgments, capsys: pytest.CaptureFixture[str]) -> None:
    model = demo
    # --- the seed's lines ---
    scores = composite_score_by_student(model)
    for student, score in sorted(scores.items(), key=lambda x: -x[1]):
        print(f"  {student}: {score:.3f}")
    acr = coverage_ratio(model, task_id="summarisation")
    print(f"ACR (summarisation): {acr:.3f}")
    icc = judge_consistency(model)
    for task, val in icc.items():
        print(f"  ICC({task}): {val:.3f}")
    # ---
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0].strip() for line in out[:3]] == ["cirrus-70b", "beacon-13b",
                                                               "atlas-7b"]
    assert out[3] == "ACR (summarisation): 1.000"
    assert re.fullmatch(r"  ICC\(factoid_qa\): 0\.\d{3}", out[4])
    assert re.fullmatch(r"  ICC\(summarisation\): 0\.\d{3}", out[5])


def test_calibration_snippet(demo: Judgments, tmp_path: Path) -> None:
    model = demo
    params = load_or_fit_calibration(model, out_dir=tmp_path / "paper" / "tables", holdout_n=200)
    entry = params["judge-lenient"]["summarisation"]
    assert {"alpha", "beta", "rho_raw", "rho_calibrated", "mae_raw", "mae_calibrated", "n_fit",
            "n_total"} <= set(entry)
    raw_scores = [0.0, 0.5, 1.0]
    calibrated = apply_calibration(raw_scores, params["_overall"]["alpha"],
                                   params["_overall"]["beta"])
    assert all(0.0 <= c <= 1.0 for c in calibrated)
    assert (tmp_path / "paper" / "tables" / "calibration_params.json").exists()
