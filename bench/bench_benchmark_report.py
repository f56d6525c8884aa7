"""Wall time and peak memory of assay.analysis.benchmark.benchmark_report.

Run by hand, not by the tests:

    python bench/bench_benchmark_report.py            # both workloads
    python bench/bench_benchmark_report.py --only small

Workloads (targets from the task):

* small: 10,000 items in 1,000 clusters x 3 arms x 5 runs = 150,000 rows, B = 10,000;
  target about 1.1 s.
* large: 20,000 items in 2,000 clusters x 5 arms x 10 runs = 1,000,000 rows with usd and
  tokens, B = 2,000; target under 10 s and 2 GB.

Each workload is generated first (not timed), then the report is timed ``--repeat`` times
(the best is shown), then run once more under tracemalloc for the peak of memory
allocated during the call. The process's peak resident size (ru_maxrss, which includes
the generated table) is printed at the end. No peers are compared.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc

import numpy as np
import pandas as pd

from assay.analysis.benchmark import benchmark_report


def make_frame(*, n_items: int, n_clusters: int, arms: int, runs: int, cost: bool,
               strings: bool = True, seed: int = 0) -> pd.DataFrame:
    """A balanced bench: items in clusters, a cluster effect, per-arm accuracy, runs.

    Label columns hold Python strings (object dtype, the slow case for grouping) unless
    ``strings`` is False, when they are pandas categoricals.
    """
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(n_items), arms * runs)
    arm = np.tile(np.repeat(np.arange(arms), runs), n_items)
    run = np.tile(np.arange(1, runs + 1), n_items * arms)
    cluster = item % n_clusters
    cluster_shift = rng.normal(0.0, 0.8, n_clusters)[cluster]
    item_shift = rng.normal(0.0, 1.0, n_items)[item]
    logit = 0.2 + 0.15 * arm + cluster_shift + item_shift
    correct = rng.random(item.size) < 1.0 / (1.0 + np.exp(-logit))
    frame = pd.DataFrame({
        "cluster": pd.Categorical.from_codes(cluster, [f"doc{c}" for c in range(n_clusters)]),
        "item": pd.Categorical.from_codes(item, [f"q{i}" for i in range(n_items)]),
        "arm": pd.Categorical.from_codes(arm, [f"model-{a}" for a in range(arms)]),
        "run": run,
        "score": correct.astype(np.float64),
    })
    if strings:
        for column in ("cluster", "item", "arm"):
            frame[column] = frame[column].astype(str).astype(object)
    if cost:
        tokens_in = rng.integers(200, 2000, item.size).astype(np.float64)
        tokens_out = rng.integers(20, 400, item.size).astype(np.float64)
        frame["tokens_in"], frame["tokens_out"] = tokens_in, tokens_out
        frame["usd"] = (tokens_in * 1e-6 + tokens_out * 4e-6) * (1 + arm)
        frame["usd_provenance"] = np.where(rng.random(item.size) < 0.02, "estimated",
                                           "reported")
    return frame


WORKLOADS = {
    "small": ({"n_items": 10_000, "n_clusters": 1_000, "arms": 3, "runs": 5, "cost": False},
              10_000),
    "large": ({"n_items": 20_000, "n_clusters": 2_000, "arms": 5, "runs": 10, "cost": True},
              2_000),
}


def run(name: str, repeat: int, *, strings: bool) -> None:
    shape, n_resamples = WORKLOADS[name]
    frame = make_frame(**shape, strings=strings)
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        report = benchmark_report(frame, B=n_resamples)
        times.append(time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    benchmark_report(frame, B=n_resamples)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{name}: {len(frame):,} rows, {shape['n_items']:,} items, {shape['n_clusters']:,} "
          f"clusters, {shape['arms']} arms, {shape['runs']} runs, B = {n_resamples:,}, "
          f"method {report.method}, labels as {'str' if strings else 'categorical'}")
    print(f"  wall time: best {min(times):.3f} s of {repeat} (all: "
          f"{', '.join(f'{t:.3f}' for t in times)})")
    print(f"  peak memory allocated during the call (tracemalloc): {peak / 2**20:,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(WORKLOADS), default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--categorical", action="store_true",
                        help="label columns as pandas categoricals instead of Python strings")
    args = parser.parse_args()
    for name in [args.only] if args.only else list(WORKLOADS):
        run(name, args.repeat, strings=not args.categorical)
    scale = 1 if sys.platform == "darwin" else 1024
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    print(f"process peak resident size (ru_maxrss, includes the tables): "
          f"{peak_rss / 2**20:,.0f} MiB")


if __name__ == "__main__":
    main()
