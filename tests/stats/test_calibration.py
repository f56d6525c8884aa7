"""OLS calibration line and its clipped application, against numpy lstsq and statsmodels OLS."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from assay.stats.calibration import apply_calibration, ols_calibration

unit = st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)


def test_hand_worked_line() -> None:
    # x = 0, 0.5, 1; y = 0.1, 0.4, 0.9: xbar = 0.5, ybar = 1.4/3;
    # Sxy = (-0.5)(0.1 - 1.4/3) + 0 + 0.5 (0.9 - 1.4/3) = 0.5 * 0.8 = 0.4, Sxx = 0.5
    # beta = 0.8, alpha = 1.4/3 - 0.4 = 1/15
    fit = ols_calibration([0.0, 0.5, 1.0], [0.1, 0.4, 0.9])
    assert_allclose([fit.alpha, fit.beta], [1 / 15, 0.8], rtol=1e-12)
    assert (fit.n, fit.n_distinct, fit.method) == (3, 3, "ols")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(unit, unit), min_size=3, max_size=40))
def test_matches_lstsq_and_statsmodels(pairs: list[tuple[float, float]]) -> None:
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    assume(np.ptp(x) > 1e-3)
    fit = ols_calibration(x, y)
    design = np.column_stack([np.ones_like(x), x])
    coef = np.linalg.lstsq(design, y, rcond=None)[0]
    params = sm.OLS(y, design).fit().params
    assert_allclose([fit.alpha, fit.beta], coef, rtol=1e-7, atol=1e-9)
    assert_allclose([fit.alpha, fit.beta], params, rtol=1e-7, atol=1e-9)


def test_zero_variance_falls_back_to_identity() -> None:
    fit = ols_calibration([0.5, 0.5, 0.5], [0.1, 0.7, 0.2])
    assert (fit.alpha, fit.beta, fit.method, fit.n_distinct) == (0.0, 1.0, "identity_zero_variance", 1)
    one = ols_calibration([0.3], [0.9])
    assert one.method == "identity_zero_variance"


def test_constant_reference_gives_flat_line() -> None:
    fit = ols_calibration([0.0, 0.5, 1.0], [0.4, 0.4, 0.4])
    assert_allclose([fit.alpha, fit.beta], [0.4, 0.0], atol=1e-15)
    # the OLS answer, named so that a caller can refuse it (issue 26 item 4)
    assert fit.method == "ols_constant_reference"


@pytest.mark.parametrize(("raw", "ref", "message"), [
    ([], [], "at least 1"), ([0.1, 0.2], [0.1], "same length"), ([0.1, np.nan], [0.1, 0.2], "finite")])
def test_bad_inputs_raise(raw: list[float], ref: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ols_calibration(raw, ref)


def test_apply_clips_and_leaves_input_alone() -> None:
    raw = np.array([0.0, 0.2, 0.5, 1.0, np.nan])
    before = raw.copy()
    out = apply_calibration(raw, -0.2, 1.5)
    # -0.2, 0.1, 0.55, 1.3 -> clipped to 0, 0.1, 0.55, 1; NaN stays NaN
    assert_allclose(out, [0.0, 0.1, 0.55, 1.0, np.nan], rtol=1e-12)
    assert_allclose(raw, before)
    assert_allclose(apply_calibration([1.0], -0.2, 1.5, clip=False), [1.3])
