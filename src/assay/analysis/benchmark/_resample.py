"""The one cluster bootstrap of a benchmark report, on cluster sums.

A single ``(B, C)`` matrix of resampling counts (how often each cluster is drawn in
each resample) drives everything that resamples: the studentised accuracy intervals,
the rank intervals, the BCa intervals of pass^k and cost, the frontier share and the
non-inferiority cost bound. A resampled ratio is ``(W @ numerator) / (W @ denominator)``
on per-cluster sums, so the cost grows with C x B, not with the rows. The BCa
jackknife leaves one cluster out, also from the cluster sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from assay.stats._results import IntervalResult
from assay.stats.intervals import bca_interval, cluster_bootstrap_weights

FloatArray = npt.NDArray[np.float64]

_SNAP = 64.0 * float(np.finfo(np.float64).eps)
"""Relative distance from the estimate below which a replicate is rounding noise."""


@dataclass(frozen=True)
class ClusterResampler:
    """Resampling counts of whole clusters, and ratios of resampled cluster sums."""

    weights: FloatArray
    """How often each cluster is drawn in each resample; shape (B, C), as floats."""
    sizes: FloatArray
    """n_c, items per cluster; shape (C,)."""
    boot_sizes: FloatArray = field(init=False)
    """Resampled item count of each resample; shape (B,)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "boot_sizes", self.weights @ self.sizes)

    @classmethod
    def draw(cls, sizes: FloatArray, n_resamples: int,
             rng: np.random.Generator) -> ClusterResampler:
        """Draw ``n_resamples`` resamples of whole clusters from ``rng``."""
        # Filled as float64 block by block: no int32 copy beside it (160 MB at B = 2000
        # and 20,000 clusters).
        counts = cluster_bootstrap_weights(sizes.size, n_resamples, rng=rng, dtype=np.float64)
        return cls(weights=counts, sizes=sizes)

    @property
    def n_resamples(self) -> int:
        return int(self.weights.shape[0])

    def ratios(self, numerators: npt.ArrayLike,
               denominators: npt.ArrayLike | None = None) -> FloatArray:
        """Resampled ratios of sums: shape (B,) for (C,) input, (B, K) for (C, K).

        One matrix product reads the weights once for all numerators and denominators.
        """
        num = np.asarray(numerators, dtype=np.float64)
        if denominators is None:
            totals = self.weights @ num
            den = self.boot_sizes if num.ndim == 1 else self.boot_sizes[:, None]
        else:
            columns = np.column_stack([num, np.asarray(denominators, dtype=np.float64)])
            both = self.weights @ columns
            width = 1 if num.ndim == 1 else num.shape[1]
            totals, den = both[:, :width], both[:, width:]
            if num.ndim == 1:
                totals, den = totals[:, 0], den[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(totals / den, dtype=np.float64)

    def jackknife(self, numerators: npt.ArrayLike,
                  denominators: npt.ArrayLike | None = None) -> FloatArray:
        """Leave-one-cluster-out ratios: shape (C,) for (C,) input, (C, K) for (C, K)."""
        num = np.asarray(numerators, dtype=np.float64)
        den = self.sizes if denominators is None else np.asarray(denominators, dtype=np.float64)
        if num.ndim == 2 and den.ndim == 1:
            den = den[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray((num.sum(axis=0) - num) / (den.sum(axis=0) - den),
                              dtype=np.float64)

    def replicates(self, numerators: npt.ArrayLike,
                   denominators: npt.ArrayLike | None = None) -> list[BcaInputs]:
        """Estimate, bootstrap and jackknife replicates of each column's ratio of sums.

        ``numerators`` (and ``denominators``, default the cluster sizes) have shape (C, K);
        all K ratios are resampled in one matrix product.
        """
        num = np.asarray(numerators, dtype=np.float64)
        den = (np.broadcast_to(self.sizes[:, None], num.shape) if denominators is None
               else np.asarray(denominators, dtype=np.float64))
        boot = np.ascontiguousarray(self.ratios(num, None if denominators is None else den).T)
        jack = np.ascontiguousarray(self.jackknife(num, den).T)
        with np.errstate(divide="ignore", invalid="ignore"):
            estimates = num.sum(axis=0) / den.sum(axis=0)
        return [BcaInputs(float(estimates[k]), boot[k], jack[k]) for k in range(num.shape[1])]

    def bca(self, numerators: npt.ArrayLike, denominators: npt.ArrayLike | None = None, *,
            conf: float) -> IntervalResult:
        """BCa interval of the ratio sum(numerators) / sum(denominators) over clusters."""
        return BcaInputs.of(self, numerators, denominators).interval(conf=conf)


@dataclass(frozen=True)
class BcaInputs:
    """A ratio's estimate with its bootstrap and jackknife replicates, for BCa at any level."""

    estimate: float
    boot: FloatArray
    jackknife: FloatArray

    @classmethod
    def of(cls, resampler: ClusterResampler, numerators: npt.ArrayLike,
           denominators: npt.ArrayLike | None = None) -> BcaInputs:
        num = np.asarray(numerators, dtype=np.float64)
        den = resampler.sizes if denominators is None else np.asarray(denominators, np.float64)
        return cls(estimate=float(num.sum() / den.sum()), boot=resampler.ratios(num, den),
                   jackknife=resampler.jackknife(num, den))

    def interval(self, *, conf: float) -> IntervalResult:
        """BCa interval at two-sided level ``conf``; NaN bounds where BCa is not defined.

        Replicates within rounding error of the estimate are set equal to it, so that a
        statistic constant over clusters (every item costs the same) gives the degenerate
        NaN interval instead of a zero-width one made of rounding noise. A statistic that
        some resample or jackknife sample cannot define (no correct run, so no dollars per
        correct item) has no interval.
        """
        if not self.finite:
            nan = float("nan")
            return IntervalResult(self.estimate, nan, nan, nan, "bca_cluster_bootstrap", conf)
        return bca_interval(self.estimate, self._snapped(), self.jackknife, conf=conf)

    @property
    def finite(self) -> bool:
        return bool(math.isfinite(self.estimate) and np.all(np.isfinite(self.boot))
                    and np.all(np.isfinite(self.jackknife)))

    @property
    def constant(self) -> bool:
        """Whether every replicate equals the estimate up to rounding (no spread at all)."""
        return self.finite and bool(np.all(self._snapped() == self.estimate))

    def _snapped(self) -> FloatArray:
        tolerance = _SNAP * max(abs(self.estimate), float(np.max(np.abs(self.boot))))
        return np.where(np.abs(self.boot - self.estimate) <= tolerance, self.estimate, self.boot)
