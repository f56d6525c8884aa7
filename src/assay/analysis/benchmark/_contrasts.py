"""Paired differences between arms: the contrasts and the simultaneous (max-t) intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.analysis.benchmark._accuracy import (
    RUN_NOTE,
    ZERO_SE,
    RunInclusive,
    run_effect_p,
    run_inclusive,
    run_material,
)
from assay.analysis.benchmark._data import BenchData
from assay.analysis.benchmark._design import is_sparse
from assay.errors import ConfigError
from assay.stats._results import Alternative, IntervalResult
from assay.stats.contrasts import (
    max_t_critical_value,
    mover_difference_interval,
    paired_difference_interval,
    tango_effective_n,
    tango_interval,
)
from assay.stats.intervals import (
    korn_graubard_interval,
    korn_graubard_midp_interval,
    run_variance_component,
    two_way_cluster_variance,
)

FloatArray = npt.NDArray[np.float64]
Record = dict[str, Any]
MOVER_METHOD = "mover_korn_graubard_midp"
"""The ``method`` of a sparse pair's interval: MOVER on the arms' intervals on n*, mid-p for
a sparse arm (:func:`sparse_difference`)."""
SPARSE_PAIR_COVERAGE = "96-97.5%"
"""The grid's coverage of that interval in its sparse cells (run F), quoted in the note."""

MAX_T_DRAWS = 100_000
"""Draws of the multivariate t for the max-t critical value (hr_report, "Rankings")."""


def resolve_contrasts(arms: Sequence[str], contrasts: Any) -> list[tuple[int, int]]:
    """Arm index pairs (first, second) of the contrasts; all pairs in benchmark order if None.

    ``contrasts`` is a sequence of (arm1, arm2) pairs, a (K, 2) array or a two-column
    DataFrame; each pair gives arm1 minus arm2.
    """
    if contrasts is None:
        return list(combinations(range(len(arms)), 2))
    if hasattr(contrasts, "to_numpy"):
        contrasts = contrasts.to_numpy()
    index = {arm: a for a, arm in enumerate(arms)}
    pairs: list[tuple[int, int]] = []
    for pair in contrasts:
        items = list(pair) if not isinstance(pair, str) else [pair]
        if len(items) != 2:
            raise ConfigError(f"contrasts: each contrast is a pair (arm1, arm2), got {pair!r}")
        first, second = (str(x) for x in items)
        unknown = [x for x in (first, second) if x not in index]
        if unknown:
            raise ConfigError(f"contrasts: no arm named {unknown[0]!r} in the bench "
                              f"(arms: {', '.join(arms)})")
        if first == second:
            raise ConfigError(f"contrasts: {first!r} minus itself is not a contrast")
        pairs.append((index[first], index[second]))
    return pairs


def tango_items(p_first: FloatArray, p_second: FloatArray, n_clusters: int, *,
                level: float) -> tuple[IntervalResult, float]:
    """Tango's score interval with items as the pairs, two-sided at 1 - 2 x level.

    The discordant shares are q10 = mean(p1 (1 - p2)) and q01 = mean((1 - p1) p2) over
    items, and the pairs number n_eff = I (z_(1-a) / t_(C-1, 1-a))^2 for one-sided level a.
    Returns the interval and n_eff.
    """
    q10 = float(np.mean(p_first * (1.0 - p_second)))
    q01 = float(np.mean((1.0 - p_first) * p_second))
    n_eff = float(tango_effective_n(p_first.size, n_clusters, level))
    result = tango_interval(q10, q01, n_eff, conf=1.0 - 2.0 * level, alternative="two-sided")
    return result, n_eff


@dataclass(frozen=True)
class PairedData:
    """Item accuracies and their cluster sums, shared by contrasts, max-t and NI."""

    item_accuracy: FloatArray
    """p_ia, shape (I, A)."""
    sums: FloatArray
    """S_ca, shape (C, A)."""
    sizes: FloatArray
    n_clusters: int
    item_cluster: npt.NDArray[np.int64]
    """Cluster index of each item, shape (I,)."""
    effective: float | None = None
    """G* of a flagged design under the auto rule: the t intervals then take the
    Bell-McCaffrey df of the independence working model. None otherwise."""
    scores: FloatArray | None = None
    """y_iar, shape (I, A, R): the run component of a difference."""
    auto: bool = False
    """The auto rule in a design it does not widen: a sparse pair gets the MOVER interval
    from the arms' intervals on the Korn-Graubard n* (mid-p for a sparse arm), a positive
    run component the cluster-run t."""

    @classmethod
    def of(cls, data: BenchData, *, effective: float | None = None,
           auto: bool = False) -> PairedData:
        p = data.scores.mean(axis=2)
        return cls(p, data.cluster_sums(p), data.sizes, data.n_clusters, data.item_cluster,
                   effective, data.scores, auto)

    def diff_sumsq(self, first: int, second: int) -> FloatArray:
        """Cluster sums of squared item differences, for the working ICC of the CR2 df."""
        diff = self.item_accuracy[:, first] - self.item_accuracy[:, second]
        return np.bincount(self.item_cluster, weights=diff * diff, minlength=self.n_clusters)

    def difference(self, first: int, second: int, *, conf: float,
                   alternative: Alternative = "two-sided") -> IntervalResult:
        """CR2 t interval of first minus second, on Bell-McCaffrey df at the working ICC, or
        in a flagged design (``effective`` set) on those of the independence working model
        (see ``_accuracy.accuracy_section``)."""
        diff = self.sums[:, first] - self.sums[:, second]
        sumsq = None if self.effective is not None else self.diff_sumsq(first, second)
        return paired_difference_interval(diff, self.sizes, conf=conf,
                                          alternative=alternative, variance="CR2", sumsq=sumsq)

    @property
    def t_method(self) -> str:
        """The ``method`` of a CR2 t difference: ``cluster_robust_t``, or
        ``cluster_robust_t_independent_df`` in a flagged design."""
        return "cluster_robust_t" if self.effective is None else FLAGGED_METHOD

    def sparse_difference(self, first: int, second: int, *, conf: float) -> IntervalResult | None:
        """:func:`sparse_difference` of two arms."""
        return sparse_difference(self.sums[:, first], self.sums[:, second], self.sizes,
                                 conf=conf)

    def run_difference(self, first: int, second: int, *,
                       conf: float) -> RunDifference | None:
        """:func:`run_difference` of two arms (None without scores or a CR2 variance)."""
        if self.scores is None or self.scores.shape[2] < 2 or self.n_clusters < 2:
            return None
        one_way = self.difference(first, second, conf=conf)
        if not one_way.standard_error > ZERO_SE or one_way.df is None:
            return None
        diff = self.scores[:, first, :] - self.scores[:, second, :]
        cells = np.stack([np.bincount(self.item_cluster, weights=diff[:, r],
                                      minlength=self.n_clusters)
                          for r in range(diff.shape[1])], axis=1)
        return run_difference(one_way, cells, self.sizes, conf=conf)


@dataclass(frozen=True)
class RunDifference:
    """A paired difference whose interval adds the run component (issue 26)."""

    interval: RunInclusive
    one_way: IntervalResult
    """The CR2 t interval over clusters alone: about the runs observed."""
    material: bool
    """The run component is large (``_accuracy.run_material``): the notes say so."""


def sparse_difference(sums_1: FloatArray, sums_2: FloatArray, sizes: FloatArray, *,
                      conf: float, force: bool = False) -> IntervalResult | None:
    """MOVER from the arms' intervals on the Korn-Graubard n* when either arm is sparse.

    A sparse arm (:func:`~assay.analysis.benchmark._design.is_sparse`) enters with its mid-p
    interval on n* (:func:`~assay.stats.korn_graubard_midp_interval`, two-sided also at
    accuracy 0 or 1), the other arm with Clopper-Pearson on n*
    (:func:`~assay.stats.korn_graubard_interval`). Until issue 26's fourth session both arms
    entered with Clopper-Pearson, whose MOVER covered 97.2-98.6% in the grid's sparse cells
    (`ext-0.02-small`, `ext-0.98`, `ext-0.02`); mid-p for a sparse arm brings them to
    95.95-97.50% (two seeds of 2,000 replicates), and mid-p for both arms too would take
    `ext-0.02-0.04` (0.02 against a non-sparse 0.04) to 93.05%, below the band (run F,
    ``bench/results/coverage_grid.txt``).
    The correlation of the two estimates is that of their linearised cluster residuals
    S_ca - r_a n_c (0 when either arm has no spread). None when neither arm is sparse and
    not `force`.
    """
    sparse_1, sparse_2 = is_sparse(sums_1, sizes), is_sparse(sums_2, sizes)
    if not (force or sparse_1 or sparse_2):
        return None
    kg_1 = _arm_interval(sums_1, sizes, sparse=sparse_1, conf=conf)
    kg_2 = _arm_interval(sums_2, sizes, sparse=sparse_2, conf=conf)
    e_1 = sums_1 - kg_1.estimate * sizes
    e_2 = sums_2 - kg_2.estimate * sizes
    scale = math.sqrt(float(e_1 @ e_1) * float(e_2 @ e_2))
    rho = min(max(float(e_1 @ e_2) / scale, -1.0), 1.0) if scale > 0.0 else 0.0
    result = mover_difference_interval((kg_1.estimate, kg_1.lower, kg_1.upper),
                                       (kg_2.estimate, kg_2.lower, kg_2.upper),
                                       correlation=rho, conf=conf)
    return replace(result, lower=_clip(result.lower), upper=_clip(result.upper),
                   method=MOVER_METHOD)


def _arm_interval(sums: FloatArray, sizes: FloatArray, *, sparse: bool,
                  conf: float) -> IntervalResult:
    """An arm's part of a sparse pair's MOVER: mid-p on n* when the arm is sparse, else
    Clopper-Pearson on n* (:func:`sparse_difference`)."""
    interval = korn_graubard_midp_interval if sparse else korn_graubard_interval
    return interval(sums, sizes, conf=conf)


def run_difference(one_way: IntervalResult, cells: FloatArray, sizes: FloatArray, *,
                   conf: float) -> RunDifference | None:
    """The CR2 t interval of a difference with its run component added, whatever its size.

    `cells` (C, R) are the cluster sums of the item differences in each run. The interval is
    d -/+ t_nu sqrt(V_1 + V_run) cut to [-1, 1] (``_accuracy.run_inclusive``); None when
    the run component is 0 (the CR2 t stands).
    """
    component = run_variance_component(cells, sizes)
    interval = run_inclusive(one_way.estimate, one_way.standard_error**2,
                             float(one_way.df or 1.0), component, cells.shape[1], conf=conf,
                             logit=False, low=-1.0)
    if interval is None:
        return None
    material = run_material(two_way_cluster_variance(cells, sizes), run_effect_p(cells, sizes))
    return RunDifference(interval, one_way, material)


def contrasts_section(paired: PairedData, arms: Sequence[str], pairs: list[tuple[int, int]],
                      *, conf: float, descriptive: bool) -> tuple[list[Record], list[str]]:
    """Cluster-robust t interval of each paired difference; Tango on items when V_d = 0."""
    records: list[Record] = []
    notes: list[str] = []
    run_pairs: list[str] = []
    n_items = paired.item_accuracy.shape[0]
    for first, second in pairs:
        record: Record = {"arm1": arms[first], "arm2": arms[second]}
        if descriptive:
            estimate = float(np.mean(paired.item_accuracy[:, first]
                                     - paired.item_accuracy[:, second]))
            record.update(estimate=estimate, standard_error=None, lower=None, upper=None,
                          df=None, method="descriptive", n_eff=None)
            records.append(record)
            continue
        result = paired.difference(first, second, conf=conf)
        record.update(estimate=result.estimate, standard_error=result.standard_error,
                      df=result.df)
        name = f"{arms[first]} - {arms[second]}"
        sparse = paired.sparse_difference(first, second, conf=conf) if paired.auto else None
        runs = None if sparse is not None or not paired.auto else \
            paired.run_difference(first, second, conf=conf)
        if sparse is not None:
            record.update(lower=sparse.lower, upper=sparse.upper, method=sparse.method,
                          df=None, n_eff=None)
            notes.append(
                f"{name}: one arm's rarer outcome sits in too few clusters for a t interval "
                f"(in assay's coverage simulation at accuracy 0.02 the t interval of the "
                f"difference covered 90%): its interval combines the two arms' intervals on "
                f"the Korn-Graubard effective n (mid-p for a sparse arm, Clopper-Pearson for "
                f"the other) by MOVER (Newcombe 1998; Zou and Donner 2008), which covered "
                f"{SPARSE_PAIR_COVERAGE} there.")
        elif runs is not None:
            ri = runs.interval
            record.update(lower=ri.lower, upper=ri.upper, method=RUN_METHOD,
                          standard_error=ri.standard_error, df=ri.df, n_eff=None)
            run_pairs.append(name)
            if runs.material:
                one_way = f"[{_clip(result.lower):.3g}, {_clip(result.upper):.3g}]"
                notes.append(
                    f"{name}: the runs differ more than the items explain (run component "
                    f"{ri.run_variance:.3g} against {result.standard_error ** 2:.3g} over "
                    f"clusters): its interval, about runs in general, is wide for that reason; "
                    f"for these runs only, the one-way interval is {one_way}.")
        elif result.standard_error <= ZERO_SE:
            tango, n_eff = tango_items(paired.item_accuracy[:, first],
                                       paired.item_accuracy[:, second], paired.n_clusters,
                                       level=(1.0 - conf) / 2.0)
            record.update(lower=tango.lower, upper=tango.upper, method="tango_items",
                          n_eff=n_eff)
            notes.append(
                f"Every cluster gives the same mean difference per item for {arms[first]} - "
                f"{arms[second]} (V_d = 0), which is a property of the items, not a known "
                f"difference: its interval is Tango's score interval with items as pairs, on "
                f"n_eff = {n_eff:.1f} of {n_items} items.")
        else:
            record.update(lower=_clip(result.lower), upper=_clip(result.upper),
                          method=paired.t_method, n_eff=None)
        records.append(record)
    if run_pairs:
        notes.append(RUN_NOTE.format(what="The differences " + ", ".join(run_pairs)))
    return records, notes


FLAGGED_METHOD = "cluster_robust_t_independent_df"
"""The method of a paired difference in a flagged design under the auto rule."""
RUN_METHOD = "cluster_run_t"
"""The method of a paired difference whose interval adds the run component."""


def simultaneous_section(paired: PairedData, arms: Sequence[str], *, conf: float,
                         rng: np.random.Generator | None,
                         descriptive: bool) -> tuple[list[Record], list[str]]:
    """Single-step max-t intervals over every pairwise difference (Hothorn et al. 2008).

    The covariance of the differences is CR2, sum_c w_c e_c e_c' / N^2 with w_c = 1 /
    (1 - n_c/N) (hr_report's C/(C-1) estimator when the clusters have one size), and the
    multivariate t takes the smallest Bell-McCaffrey df of the pairs (C - 1 when balanced).

    Pairs with V_d = 0 get Tango's interval at the Bonferroni level (1 - conf) / (2 P), and
    under the auto rule sparse pairs and pairs with a material run component their own
    interval at 1 - (1 - conf) / P; the max-t part then runs at 1 - (1 - conf) P+ / P, P+
    the other pairs.
    """
    pairs = list(combinations(range(len(arms)), 2))
    if not pairs:
        return [], []
    first = np.array([p[0] for p in pairs])
    second = np.array([p[1] for p in pairs])
    diff_items = paired.item_accuracy[:, first] - paired.item_accuracy[:, second]
    estimates = diff_items.mean(axis=0)
    base = [{"arm1": arms[i], "arm2": arms[j], "estimate": float(estimates[k])}
            for k, (i, j) in enumerate(pairs)]
    if descriptive or rng is None:
        for record in base:
            record.update(standard_error=None, lower=None, upper=None, method="descriptive",
                          critical_value=None)
        return base, []

    n_clusters, total = paired.n_clusters, paired.sizes.sum()
    diff_sums = paired.sums[:, first] - paired.sums[:, second]
    residuals = diff_sums - np.outer(paired.sizes, estimates)
    weighted = residuals / (1.0 - paired.sizes / total)[:, None]  # CR2 (Bell-McCaffrey)
    covariance = (weighted.T @ residuals) / total**2
    se = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    n_pairs = len(pairs)
    special = _special_pairs(paired, pairs, conf=1.0 - (1.0 - conf) / n_pairs)
    varying = (se > ZERO_SE) & np.array([k not in special for k in range(n_pairs)])
    n_varying = int(varying.sum())
    df = min((paired.difference(i, j, conf=conf).df or n_clusters - 1.0)
             for (i, j), v in zip(pairs, varying, strict=True) if v) if varying.any() \
        else n_clusters - 1.0
    critical = np.nan
    if n_varying:
        level = 1.0 - (1.0 - conf) * n_varying / n_pairs
        critical = float(max_t_critical_value(covariance[np.ix_(varying, varying)], df,
                                              conf=level, draws=MAX_T_DRAWS, rng=rng))
    notes: list[str] = []
    for k, record in enumerate(base):
        if varying[k]:
            record.update(standard_error=float(se[k]),
                          lower=_clip(estimates[k] - critical * se[k]),
                          upper=_clip(estimates[k] + critical * se[k]),
                          method="max_t_cluster_robust", critical_value=float(critical))
            continue
        if k in special:
            result = special[k]
            record.update(standard_error=result.standard_error, lower=result.lower,
                          upper=result.upper, method=result.method, critical_value=None)
            continue
        tango, _ = tango_items(paired.item_accuracy[:, first[k]],
                               paired.item_accuracy[:, second[k]], n_clusters,
                               level=(1.0 - conf) / (2.0 * n_pairs))
        record.update(standard_error=float(se[k]), lower=tango.lower, upper=tango.upper,
                      method="tango_items", critical_value=None)
    if n_varying + len(special) < n_pairs:
        notes.append(
            f"{n_pairs - n_varying - len(special)} of {n_pairs} pairwise differences have "
            f"V_d = 0: their simultaneous intervals are Tango's on items at the Bonferroni "
            f"level (1 - conf) / (2 x {n_pairs}), and the max-t part runs at "
            f"{1.0 - (1.0 - conf) * n_varying / n_pairs:.4g}.")
    if special:
        notes.append(
            f"{len(special)} of {n_pairs} pairwise differences are sparse or carry a positive "
            f"run component: their simultaneous intervals are their own (MOVER on "
            f"mid-p Korn-Graubard, or the cluster-run t) at the Bonferroni level 1 - (1 - conf) / "
            f"{n_pairs}, and the max-t part runs at "
            f"{1.0 - (1.0 - conf) * n_varying / n_pairs:.4g}.")
    return base, notes


def _special_pairs(paired: PairedData, pairs: list[tuple[int, int]], *,
                   conf: float) -> dict[int, IntervalResult]:
    """Under the auto rule, the pairs whose contrast is not the CR2 t, with their interval at
    `conf`: MOVER on mid-p Korn-Graubard for a sparse pair, the cluster-run t for a positive run
    component (as :func:`contrasts_section` chooses)."""
    out: dict[int, IntervalResult] = {}
    if not paired.auto:
        return out
    for k, (i, j) in enumerate(pairs):
        sparse = paired.sparse_difference(i, j, conf=conf)
        if sparse is not None:
            out[k] = sparse
            continue
        runs = paired.run_difference(i, j, conf=conf)
        if runs is not None:
            ri = runs.interval
            out[k] = IntervalResult(estimate=runs.one_way.estimate, lower=ri.lower,
                                    upper=ri.upper, standard_error=ri.standard_error,
                                    method=RUN_METHOD, conf=conf, df=ri.df)
    return out


def _clip(value: float) -> float:
    return float(min(1.0, max(-1.0, value)))
