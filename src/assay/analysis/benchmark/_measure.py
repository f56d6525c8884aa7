"""Cluster sums of a per-run quantity (dollars or tokens): all the cost section reads.

The cost table and frontier need, per cluster and arm, the sum of the known values, the
number of runs with a known value and the correct runs among those, plus per arm the
runs without a value and the dollars resting on estimated token counts. They are sums
over rows, so they are accumulated from (cluster, arm, value, score, estimated) rows in
any batches: the pandas path feeds its rows once, the engine path feeds each streamed
batch, and neither needs an (items x arms x runs) cube of the values (800 MB in float64
at 100 M rows). The sums are ``numpy.bincount`` sums in row order; two orders of the
same rows agree to rounding (a few units in the last place), not bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class MeasureSums:
    """Cluster sums of one per-run quantity (dollars or tokens), per arm."""

    total: FloatArray
    """Sum of the known values per cluster; shape (C, A)."""
    known_runs: FloatArray
    """Runs with a known value per cluster; shape (C, A)."""
    correct_runs: FloatArray
    """Sum of the scores of those runs (correct runs) per cluster; shape (C, A)."""
    n_unknown: IntArray
    """Runs without a value, per arm; shape (A,)."""
    estimated: FloatArray | None
    """Known values of runs marked estimated (``usd_provenance``), per arm; shape (A,);
    None when the table does not say."""

    def per_item(self) -> FloatArray:
        """Mean over runs then items (the mean over the known runs when some are unknown)."""
        return _ratio(self.total.sum(axis=0), self.known_runs.sum(axis=0))

    def per_correct(self) -> FloatArray:
        """Total over runs divided by the correct runs."""
        return _ratio(self.total.sum(axis=0), self.correct_runs.sum(axis=0))


class MeasureAccumulator:
    """Adds rows into :class:`MeasureSums`, batch by batch.

    Parameters
    ----------
    n_clusters, n_arms : int
        The shape (C, A) of the sums.
    estimated : bool
        Whether rows carry an estimated flag (the table has ``usd_provenance``).
    """

    def __init__(self, n_clusters: int, n_arms: int, *, estimated: bool) -> None:
        self.n_arms = n_arms
        size = n_clusters * n_arms
        self._total, self._known, self._correct = np.zeros(size), np.zeros(size), np.zeros(size)
        self._unknown = np.zeros(n_arms, dtype=np.int64)
        self._estimated = np.zeros(n_arms) if estimated else None

    def add(self, cluster: IntArray, arm: IntArray, values: FloatArray, scores: FloatArray,
            estimated: npt.NDArray[np.bool_] | None = None) -> None:
        """Add rows: cluster and arm indices, the value (NaN when unknown), the run's score
        (a failure counts 0) and, when the accumulator counts them, the estimated flags."""
        size = self._total.size
        known = ~np.isnan(values)
        group = cluster * self.n_arms + arm
        known_values = np.where(known, values, 0.0)
        self._total += np.bincount(group, weights=known_values, minlength=size)
        self._known += np.bincount(group, weights=known, minlength=size)
        self._correct += np.bincount(group, weights=np.where(known, scores, 0.0),
                                     minlength=size)
        self._unknown += np.bincount(arm[~known], minlength=self.n_arms)
        if self._estimated is not None:
            if estimated is None:
                raise ValueError("this accumulator counts estimated values: pass the flags")
            self._estimated += np.bincount(arm, weights=np.where(estimated, known_values, 0.0),
                                           minlength=self.n_arms)

    def result(self) -> MeasureSums:
        """The sums of every row added."""
        shape = (-1, self.n_arms)
        return MeasureSums(total=self._total.reshape(shape), known_runs=self._known.reshape(shape),
                           correct_runs=self._correct.reshape(shape), n_unknown=self._unknown,
                           estimated=self._estimated)


def _ratio(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)
