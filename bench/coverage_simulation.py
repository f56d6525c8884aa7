"""Coverage simulation of the benchmark report's intervals (seed 003), run by hand.

    python bench/coverage_simulation.py                      # defaults: 3 to 5.5 min on 2 cores
    python bench/coverage_simulation.py --reps 1000 --slow-reps 300 --B 999
    python bench/coverage_simulation.py --methods cluster_t,exact,paired --designs small

Not a test: ``tests/stats/intervals/test_coverage_fast.py`` runs a few hundred replicates of the
same simulation with loose bounds.

Designs (the seed's): ``large`` = 386 items in 40 clusters (sizes fixed, 4 to 15 items per
cluster, see ``LARGE_SIZES``), ``small`` = 50 items in 10 clusters of 5; 5 runs per item;
two arms for the paired differences.

Generation, per replicate (the cluster sizes are part of the design and stay fixed):

* cluster accuracy  p_c ~ Beta with mean mu_arm and intra-cluster correlation RHO_CLUSTER,
  i.e. Beta(mu (1 - rho) / rho, (1 - mu) (1 - rho) / rho), so Var(p_c) = rho mu (1 - mu);
* item accuracy     p_i | p_c ~ Beta with mean p_c and correlation RHO_ITEM, i.e.
  Beta(p_c k, (1 - p_c) k) with k = (1 - RHO_ITEM) / RHO_ITEM;
* runs              5 independent Bernoulli(p_i) per item and arm.

The two arms share their clusters and items through a Gaussian copula: each Beta draw is
the Beta quantile of Phi(z), and the z of arm B is correlated with the z of arm A (ARM_CORR
at the cluster and at the item level). The copula leaves each arm's margins exactly the
hierarchy above, so arm A has the accuracy distribution of the one-arm methods and the
true mean difference is exactly MU_A - MU_B.

Estimand. The ratio estimator r = sum_c S_c / sum_c n_c, with S_c the summed item
accuracy (mean over runs) of cluster c, targets the item-weighted mean of item accuracies;
with the sizes fixed and E[S_c] = n_c E[p_i] = n_c MU_A it is unbiased for MU_A = 0.75, so
the truth is 0.75 (not the realised mean of the replicate's item accuracies, and not the
mean of the observed runs). The Bayes interval is for mu, the mean of the cluster Beta,
each cluster weighted alike; in this design mu = MU_A as well, because the cluster
accuracies do not depend on the cluster sizes. Paired differences: the ratio estimator of
item differences A - B, with truth MU_A - MU_B = 0.05. The script prints the mean of the
point estimates over the replicates beside each truth as a check.

Methods, called on the cluster sums as the report calls them (stats functions directly):
``bootstrap`` studentised cluster bootstrap (B resamples), ``cluster_t`` logit cluster-robust
t, ``exact`` Korn-Graubard Clopper-Pearson, ``bayes`` beta-binomial grid posterior,
``paired`` cluster-robust t on the item differences. Where the report falls back (accuracy 0
or 1, V = 0, too few usable resamples; V_d = 0 for a contrast) the simulation falls back
the same way (Korn-Graubard, Tango on effective items) and counts it.

Reproducible: replicates come in chunks of CHUNK, and chunk k of a design draws its data
(and its bootstrap weights) from SeedSequence([seed, design, k]), so the figures do not
depend on the number of worker processes, and a method with fewer replicates uses the first
replicates of the others' data.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from assay.stats import (
    beta_binomial_bayes_interval,
    cluster_bootstrap_ratios,
    cluster_bootstrap_weights,
    cluster_t_interval,
    korn_graubard_interval,
    paired_difference_interval,
    ratio_estimate,
    studentised_bootstrap_interval,
    tango_effective_n,
    tango_interval,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# ---- generation parameters -------------------------------------------------------------
MU_A = 0.75  # true accuracy of arm A (the one-arm methods use arm A)
MU_B = 0.70  # true accuracy of arm B; true paired difference MU_A - MU_B = 0.05
RHO_CLUSTER = 0.10  # intra-cluster correlation of cluster accuracies
RHO_ITEM = 0.50  # correlation of item accuracies around their cluster's accuracy
ARM_CORR = 0.70  # copula correlation of the two arms, at cluster and at item level
RUNS = 5
CONF = 0.95
CHUNK = 100  # replicates per task (and per seed)

METHODS = ("bootstrap", "cluster_t", "exact", "bayes", "paired")
SLOW = ("bootstrap", "bayes")


def _large_sizes() -> IntArray:
    """386 items in 40 clusters, spread evenly from 4 to 15 items per cluster."""
    sizes = np.rint(np.linspace(4.0, 15.3, 40)).astype(np.int64)
    assert int(sizes.sum()) == 386
    return sizes


LARGE_SIZES = _large_sizes()
SMALL_SIZES = np.full(10, 5, dtype=np.int64)


@dataclass(frozen=True)
class Design:
    name: str
    label: str
    sizes: IntArray


DESIGNS = {
    "large": Design("large", "386 items / 40 clusters", LARGE_SIZES),
    "small": Design("small", "50 items / 10 clusters", SMALL_SIZES),
}

# The seed's figures (percent), as (low, high) of the values it quotes, per (method, design).
TARGETS: dict[tuple[str, str], tuple[float, float]] = {
    ("bootstrap", "large"): (95.0, 95.5),
    ("cluster_t", "small"): (95.2, 95.8),
    ("exact", "small"): (98.4, 98.8),
    ("bayes", "small"): (96.5, 96.6),
    ("paired", "large"): (94.7, 94.7),
    ("paired", "small"): (95.7, 95.7),
}


# ---- data ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Chunk:
    """Correct-run counts of `reps` replicates: item level and cluster level, per arm."""

    item_a: IntArray  # (reps, N) correct runs of each item, arm A
    item_b: IntArray
    cluster_a: IntArray  # (reps, C) correct runs of each cluster, arm A
    cluster_b: IntArray


def _beta_quantile(mean: FloatArray, rho: float, z: FloatArray) -> FloatArray:
    """Quantile Phi(z) of the Beta with this mean and intra-class correlation rho."""
    k = (1.0 - rho) / rho
    out: FloatArray = special.betaincinv(mean * k, (1.0 - mean) * k, special.ndtr(z))
    return out


def _correlated_normals(rng: np.random.Generator, shape: tuple[int, ...],
                        corr: float) -> tuple[FloatArray, FloatArray]:
    z_a = rng.standard_normal(shape)
    z_b = corr * z_a + math.sqrt(1.0 - corr * corr) * rng.standard_normal(shape)
    return z_a, z_b


def simulate(sizes: IntArray, reps: int, rng: np.random.Generator, *,
             mu_a: float = MU_A, mu_b: float = MU_B, rho_cluster: float = RHO_CLUSTER,
             rho_item: float = RHO_ITEM, arm_corr: float = ARM_CORR,
             runs: int = RUNS) -> Chunk:
    """Draw `reps` replicates of the design with cluster sizes `sizes` (see the docstring)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    n_clusters, n_items = sizes.size, int(sizes.sum())
    cluster_of = np.repeat(np.arange(n_clusters), sizes)
    zc_a, zc_b = _correlated_normals(rng, (reps, n_clusters), arm_corr)
    pc_a = _beta_quantile(np.full_like(zc_a, mu_a), rho_cluster, zc_a)
    pc_b = _beta_quantile(np.full_like(zc_b, mu_b), rho_cluster, zc_b)
    zi_a, zi_b = _correlated_normals(rng, (reps, n_items), arm_corr)
    pi_a = _beta_quantile(pc_a[:, cluster_of], rho_item, zi_a)
    pi_b = _beta_quantile(pc_b[:, cluster_of], rho_item, zi_b)
    item_a = rng.binomial(runs, pi_a).astype(np.int64)
    item_b = rng.binomial(runs, pi_b).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return Chunk(item_a, item_b, np.add.reduceat(item_a, starts, axis=1),
                 np.add.reduceat(item_b, starts, axis=1))


# ---- intervals -------------------------------------------------------------------------
def _kg_fallback(sums: FloatArray, sizes: FloatArray, r: float) -> tuple[float, float]:
    """The report's fallback: Korn-Graubard, one-sided from the bound at accuracy 0 or 1."""
    if r >= 1.0:
        res = korn_graubard_interval(sums, sizes, conf=CONF, alternative="greater")
    elif r <= 0.0:
        res = korn_graubard_interval(sums, sizes, conf=CONF, alternative="less")
    else:
        res = korn_graubard_interval(sums, sizes, conf=CONF)
    return res.lower, res.upper


def intervals(method: str, chunk: Chunk, sizes: IntArray, *, n: int, B: int = 2000,
              rng: np.random.Generator | None = None,
              runs: int = RUNS) -> dict[str, FloatArray]:
    """Intervals of `method` on the first `n` replicates of `chunk`.

    Returns arrays ``estimate``, ``lower``, ``upper`` and ``fallback`` (1.0 where the
    report's fallback interval was used), and ``rho`` (posterior mean of rho) for bayes.
    """
    size_f = sizes.astype(np.float64)
    est, lo, hi, fb = (np.empty(n) for _ in range(4))
    fb[:] = 0.0
    rho = np.full(n, np.nan)
    if method == "bootstrap" and rng is None:
        raise ValueError("the bootstrap needs an rng")
    trials = sizes * runs
    for j in range(n):
        sums = chunk.cluster_a[j] / runs
        if method == "paired":
            diff = (chunk.cluster_a[j] - chunk.cluster_b[j]) / runs
            res = paired_difference_interval(diff, size_f, conf=CONF)
            est[j], lo[j], hi[j] = res.estimate, res.lower, res.upper
            if not math.isfinite(res.lower):  # V_d = 0: Tango on effective items
                p1, p2 = chunk.item_a[j] / runs, chunk.item_b[j] / runs
                level = (1.0 - CONF) / 2.0
                n_eff = float(tango_effective_n(p1.size, sizes.size, level))
                tango = tango_interval(float(np.mean(p1 * (1 - p2))),
                                       float(np.mean((1 - p1) * p2)), n_eff, conf=CONF)
                lo[j], hi[j], fb[j] = tango.lower, tango.upper, 1.0
            continue
        if method == "bayes":
            res_b = beta_binomial_bayes_interval(chunk.cluster_a[j], trials, conf=CONF)
            est[j], lo[j], hi[j], rho[j] = (res_b.estimate, res_b.lower, res_b.upper,
                                            res_b.rho_mean)
            continue
        if method == "exact":
            res = korn_graubard_interval(sums, size_f, conf=CONF)
            est[j], lo[j], hi[j] = res.estimate, res.lower, res.upper
            continue
        full = ratio_estimate(sums, size_f)
        r, se = full.estimate, full.standard_error
        est[j] = r
        lower = upper = math.nan
        if 0.0 < r < 1.0 and se > 0.0:
            if method == "cluster_t":
                res = cluster_t_interval(sums, size_f, conf=CONF)
            elif method == "bootstrap":
                weights = cluster_bootstrap_weights(sizes.size, B, rng=rng)
                boot = cluster_bootstrap_ratios(sums, size_f, weights)
                res = studentised_bootstrap_interval(r, se, boot.estimates,
                                                     boot.standard_errors, conf=CONF)
            else:
                raise ValueError(f"unknown method {method!r}")
            lower, upper = res.lower, res.upper
        if not (math.isfinite(lower) and math.isfinite(upper)):
            lower, upper = _kg_fallback(sums, size_f, r)
            fb[j] = 1.0
        lo[j], hi[j] = lower, upper
    out = {"estimate": est, "lower": lo, "upper": hi, "fallback": fb}
    if method == "bayes":
        out["rho"] = rho
    return out


def truth(method: str, mu_a: float = MU_A, mu_b: float = MU_B) -> float:
    return mu_a - mu_b if method == "paired" else mu_a


@dataclass
class Tally:
    """Running counts of one method in one design."""

    reps: int = 0
    hits: int = 0
    below: int = 0  # interval entirely below the truth (upper < truth)
    above: int = 0  # interval entirely above the truth (lower > truth)
    fallbacks: int = 0
    est_sum: float = 0.0
    width_sum: float = 0.0
    rho_sum: float = 0.0

    def add(self, res: dict[str, FloatArray], true_value: float) -> None:
        lo, hi = res["lower"], res["upper"]
        self.reps += lo.size
        self.below += int(np.sum(hi < true_value))
        self.above += int(np.sum(lo > true_value))
        self.hits += int(np.sum((lo <= true_value) & (true_value <= hi)))
        self.fallbacks += int(np.sum(res["fallback"]))
        self.est_sum += float(np.sum(res["estimate"]))
        self.width_sum += float(np.sum(hi - lo))
        if "rho" in res:
            self.rho_sum += float(np.sum(res["rho"]))

    def merge(self, other: Tally) -> None:
        for field in ("reps", "hits", "below", "above", "fallbacks", "est_sum", "width_sum",
                      "rho_sum"):
            setattr(self, field, getattr(self, field) + getattr(other, field))

    @property
    def coverage(self) -> float:
        return self.hits / self.reps

    @property
    def mc_se(self) -> float:
        p = self.coverage
        return math.sqrt(p * (1.0 - p) / self.reps)


# ---- driver ----------------------------------------------------------------------------
def _chunk_seeds(seed: int, design_index: int, chunk: int) -> tuple[np.random.Generator,
                                                                    np.random.Generator]:
    data_seq, boot_seq = np.random.SeedSequence([seed, design_index, chunk]).spawn(2)
    return np.random.default_rng(data_seq), np.random.default_rng(boot_seq)


@dataclass(frozen=True)
class Params:
    """Generation parameters (the module constants unless changed on the command line)."""

    mu_a: float = MU_A
    mu_b: float = MU_B
    rho_cluster: float = RHO_CLUSTER
    rho_item: float = RHO_ITEM
    arm_corr: float = ARM_CORR


Task = tuple[str, int, int, dict[str, int], int, int, Params]


def run_chunk(task: Task) -> dict[str, Tally]:
    """One chunk of one design: generate its data, run each method on its share of it."""
    design_name, design_index, chunk_index, counts, seed, B, params = task
    design = DESIGNS[design_name]
    data_rng, boot_rng = _chunk_seeds(seed, design_index, chunk_index)
    chunk = simulate(design.sizes, max(counts.values()), data_rng, mu_a=params.mu_a,
                     mu_b=params.mu_b, rho_cluster=params.rho_cluster,
                     rho_item=params.rho_item, arm_corr=params.arm_corr)
    tallies: dict[str, Tally] = {}
    for method, n in counts.items():
        res = intervals(method, chunk, design.sizes, n=n, B=B, rng=boot_rng)
        tally = Tally()
        tally.add(res, truth(method, params.mu_a, params.mu_b))
        tallies[method] = tally
    return tallies


def plan(designs: Sequence[str], methods: Sequence[str], reps: int, slow_reps: int,
         seed: int, B: int, params: Params) -> list[Task]:
    tasks = []
    for design_name in designs:
        design_index = list(DESIGNS).index(design_name)
        want = {m: (slow_reps if m in SLOW else reps) for m in methods}
        for k in range(math.ceil(max(want.values()) / CHUNK)):
            counts = {m: min(CHUNK, w - k * CHUNK) for m, w in want.items() if w > k * CHUNK}
            tasks.append((design_name, design_index, k, counts, seed, B, params))
    # the heavy chunks (bootstrap and bayes, and the 40-cluster design) first
    tasks.sort(key=lambda t: -sum(t[3].get(m, 0) for m in SLOW) * DESIGNS[t[0]].sizes.size)
    return tasks


def _fmt_target(method: str, design: str, coverage: float) -> str:
    target = TARGETS.get((method, design))
    if target is None:
        return "-"
    lo, hi = target
    quoted = f"{lo:.1f}" if lo == hi else f"{lo:.1f}-{hi:.1f}"
    pct = 100.0 * coverage
    off = 0.0 if lo <= pct <= hi else (pct - hi if pct > hi else pct - lo)
    verdict = "within 1 pt" if abs(off) <= 1.0 else "OUTSIDE 1 pt"
    return f"{quoted} ({off:+.1f}, {verdict})"


def report(results: dict[tuple[str, str], Tally], designs: Sequence[str],
           methods: Sequence[str], B: int, params: Params) -> None:
    header = (f"{'design':<24} {'method':<10} {'reps':>6} {'coverage':>9} {'MC se':>6} "
              f"{'below':>6} {'above':>6} {'mean est':>9} {'truth':>6} {'width':>6} "
              f"{'fallb':>5}  seed's figure (distance)")
    print(header)
    print("-" * len(header))
    for design_name in designs:
        for method in methods:
            t = results[(design_name, method)]
            print(f"{DESIGNS[design_name].label:<24} {method:<10} {t.reps:>6} "
                  f"{100 * t.coverage:>8.2f}% {100 * t.mc_se:>6.2f} "
                  f"{100 * t.below / t.reps:>5.2f}% {100 * t.above / t.reps:>5.2f}% "
                  f"{t.est_sum / t.reps:>9.4f} {truth(method, params.mu_a, params.mu_b):>6.3f} "
                  f"{t.width_sum / t.reps:>6.3f} {t.fallbacks:>5}  "
                  f"{_fmt_target(method, design_name, t.coverage)}")
    print()
    print("coverage, below and above in percent of replicates; MC se = sqrt(p (1 - p) / reps) "
          "in points;")
    print("below = interval entirely below the truth, above = entirely above; width = mean "
          "width; fallb = replicates")
    print("that took the report's fallback interval. Bootstrap: studentised, "
          f"B = {B} resamples per replicate.")
    for design_name in designs:
        if "bayes" in methods:
            t = results[(design_name, "bayes")]
            print(f"bayes, {DESIGNS[design_name].label}: mean posterior mean of rho "
                  f"{t.rho_sum / t.reps:.3f} (seed: 0.23 in its small design; "
                  f"true cluster rho {params.rho_cluster}).")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5000,
                        help="replicates for cluster_t, exact and paired (default 5000)")
    parser.add_argument("--slow-reps", type=int, default=2000,
                        help="replicates for bootstrap and bayes (default 2000)")
    parser.add_argument("--B", type=int, default=2000, help="bootstrap resamples (default 2000)")
    parser.add_argument("--seed", type=int, default=20240601, help="master seed")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help=f"comma-separated subset of {','.join(METHODS)}")
    parser.add_argument("--designs", default="large,small", help="large,small or one of them")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes (default min(2, cores)); figures do not "
                             "depend on it")
    for flag, default, text in (
            ("--mu-a", MU_A, "true accuracy of arm A"),
            ("--mu-b", MU_B, "true accuracy of arm B"),
            ("--rho-cluster", RHO_CLUSTER, "ICC of cluster accuracies"),
            ("--rho-item", RHO_ITEM, "ICC of item accuracies around their cluster's"),
            ("--arm-corr", ARM_CORR, "copula correlation of the arms")):
        parser.add_argument(flag, type=float, default=default,
                            help=f"{text} (default {default}; for sensitivity checks)")
    args = parser.parse_args(argv)
    params = Params(args.mu_a, args.mu_b, args.rho_cluster, args.rho_item, args.arm_corr)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    designs = [d.strip() for d in args.designs.split(",") if d.strip()]
    bad = [m for m in methods if m not in METHODS] + [d for d in designs if d not in DESIGNS]
    if bad:
        parser.error(f"unknown method or design: {', '.join(bad)}")
    if args.reps < 1 or args.slow_reps < 1 or args.B < 100:
        parser.error("--reps and --slow-reps must be positive and --B at least 100")

    print(f"assay coverage simulation: seed {args.seed}, reps {args.reps} "
          f"(cluster_t, exact, paired), {args.slow_reps} (bootstrap, bayes), B = {args.B}, "
          f"{args.workers} worker(s)")
    print(f"generation: cluster accuracy Beta(mean {params.mu_a}, ICC {params.rho_cluster}); "
          f"item accuracy Beta(mean p_c, ICC {params.rho_item}); {RUNS} Bernoulli runs per "
          "item;")
    print(f"arm B mean {params.mu_b}, Gaussian-copula correlation {params.arm_corr} with arm A "
          f"at cluster and item level; truth: accuracy {params.mu_a}, difference "
          f"{params.mu_a - params.mu_b:.2f}")
    print(f"large design sizes: {LARGE_SIZES.min()}-{LARGE_SIZES.max()} items per cluster, "
          f"{LARGE_SIZES.sum()} items in {LARGE_SIZES.size} clusters; small design: "
          f"{SMALL_SIZES.size} clusters of {SMALL_SIZES[0]}")
    print()
    sys.stdout.flush()

    start = time.perf_counter()
    tasks = plan(designs, methods, args.reps, args.slow_reps, args.seed, args.B, params)
    results = {(d, m): Tally() for d in designs for m in methods}
    if args.workers > 1:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            outputs = list(pool.map(run_chunk, tasks))
    else:
        outputs = [run_chunk(task) for task in tasks]
    for task, tallies in zip(tasks, outputs, strict=True):
        for method, tally in tallies.items():
            results[(task[0], method)].merge(tally)
    wall = time.perf_counter() - start
    report(results, designs, methods, args.B, params)
    print(f"\nwall time {wall:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
