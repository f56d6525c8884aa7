"""Data model of the coverage simulation: the cells of the grid, the generation and the truth.

Generation, per replicate and arm (the hierarchy of hr_report's simulation, extended):

* cluster accuracy  p_c ~ Beta with mean mu_arm and intra-cluster correlation rho_cluster,
  i.e. Beta(mu (1 - rho) / rho, (1 - mu) (1 - rho) / rho), so Var(p_c) = rho mu (1 - mu);
* item accuracy     p_i | p_c ~ Beta(p_c k, (1 - p_c) k), k = (1 - rho_item) / rho_item;
* run shift         delta_r ~ N(0, run_sd^2) on the logit scale, one per run and arm, shared
  by every item (crossed runs: one run is a whole pass with one seed or snapshot); the two
  arms' shifts of a run correlate at ``run_corr`` (``arm_corr`` unless the cell says);
* runs              Bernoulli(expit(logit p_i + delta_r)) per item and run (p_i when
  run_sd = 0).

The two arms share their clusters, items and runs through a Gaussian copula: every draw of
arm B is the quantile of Phi(z_B) with z_B = arm_corr z_A + sqrt(1 - arm_corr^2) z'. Cluster
sizes are fixed by the cell, or drawn afresh for every replicate (``random`` cells).

Estimand: the expected accuracy of an item run, E[expit(logit p_i + delta)], the mean the
ratio estimator targets over clusters, items and (with crossed runs) runs. With run_sd = 0
it is mu_arm exactly, because the sizes do not depend on the accuracies. With run_sd > 0 it
is computed once per cell: Gauss-Hermite over delta (64 nodes) of the mean of expit over 2
million draws of p_i from the hierarchy (Monte Carlo error below 2e-4).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt
from scipy import special

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

SizeRule = Callable[[np.random.Generator, int], IntArray]
"""Draws the cluster sizes of `reps` replicates: shape (reps, C)."""


def _zipf_sizes(top: int, clusters: int) -> IntArray:
    return np.ceil(top / np.arange(1, clusters + 1)).astype(np.int64)


def _large_sizes() -> IntArray:
    """hr_report's large design: 386 items in 40 clusters, 4 to 15 items per cluster."""
    sizes = np.rint(np.linspace(4.0, 15.3, 40)).astype(np.int64)
    if int(sizes.sum()) != 386:
        raise AssertionError("the large design must hold 386 items")
    return sizes


LARGE_SIZES = _large_sizes()
SMALL_SIZES = np.full(10, 5, dtype=np.int64)


def _mixed(rng: np.random.Generator, reps: int) -> IntArray:
    """40 clusters: each is 30-90 items with chance 0.15, else a single item."""
    big = rng.random((reps, 40)) < 0.15
    return np.where(big, rng.integers(30, 91, size=(reps, 40)), 1).astype(np.int64)


def _pareto(rng: np.random.Generator, reps: int) -> IntArray:
    """30 clusters of 1 + floor(3 Pareto(1.5)) items, at most 150 (heavy-tailed)."""
    return np.minimum(1 + np.floor(3.0 * rng.pareto(1.5, size=(reps, 30))), 150).astype(np.int64)


@dataclass(frozen=True)
class Cell:
    """One design of the grid."""

    name: str
    family: str
    label: str
    sizes: IntArray | None = None
    """Fixed cluster sizes; None when ``random`` draws them per replicate."""
    random: SizeRule | None = None
    mu_a: float = 0.75
    mu_b: float = 0.70
    rho_cluster: float = 0.10
    rho_item: float = 0.50
    arm_corr: float = 0.70
    run_sd: float = 0.0
    runs: int = 5
    run_corr: float | None = None
    """Correlation of the two arms' run shifts; None: ``arm_corr``. 0 gives a shift per arm,
    independent between arms (issue 26)."""
    truth_cache: dict[str, float] = field(default_factory=dict, compare=False, repr=False)

    def draw_sizes(self, rng: np.random.Generator, reps: int) -> IntArray:
        if self.random is not None:
            return self.random(rng, reps)
        assert self.sizes is not None
        return np.broadcast_to(self.sizes, (reps, self.sizes.size)).copy()

    def truth(self) -> tuple[float, float]:
        """(accuracy of arm A, difference A - B), the estimands (see the module docstring)."""
        if self.run_sd == 0.0:
            return self.mu_a, self.mu_a - self.mu_b
        if "a" not in self.truth_cache:
            self.truth_cache["a"] = _crossed_truth(self.mu_a, self.rho_cluster, self.rho_item,
                                                   self.run_sd, seed=1)
            self.truth_cache["b"] = _crossed_truth(self.mu_b, self.rho_cluster, self.rho_item,
                                                   self.run_sd, seed=2)
        a, b = self.truth_cache["a"], self.truth_cache["b"]
        return a, a - b


def _beta_quantile(mean: FloatArray, rho: float, u: FloatArray) -> FloatArray:
    k = (1.0 - rho) / rho
    out: FloatArray = special.betaincinv(mean * k, (1.0 - mean) * k, u)
    return out


def _crossed_truth(mu: float, rho_cluster: float, rho_item: float, run_sd: float, *,
                   seed: int) -> float:
    rng = np.random.default_rng(seed)
    n = 2_000_000
    pc = _beta_quantile(np.full(n, mu), rho_cluster, rng.random(n))
    pi = _beta_quantile(pc, rho_item, rng.random(n))
    logit = special.logit(np.clip(pi, 1e-300, 1.0 - 1e-16))
    nodes, weights = np.polynomial.hermite_e.hermegauss(64)
    weights = weights / weights.sum()
    total = 0.0
    for node, weight in zip(nodes, weights, strict=True):
        total += weight * float(np.mean(special.expit(logit + run_sd * node)))
    return total


CELLS: tuple[Cell, ...] = (
    Cell("spec-small", "specification", "50 items / 10 clusters of 5", SMALL_SIZES),
    Cell("spec-large", "specification", "386 items / 40 clusters of 4-15", LARGE_SIZES),
    Cell("uneq-3big", "unequal fixed", "100, 60, 40 + 37 singletons",
         np.array([100, 60, 40] + [1] * 37)),
    Cell("uneq-4big", "unequal fixed", "4 x 92-93 + 46 singletons (416)",
         np.array([93, 93, 92, 92] + [1] * 46)),
    Cell("uneq-zipf", "unequal fixed", "30 clusters, n_c = ceil(120 / c)",
         _zipf_sizes(120, 30)),
    Cell("rand-mixed", "unequal random", "40 clusters, 15% of 30-90 items, rest 1",
         random=_mixed),
    Cell("rand-pareto", "unequal random", "30 clusters, 1 + 3 Pareto(1.5) items",
         random=_pareto),
    Cell("few-4", "few clusters", "4 clusters of 10", np.full(4, 10)),
    Cell("few-6-uneq", "few clusters", "6 clusters of 2, 4, 6, 10, 15, 25",
         np.array([2, 4, 6, 10, 15, 25])),
    Cell("few-8", "few clusters", "8 clusters of 5", np.full(8, 5)),
    Cell("ext-0.98", "extremes", "accuracy 0.98 (B 0.97), 10 x 5", SMALL_SIZES,
         mu_a=0.98, mu_b=0.97),
    Cell("ext-0.02", "extremes", "accuracy 0.02 (B 0.01), 30 x 5", np.full(30, 5),
         mu_a=0.02, mu_b=0.01),
    Cell("ext-0.98-uneq", "extremes", "accuracy 0.98 (B 0.97), 100, 60, 40 + 37",
         np.array([100, 60, 40] + [1] * 37), mu_a=0.98, mu_b=0.97),
    Cell("icc-0.5", "high ICC", "cluster ICC 0.5, 20 x 10", np.full(20, 10),
         rho_cluster=0.5),
    Cell("icc-0.5-large", "high ICC", "cluster ICC 0.5, 386 items / 40", LARGE_SIZES,
         rho_cluster=0.5),
    Cell("arms-0.95", "correlated arms", "arm correlation 0.95, B 0.74, 20 x 10",
         np.full(20, 10), mu_b=0.74, arm_corr=0.95),
    Cell("run-noise", "run noise", "accuracy 0.5, item ICC 0.02, 20 x 10", np.full(20, 10),
         mu_a=0.5, mu_b=0.45, rho_cluster=0.05, rho_item=0.02),
    Cell("crossed-0.3", "crossed runs", "run shift sd 0.3 (logit), 386 / 40", LARGE_SIZES,
         run_sd=0.3),
    Cell("crossed-1.0", "crossed runs", "run shift sd 1.0 (logit), 386 / 40", LARGE_SIZES,
         run_sd=1.0),
    Cell("crossed-0.3-small", "crossed runs", "run shift sd 0.3 (logit), 10 x 5",
         SMALL_SIZES, run_sd=0.3),
    Cell("icc-0.5-zipf", "high ICC", "cluster ICC 0.5, 30 clusters, n_c = ceil(120 / c)",
         _zipf_sizes(120, 30), rho_cluster=0.5),
    # Appended (a cell's seeds follow its index): the edge of the sparse rule, and a small
    # run shift where the two-way interval should rarely be taken.
    Cell("ext-0.02-large", "extremes", "accuracy 0.02 (B 0.01), 100 x 5", np.full(100, 5),
         mu_a=0.02, mu_b=0.01),
    Cell("crossed-0.1", "crossed runs", "run shift sd 0.1 (logit), 386 / 40", LARGE_SIZES,
         run_sd=0.1),
    # Appended for issue 26: the cells where a pre-test's 'pass' branch under-covered in an
    # independent simulation. A run shift per arm, independent between arms, on 40 x 10;
    # sparse arms at 10 clusters; two rare accuracies over 40 clusters.
    Cell("crossed-arm-0.3", "crossed runs", "run shift per arm sd 0.3 (logit), 40 x 10",
         np.full(40, 10), run_sd=0.3, run_corr=0.0),
    Cell("crossed-arm-0.5", "crossed runs", "run shift per arm sd 0.5 (logit), 40 x 10",
         np.full(40, 10), run_sd=0.5, run_corr=0.0),
    Cell("ext-0.02-small", "extremes", "accuracy 0.02 (B 0.03), 10 x 5", SMALL_SIZES,
         mu_a=0.02, mu_b=0.03),
    Cell("ext-0.02-0.04", "extremes", "accuracy 0.02 (B 0.04), 40 x 10", np.full(40, 10),
         mu_a=0.02, mu_b=0.04),
    # Appended for issue 26 (second session): seed 003's example design, where the runs are
    # independent and items alike (no cluster or item effect to speak of), so the whole
    # variance is run noise; the run component added without a pre-test must not widen here.
    Cell("indep-runs-seed", "independent runs", "seed 003's 12 x 3, 0.7 vs 0.8, no effects",
         np.full(12, 3), mu_a=0.7, mu_b=0.8, rho_cluster=1e-6, rho_item=1e-6, arm_corr=0.0),
)
CELL_BY_NAME = {cell.name: cell for cell in CELLS}


@dataclass(frozen=True)
class Chunk:
    """`reps` replicates of a cell, reduced to what the intervals read."""

    sizes: FloatArray
    """n_c, shape (reps, C)."""
    runs_a: FloatArray
    """Correct runs of arm A per cluster and run, shape (reps, C, R)."""
    runs_b: FloatArray
    q10: FloatArray
    """Cluster sums of p_A (1 - p_B) over items (p = item accuracy over runs), (reps, C)."""
    q01: FloatArray
    """Cluster sums of (1 - p_A) p_B, (reps, C)."""
    sumsq_a: FloatArray
    """Cluster sums of p_A^2, (reps, C): the working ICC of the CR2 df."""
    sumsq_b: FloatArray
    """Cluster sums of p_B^2, (reps, C)."""
    sumsq_d: FloatArray
    """Cluster sums of (p_A - p_B)^2, (reps, C)."""

    @property
    def reps(self) -> int:
        return int(self.sizes.shape[0])

    @property
    def runs(self) -> int:
        return int(self.runs_a.shape[2])

    @cached_property
    def sums_a(self) -> FloatArray:
        """S_c of arm A, summed item accuracy (mean over runs) per cluster, (reps, C)."""
        out: FloatArray = self.runs_a.sum(axis=2) / self.runs
        return out

    @cached_property
    def sums_b(self) -> FloatArray:
        out: FloatArray = self.runs_b.sum(axis=2) / self.runs
        return out

    @cached_property
    def diff_sums(self) -> FloatArray:
        """D_c, cluster sums of the item differences A - B, (reps, C)."""
        out: FloatArray = self.sums_a - self.sums_b
        return out


def _pair(rng: np.random.Generator, shape: tuple[int, ...],
          corr: float) -> tuple[FloatArray, FloatArray]:
    z_a = rng.standard_normal(shape)
    z_b = corr * z_a + math.sqrt(1.0 - corr * corr) * rng.standard_normal(shape)
    return z_a, z_b


def simulate(cell: Cell, reps: int, rng: np.random.Generator) -> Chunk:
    """Draw `reps` replicates of `cell` (see the module docstring)."""
    sizes = cell.draw_sizes(rng, reps)
    n_clusters = sizes.shape[1]
    flat_sizes = sizes.ravel()
    cluster_of = np.repeat(np.arange(flat_sizes.size), flat_sizes)
    rep_of = cluster_of // n_clusters
    zc_a, zc_b = _pair(rng, (flat_sizes.size,), cell.arm_corr)
    pc_a = _beta_quantile(np.full(zc_a.size, cell.mu_a), cell.rho_cluster, special.ndtr(zc_a))
    pc_b = _beta_quantile(np.full(zc_b.size, cell.mu_b), cell.rho_cluster, special.ndtr(zc_b))
    zi_a, zi_b = _pair(rng, (cluster_of.size,), cell.arm_corr)
    pi_a = _beta_quantile(pc_a[cluster_of], cell.rho_item, special.ndtr(zi_a))
    pi_b = _beta_quantile(pc_b[cluster_of], cell.rho_item, special.ndtr(zi_b))
    runs = cell.runs
    if cell.run_sd > 0.0:
        run_corr = cell.arm_corr if cell.run_corr is None else cell.run_corr
        d_a, d_b = _pair(rng, (reps, runs), run_corr)
        pr_a = special.expit(special.logit(pi_a)[:, None] + cell.run_sd * d_a[rep_of])
        pr_b = special.expit(special.logit(pi_b)[:, None] + cell.run_sd * d_b[rep_of])
    else:
        pr_a = np.broadcast_to(pi_a[:, None], (pi_a.size, runs))
        pr_b = np.broadcast_to(pi_b[:, None], (pi_b.size, runs))
    u_a, u_b = _pair(rng, (cluster_of.size, runs), cell.arm_corr)
    y_a = (special.ndtr(u_a) < pr_a).astype(np.float64)
    y_b = (special.ndtr(u_b) < pr_b).astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(flat_sizes)[:-1]))
    p_a, p_b = y_a.mean(axis=1), y_b.mean(axis=1)
    shape = (reps, n_clusters)
    return Chunk(
        sizes=sizes.astype(np.float64),
        runs_a=np.add.reduceat(y_a, starts, axis=0).reshape((*shape, runs)),
        runs_b=np.add.reduceat(y_b, starts, axis=0).reshape((*shape, runs)),
        q10=np.add.reduceat(p_a * (1.0 - p_b), starts).reshape(shape),
        q01=np.add.reduceat((1.0 - p_a) * p_b, starts).reshape(shape),
        sumsq_a=np.add.reduceat(p_a * p_a, starts).reshape(shape),
        sumsq_b=np.add.reduceat(p_b * p_b, starts).reshape(shape),
        sumsq_d=np.add.reduceat((p_a - p_b) ** 2, starts).reshape(shape),
    )
