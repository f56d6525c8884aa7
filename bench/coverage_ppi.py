"""Coverage of the clustered PPI++ interval when the judge's bias differs by system (issue 28).

Two systems answer the same items, grouped in clusters with a shared difficulty shift. The
judge is right on 90% of correct answers for both, but calls a wrong answer right 10% of the
time for system A and 35% for system B (it is generous to B), with a per-cluster shift of
its errors. Humans label a random 20% of the items (``items`` design) or every item of 10
of the 40 clusters (``clusters`` design). For system B's human accuracy and the difference
A - B, over ``--reps`` seeded replicates, the coverage and mean width of:

* judge only (CR2 t of the judge's mean, the naive estimate);
* humans only (the labelled items' CR2 t, PPI++ at lambda = 0);
* PPI++ with power tuning, cluster-robust (``assay.stats.ppi``).

Bounded: ``nice -n 10 python bench/coverage_ppi.py --reps 1000`` takes about a minute on one
core. Results in ``bench/results/coverage_ppi.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from assay.stats.ppi import cluster_mean_interval, ppi_mean_clustered, ppi_paired_difference

TRUTH = {"A": 0.70, "B": 0.60}
FALSE_POSITIVE = {"A": 0.10, "B": 0.35}
HIT = 0.90


def simulate(rng: np.random.Generator, design: str, *, clusters: int = 40, per: int = 8
             ) -> dict[str, np.ndarray]:
    """One replicate: cluster ids, the labelled mask, human labels and judge scores per arm."""
    cl = np.repeat(np.arange(clusters), per)
    shift = rng.uniform(-0.15, 0.15, clusters)[cl]  # mean 0: the truth stays TRUTH
    judge_shift = rng.uniform(-0.05, 0.05, clusters)[cl]
    out: dict[str, np.ndarray] = {"cluster": cl}
    for arm in ("A", "B"):
        y = (rng.random(cl.size) < TRUTH[arm] + shift).astype(float)
        p = np.where(y == 1, HIT + judge_shift, FALSE_POSITIVE[arm] + judge_shift)
        out[f"y_{arm}"] = y
        out[f"f_{arm}"] = (rng.random(cl.size) < p).astype(float)
    if design == "items":
        out["labelled"] = rng.random(cl.size) < 0.2
    else:
        out["labelled"] = np.isin(cl, rng.choice(clusters, 10, replace=False))
    return out


def one(rng: np.random.Generator, design: str) -> dict[str, tuple[float, float]]:
    """(lower, upper) of each method for B and for A - B."""
    d = simulate(rng, design)
    lab, cl = d["labelled"], d["cluster"]
    kw = dict(clusters_labelled=cl[lab], clusters_unlabelled=cl[~lab])
    out = {}
    for what, y, f, truth in (
            ("B", d["y_B"], d["f_B"], TRUTH["B"]),
            ("A-B", d["y_A"] - d["y_B"], d["f_A"] - d["f_B"], TRUTH["A"] - TRUTH["B"])):
        del truth
        judge = cluster_mean_interval(f, cl)
        humans = ppi_mean_clustered(y[lab], f[lab], f[~lab], lam=0.0, **kw)
        if what == "B":
            ppi = ppi_mean_clustered(y[lab], f[lab], f[~lab], **kw)
        else:
            ppi = ppi_paired_difference(d["y_A"][lab], d["y_B"][lab], d["f_A"][lab],
                                        d["f_B"][lab], d["f_A"][~lab], d["f_B"][~lab], **kw)
        out[f"{what} judge"] = (judge.lower, judge.upper)
        out[f"{what} humans"] = (humans.lower, humans.upper)
        out[f"{what} ppi++"] = (ppi.lower, ppi.upper)
    return out


def coverage(design: str, reps: int, seed: int) -> dict[str, tuple[float, float]]:
    """method -> (coverage, mean width) over ``reps`` replicates."""
    rng = np.random.default_rng(seed)
    hits: dict[str, list[float]] = {}
    widths: dict[str, list[float]] = {}
    for _ in range(reps):
        for key, (lo, hi) in one(rng, design).items():
            truth = TRUTH["B"] if key.startswith("B ") else TRUTH["A"] - TRUTH["B"]
            hits.setdefault(key, []).append(float(lo <= truth <= hi))
            widths.setdefault(key, []).append(hi - lo)
    return {k: (float(np.mean(hits[k])), float(np.mean(widths[k]))) for k in hits}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = [f"PPI++ coverage, {args.reps} replicates per design, seed {args.seed}, 95% "
             "intervals; 40 clusters x 8 items; truth B = 0.60, A - B = 0.10; judge false "
             "positives A 0.10, B 0.35"]
    for design in ("items", "clusters"):
        res = coverage(design, args.reps, args.seed)
        labels = "20% of items" if design == "items" else "10 of 40 clusters"
        lines.append(f"design {design} ({labels} labelled):")
        lines.append(f"  {'target  method':<22}{'coverage':>10}{'width':>9}")
        for key, (cov, width) in res.items():
            lines.append(f"  {key:<22}{cov:>10.3f}{width:>9.3f}")
    lines.append(f"time {time.perf_counter() - start:.1f} s")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
