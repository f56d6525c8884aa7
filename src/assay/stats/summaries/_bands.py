"""Percentile bands of a sample of scores."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

DEFAULT_PERCENTILES = (10.0, 25.0, 50.0, 75.0, 90.0)

__all__ = ["percentile_bands"]


@dataclass(frozen=True)
class PercentileBands:
    """The percentiles of a sample (linear interpolation between order statistics)."""

    percentiles: list[float]
    values: list[float]
    n: int


def percentile_bands(values: npt.ArrayLike, *,
                     percentiles: Sequence[float] = DEFAULT_PERCENTILES) -> PercentileBands:
    r"""Percentiles of the values: Hyndman and Fan's definition 7.

    Notes
    -----
    For sorted values :math:`x_{(1)} \le \dots \le x_{(n)}` and percentile p, with
    :math:`h = (n - 1) p / 100`, the value is
    :math:`x_{(\lfloor h \rfloor + 1)} + (h - \lfloor h \rfloor)(x_{(\lfloor h \rfloor + 2)}
    - x_{(\lfloor h \rfloor + 1)})` (Hyndman and Fan 1996, The American Statistician 50,
    361-365, definition 7; R's default ``type = 7``). The bands describe the spread of a
    system's item scores (CoEval's "percentile bands"); they are not intervals for the mean.
    NaN for no values.

    Examples
    --------
    >>> percentile_bands([1.0, 2.0, 3.0, 4.0], percentiles=[25, 50]).values
    [1.75, 2.5]
    """
    x = np.sort(np.asarray(values, dtype=np.float64))
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise ValueError("values: expected a 1-D array of finite numbers")
    ps = [float(p) for p in percentiles]
    if any(not 0.0 <= p <= 100.0 for p in ps):
        raise ValueError("percentiles: expected values in [0, 100]")
    if x.size == 0:
        return PercentileBands(ps, [math.nan] * len(ps), 0)
    out = []
    for p in ps:
        h = (x.size - 1) * p / 100.0
        lo = math.floor(h)
        hi = min(lo + 1, x.size - 1)
        out.append(float(x[lo] + (h - lo) * (x[hi] - x[lo])))
    return PercentileBands(ps, out, int(x.size))
