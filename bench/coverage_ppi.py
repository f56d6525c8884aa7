"""Coverage of the clustered PPI++ interval when the judge's bias differs by system (issue 28).

Two systems answer the same items, grouped in clusters with a shared difficulty shift. The
judge is right on 90% of correct answers for both, but calls a wrong answer right 10% of the
time for system A and 35% for system B (it is generous to B: bias ``by system``), with a
per-cluster shift of its errors; the control cell gives both the same 20% (bias ``equal``).
Humans label a random 20% of the items (``items`` design) or every item of 10 of the 40
clusters (``clusters`` design). For system B's human accuracy and the difference A - B, over
``--reps`` seeded replicates, the coverage and mean width of:

* judge only (CR2 t of the judge's mean, the naive estimate);
* humans only (the labelled items' CR2 t, PPI++ at lambda = 0);
* PPI++ with power tuning, cluster-robust (``assay.stats.ppi``).

The pairwise-preference cells: humans and the judge give a preference per item of A over B
(1 A, 0.5 tie, 0 B); humans prefer A with probability 0.45 + a cluster shift in [-0.1, 0.1]
and tie with 0.2 (the human win rate of A is 0.55); the judge judges each item twice, each
verdict copying the human's with probability 0.7 and otherwise leaning to B (A 0.2, tie
0.2, B 0.6, shifted by cluster), averaged over the two (values 0, 0.25, ..., 1). Target:
the human win rate of A, judge only, humans only and PPI++ as above.

Bounded: ``nice -n 10 python bench/coverage_ppi.py --reps 2000`` takes about two minutes on
one core. Results in ``bench/results/coverage_ppi.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from assay.stats.ppi import cluster_mean_interval, ppi_mean_clustered, ppi_paired_difference

TRUTH = {"A": 0.70, "B": 0.60}
FALSE_POSITIVE = {"by system": {"A": 0.10, "B": 0.35}, "equal": {"A": 0.20, "B": 0.20}}
HIT = 0.90
WIN, TIE = 0.45, 0.20
WIN_RATE = WIN + TIE / 2
"""The human win rate of A in the pairwise cells."""
LEAN = (0.2, 0.2, 0.6)
"""P(A, tie, B) of the judge's verdict when it does not copy the human's."""


def simulate(rng: np.random.Generator, design: str, *, bias: str = "by system",
             clusters: int = 40, per: int = 8) -> dict[str, np.ndarray]:
    """One replicate: cluster ids, the labelled mask, human labels and judge scores per arm."""
    cl = np.repeat(np.arange(clusters), per)
    shift = rng.uniform(-0.15, 0.15, clusters)[cl]  # mean 0: the truth stays TRUTH
    judge_shift = rng.uniform(-0.05, 0.05, clusters)[cl]
    out: dict[str, np.ndarray] = {"cluster": cl}
    for arm in ("A", "B"):
        y = (rng.random(cl.size) < TRUTH[arm] + shift).astype(float)
        p = np.where(y == 1, HIT + judge_shift, FALSE_POSITIVE[bias][arm] + judge_shift)
        out[f"y_{arm}"] = y
        out[f"f_{arm}"] = (rng.random(cl.size) < p).astype(float)
    out["labelled"] = _labelled(rng, design, cl, clusters)
    return out


def _labelled(rng: np.random.Generator, design: str, cl: np.ndarray, clusters: int
              ) -> np.ndarray:
    if design == "items":
        return rng.random(cl.size) < 0.2
    return np.isin(cl, rng.choice(clusters, 10, replace=False))


def _preferences(rng: np.random.Generator, p_a: np.ndarray, p_tie: float) -> np.ndarray:
    u = rng.random(p_a.size)
    return np.where(u < p_a, 1.0, np.where(u < p_a + p_tie, 0.5, 0.0))


def simulate_preferences(rng: np.random.Generator, design: str, *, clusters: int = 40,
                         per: int = 8) -> dict[str, np.ndarray]:
    """One pairwise replicate: clusters, labelled mask, human and judge preferences of A."""
    cl = np.repeat(np.arange(clusters), per)
    y = _preferences(rng, WIN + rng.uniform(-0.1, 0.1, clusters)[cl], TIE)
    lean = LEAN[0] + rng.uniform(-0.05, 0.05, clusters)[cl]
    verdicts = []
    for _ in range(2):  # two trials (the positions swapped), averaged
        copy = rng.random(cl.size) < 0.7
        verdicts.append(np.where(copy, y, _preferences(rng, lean, LEAN[1])))
    return {"cluster": cl, "y": y, "f": np.mean(verdicts, axis=0),
            "labelled": _labelled(rng, design, cl, clusters)}


def one_preference(rng: np.random.Generator, design: str) -> dict[str, tuple[float, float]]:
    """(lower, upper) of each method for the human win rate of A over B."""
    d = simulate_preferences(rng, design)
    lab, cl, y, f = d["labelled"], d["cluster"], d["y"], d["f"]
    kw = dict(clusters_labelled=cl[lab], clusters_unlabelled=cl[~lab])
    judge = cluster_mean_interval(f, cl)
    humans = ppi_mean_clustered(y[lab], f[lab], f[~lab], lam=0.0, **kw)
    ppi = ppi_mean_clustered(y[lab], f[lab], f[~lab], **kw)
    return {"win judge": (judge.lower, judge.upper),
            "win humans": (humans.lower, humans.upper), "win ppi++": (ppi.lower, ppi.upper)}


def one(rng: np.random.Generator, design: str, bias: str = "by system"
        ) -> dict[str, tuple[float, float]]:
    """(lower, upper) of each method for B and for A - B."""
    d = simulate(rng, design, bias=bias)
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


def coverage(cell: str, design: str, reps: int, seed: int) -> dict[str, tuple[float, float]]:
    """method -> (coverage, mean width) over ``reps`` replicates of one cell."""
    rng = np.random.default_rng(seed)
    hits: dict[str, list[float]] = {}
    widths: dict[str, list[float]] = {}
    truths = {"B": TRUTH["B"], "A-B": TRUTH["A"] - TRUTH["B"], "win": WIN_RATE}
    for _ in range(reps):
        res = one_preference(rng, design) if cell == "preference" else one(rng, design, cell)
        for key, (lo, hi) in res.items():
            hits.setdefault(key, []).append(float(lo <= truths[key.split()[0]] <= hi))
            widths.setdefault(key, []).append(hi - lo)
    return {k: (float(np.mean(hits[k])), float(np.mean(widths[k]))) for k in hits}


CELLS = ("by system", "equal", "preference")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = [f"PPI++ coverage, {args.reps} replicates per cell, seed {args.seed}, 95% "
             "intervals; 40 clusters x 8 items; truth B = 0.60, A - B = 0.10; judge false "
             "positives A 0.10, B 0.35 (bias by system) or 0.20, 0.20 (equal); pairwise: "
             f"human win rate of A {WIN_RATE:.2f}, judge leaning to B"]
    worst = 1.0
    for cell in CELLS:
        for design in ("items", "clusters"):
            res = coverage(cell, design, args.reps, args.seed)
            labels = "20% of items" if design == "items" else "10 of 40 clusters"
            what = ("pairwise preferences" if cell == "preference"
                    else f"bias {cell}")
            lines.append(f"cell {what}, design {design} ({labels} labelled):")
            lines.append(f"  {'target  method':<22}{'coverage':>10}{'width':>9}"
                         f"{'width / humans':>16}")
            for key, (cov, width) in res.items():
                target, method = key.split()
                ratio = width / res[f"{target} humans"][1]
                lines.append(f"  {key:<22}{cov:>10.3f}{width:>9.3f}{ratio:>16.2f}")
                if method == "ppi++":
                    worst = min(worst, cov)
    lines.append(f"lowest PPI++ coverage over every cell and target: {worst:.3f} "
                 f"({'at least' if worst >= 0.935 else 'BELOW'} 0.935)")
    lines.append(f"time {time.perf_counter() - start:.1f} s")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
