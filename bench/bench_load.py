"""Time loading and validating a large judgments table (run by hand, not by the tests).

    python bench/bench_load.py [--rows 1000000]

Writes a binary-correctness table (20,000 items in 2,000 clusters x 5 arms x 10 runs for
the default 1,000,000 rows, plus usd) as Parquet and CSV under bench/out/, then times
``assay.load`` on each (read + every validation check) and the benchmark report on the
loaded table, printing seconds and the process's peak resident memory.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

import assay


def make_table(rows: int, seed: int = 0) -> pd.DataFrame:
    arms, runs = 5, 10
    n_items = rows // (arms * runs)
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), arms * runs)
    return pd.DataFrame({
        "cluster": "c" + pd.Series(items // 10).astype(str),
        "item": "q" + pd.Series(items).astype(str),
        "arm": np.tile(np.repeat([f"arm{i}" for i in range(arms)], runs), n_items),
        "run": np.tile(np.arange(1, runs + 1), n_items * arms),
        "score": (rng.random(len(items)) < 0.7).astype(int),
        "usd": rng.random(len(items)) / 1000,
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    out = Path(__file__).parent / "out"
    out.mkdir(exist_ok=True)
    frame = make_table(args.rows)
    paths = {"parquet": out / "load.parquet", "csv": out / "load.csv"}
    frame.to_parquet(paths["parquet"])
    frame.to_csv(paths["csv"], index=False)
    print(f"{len(frame):,} rows, {frame['item'].nunique():,} items, "
          f"{frame['cluster'].nunique():,} clusters")
    loaded = None
    for name, path in paths.items():
        start = time.perf_counter()
        loaded = assay.load(path, scales={"score": assay.Scale.parse("binary")})
        print(f"assay.load {name:8s} {time.perf_counter() - start:6.2f} s")
    assert loaded is not None
    start = time.perf_counter()
    assay.benchmark_report(loaded.frame, B=2000)
    print(f"benchmark_report (B = 2000) {time.perf_counter() - start:6.2f} s")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the process: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
