"""Coverage simulation of the benchmark report's intervals over a grid of designs, run by hand.

    python bench/coverage_simulation.py                          # the whole grid
    python bench/coverage_simulation.py --cells spec-small,uneq-3big --methods cluster_t,auto
    python bench/coverage_simulation.py --reps 2000 --slow-reps 1000 --B 999 --workers 1

Not a test: ``tests/stats/intervals/test_coverage_fast.py`` runs a few hundred replicates of
a few cells with loose bounds. The grid (``coverage_model.CELLS``) holds hr_report's two
designs (``spec-small`` 50 items in 10 clusters of 5, ``spec-large`` 386 items in 40 clusters
of 4 to 15) and the families of issue 12: unequal sizes (fixed, and random heavy-tailed),
few clusters (4 to 8), extremes (0.02, 0.98), high ICC, highly correlated arms, large run
noise and crossed run effects. The generation and the estimands are in
``coverage_model``; the methods, called on cluster sums as the report calls them, in
``coverage_methods`` and (the wild cluster bootstrap and other flagged-design candidates of
issue 26, run H) ``coverage_wild``.

For every cell and method the script prints the coverage of the 95% interval, its Monte
Carlo standard error sqrt(p (1 - p) / reps), the shares of intervals entirely below and
entirely above the truth, the mean width and the replicates that took the report's
fallback interval. ``auto`` (accuracy of arm A) and ``auto_paired`` (difference A - B) are
what the report prints by default. Below a method that reports the branch its rule took
(the ``method`` the report records, and diagnostics such as what a pre-test said), one
line per branch label gives the coverage conditional on that branch (``|`` lines: replicates,
coverage, MC se, below, above, width).

Reproducible: replicates come in chunks of CHUNK; chunk k of cell i draws its data from
SeedSequence([seed, i, k, 0]) and its bootstrap weights from SeedSequence([seed, i, k, 1]),
so the figures do not depend on the number of worker processes, and a method with fewer
replicates uses the first replicates of the others' data.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from coverage_methods import METHODS as BASE_METHODS
from coverage_methods import Context
from coverage_model import CELL_BY_NAME, CELLS, Cell, simulate
from coverage_unified import UNIFIED_METHODS
from coverage_wild import WILD_METHODS

from assay.stats import bell_mccaffrey_df, cr2_ratio_estimate

METHODS = {**BASE_METHODS, **UNIFIED_METHODS, **WILD_METHODS}
"""Every method of the grid: ``coverage_methods``, issue 26's one-formula intervals
(``coverage_unified``, run H) and the wild cluster bootstrap's (``coverage_wild``, run I)."""
CHUNK = 100

# hr_report's figures (percent), as (low, high) of the values it quotes, per (method, cell).
TARGETS: dict[tuple[str, str], tuple[float, float]] = {
    ("bootstrap", "spec-large"): (95.0, 95.5),
    ("cluster_t", "spec-small"): (95.2, 95.8),
    ("exact", "spec-small"): (98.4, 98.8),
    ("bayes", "spec-small"): (96.5, 96.6),
    ("paired", "spec-large"): (94.7, 94.7),
    ("paired", "spec-small"): (95.7, 95.7),
}


@dataclass
class Tally:
    """Running counts of one method in one cell."""

    reps: int = 0
    hits: int = 0
    below: int = 0
    above: int = 0
    fallbacks: int = 0
    est_sum: float = 0.0
    width_sum: float = 0.0
    branches: dict[str, list[float]] = field(default_factory=dict)
    """Per branch label of the rule: [replicates, hits, below, above, width sum]."""

    def add(self, estimate: float, lower: float, upper: float, fallback: float,
            truth: float, labels: Sequence[str] = ()) -> None:
        self.reps += 1
        below, above = upper < truth, lower > truth
        hit = lower <= truth <= upper
        self.below += below
        self.above += above
        self.hits += hit
        self.fallbacks += int(fallback)
        self.est_sum += estimate
        self.width_sum += upper - lower
        for label in labels:
            row = self.branches.setdefault(label, [0.0] * 5)
            for k, value in enumerate((1.0, hit, below, above, upper - lower)):
                row[k] += float(value)

    def merge(self, other: Tally) -> None:
        for name in ("reps", "hits", "below", "above", "fallbacks", "est_sum", "width_sum"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for label, row in other.branches.items():
            mine = self.branches.setdefault(label, [0.0] * 5)
            for k, value in enumerate(row):
                mine[k] += value

    @property
    def coverage(self) -> float:
        return self.hits / self.reps

    @property
    def mc_se(self) -> float:
        p = self.coverage
        return math.sqrt(p * (1.0 - p) / self.reps)


def tally(cell: Cell, method: str, reps: int, seed: int, *, B: int = 999,
          chunk_index: int = 0, cell_index: int = 0) -> Tally:
    """Run `method` on `reps` replicates of `cell` (one chunk's seeds)."""
    data_rng, boot_rng = chunk_rngs(seed, cell_index, chunk_index)
    chunk = simulate(cell, reps, data_rng)
    return _tally_chunk(cell, chunk, method, reps, Context(B=B, rng=boot_rng))


def chunk_rngs(seed: int, cell_index: int,
               chunk_index: int) -> tuple[np.random.Generator, np.random.Generator]:
    return (np.random.default_rng(np.random.SeedSequence([seed, cell_index, chunk_index, 0])),
            np.random.default_rng(np.random.SeedSequence([seed, cell_index, chunk_index, 1])))


def _tally_chunk(cell: Cell, chunk, method: str, n: int, ctx: Context) -> Tally:
    spec = METHODS[method]
    truth_a, truth_d = cell.truth()
    truth = truth_a if spec.target == "accuracy" else truth_d
    out = Tally()
    for j in range(n):
        res = spec.run(chunk, j, ctx)
        out.add(*res[:4], truth, res[4] if len(res) > 4 else ())
    return out


Task = tuple[str, int, int, dict[str, int], int, int]


def run_chunk(task: Task) -> dict[str, Tally]:
    cell_name, cell_index, chunk_index, counts, seed, B = task
    cell = CELL_BY_NAME[cell_name]
    data_rng, boot_rng = chunk_rngs(seed, cell_index, chunk_index)
    chunk = simulate(cell, max(counts.values()), data_rng)
    ctx = Context(B=B, rng=boot_rng)
    return {method: _tally_chunk(cell, chunk, method, n, ctx) for method, n in counts.items()}


def plan(cells: Sequence[str], methods: Sequence[str], reps: int, slow_reps: int, seed: int,
         B: int) -> list[Task]:
    tasks: list[Task] = []
    for name in cells:
        index = [c.name for c in CELLS].index(name)
        want = {m: (slow_reps if METHODS[m].slow else reps) for m in methods}
        for k in range(math.ceil(max(want.values()) / CHUNK)):
            counts = {m: min(CHUNK, w - k * CHUNK) for m, w in want.items() if w > k * CHUNK}
            tasks.append((name, index, k, counts, seed, B))
    return tasks


def _target(method: str, cell: str, coverage: float) -> str:
    target = TARGETS.get((method, cell))
    if target is None:
        return ""
    lo, hi = target
    pct = 100.0 * coverage
    off = 0.0 if lo <= pct <= hi else (pct - hi if pct > hi else pct - lo)
    quoted = f"{lo:.1f}" if lo == hi else f"{lo:.1f}-{hi:.1f}"
    return f"  hr_report {quoted} ({off:+.1f})"


def describe(cell: Cell, reps: int = 200) -> str:
    """Means over `reps` replicates of the design figures the auto rule reads (arm A)."""
    chunk = simulate(cell, reps, np.random.default_rng(0))
    figures = np.array([
        (est.n, est.n_clusters, est.icc, est.effective_clusters, est.df,
         bell_mccaffrey_df(chunk.sizes[j]))
        for j in range(reps)
        for est in [cr2_ratio_estimate(chunk.sums_a[j], chunk.sizes[j],
                                       sumsq=chunk.sumsq_a[j])]])
    n, c, icc, g, df, df0 = figures.mean(axis=0)
    return (f"design (means over {reps} replicates): {n:.0f} items, {c:.0f} clusters, working "
            f"ICC {icc:.3f}, effective clusters G* {g:.1f}, CR2 df {df:.1f} (at ICC 0: "
            f"{df0:.1f})")


def report(results: dict[tuple[str, str], Tally], cells: Sequence[str],
           methods: Sequence[str]) -> None:
    header = (f"{'cell':<18} {'method':<12} {'reps':>5} {'cover%':>7} {'MC se':>5} "
              f"{'below%':>6} {'above%':>6} {'mean est':>8} {'truth':>7} {'width':>6} "
              f"{'fallb':>5}")
    for name in cells:
        cell = CELL_BY_NAME[name]
        truth_a, truth_d = cell.truth()
        print(f"\n{name}: {cell.family}; {cell.label}; ICC {cell.rho_cluster}/{cell.rho_item}, "
              f"arm corr {cell.arm_corr}, run sd {cell.run_sd}, {cell.runs} runs")
        print(describe(cell))
        print(header)
        for method in methods:
            t = results[(name, method)]
            truth = truth_a if METHODS[method].target == "accuracy" else truth_d
            print(f"{name:<18} {method:<12} {t.reps:>5} {100 * t.coverage:>7.2f} "
                  f"{100 * t.mc_se:>5.2f} {100 * t.below / t.reps:>6.2f} "
                  f"{100 * t.above / t.reps:>6.2f} {t.est_sum / t.reps:>8.4f} {truth:>7.4f} "
                  f"{t.width_sum / t.reps:>6.3f} {t.fallbacks:>5}"
                  f"{_target(method, name, t.coverage)}")
            for label, (n, hits, below, above, width) in sorted(t.branches.items()):
                p = hits / n
                print(f"{'':<18}   | {label:<34} {int(n):>5} {100 * p:>7.2f} "
                      f"{100 * math.sqrt(p * (1 - p) / n):>5.2f} {100 * below / n:>6.2f} "
                      f"{100 * above / n:>6.2f} {'':>8} {'':>7} {width / n:>6.3f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=2000,
                        help="replicates of the analytic methods (default 2000)")
    parser.add_argument("--slow-reps", type=int, default=2000,
                        help="replicates of the bootstrap and Bayes methods (default 2000)")
    parser.add_argument("--B", type=int, default=999, help="bootstrap resamples (default 999)")
    parser.add_argument("--seed", type=int, default=20240601, help="master seed")
    parser.add_argument("--methods", default=",".join(METHODS),
                        help=f"comma-separated subset of {','.join(METHODS)}")
    parser.add_argument("--cells", default=",".join(c.name for c in CELLS),
                        help="comma-separated subset of the grid's cells")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                        help="worker processes; figures do not depend on it")
    args = parser.parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    cells = [c.strip() for c in args.cells.split(",") if c.strip()]
    bad = [m for m in methods if m not in METHODS] + [c for c in cells if c not in CELL_BY_NAME]
    if bad:
        parser.error(f"unknown method or cell: {', '.join(bad)}")
    if args.reps < 1 or args.slow_reps < 1 or args.B < 100:
        parser.error("--reps and --slow-reps must be positive and --B at least 100")
    print(f"assay coverage grid: seed {args.seed}, {args.reps} replicates (analytic), "
          f"{args.slow_reps} (bootstrap, Bayes), B = {args.B}, {args.workers} worker(s)")
    print("coverage, below and above in percent; MC se = sqrt(p (1 - p) / reps) in points; "
          "width = mean width; fallb = replicates on the report's fallback interval")
    sys.stdout.flush()
    start = time.perf_counter()
    tasks = plan(cells, methods, args.reps, args.slow_reps, args.seed, args.B)
    results = {(c, m): Tally() for c in cells for m in methods}
    left = {c: sum(task[0] == c for task in tasks) for c in cells}
    pool = ProcessPoolExecutor(max_workers=args.workers) if args.workers > 1 else None
    outputs = pool.map(run_chunk, tasks) if pool is not None else map(run_chunk, tasks)
    for task, tallies in zip(tasks, outputs, strict=True):
        for method, t in tallies.items():
            results[(task[0], method)].merge(t)
        left[task[0]] -= 1
        if left[task[0]] == 0:  # a cell is complete: print it now (a long run keeps its work)
            report(results, [task[0]], methods)
            print(f"  (cell done after {time.perf_counter() - start:.0f} s)")
            sys.stdout.flush()
    if pool is not None:
        pool.shutdown()
    wall = time.perf_counter() - start
    print(f"\nwall time {wall:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
