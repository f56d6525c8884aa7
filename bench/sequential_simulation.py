"""Sequential judging (``assay judge --until``, issue 28): error under continuous monitoring,
and the judgments saved on the demo's design.

Part 1, error under monitoring (known truth). Two systems answer items grouped in clusters
(sizes 2-9, as the demo's documents): item i of cluster c is answered right by system k with
probability sigmoid(a_k + u_c + e_i), u_c ~ N(0, 2.8^2), e_i ~ N(0, 2.0^2) (the demo's
document and item effects); the per-item difference is y_A - y_B in {-1, 0, 1} and each
cluster's mean difference is one observation, clusters in a random order. The estimand is
delta = E[sigmoid(a_A + u + e) - sigmoid(a_B + u + e)] (computed by quadrature), 0 when
a_A = a_B. The run *looks after every cluster* (the most looks there can be) and, over
``--reps`` seeded replicates of C clusters, we count

* ``miss``: replicates in which the confidence sequence (assay.stats.sequential, 95%) excludes
  delta at *some* look (its guarantee: at most 5%);
* ``wrong``: with delta = 0, replicates in which it declares a difference at some look
  (what stopping on "decided" would wrongly conclude; at most 5%);
* the same two for the naive alternative, a 95% cluster t interval recomputed at every look
  (n >= 3), which is not valid under monitoring;
* ``decided``: replicates in which "decided" stops by C clusters (its power; with delta = 0,
  the same as ``wrong``); ``stop``: the median number of clusters at which it stops (C when
  it never does).

Part 2, the demo's design (``assay demo``'s simulated evaluation, seed 7: 200 items in 40
documents, 3 systems, 5 runs; judges judge-lenient (quality 0-100) and judge-pairwise
(preference, two trials on run 1), 3 pairs each: K = 6 comparisons at 95% familywise). For
``--orders`` random orders of its documents, looking every 2 documents (the default: a
twentieth), with the looks of ``assay.judge.sequential.Observations`` (the code ``assay judge
--until`` runs, a batch's rows added at each look), we report where ``decided`` stops and the
share of the judgments not made; also for the same design with 5x the documents and items
(200 documents, 1000 items).

Both parts run for each confidence sequence of ``--methods`` (``betting``, the default of
``assay judge --until``, and ``empirical_bernstein``). Bounded: ``nice -n 10 python
bench/sequential_simulation.py --orders 40`` takes about 6.5 minutes on one core. Results
in ``bench/results/sequential.txt``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats

from assay.stats.sequential import paired_difference_cs

CLUSTER_SD, ITEM_SD = 2.8, 2.0


def truth(a_a: float, a_b: float) -> float:
    """delta by Gauss-Hermite quadrature over u + e ~ N(0, 2.8^2 + 2.0^2)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(201)
    z = nodes * np.hypot(CLUSTER_SD, ITEM_SD)
    d = 1 / (1 + np.exp(-(a_a + z))) - 1 / (1 + np.exp(-(a_b + z)))
    return float(np.sum(weights * d) / np.sum(weights))


def draw(rng: np.random.Generator, clusters: int, a_a: float, a_b: float) -> np.ndarray:
    """Cluster means of the per-item differences, in a random order (the draw is i.i.d.)."""
    sizes = rng.integers(2, 10, clusters)
    u = np.repeat(rng.normal(0, CLUSTER_SD, clusters), sizes)
    eta = u + rng.normal(0, ITEM_SD, sizes.sum())
    y_a = rng.random(eta.size) < 1 / (1 + np.exp(-(a_a + eta)))
    y_b = rng.random(eta.size) < 1 / (1 + np.exp(-(a_b + eta)))
    d = y_a.astype(float) - y_b
    codes = np.repeat(np.arange(clusters), sizes)
    return np.bincount(codes, weights=d) / sizes


def naive_misses(obs: np.ndarray, delta: float, conf: float) -> tuple[bool, bool]:
    """(excludes delta at some look, excludes 0 at some look) of a t interval at every look."""
    n = np.arange(1, obs.size + 1)
    mean = np.cumsum(obs) / n
    var = (np.cumsum(obs ** 2) - n * mean ** 2) / np.maximum(n - 1, 1)
    half = stats.t.ppf((1 + conf) / 2, np.maximum(n - 1, 1)) * np.sqrt(np.maximum(var, 0) / n)
    ok = n >= 3
    lo, hi = (mean - half)[ok], (mean + half)[ok]
    return bool(np.any((lo > delta) | (hi < delta))), bool(np.any((lo > 0) | (hi < 0)))


def part_one(reps: int, seed: int, method: str) -> list[str]:
    lines = [f"part 1 ({method}): error under continuous monitoring (a look after every cluster), conf 0.95",
             f"{'clusters':>8} {'a_A':>5} {'a_B':>5} {'delta':>7} {'miss':>7} {'wrong':>7} "
             f"{'t miss':>7} {'t wrong':>7} {'decided':>7} {'stop':>6}  (reps {reps}; shares of replicates)"]
    rng = np.random.default_rng(seed)
    for clusters in (40, 200):
        for a_a, a_b in ((0.0, 0.0), (0.8, 0.0), (1.6, 0.0)):
            delta = truth(a_a, a_b)
            miss = wrong = t_miss = t_wrong = hits = 0
            stops = []
            for _ in range(reps):
                obs = draw(rng, clusters, a_a, a_b)
                cs = paired_difference_cs(obs, conf=0.95, method=method)
                miss += bool(np.any((cs.lower > delta) | (cs.upper < delta)))
                decided = (cs.lower > 0) | (cs.upper < 0)
                wrong += bool(np.any(decided)) and delta == 0.0
                hits += bool(np.any(decided))
                stops.append(int(np.argmax(decided)) + 1 if decided.any() else clusters)
                m, w = naive_misses(obs, delta, 0.95)
                t_miss += m
                t_wrong += w and delta == 0.0
            wrong_s = f"{wrong / reps:7.3f}" if delta == 0.0 else f"{'-':>7}"
            t_wrong_s = f"{t_wrong / reps:7.3f}" if delta == 0.0 else f"{'-':>7}"
            lines.append(f"{clusters:>8} {a_a:>5.1f} {a_b:>5.1f} {delta:>7.4f} {miss / reps:7.3f} {wrong_s} "
                         f"{t_miss / reps:7.3f} {t_wrong_s} {hits / reps:7.3f} {int(np.median(stops)):>6}")
    return lines


def demo_rows(folder: str, n_documents: int, n_questions: int) -> tuple[list[dict], int, dict]:
    """The demo's judge-lenient and judge-pairwise rows (as the store gives them), all judgments."""
    import assay
    from assay.data.schema import Scale
    from assay.demo.simulate import simulate_evaluation

    simulate_evaluation(folder, seed=7, n_documents=n_documents, n_questions=n_questions)
    frame = assay.load(folder).frame
    total = len(frame)
    frame = frame[frame["judge"].isin(["judge-lenient", "judge-pairwise"])]
    rows = []
    for rec in frame[["item", "cluster", "arm", "opponent", "judge", "criterion", "score",
                      "failure_kind"]].to_dict("records"):
        rec = {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in rec.items()}
        rows.append(rec)
    scales = {"quality": Scale.parse("range:0,100"), "preference": Scale.parse("range:0,1")}
    return rows, total, scales


def part_two(orders: int, seed: int, method: str, designs: tuple[int, ...]) -> list[str]:
    import tempfile
    from itertools import combinations

    from assay.judge.sequential import Comparison, Observations, StoppingRule, look

    lines = ["", f"part 2 ({method}): the demo's design at conf 0.95 (familywise over the K comparisons, "
             "Bonferroni), a look every 1/20 of the documents"]
    every = {40: (40, 200, orders, 1.2), 200: (200, 1000, max(1, orders // 4), 0.3)}
    for n_documents, n_questions, n_orders, width in (every[d] for d in designs):
        with tempfile.TemporaryDirectory() as folder:
            rows, total, scales = demo_rows(folder, n_documents, n_questions)
        arms = sorted({r["arm"] for r in rows})
        lenient = [Comparison("judge-lenient", "quality", a, b, False) for a, b in combinations(arms, 2)]
        pairwise = [Comparison("judge-pairwise", "preference", a, b, True) for a, b in combinations(arms, 2)]
        clusters = sorted({r["cluster"] for r in rows})
        by_cluster: dict[str, list[dict]] = {}
        for r in rows:
            by_cluster.setdefault(r["cluster"], []).append(r)
        lines.append(f"  {n_documents} documents, {n_questions} items, 3 systems, 5 runs ({total} judgments "
                     f"in the simulated run), {n_orders} random orders:")
        variants = (("decided", None, lenient + pairwise, "both judges, K = 6"),
                    ("decided", None, pairwise, "--judges judge-pairwise, K = 3"),
                    ("width", width, lenient + pairwise, "both judges, K = 6"))
        for until, w, watched, words in variants:
            rule = StoppingRule(until=until, width=w, conf=0.95, seed=0, clusters_per_look=None,
                                method=method)
            per = rule.per_look(len(clusters))
            judges = {c.judge for c in watched}
            rng = np.random.default_rng(seed)
            stops, early = [], 0
            for _ in range(n_orders):
                order = [clusters[i] for i in rng.permutation(len(clusters))]
                stop = len(clusters)
                taken = Observations(watched)
                for k in range(per, len(clusters) + per, per):
                    taken.add([r for c in order[k - per:k] for r in by_cluster[c] if r["judge"] in judges],
                              scales)  # the new batch's rows, as assay judge --until reads them
                    if taken.look(order[:k], rule, number=k // per).stop:
                        stop = min(k, len(clusters))
                        early += stop < len(clusters)
                        break
                stops.append(stop)
            stops_a = np.array(stops)
            saved = 1 - stops_a / len(clusters)
            quartiles = f"{int(np.quantile(stops_a, 0.25))}-{int(np.quantile(stops_a, 0.75))}"
            lines.append(f"    --until {rule.words} ({words}): stopped early in {early} of {n_orders} "
                         f"orders; at {int(np.median(stops_a))} of {len(clusters)} documents (median; "
                         f"quartiles {quartiles}); judgments not made: {saved.mean():.1%} of the plan "
                         "on average")
        final = look(rows, scales, lenient + pairwise, clusters,
                     StoppingRule("decided", None, 0.95, 0, None, method=method), number=0)
        for c in final.comparisons:
            lines.append(f"    every document judged: {c.comparison.label}: {c.estimate:+.3f} "
                         f"[{c.lower:+.3f}, {c.upper:+.3f}]{' decided' if c.decided else ''} (K = 6)")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--orders", type=int, default=100)
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--methods", default="betting,empirical_bernstein",
                        help="the confidence sequences compared, comma-separated")
    parser.add_argument("--designs", default="40,200", help="the demo's document counts of part 2 (40, 200)")
    parser.add_argument("--skip-part-one", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    designs = tuple(int(d) for d in args.designs.split(","))
    lines: list[str] = []
    for method in args.methods.split(","):
        if not args.skip_part_one:
            lines += part_one(args.reps, args.seed, method)
        lines += [*part_two(args.orders, args.seed, method, designs), ""]
    lines.append(f"({time.perf_counter() - started:.0f} s; python {sys.version.split()[0]}, numpy "
                 f"{np.__version__}; nice -n 10 python bench/sequential_simulation.py --reps {args.reps} "
                 f"--orders {args.orders} --seed {args.seed} --methods {args.methods} "
                 f"--designs {args.designs}"
                 f"{' --skip-part-one' if args.skip_part_one else ''})")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
