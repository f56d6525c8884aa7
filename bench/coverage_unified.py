"""One interval per estimand, no switch (issue 26, session 5): binomial intervals on an
effective number of item-runs built from the CR2 variance plus the run component.

For arm A's accuracy, in every replicate (sparse or not, V_run = 0 or not):

* r = sum S_c / N, V_1 the CR2 variance of r (``cr2_ratio_estimate``, its Bell-McCaffrey df
  nu_1 under the working ICC), V_run the run component (``run_variance_component``);
* nu = Satterthwaite's df of V_1 + V_run (``run_inclusive_df``: nu_1 at V_run = 0, no branch);
* M = N R item-runs, n* = min(r (1 - r) / (V_1 + V_run) (t_{M-1,q} / t_{nu,q})^2, M)
  (Korn and Graubard's df-adjusted effective count, its cap counting item-runs);
  n* = M when V_1 + V_run = 0 < r < 1; at r = 0 or 1 (no variance to read) n* = N items,
  the report's Korn-Graubard count at the boundary (label ``r at 0 or 1``);
* Wilson, Clopper-Pearson or mid-p on (x = r n*, n*).

Variants of the cap M (run H, issue 26 session 5): N R (the names above), the df adjustment
after the cap (``_d1``), N items (``_items``), N R over the runs' design effect read from the
items' sums of squares (``_deff``, :func:`run_cap`) and that design effect shrunk towards R
when the rarer outcome has few item-runs (``_deffk``, :func:`run_cap_shrunk`). No cap held
both the sparse and the independent-runs cells: none is the report's rule.

For the difference A - B: MOVER of the two arms' intervals above, with the residual
correlation of the cluster sums (``_mover_of``, as the report's sparse pair), or with the
correlation implied by the total variances, rho = (V_A + V_B - V_D) / (2 sqrt(V_A V_B)),
V the CR2 + run variance of each arm and of the difference (``_tot``). ``paired_cr2_run``
is the report's non-sparse pair branch (CR2 t on the raw scale plus the run component,
Satterthwaite df) taken in every replicate, as the comparison.

Labels (the grid's ``|`` lines) are diagnostics, not branches, except ``r at 0 or 1``: the
old rule's branches (``sparse`` by ``is_sparse``, ``flagged``), ``V_run = 0`` / ``V_run >
0`` and what issue 12's run pre-test would have said, so that conditional coverage where
the old rule switched can be read.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from coverage_methods import (
    CONF,
    Context,
    FloatArray,
    Labelled,
    Method,
    _arm_runs_material,
    _design,
    _mover_of,
    _pair_runs_material,
    _runtest,
)
from coverage_model import Chunk
from scipy import optimize, special, stats

from assay.analysis.benchmark._accuracy import run_inclusive
from assay.analysis.benchmark._contrasts import sparse_difference
from assay.analysis.benchmark._design import choose_method, is_sparse
from assay.stats import (
    cr2_ratio_estimate,
    mover_difference_interval,
    paired_difference_interval,
    run_inclusive_df,
    run_variance_component,
)

Q = (1.0 + CONF) / 2.0


class ArmInterval(NamedTuple):
    estimate: float
    lower: float
    upper: float
    variance: float
    """V_1 + V_run."""
    n_eff: float
    boundary: bool
    run_variance: float


def _wilson(r: float, n: float) -> tuple[float, float]:
    z = float(stats.norm.ppf(Q))
    a = z * z / n
    centre = (r + a / 2.0) / (1.0 + a)
    half = z * math.sqrt(r * (1.0 - r) / n + a / (4.0 * n)) / (1.0 + a)
    return max(centre - half, 0.0), min(centre + half, 1.0)


def _cp(r: float, n: float) -> tuple[float, float]:
    x, tail = r * n, 1.0 - Q
    lower = 0.0 if x <= 0.0 else float(special.betaincinv(x, n - x + 1.0, tail))
    upper = 1.0 if x >= n else float(special.betaincinv(x + 1.0, n - x, Q))
    return lower, upper


def _midp(r: float, n: float) -> tuple[float, float]:
    x, tail = r * n, 1.0 - Q
    if x <= 0.0:
        return 0.0, 1.0 - (1.0 - CONF) ** (1.0 / n)
    if x >= n:
        return (1.0 - CONF) ** (1.0 / n), 1.0

    def g(p: float) -> float:
        return 0.5 * (float(special.betainc(x, n - x + 1.0, p))
                      + float(special.betainc(x + 1.0, n - x, p)))
    lower = float(optimize.brentq(lambda p: g(p) - tail, 0.0, 1.0, xtol=1e-12))
    upper = float(optimize.brentq(lambda p: g(p) - Q, 0.0, 1.0, xtol=1e-12))
    return lower, upper


BINOMIAL: dict[str, Callable[[float, float], tuple[float, float]]] = {
    "wilson": _wilson, "cp": _cp, "midp": _midp}


def run_cap(sums: FloatArray, sumsq: FloatArray, sizes: FloatArray, runs: int) -> float:
    """N R / deff_R: the item-runs counted as independent under a one-way item model.

    With p_i an item's mean over its R runs, w = R/(R - 1) mean p_i (1 - p_i) the
    within-item run variance and b = max(var(p_i) - w / R, 0) the between-item variance of
    the items' accuracies, runs of an item correlate at b / (b + w) and
    deff_R = 1 + (R - 1) b / (b + w): N R when items are alike, N when each item is all
    right or all wrong. From the cluster sums of p_i and p_i^2 alone."""
    items = float(sizes.sum())
    s, q = float(sums.sum()), float(sumsq.sum())
    r = s / items
    within = runs / (runs - 1.0) * max(r - q / items, 0.0)
    between = max((q - items * r * r) / (items - 1.0) - within / runs, 0.0)
    if not between + within > 0.0:
        return items * runs
    return items * runs / (1.0 + (runs - 1.0) * between / (between + within))


SHRINK_EVENTS = 10.0
"""k of :func:`run_cap_shrunk`: the rarer outcome's item-runs at which the runs' design
effect read from the data and the all-or-nothing one (R) weigh the same. Chosen before
measuring (a rule-of-thumb count of events), not tuned on the grid."""


def run_cap_shrunk(sums: FloatArray, sumsq: FloatArray, sizes: FloatArray,
                   runs: int) -> float:
    """N R / deff, deff = (e deff_R + k R) / (e + k): :func:`run_cap`'s design effect
    shrunk towards R (items all right or all wrong, the cap N) when the rarer outcome has
    few item-runs e = N R min(r, 1 - r), where b and w are read from a handful of events."""
    items = float(sizes.sum())
    r = float(sums.sum()) / items
    events = items * runs * min(r, 1.0 - r)
    deff = items * runs / run_cap(sums, sumsq, sizes, runs)
    deff = (events * deff + SHRINK_EVENTS * runs) / (events + SHRINK_EVENTS)
    return items * runs / deff


def arm_interval(cells: FloatArray, sums: FloatArray, sumsq: FloatArray, sizes: FloatArray,
                 kind: str, cap_first: bool = False, cap: str = "item-runs") -> ArmInterval:
    """The binomial interval `kind` on n* of CR2 + V_run, cap N R (see the module doc);
    `cap_first`: n* = min(r (1 - r) / V, M) (t_{M-1,q} / t_{nu,q})^2, the df adjustment
    kept where the cap binds (a design effect truncated at 1, then the df adjustment).
    `cap`: ``item-runs`` M = N R, ``items`` M = N, ``deff`` M = :func:`run_cap` (the t
    quantile's df stays M - 1)."""
    runs = int(cells.shape[1])
    items = float(sizes.sum())
    total = {"item-runs": items * runs, "items": items,
             "deff": run_cap(sums, sumsq, sizes, runs),
             "deffk": run_cap_shrunk(sums, sumsq, sizes, runs)}[cap]
    cr2 = cr2_ratio_estimate(sums, sizes, sumsq=sumsq)
    comp = run_variance_component(cells, sizes)
    r, v = cr2.estimate, cr2.variance + comp.variance
    if not 0.0 < r < 1.0:
        n_eff, boundary = items, True
    else:
        nu = run_inclusive_df(cr2.variance, max(cr2.df, 1.0), comp.variance, runs) \
            if v > 0.0 else max(cr2.df, 1.0)
        raw = r * (1.0 - r) / v if v > 0.0 else total
        ratio = float(stats.t.ppf(Q, total - 1.0) / stats.t.ppf(Q, nu))
        n_eff = min(raw, total) * ratio * ratio if cap_first else \
            min(raw * ratio * ratio, total)
        boundary = False
    lower, upper = BINOMIAL[kind](r, n_eff)
    # rounding: Wilson's lower bound at r = 0 is 0 up to 1e-17
    return ArmInterval(r, min(lower, r), max(upper, r), v, n_eff, boundary, comp.variance)


_MEMO: dict[str, object] = {}


def _memo(chunk: Chunk, key: tuple[str, int], make: Callable[[], str]) -> str:
    """The old rule's label of replicate j, computed once per chunk for all methods."""
    if _MEMO.get("chunk") is not chunk:
        _MEMO.clear()
        _MEMO["chunk"] = chunk
    if key not in _MEMO:
        _MEMO[key] = make()  # type: ignore[index]
    return str(_MEMO[key])  # type: ignore[index]


def _old_arm(chunk: Chunk, j: int) -> str:
    if choose_method("auto", _design(chunk, j)).widened:
        return "flagged design"
    if is_sparse(chunk.sums_a[j], chunk.sizes[j]):
        return "sparse arm (old rule)"
    return _runtest(_arm_runs_material(chunk, j))


def _old_pair(chunk: Chunk, j: int) -> str:
    if choose_method("auto", _design(chunk, j)).widened:
        return "flagged design"
    if sparse_difference(chunk.sums_a[j], chunk.sums_b[j], chunk.sizes[j],
                         conf=CONF) is not None:
        return "sparse pair (old rule)"
    return _runtest(_pair_runs_material(chunk, j))


def _arm_labels(chunk: Chunk, j: int, res: ArmInterval) -> tuple[str, ...]:
    return ("r at 0 or 1" if res.boundary else "0 < r < 1",
            "V_run = 0" if res.run_variance == 0.0 else "V_run > 0",
            _memo(chunk, ("arm", j), lambda: _old_arm(chunk, j)))


def _accuracy(kind: str, cap_first: bool,
              cap: str = "item-runs") -> Callable[[Chunk, int, Context], Labelled]:
    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        res = arm_interval(chunk.runs_a[j], chunk.sums_a[j], chunk.sumsq_a[j],
                           chunk.sizes[j], kind, cap_first, cap)
        return (res.estimate, res.lower, res.upper, float(res.boundary),
                _arm_labels(chunk, j, res))
    return run


def _pair_labels(chunk: Chunk, j: int, ia: ArmInterval, ib: ArmInterval) -> tuple[str, ...]:
    return ("an arm at 0 or 1" if (ia.boundary or ib.boundary) else "0 < r < 1 (both)",
            "V_run = 0 (both)" if ia.run_variance == ib.run_variance == 0.0
            else "V_run > 0 (an arm)",
            _memo(chunk, ("pair", j), lambda: _old_pair(chunk, j)))


def _total_correlation(chunk: Chunk, j: int, ia: ArmInterval, ib: ArmInterval) -> float:
    """rho = (V_A + V_B - V_D) / (2 sqrt(V_A V_B)), each V the CR2 + run variance."""
    sizes = chunk.sizes[j]
    cr2_d = cr2_ratio_estimate(chunk.diff_sums[j], sizes, sumsq=chunk.sumsq_d[j])
    v_d = cr2_d.variance + run_variance_component(chunk.runs_a[j] - chunk.runs_b[j],
                                                  sizes).variance
    scale = math.sqrt(ia.variance * ib.variance)
    if not scale > 0.0:
        return 0.0
    return min(max((ia.variance + ib.variance - v_d) / (2.0 * scale), -1.0), 1.0)


def _difference(kind: str, correlation: str, cap_first: bool,
                cap: str = "item-runs") -> Callable[[Chunk, int, Context], Labelled]:
    def run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
        sizes = chunk.sizes[j]
        ia = arm_interval(chunk.runs_a[j], chunk.sums_a[j], chunk.sumsq_a[j], sizes, kind,
                          cap_first, cap)
        ib = arm_interval(chunk.runs_b[j], chunk.sums_b[j], chunk.sumsq_b[j], sizes, kind,
                          cap_first, cap)
        labels = _pair_labels(chunk, j, ia, ib)
        if correlation == "clusters":
            d, lower, upper = _mover_of(ia, ib, chunk.sums_a[j], chunk.sums_b[j], sizes)
        else:
            rho = _total_correlation(chunk, j, ia, ib)
            res = mover_difference_interval((ia.estimate, ia.lower, ia.upper),
                                            (ib.estimate, ib.lower, ib.upper),
                                            correlation=rho, conf=CONF)
            d, lower, upper = res.estimate, max(res.lower, -1.0), min(res.upper, 1.0)
        return d, lower, upper, float(ia.boundary or ib.boundary), labels
    return run


def paired_cr2_run(chunk: Chunk, j: int, ctx: Context) -> Labelled:
    """CR2 t of the difference plus the run component (the report's ``cluster_run_t``), in
    every replicate; the CR2 t alone where the run-inclusive interval is undefined."""
    sizes = chunk.sizes[j]
    res = paired_difference_interval(chunk.diff_sums[j], sizes, conf=CONF, variance="CR2",
                                     sumsq=chunk.sumsq_d[j])
    comp = run_variance_component(chunk.runs_a[j] - chunk.runs_b[j], sizes)
    ia = ArmInterval(0, 0, 0, 0, 0, False, comp.variance)
    labels = _pair_labels(chunk, j, ia, ia)
    if math.isfinite(res.lower) and res.df is not None:
        ri = run_inclusive(res.estimate, res.standard_error ** 2, res.df, comp, chunk.runs,
                           conf=CONF, logit=False, low=-1.0)
        if ri is not None:
            return res.estimate, ri.lower, ri.upper, 0.0, labels
    if not math.isfinite(res.lower):
        return res.estimate, -1.0, 1.0, 1.0, ("undefined (printed as [-1, 1])", *labels)
    return res.estimate, res.lower, res.upper, 0.0, labels


CAPS = {"": False, "_d1": True}
"""Method name suffix: the cap after the df adjustment (Korn-Graubard's), or before (_d1)."""

UNIFIED_METHODS: dict[str, Method] = {m.name: m for m in (
    *(Method(f"{k}_cr2_run{c}", "accuracy", _accuracy(k, f)) for k in BINOMIAL
      for c, f in CAPS.items()),
    *(Method(f"mover_{k}_cr2_run{c}", "difference", _difference(k, "clusters", f))
      for k in BINOMIAL for c, f in CAPS.items()),
    *(Method(f"mover_{k}_cr2_run_tot{c}", "difference", _difference(k, "total", f))
      for k in BINOMIAL for c, f in CAPS.items()),
    *(Method(f"{k}_cr2_run_{c}", "accuracy", _accuracy(k, False, c))
      for k in BINOMIAL for c in ("items", "deff", "deffk")),
    *(Method(f"mover_{k}_cr2_run_{c}", "difference", _difference(k, "clusters", False, c))
      for k in BINOMIAL for c in ("items", "deff")),
    *(Method(f"mover_{k}_cr2_run_tot_{c}", "difference", _difference(k, "total", False, c))
      for k in BINOMIAL for c in ("items", "deff", "deffk")),
    Method("paired_cr2_run", "difference", paired_cr2_run),
)}
"""Registered by ``coverage_simulation`` beside ``coverage_methods.METHODS``."""

__all__ = ["UNIFIED_METHODS", "arm_interval"]
