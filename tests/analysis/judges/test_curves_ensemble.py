"""Calibration curves and ensemble weights with outlier judges, worked by hand."""

from __future__ import annotations

import math

import pytest

from assay.analysis.judges import calibration_curves, ensemble_weights
from assay.errors import DesignError

from .conftest import make_table


def test_calibration_curve_bins_by_hand() -> None:
    # judge j: 6 items in 3 equal-count bins of its score; reference scores per item
    judge = [0.1, 0.2, 0.5, 0.5, 0.9, 1.0]
    ref = [0.0, 0.2, 0.4, 0.6, 0.7, 0.9]
    rows = [{"item": f"i{k}", "cluster": f"c{k % 3}", "arm": "A", "judge": "j",
             "score": s, "reference_score": r} for k, (s, r) in enumerate(zip(judge, ref, strict=True))]
    curves = calibration_curves(make_table(rows, {"score": "range:0,1"}), n_bins=3)
    got = [v for b in curves.bins
           for v in (b.judge_low, b.judge_high, b.judge_mean, b.reference_mean, b.n_units)]
    assert got == pytest.approx([0.1, 0.2, 0.15, 0.1, 2, 0.5, 0.5, 0.5, 0.5, 2,
                                 0.9, 1.0, 0.95, 0.8, 2])
    assert all(b.method for b in curves.bins)


def test_calibration_curves_need_reference_scores() -> None:
    rows = [{"item": "i1", "arm": "A", "score": 0.5}]
    with pytest.raises(DesignError, match="reference_score"):
        calibration_curves(make_table(rows, {"score": "range:0,1"}))


def _ensemble_table():
    # judges a and b agree; c scores the reverse of a (no weight); d = a - 0.3 (harsher)
    base = [0.9, 0.8, 0.6, 0.5, 0.4, 0.3]
    rows = []
    for k, v in enumerate(base):
        arm = "X" if k < 3 else "Y"
        for judge, score in (("a", v), ("b", v - 0.05 * (k % 2)), ("c", 1.0 - v),
                             ("d", max(v - 0.3, 0.0))):
            rows.append({"item": f"i{k}", "arm": arm, "judge": judge, "score": score})
    return make_table(rows, {"score": "range:0,1"})


def test_ensemble_weights_name_the_outlier_judges() -> None:
    report = ensemble_weights(_ensemble_table())
    by = {j.judge: j for j in report.judges}
    assert by["c"].weight == 0.0 and by["c"].rest_correlation < 0
    assert by["c"].outlier and "do not rise" in by["c"].reason
    assert by["d"].outlier and "harsher" in by["d"].reason
    assert not by["a"].outlier and not by["b"].outlier
    assert report.outliers == ["c", "d"]
    assert sum(j.weight for j in report.judges) == pytest.approx(1.0)
    # d's offset: its score minus the mean of a, b and c on each unit, averaged
    assert math.isfinite(by["d"].mean_offset) and by["d"].mean_offset < by["a"].mean_offset
    assert [a.arm for a in report.arms] == ["X", "Y"]
