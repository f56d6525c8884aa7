"""Fixtures of the agreement tests: the demo run folder and an unrounded pingouin ICC(A,1)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from assay.data.table import Judgments
from tests.stats.agreement._pingouin import pingouin_icc_a1


@pytest.fixture(scope="session")
def demo_judgments(demo_table_five_judges: Judgments) -> Judgments:
    return demo_table_five_judges


def _pingouin_icc_a1(ratings: np.ndarray) -> tuple[float, float, float]:
    """pingouin's ICC(A,1) with its 95% CI unrounded: estimate, lower, upper."""
    row = pingouin_icc_a1(ratings)
    lower, upper = row["CI95"]
    return float(row["ICC"]), float(lower), float(upper)


@pytest.fixture(scope="session")
def pingouin_icc() -> Callable[..., tuple[float, float, float]]:
    return _pingouin_icc_a1


def _alpha_closed_form(ratings: np.ndarray, level: str) -> float:
    """Krippendorff's interval alpha from variances, and ordinal alpha as interval alpha of the
    mid-ranks of the pooled pairable values (the ordinal metric is the squared difference of
    mid-ranks). Written from the definitions, with no coincidence matrix: for a unit with m
    values, sum_{i != j} (x_i - x_j)^2 = 2 m SS_u, so D_o = sum_u 2 m_u SS_u / (m_u - 1) / n;
    over all n pooled values D_e = 2 SS / (n - 1). Fast where the krippendorff package is slow
    (hundreds of distinct values)."""
    x = ratings[np.sum(~np.isnan(ratings), axis=1) >= 2]
    present = ~np.isnan(x)
    if level == "ordinal":
        ranks = np.full(x.shape, np.nan)
        ranks[present] = stats.rankdata(x[present])
        x = ranks
    m = present.sum(axis=1)
    n = m.sum()
    unit_ss = np.nansum((x - np.nanmean(x, axis=1, keepdims=True)) ** 2, axis=1)
    d_o = np.sum(2 * m * unit_ss / (m - 1)) / n
    pooled = x[present]
    d_e = 2 * np.sum((pooled - pooled.mean()) ** 2) / (n - 1)
    return float(1 - d_o / d_e)


@pytest.fixture(scope="session")
def alpha_closed_form() -> Callable[[np.ndarray, str], float]:
    return _alpha_closed_form
