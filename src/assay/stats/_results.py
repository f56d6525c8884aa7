"""Frozen result dataclasses shared by the statistics functions.

Every field is documented with an attribute docstring. Results carry full-precision floats and
no formatting; bounds that a method cannot define are NaN, never a silent zero-width interval.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

Alternative = Literal["two-sided", "less", "greater"]
"""Sidedness of an interval: two bounds, an upper bound only, or a lower bound only."""
SmallSample = Literal["CR1", "CR2"]
"""Cluster-robust variance: C/(C-1) with C - 1 df, or the CR2 bias-reduced linearisation
with Bell-McCaffrey degrees of freedom."""


@dataclass(frozen=True)
class IntervalResult:
    """A point estimate with a confidence interval and how it was made."""

    estimate: float
    """Point estimate."""
    lower: float
    """Lower bound; NaN when the method does not define the interval."""
    upper: float
    """Upper bound; NaN when the method does not define the interval."""
    standard_error: float
    """Standard error the interval rests on (on the estimate's own scale)."""
    method: str
    """Name of the interval method, for example ``"logit_cluster_robust_t"``."""
    conf: float
    """Confidence level of the interval (one-sided level when ``alternative`` is one-sided)."""
    df: float | None = None
    """Degrees of freedom of the reference t distribution, if any."""
    n: float | None = None
    """Sample size the interval rests on: items, or an effective number where documented."""
    n_clusters: int | None = None
    """Number of clusters, if the method uses them."""
    critical_value: float | None = None
    """Critical value (t or z quantile) the bounds were built with, if any."""
    alternative: Alternative = "two-sided"
    """Sidedness actually used: ``"less"`` is an upper bound only (``lower`` is the bottom of
    the parameter range), ``"greater"`` a lower bound only (``upper`` is the top)."""
    n_resamples: int | None = None
    """Number of bootstrap resamples the interval used, for resampling methods."""


@dataclass(frozen=True)
class RatioEstimate:
    """Ratio estimator of a mean over clusters, with its linearised variance."""

    estimate: float
    """r = sum_c S_c / N."""
    variance: float
    """V = C / (C - 1) * sum_c (S_c - r n_c)^2 / N^2 (exactly 0 when every cluster has the
    same mean, up to rounding)."""
    standard_error: float
    """sqrt(V)."""
    n: float
    """N = sum_c n_c, the number of items."""
    n_clusters: int
    """C, the number of clusters."""


@dataclass(frozen=True)
class CR2Estimate:
    """Ratio estimator of a mean over clusters with the CR2 variance and its degrees of freedom."""

    estimate: float
    """r = sum_c S_c / N."""
    variance: float
    """V2 = sum_c (S_c - r n_c)^2 / (1 - n_c / N) / N^2 (equal to the C/(C-1) estimator when
    the clusters have one size)."""
    standard_error: float
    """sqrt(V2)."""
    df: float
    """Bell-McCaffrey (Satterthwaite) degrees of freedom under the working model of ``icc``."""
    icc: float
    """rho of the working model (0 without item-level sums of squares)."""
    effective_clusters: float
    """Carter-Schnepel-Steigerwald G* at ``icc``."""
    n: float
    """N = sum_c n_c, the number of items."""
    n_clusters: int
    """C, the number of clusters."""


@dataclass(frozen=True)
class RunComponent:
    """The variance a shift shared by all items of a run adds to a mean (two-way ANOVA)."""

    estimate: float
    """r, the mean of every (item, run) score."""
    variance: float
    """V_run = max(V_R - V_E, 0), the run component of the variance of r."""
    variance_runs: float
    """V_R, runs as the units (run shifts and per-run noise)."""
    variance_noise: float
    """V_E, what per-run noise alone puts into V_R (from the cluster x run interaction)."""
    df_runs: float
    """R - 1."""
    df_noise: float
    """(C - 1)(R - 1)."""


@dataclass(frozen=True)
class TwoWayVariance:
    """Cluster x run robust variance of a mean (Cameron, Gelbach and Miller 2011)."""

    estimate: float
    """r, the mean of every (item, run) score."""
    variance: float
    """V_C + V_R - V_CR, at least V_C."""
    variance_clusters: float
    """V_C, clusters as the units (the one-way variance of the report)."""
    variance_runs: float
    """V_R, runs as the units."""
    variance_cells: float
    """V_CR, (cluster, run) cells as the units."""
    df: float
    """min(C, R) - 1."""


@dataclass(frozen=True, eq=False)
class BootstrapRatios:
    """Ratio estimates and linearised standard errors of B cluster-bootstrap resamples.

    Unpacks as a pair: ``estimates, standard_errors = cluster_bootstrap_ratios(...)``.
    """

    estimates: npt.NDArray[np.float64]
    """r*, shape (B,)."""
    standard_errors: npt.NDArray[np.float64]
    """se* = sqrt(V*), shape (B,); exactly 0 for a resample whose clusters share one mean."""

    def __iter__(self) -> Iterator[npt.NDArray[np.float64]]:
        yield self.estimates
        yield self.standard_errors


@dataclass(frozen=True)
class BayesResult:
    """Posterior summary of the beta-binomial cluster model."""

    estimate: float
    """Posterior mean of mu (the mean of cluster accuracies, clusters weighted alike)."""
    lower: float
    """Lower end of the equal-tailed credible interval of mu (0 when one-sided from 0)."""
    upper: float
    """Upper end of the equal-tailed credible interval of mu (1 when one-sided from 1)."""
    posterior_mean: float
    """Posterior mean of mu (the same number as ``estimate``)."""
    posterior_median: float
    """Posterior median of mu."""
    rho_mean: float
    """Posterior mean of the intra-cluster correlation rho."""
    conf: float
    """Credible level."""
    method: str = "beta_binomial_bayes"
    """Always ``"beta_binomial_bayes"``."""
    alternative: Alternative = "two-sided"
    """``"less"`` when every run was wrong (interval [0, upper]), ``"greater"`` when every run
    was right (interval [lower, 1]), else ``"two-sided"``."""


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered estimate of a human mean, with its interval and how it was made."""

    estimate: float
    """theta = lam * mean(f_unlabelled) + mean(y - lam * f_labelled)."""
    lower: float
    """Lower bound; NaN when the variance is not defined (see each function); -inf for
    ``alternative="less"``."""
    upper: float
    """Upper bound; NaN as ``lower``; +inf for ``alternative="greater"``."""
    standard_error: float
    """sqrt of the variance the interval rests on."""
    method: str
    """``"ppi++_z"``, ``"ppi++_cluster_t"`` or ``"ppi++_paired_cluster_t"``."""
    conf: float
    """Confidence level (one-sided level when ``alternative`` is one-sided)."""
    lam: float
    """lambda, the weight of the judge: 0 is the humans-only mean, 1 plain PPI."""
    n: int
    """n, the labelled items."""
    n_unlabelled: int
    """N, the items with a judge score only."""
    critical_value: float
    """The z or t quantile the bounds were built with."""
    classical_estimate: float
    """mean(y), the humans-only estimate (lam = 0)."""
    classical_standard_error: float
    """Its standard error by the same variance formula at lam = 0."""
    effective_n: float
    """n * V(lam = 0) / V(lam): how many human labels the humans-only mean would need to
    be as precise as this estimate (NaN when V(lam) is 0 or undefined)."""
    df: float | None = None
    """Degrees of freedom of the t reference (None for the normal one)."""
    n_clusters: int | None = None
    """C, the clusters of all items (clustered versions)."""
    n_labelled_clusters: int | None = None
    """C_L, the clusters holding at least one label (clustered versions)."""
    alternative: Alternative = "two-sided"
    """Sidedness of the interval."""
