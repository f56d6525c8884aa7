"""CR2 of a weighted sum of factor means (the rubric-weighted composite), against the dense
hat matrix and the dense Satterthwaite form written out unit by unit."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import linalg

from assay.stats.intervals import bell_mccaffrey_df, cr2_ratio_estimate, working_icc
from assay.stats.intervals._cr2_factors import cr2_weighted_means


def _design(seed: int):
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 5, 8, 13]
    units = []  # (cluster, factor, value)
    for c, size in enumerate(sizes):
        level = rng.uniform(0.2, 0.8)
        for _ in range(size):
            for factor in range(3):
                if rng.random() < 0.8 or c == 0:
                    units.append((c, factor, float(np.clip(level + rng.normal(0, 0.2), 0, 1))))
    cl, f, y = (np.array(col) for col in zip(*units, strict=True))
    return cl.astype(int), f.astype(int), y.astype(float)


def _dense(cl, f, y, w, rho):
    """V2 from (I - H_cc)^{-1/2} by scipy.linalg.sqrtm, and nu = tr(MO)^2 / tr(MOMO)."""
    N, L = y.size, w.size
    X = np.zeros((N, L))
    X[np.arange(N), f] = 1.0
    xtx_inv = np.linalg.inv(X.T @ X)
    H = X @ xtx_inv @ X.T
    beta = xtx_inv @ X.T @ y
    e = y - X @ beta
    g = xtx_inv @ w  # the contrast's weights on X'
    rows = []
    for c in np.unique(cl):
        idx = np.flatnonzero(cl == c)
        A = np.real(linalg.inv(linalg.sqrtm(np.eye(idx.size) - H[np.ix_(idx, idx)])))
        a = np.zeros(N)
        # a_c' y = g' X_c' A_c e_c, with e = (I - H) y
        a[idx] = X[idx] @ g @ A
        rows.append((np.eye(N) - H) @ a)
    a_mat = np.array(rows)
    variance = float(np.sum((a_mat @ y) ** 2))
    assert variance == pytest.approx(float(np.sum(
        [(X[cl == c] @ g @ np.real(linalg.inv(linalg.sqrtm(
            np.eye((cl == c).sum()) - H[np.ix_(cl == c, cl == c)]))) @ e[cl == c]) ** 2
         for c in np.unique(cl)])))
    U = (cl[:, None] == np.unique(cl)[None, :]).astype(float)
    omega = (1 - rho) * np.eye(N) + rho * U @ U.T
    M = a_mat.T @ a_mat
    MO = M @ omega
    nu = np.trace(MO) ** 2 / np.trace(MO @ MO)
    return variance, min(nu, len(np.unique(cl)) - 1.0)


def _sums(cl, f, y, values):
    C, L = cl.max() + 1, f.max() + 1
    out = np.zeros((C, L))
    np.add.at(out, (cl, f), values)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_weighted_composite_cr2_matches_the_dense_hat_matrix(seed: int) -> None:
    cl, f, y = _design(seed)
    w = np.array([0.5, 0.3, 0.2])
    S, n, Q = _sums(cl, f, y, y), _sums(cl, f, y, np.ones_like(y)), _sums(cl, f, y, y * y)
    res = cr2_weighted_means(S, n, w, sumsq=Q)
    rho = working_icc(S.sum(1), Q.sum(1), n.sum(1))
    variance, nu = _dense(cl, f, y, w, rho)
    means = S.sum(0) / n.sum(0)
    assert res.estimate == pytest.approx(float(w @ means))
    assert res.variance == pytest.approx(variance, rel=1e-9)
    assert res.df == pytest.approx(nu, rel=1e-9)
    assert res.icc == pytest.approx(rho)
    at_zero = cr2_weighted_means(S, n, w)
    assert at_zero.df == pytest.approx(_dense(cl, f, y, w, 0.0)[1], rel=1e-9)


def test_one_factor_is_the_ratio_estimators_cr2() -> None:
    cl, _, y = _design(4)
    S = np.bincount(cl, weights=y)
    n = np.bincount(cl).astype(float)
    Q = np.bincount(cl, weights=y * y)
    one = cr2_weighted_means(S[:, None], n[:, None], [1.0], sumsq=Q[:, None])
    ref = cr2_ratio_estimate(S, n, sumsq=Q)
    assert one.variance == pytest.approx(ref.variance, rel=1e-12)
    assert one.df == pytest.approx(ref.df, rel=1e-9)
    assert one.df == pytest.approx(bell_mccaffrey_df(n, icc=ref.icc), rel=1e-9)


def test_a_factor_in_one_cluster_has_no_variance_and_bad_shapes_are_refused() -> None:
    res = cr2_weighted_means([[1.0, 2.0], [1.0, 0.0]], [[2.0, 3.0], [2.0, 0.0]], [0.5, 0.5])
    assert np.isnan(res.variance) and np.isnan(res.df)
    with pytest.raises(ValueError, match="disagree"):
        cr2_weighted_means([[1.0], [2.0]], [[2.0], [2.0]], [0.5, 0.5])
    with pytest.raises(ValueError, match="at least 2 clusters"):
        cr2_weighted_means([[1.0]], [[2.0]], [1.0])
