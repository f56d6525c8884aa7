"""Evidence rules, registrations and non-inferiority tests of the benchmark report."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from assay.analysis import benchmark as benchmark_module
from assay.analysis.benchmark import (
    DevNotEvidenceError,
    Registration,
    RegistrationChangedError,
    RegistrationMismatchError,
    benchmark_report,
    register_contrasts,
)
from assay.errors import ConfigError, DesignError

WHEN = "2025-01-01T00:00:00+00:00"


@pytest.fixture(scope="module")
def test_bench(make_bench) -> pd.DataFrame:
    frame = make_bench(cluster_effect=0.5, seed=4).assign(split="test")
    frame.attrs["reference_hash"] = "ref-1"
    return frame


def hand_difference(frame: pd.DataFrame, new: str, reference: str) -> tuple[float, float]:
    """d and sqrt(V_d) of the paired item differences, from the seed's formulas."""
    p = frame.groupby(["cluster", "item", "arm"])["correct"].mean().unstack("arm")
    diff = p[new] - p[reference]
    sums = diff.groupby(level="cluster").sum()
    sizes = diff.groupby(level="cluster").size()
    c, n = len(sums), sizes.sum()
    d = sums.sum() / n
    return float(d), float(math.sqrt(c / (c - 1) * ((sums - d * sizes) ** 2).sum() / n**2))


def test_public_names():
    assert benchmark_module.__all__ == sorted(benchmark_module.__all__)
    for name in benchmark_module.__all__:
        assert hasattr(benchmark_module, name)
    for error in (DevNotEvidenceError, RegistrationMismatchError, RegistrationChangedError):
        assert issubclass(error, DesignError)


@pytest.mark.parametrize("change", [
    lambda f: pd.concat([f, f.head(10).assign(split="dev", item="x")], ignore_index=True),
    lambda f: f.assign(split=np.where(f.index < 5, "exploratory", "test")),
    lambda f: f.drop(columns="split"),
    lambda f: f.assign(reportable=f.index > 0),
])
def test_confirmatory_refuses_rows_that_are_not_evidence(test_bench, change):
    with pytest.raises(DevNotEvidenceError):
        benchmark_report(change(test_bench), confirmatory=True)


def test_confirmatory_raises_default_b(test_bench):
    report = benchmark_report(test_bench.assign(split="final"), confirmatory=True)
    assert report.confirmatory is True and report.B == 5000
    assert benchmark_report(test_bench).B == 2000
    assert benchmark_report(test_bench, confirmatory=True, B=300).B == 300


def test_confirmatory_needs_five_runs(make_bench):
    with pytest.raises(DesignError, match="at least 5 runs"):
        benchmark_report(make_bench(runs=3).assign(split="test"), confirmatory=True)


def test_registration_hash_and_round_trip():
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.2}],
                             reference_hash="ref-1", created_at=WHEN)
    again = register_contrasts([{"new": "short", "reference": "long", "margin": 0.2}],
                               reference_hash="ref-1", created_at=WHEN)
    assert reg.hash == again.hash and len(reg.hash) == 64
    loaded = Registration.from_json(reg.to_json())
    assert loaded == reg
    loaded.verify()
    edited = json.loads(reg.to_json())
    edited["contrasts"][0]["margin"] = 0.3
    with pytest.raises(RegistrationChangedError):
        Registration.from_dict(edited).verify()
    with pytest.raises(RegistrationChangedError):
        dataclasses.replace(reg, alpha=0.05).verify()


@pytest.mark.parametrize("spec", [
    {"new": "a", "reference": "a", "margin": 0.1},
    {"new": "a", "reference": "b", "margin": 0.0},
    {"new": "a", "reference": "b"},
    {"new": "a", "reference": "b", "margin": 0.1, "colour": "red"},
])
def test_register_refuses_bad_contrasts(spec):
    with pytest.raises(ConfigError):
        register_contrasts([spec], reference_hash="ref-1")


def test_registration_mismatch_and_change(test_bench):
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.2}],
                             reference_hash="ref-1", created_at=WHEN)
    unmarked = test_bench.copy()
    unmarked.attrs = {}
    with pytest.raises(RegistrationMismatchError, match="carries no reference hash"):
        benchmark_report(unmarked, registration=reg)
    with pytest.raises(RegistrationMismatchError, match="ref-2"):
        benchmark_report(unmarked, registration=reg, reference_hash="ref-2")
    with pytest.raises(RegistrationChangedError):
        benchmark_report(test_bench, registration=dataclasses.replace(reg, alpha=0.05))
    other = register_contrasts([{"new": "short", "reference": "huge", "margin": 0.2}],
                               reference_hash="ref-1")
    with pytest.raises(RegistrationMismatchError, match="huge"):
        benchmark_report(test_bench, registration=other)
    with pytest.raises(DevNotEvidenceError):
        benchmark_report(test_bench.assign(split="dev"), registration=reg)
    report = benchmark_report(unmarked, registration=reg, reference_hash="ref-1", B=500)
    assert report.registration == {"hash": reg.hash, "created_at": WHEN,
                                   "reference_hash": "ref-1"}


def test_single_contrast_matches_the_hand_computation(test_bench):
    margin = 0.2
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": margin}],
                             reference_hash="ref-1", created_at=WHEN)
    # The seed's bound (cluster-robust t of the paired differences) is that of the named
    # method; under auto the bound follows the contrast, run component included (issue 26).
    report = benchmark_report(test_bench, registration=reg, B=500, method="cluster_t")
    assert report.confirmatory is True
    (ni,) = report.ni
    d, se = hand_difference(test_bench, "short", "long")
    df = 11
    lower = d - stats.t.ppf(1 - 0.025, df) * se
    assert ni["level"] == 0.025
    assert_allclose([ni["estimate"], ni["standard_error"], ni["lower"]], [d, se, lower],
                    rtol=1e-10)
    # The verdict's bound is the lower end of the printed 95% contrast interval.
    short_long = next(c for c in report.contrasts if c["arm1"] == "short")
    assert_allclose(ni["lower"], short_long["lower"], rtol=1e-12)
    assert ni["accuracy_holds"] == (lower > -margin)
    assert ni["verdict"] == ("passed" if lower > -margin else "failed")
    # p-value: the level at which d - t_(1 - p) se = -margin, found by bisection.
    p_closed = stats.t.sf((d + margin) / se, df)
    assert_allclose(ni["p_value"], max(p_closed, 1e-6), atol=2e-9)
    assert_allclose(ni["mdd_achieved"],
                    (stats.t.ppf(1 - 0.025, df) + stats.t.ppf(0.8, df)) * se, rtol=1e-10)
    assert ni["cost_test"] is False and ni["cost_upper"] is None and ni["cost_holds"] is None
    assert ni["tango_lower"] < ni["estimate"] < ni["tango_upper"]
    assert 0 < ni["n_eff"] <= 36
    assert "Non-inferiority (registration" in str(report)


def test_holm_levels_cost_test_and_exploratory(make_bench):
    frame = make_bench(arms=("new", "old", "alt"), accuracy=(0.78, 0.8, 0.5),
                       usd=(0.001, 0.004, 0.002), cluster_effect=0.3, seed=11,
                       n_docs=20).assign(split="test")
    frame["usd"] *= np.random.default_rng(0).uniform(0.5, 1.5, len(frame))
    reg = register_contrasts(
        [{"new": "new", "reference": "old", "margin": 0.15, "cost_test": True, "label": "A"},
         {"new": "new", "reference": "alt", "margin": 0.05, "label": "B"},
         {"new": "alt", "reference": "old", "margin": 0.05, "confirmatory": False,
          "label": "C"}],
        reference_hash="ref-9", alpha=0.025, design={"p_disc": 0.3, "n_eff": 60,
                                                     "n_clusters": 20})
    report = benchmark_report(frame, registration=reg, reference_hash="ref-9", B=400)
    by_label = {r["label"]: r for r in report.ni}
    a, b, c = by_label["A"], by_label["B"], by_label["C"]
    # Holm: the smaller p-value of the two confirmatory contrasts is tested at alpha / 2.
    first, second = sorted([a, b], key=lambda r: r["p_value"])
    assert (first["level"], second["level"]) == (0.0125, 0.025)
    assert c["level"] == 0.025 and c["confirmatory"] is False
    # The cheaper new arm passes the cost test; the cost p-value cannot go below 1 / (B + 1).
    assert a["cost_diff"] == pytest.approx(-0.003, rel=0.05)
    assert a["cost_upper"] < 0 and a["cost_holds"] is True
    assert a["p_value"] >= 1 / 401
    floored = [r for r in report.ni if r["p_value"] <= (1 / 401 if r["cost_test"] else 1e-6)]
    assert sum("is at its floor" in n for n in report.notes) == len(floored)
    assert c["verdict"] == "failed" and c["accuracy_holds"] is False
    assert b["verdict"] == "passed"
    expected_design = (stats.t.ppf(1 - 0.0125, 19) + stats.t.ppf(0.8, 19)) * math.sqrt(0.3 / 60)
    assert_allclose([a["mdd_design"], b["mdd_design"]], expected_design, rtol=1e-10)
    assert_allclose(c["mdd_design"],
                    (stats.t.ppf(1 - 0.025, 19) + stats.t.ppf(0.8, 19)) * math.sqrt(0.3 / 60),
                    rtol=1e-10)
    for record in report.ni:
        assert record["verdict"] == ("passed" if record["p_value"] <= record["level"]
                                     else "failed")


def test_cost_test_needs_dollars(make_bench):
    frame = make_bench(usd=None).assign(split="test")
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.2,
                               "cost_test": True}], reference_hash="r")
    with pytest.raises(DesignError, match="no usd"):
        benchmark_report(frame, registration=reg, reference_hash="r", B=200)


def test_constant_cost_difference_is_its_own_bound(test_bench):
    reg = register_contrasts([{"new": "short", "reference": "long", "margin": 0.3,
                               "cost_test": True}], reference_hash="ref-1")
    report = benchmark_report(test_bench, registration=reg, B=300)
    (ni,) = report.ni
    assert ni["cost_upper"] == pytest.approx(-0.003) and ni["cost_holds"] is True
    assert any("same in every cluster" in note for note in report.notes)
