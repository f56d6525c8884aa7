"""Input validation for the statistics functions.

Each ``_check_*`` helper returns the cleaned value or raises ``ValueError`` naming the
argument. Nothing here uses ``assert``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

_ALTERNATIVES = ("two-sided", "less", "greater")


def _check_conf(conf: float, name: str = "conf") -> float:
    """Return `conf` as a float in the open interval (0, 1)."""
    try:
        value = float(conf)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in (0, 1), got {conf!r}") from None
    if not (0.0 < value < 1.0):
        raise ValueError(f"{name} must be in (0, 1), got {conf!r}")
    return value


def _check_alternative(alternative: str) -> str:
    """Return `alternative` if it is one of "two-sided", "less", "greater"."""
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}")
    return alternative


def _check_1d(values: Any, name: str, *, min_size: int = 1) -> npt.NDArray[np.float64]:
    """Return `values` as a finite 1-D float array of at least `min_size` elements."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D array of numbers") from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} element(s), got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def _check_clusters(
    sums: Any, sizes: Any, *, sums_name: str = "sums", sizes_name: str = "sizes"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Return cluster sums and sizes: finite 1-D arrays of one length >= 2, sizes > 0."""
    s = _check_1d(sums, sums_name, min_size=2)
    n = _check_1d(sizes, sizes_name, min_size=2)
    if s.shape != n.shape:
        raise ValueError(
            f"{sums_name} and {sizes_name} must have the same length, got {s.size} and {n.size}"
        )
    if np.any(n <= 0):
        raise ValueError(f"{sizes_name} must be positive")
    return s, n


def _check_in_range(
    sums: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    low: float,
    name: str,
) -> None:
    """Raise unless low * n_c <= S_c <= n_c for every cluster (up to rounding)."""
    slack = 1e-9 * sizes
    if np.any(sums < low * sizes - slack) or np.any(sums > sizes + slack):
        bound = "0" if low == 0 else f"{low:g} times the size"
        raise ValueError(f"{name} must lie between {bound} and the size of each cluster")


def _check_positive(value: float, name: str, *, allow_zero: bool = False) -> float:
    """Return `value` as a finite float that is positive (or non-negative)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        kind = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{name} must be finite and {kind}, got {value!r}")
    return x


def _check_probability(value: float, name: str) -> float:
    """Return `value` as a float in the closed interval [0, 1]."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}") from None
    if not (0.0 <= x <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return x


def _check_int(value: Any, name: str, *, minimum: int) -> int:
    """Return `value` as an int >= `minimum` (integral floats are accepted)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, got {value!r}") from None
    if not math.isfinite(x) or x != int(x):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if int(x) < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return int(x)


def _check_rng(rng: np.random.Generator | int | None) -> np.random.Generator:
    """Return a Generator: `rng` itself, seeded from an int, or fresh from OS entropy (None)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"rng seed must be non-negative, got {rng!r}")
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng must be a numpy Generator, a non-negative int seed or None, got {rng!r}")
