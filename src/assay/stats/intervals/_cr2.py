"""Small-sample cluster-robust inference for a ratio estimator: the CR2 bias-reduced
linearisation with Bell-McCaffrey (Satterthwaite) degrees of freedom, and the effective
number of clusters.

The ratio estimator r = sum_c S_c / N is OLS of the item values on a constant, so the
textbook matrices reduce to sums over clusters: everything here costs O(C).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from assay.stats._results import CR2Estimate
from assay.stats._validate import _check_1d, _check_clusters
from assay.stats.intervals._ratio import _linearised_residuals

__all__ = [
    "bell_mccaffrey_df",
    "cr2_ratio_estimate",
    "effective_clusters",
    "working_icc",
]

FloatArray = npt.NDArray[np.float64]


def _check_icc(icc: float) -> float:
    try:
        value = float(icc)
    except (TypeError, ValueError):
        raise ValueError(f"icc must be a number in [0, 1], got {icc!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"icc must be in [0, 1], got {icc!r}")
    return value


def _check_sizes(sizes: ArrayLike) -> FloatArray:
    n = _check_1d(sizes, "sizes", min_size=2)
    if np.any(n <= 0):
        raise ValueError("sizes must be positive")
    return n


def working_icc(sums: ArrayLike, sumsq: ArrayLike, sizes: ArrayLike) -> float:
    r"""Moment estimate of the intra-cluster correlation of item values around their mean.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, the sum of the item values y_i of cluster c.
    sumsq : array_like, shape (C,)
        Q_c, the sum of their squares y_i^2.
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive.

    Returns
    -------
    float
        rho-hat in [0, 1]; 0 when no cluster has two items or every residual is 0.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, arrays of different lengths, non-finite values, a
        non-positive size, or a sum of squares below S_c^2 / n_c (not the squares of
        the values summed).

    Notes
    -----
    With residuals e_i = y_i - r, r = sum S_c / N, the estimate of Imbens and Kolesar's
    random-effects working model [1]_ is

    .. math:: \hat\rho = \frac{\sum_c \sum_{i \ne j \in c} e_i e_j}
              {\hat\sigma^2 \sum_c n_c (n_c - 1)}, \quad
              \hat\sigma^2 = \frac{1}{N} \sum_i e_i^2,

    computed from sum_{i != j} e_i e_j = E_c^2 - sum_{i in c} e_i^2, E_c = S_c - r n_c and
    sum_{i in c} e_i^2 = Q_c - 2 r S_c + r^2 n_c; it is cut to [0, 1].

    References
    ----------
    .. [1] Imbens, G. W. and Kolesar, M. (2016). Robust standard errors in small samples:
           some practical advice. Review of Economics and Statistics 98(4), 701-712.

    Examples
    --------
    Two clusters (1, 1) and (0, 0): r = 1/2, every e_i = +-1/2, sigma^2 = 1/4, and the
    cross products are 2 x 1/4 per cluster, so rho = 1 / (1/4 x 4) = 1:

    >>> working_icc([2, 0], [2, 0], [2, 2])
    1.0
    """
    s, n = _check_clusters(sums, sizes)
    q = _check_1d(sumsq, "sumsq", min_size=2)
    if q.shape != s.shape:
        raise ValueError("sumsq and sums must have the same length")
    if np.any(q < s * s / n - 1e-9 * (1.0 + q)):
        raise ValueError("sumsq must be at least sums^2 / sizes in every cluster")
    total = float(n.sum())
    r = float(s.sum()) / total
    within = np.maximum(q - 2.0 * r * s + r * r * n, 0.0)
    resid = _linearised_residuals(s, n, r)
    pairs = float(np.sum(n * (n - 1.0)))
    sigma2 = float(within.sum()) / total
    if pairs <= 0.0 or sigma2 <= 0.0:
        return 0.0
    cross = float(np.sum(resid * resid - within))
    return float(min(max(cross / (sigma2 * pairs), 0.0), 1.0))


def bell_mccaffrey_df(sizes: ArrayLike, *, icc: float = 0.0) -> float:
    r"""Satterthwaite degrees of freedom of the CR2 variance of a mean over clusters.

    Parameters
    ----------
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive, at least 2 clusters.
    icc : float, default 0.0
        rho of the working model: items of one cluster equicorrelated with correlation
        rho, clusters independent, one variance. 0 is Bell and McCaffrey's working
        model; Imbens and Kolesar use the estimate of :func:`working_icc`.

    Returns
    -------
    float
        nu in (0, C - 1]; exactly C - 1 when every cluster has the same size.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, a non-positive size, or `icc` outside [0, 1].

    Notes
    -----
    The CR2 variance of :func:`cr2_ratio_estimate` is a quadratic form y'My in the item
    values, M = sum_c w_c a_c a_c' / N^2 with a_c = (I - H) u_c, H = 11'/N, u_c the
    indicator of cluster c and w_c = 1 / (1 - n_c / N). Under the working covariance
    Omega = (1 - rho) I + rho sum_c u_c u_c', Satterthwaite's approximation matches the
    first two moments of V to a scaled chi-square [1]_ [2]_ [3]_:

    .. math:: \nu = \frac{(\operatorname{tr} M\Omega)^2}{\operatorname{tr} (M\Omega)^2}
              = \frac{(\operatorname{tr} G)^2}{\lVert G \rVert_F^2},
              \quad G_{cd} = \sqrt{w_c w_d}\, a_c' \Omega a_d .

    Writing S2 = sum_c n_c^2, a_c'Omega a_d = delta_cd ((1 - rho) n_c + rho n_c^2)
    + n_c n_d (rho S2 / N^2 - (1 - rho) / N) - rho n_c n_d (n_c + n_d) / N, so G is a
    diagonal plus a rank-two matrix in x_c = sqrt(w_c) n_c and y_c = x_c n_c, and both
    traces take O(C). With equal sizes G = p (I - 11'/C) and nu = C - 1 whatever rho is:
    the t reference of the C/(C - 1) estimator. The closed form is checked in
    ``tests/stats`` against the dense matrices written out item by item.

    References
    ----------
    .. [1] Bell, R. M. and McCaffrey, D. F. (2002). Bias reduction in standard errors for
           linear regression with multi-stage samples. Survey Methodology 28(2), 169-181.
    .. [2] Imbens, G. W. and Kolesar, M. (2016). Robust standard errors in small samples:
           some practical advice. Review of Economics and Statistics 98(4), 701-712.
    .. [3] Pustejovsky, J. E. and Tipton, E. (2018). Small-sample methods for
           cluster-robust variance estimation and hypothesis testing in fixed effects
           models. Journal of Business and Economic Statistics 36(4), 672-683.

    Examples
    --------
    Equal clusters give C - 1; one large cluster among singletons gives far fewer:

    >>> bell_mccaffrey_df([5, 5, 5, 5])
    3.0
    >>> round(bell_mccaffrey_df([20, 1, 1, 1, 1, 1]), 3)
    1.426
    """
    n = _check_sizes(sizes)
    rho = _check_icc(icc)
    c = n.size
    if np.all(n == n[0]):
        return float(c - 1)
    total = float(n.sum())
    w = 1.0 / (1.0 - n / total)
    x = np.sqrt(w) * n
    y = x * n
    d = w * ((1.0 - rho) * n + rho * n * n)
    alpha = rho * float(np.sum(n * n)) / total**2 - (1.0 - rho) / total
    beta = rho / total
    xx, xy, yy = float(x @ x), float(x @ y), float(y @ y)
    trace = float(d.sum()) + alpha * xx - 2.0 * beta * xy
    # G = D + U K U' with U = [x y], K = [[alpha, -beta], [-beta, 0]]
    k = np.array([[alpha, -beta], [-beta, 0.0]])
    gram = np.array([[xx, xy], [xy, yy]])
    dx, dy = float(np.sum(d * x * x)), float(np.sum(d * x * y))
    cross = alpha * dx - 2.0 * beta * dy  # tr(D U K U')
    low_rank = float(np.trace(k @ gram @ k @ gram))
    frob = float(np.sum(d * d)) + 2.0 * cross + low_rank
    if not frob > 0.0:
        return math.nan
    return float(min(trace * trace / frob, c - 1.0))


def effective_clusters(sizes: ArrayLike, *, icc: float = 1.0) -> float:
    r"""Carter, Schnepel and Steigerwald's effective number of clusters for a mean.

    Parameters
    ----------
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive, at least 2 clusters.
    icc : float, default 1.0
        rho, the intra-cluster correlation of item values; 1 is the worst case, where a
        cluster counts by its squared size.

    Returns
    -------
    float
        G* in [1, C]; C when every cluster has the same size.

    Raises
    ------
    ValueError
        Fewer than 2 clusters, a non-positive size, or `icc` outside [0, 1].

    Notes
    -----
    Cluster c contributes a score of variance gamma_c = n_c (1 + rho (n_c - 1)) to the
    mean (equicorrelated items), and the cluster-robust t behaves like a t with as many
    clusters as [1]_

    .. math:: G^* = \frac{C}{1 + \Gamma}
              = \frac{(\sum_c \gamma_c)^2}{\sum_c \gamma_c^2}, \quad
              \Gamma = \frac{1}{C} \sum_c \frac{(\gamma_c - \bar\gamma)^2}{\bar\gamma^2},

    the regressor being a constant. A few large clusters among many small ones give
    G* far below C, and a t interval with C - 1 df then undercovers.

    References
    ----------
    .. [1] Carter, A. V., Schnepel, K. T. and Steigerwald, D. G. (2017). Asymptotic
           behavior of a t-test robust to cluster heterogeneity. Review of Economics and
           Statistics 99(4), 698-709.

    Examples
    --------
    Clusters of 100, 60 and 40 items beside 37 single items, at rho = 1: G* =
    15237^2 / (10000^2 + 3600^2 + 1600^2 + 37) = 232166169 / 115520037 = 2.0097:

    >>> round(effective_clusters([100, 60, 40] + [1] * 37), 4)
    2.0097
    """
    n = _check_sizes(sizes)
    rho = _check_icc(icc)
    gamma = n * (1.0 + rho * (n - 1.0))
    gamma = gamma / gamma.max()
    return float(gamma.sum() ** 2 / np.sum(gamma * gamma))


def cr2_ratio_estimate(sums: ArrayLike, sizes: ArrayLike, *,
                       sumsq: ArrayLike | None = None) -> CR2Estimate:
    r"""Ratio estimator of a mean over clusters with the CR2 variance and its df.

    Parameters
    ----------
    sums : array_like, shape (C,)
        S_c, the sum of the item values of cluster c.
    sizes : array_like, shape (C,)
        n_c, items per cluster; positive.
    sumsq : array_like, shape (C,), optional
        Q_c, the sum of the squared item values of cluster c. With it the degrees of
        freedom use the working ICC of :func:`working_icc` (Imbens and Kolesar);
        without it the working model has independent items (Bell and McCaffrey).

    Returns
    -------
    CR2Estimate
        ``estimate`` r, ``variance`` V2, ``standard_error`` sqrt(V2), ``df`` nu of
        :func:`bell_mccaffrey_df`, ``icc`` the working rho, ``effective_clusters`` G* at
        that rho, ``n`` = N, ``n_clusters`` = C.

    Raises
    ------
    ValueError
        As :func:`working_icc` and :func:`~assay.stats.intervals.ratio_estimate`.

    Notes
    -----
    CR2 replaces the residuals of cluster c by A_c e_c, A_c = (I - H_cc)^{-1/2}, H_cc the
    diagonal block of the hat matrix [1]_ [2]_. For a mean, H_cc = 11'/N restricted to
    the cluster, the constant is an eigenvector of it with eigenvalue n_c / N, and

    .. math:: V_2 = \frac{1}{N^2} \sum_c \frac{(S_c - r n_c)^2}{1 - n_c / N}.

    With equal sizes n_c / N = 1/C and V2 = C/(C - 1) sum_c (S_c - r n_c)^2 / N^2, the
    linearised variance of :func:`~assay.stats.intervals.ratio_estimate`, and nu = C - 1:
    the two estimators are the same on balanced designs. A large cluster has a large
    leverage n_c / N, so its residual is inflated where CR1's single factor C/(C - 1)
    is not enough. Validated in ``tests/stats`` against the dense formula (the matrix
    square root of I - H_cc item by item, scipy.linalg.sqrtm).

    References
    ----------
    .. [1] Bell, R. M. and McCaffrey, D. F. (2002). Bias reduction in standard errors for
           linear regression with multi-stage samples. Survey Methodology 28(2), 169-181.
    .. [2] Pustejovsky, J. E. and Tipton, E. (2018). Small-sample methods for
           cluster-robust variance estimation and hypothesis testing in fixed effects
           models. Journal of Business and Economic Statistics 36(4), 672-683.

    Examples
    --------
    S = (2, 2, 1), n = (3, 2, 4): N = 9, r = 5/9, residuals 1/3, 8/9, -11/9 and
    leverages 3/9, 2/9, 4/9, so V2 = (1/9 x 9/6 + 64/81 x 9/7 + 121/81 x 9/5) / 81 =
    (1/6 + 64/63 + 121/45) / 81 = (2439/630) / 81 = 0.0477954145 (CR1: 97/2187 = 0.0443530):

    >>> res = cr2_ratio_estimate([2, 2, 1], [3, 2, 4])
    >>> round(res.variance, 10)
    0.0477954145
    """
    s, n = _check_clusters(sums, sizes)
    total = float(n.sum())
    r = float(s.sum()) / total
    resid = _linearised_residuals(s, n, r)
    variance = float(np.sum(resid * resid / (1.0 - n / total))) / total**2
    rho = 0.0 if sumsq is None else working_icc(s, sumsq, n)
    return CR2Estimate(
        estimate=r,
        variance=variance,
        standard_error=math.sqrt(variance),
        df=bell_mccaffrey_df(n, icc=rho),
        icc=rho,
        effective_clusters=effective_clusters(n, icc=rho),
        n=total,
        n_clusters=int(s.size),
    )
