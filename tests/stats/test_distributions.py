"""The scipy.special forms of :mod:`assay.stats._distributions` agree with scipy.stats."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from assay.stats import beta_ppf, f_sf, norm_cdf, norm_ppf, t_cdf, t_ppf, t_sf

Q = np.array([1e-6, 0.001, 0.025, 0.1, 0.5, 0.9, 0.975, 0.999, 1 - 1e-6])


@pytest.mark.parametrize("df", [1.0, 2.5, 9.0, 30.0, 1e4])
def test_t_matches_scipy_stats(df: float) -> None:
    np.testing.assert_allclose(t_ppf(Q, df), stats.t.ppf(Q, df), rtol=1e-10)
    x = np.linspace(-8, 8, 33)
    np.testing.assert_allclose(t_cdf(x, df), stats.t.cdf(x, df), rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(t_sf(x, df), stats.t.sf(x, df), rtol=1e-10, atol=1e-300)


def test_normal_beta_f_match_scipy_stats() -> None:
    np.testing.assert_allclose(norm_ppf(Q), stats.norm.ppf(Q), rtol=1e-12)
    np.testing.assert_allclose(norm_cdf(np.linspace(-6, 6, 13)), stats.norm.cdf(np.linspace(-6, 6, 13)),
                               rtol=1e-12)
    for a, b in [(0.5, 0.5), (3.0, 17.0), (40.0, 2.0)]:
        np.testing.assert_allclose(beta_ppf(Q, a, b), stats.beta.ppf(Q, a, b), rtol=1e-9)
    x = np.array([0.1, 1.0, 3.0, 10.0])
    np.testing.assert_allclose(f_sf(x, 3, 20), stats.f.sf(x, 3, 20), rtol=1e-10)


def test_the_scores_report_does_not_import_scipy_stats() -> None:
    """The score summary's t quantile comes from scipy.special: scipy.stats (the slowest
    import of a small report) stays out of the process."""
    code = ("import sys, assay.analysis.scores, assay.stats.intervals._analytic; "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
