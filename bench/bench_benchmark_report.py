"""Wall time and peak memory of assay's benchmark report, side by side with peers.

Run by hand, not by the tests (issue 3, "Speed"):

    python bench/bench_benchmark_report.py               # both workloads, with peers
    python bench/bench_benchmark_report.py --only small  # workload A only
    python bench/bench_benchmark_report.py --no-peers    # assay only, no venv needed

Workloads:

* A (small): 10,000 items in 1,000 clusters x 3 arms x 5 runs = 150,000 binary rows,
  B = 10,000. Target: assay's whole report under 1.1 s, faster than the fastest peer's
  single interval. The table is written to ``bench/out/workload_a.csv``; assay and every
  peer read that file, so all compute on the same data.
* B (large): 20,000 items in 2,000 clusters x 5 arms x 10 runs = 1,000,000 rows with
  binary correctness, usd and tokens, B = 2,000. Target: under 10 s and 2 GB. Compared
  with the most direct pandas approach (a loop over the B draws that samples clusters
  with replacement, takes their rows and recomputes per-arm accuracy with a groupby) on
  a tenth of the data: the first 200 clusters, 100,000 rows.

Peers run in subprocesses with the python of their own venv, ``bench/.venv-peers``
(created here; the project does not depend on them): evalstats 0.3.3, evalci 0.1.0,
errorbars 0.2.4 and scipy (the version assay runs on). Each peer's subprocess loads the
data and prepares its input first (not timed), then times only the computation; imports
and loading are excluded. A peer that fails to install or run is reported with the
reason, and the run goes on.

assay is timed in this process: a first call (cold), then ``--repeat`` calls; ratios
use the median of the repeats. A further call runs under tracemalloc for the peak of
memory allocated during the call, and the process's peak resident size (ru_maxrss,
which includes the generated tables) is printed after each workload.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy

import assay
from assay.analysis.benchmark import benchmark_report

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
VENV = HERE / ".venv-peers"
PEER_TIMEOUT = 1800
"""Seconds a peer's subprocess may take before it is stopped and reported as failed."""

ARM = "model-0"
"""The arm whose interval every tool reports (the single-interval peers see only it)."""


def make_frame(*, n_items: int, n_clusters: int, arms: int, runs: int, cost: bool,
               strings: bool = True, seed: int = 0) -> pd.DataFrame:
    """A balanced bench: items in clusters, a cluster effect, per-arm accuracy, runs.

    Label columns hold Python strings (object dtype, the slow case for grouping) unless
    ``strings`` is False, when they are pandas categoricals. Item i is in cluster
    i mod ``n_clusters``.
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


@dataclass
class Timing:
    first: float
    repeats: list[float]
    traced_peak: int
    interval: tuple[float, float]
    method: str

    @property
    def median(self) -> float:
        return statistics.median(self.repeats)


def time_assay(frame: pd.DataFrame, n_resamples: int, repeat: int) -> Timing:
    """First call, ``repeat`` more, then one under tracemalloc."""
    def once() -> tuple[float, object]:
        gc.collect()
        start = time.perf_counter()
        report = benchmark_report(frame, B=n_resamples)
        return time.perf_counter() - start, report

    first, report = once()
    repeats = [once()[0] for _ in range(repeat)]
    gc.collect()
    tracemalloc.start()
    benchmark_report(frame, B=n_resamples)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    row = next(r for r in report.accuracy if r["arm"] == ARM)  # type: ignore[attr-defined]
    return Timing(first, repeats, peak, (row["lower"], row["upper"]),
                  report.method)  # type: ignore[attr-defined]


def print_timing(label: str, timing: Timing) -> None:
    print(f"  {label}: first call {timing.first:.3f} s; {len(timing.repeats)} more: median "
          f"{timing.median:.3f} s, best {min(timing.repeats):.3f} s "
          f"(all: {', '.join(f'{t:.3f}' for t in timing.repeats)})")
    print(f"  peak memory allocated during one call (tracemalloc): "
          f"{timing.traced_peak / 2**20:,.0f} MiB")


def print_rss(after: str) -> None:
    scale = 1 if sys.platform == "darwin" else 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    print(f"  process peak resident size after {after} (ru_maxrss, whole process including "
          f"the generated tables): {peak / 2**20:,.0f} MiB")


# ----- peers -------------------------------------------------------------------------------

# Each snippet runs as ``python -c SNIPPET DATA_CSV B SEED`` in the peers' venv. It loads
# and prepares its input untimed, times only the computation, and prints one RESULT line.
_ITEM_MEANS = f"""
import json, sys, time
import numpy as np, pandas as pd
path, B, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frame = pd.read_csv(path)
one = frame[frame["arm"] == {ARM!r}]
items = one.groupby(["cluster", "item"], sort=True)["score"].mean().reset_index()
x = items["score"].to_numpy(dtype=float)
clusters = items["cluster"].to_numpy()
"""

_EMIT = """
print("RESULT " + json.dumps({"seconds": seconds, "lower": float(lower), "upper": float(upper)}))
"""

PEERS = [
    ("evalstats 0.3.3 compare", "evalstats==0.3.3",
     "all 3 arms: Wilson CI per arm, Bonett-Price pairwise CIs (Sidak), bootstrap-t "
     "p-values with Romano-Wolf (B resamples of items), Friedman, ranks; items, not "
     "clusters, are the unit", 8.9,
     """
import json, sys, time
import pandas as pd
import evalstats as es
path, B, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frame = pd.read_csv(path).rename(columns={"arm": "model"})[["model", "item", "run", "score"]]
data = es.load_from(frame, metric_cols={"score": "binary"})
start = time.perf_counter()
result = es.compare(data, factors="model", n_bootstrap=B)
seconds = time.perf_counter() - start
entity = result.to_dict()["entities"][ARM]
lower, upper = entity["ci_low"], entity["ci_high"]
""".replace("ARM", repr(ARM)) + _EMIT),
    ("evalci 0.1.0 cluster_ci", "evalci==0.1.0",
     "1 arm: percentile cluster bootstrap of the mean of 10,000 item means (Python loop "
     "over B)", 2.8,
     _ITEM_MEANS + """
import evalci
start = time.perf_counter()
result = evalci.cluster_ci(x, clusters, n_resamples=B, random_state=seed)
seconds = time.perf_counter() - start
lower, upper = result.lower, result.upper
""" + _EMIT),
    ("scipy.stats.bootstrap BCa", f"scipy=={scipy.__version__}",
     "1 arm: BCa of the mean of 10,000 item means, resampling items (cluster-blind)", 8.4,
     _ITEM_MEANS + """
from scipy import stats
start = time.perf_counter()
result = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=B,
                         rng=np.random.default_rng(seed))
seconds = time.perf_counter() - start
lower, upper = result.confidence_interval
""" + _EMIT),
    ("errorbars 0.2.4 bootstrap_ci", "errorbars==0.2.4",
     "1 arm: percentile bootstrap of the mean of 10,000 item means, resampling items "
     "(cluster-blind)", 1.1,
     _ITEM_MEANS + """
import errorbars
start = time.perf_counter()
result = errorbars.bootstrap_ci(x, n_boot=B, seed=seed)
seconds = time.perf_counter() - start
lower, upper = result.ci_low, result.ci_high
""" + _EMIT),
]


def venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def prepare_venv() -> dict[str, str]:
    """Create the peers' venv and install each peer; returns {requirement: why it failed}."""
    failures: dict[str, str] = {}
    if not venv_python().exists():
        made = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True,
                              text=True)
        if made.returncode != 0:
            why = f"could not create {VENV}: {made.stderr.strip()[-300:]}"
            return {peer[1]: why for peer in PEERS}
    for requirement in (peer[1] for peer in PEERS):
        name, version = requirement.split("==")
        probe = subprocess.run(
            [str(venv_python()), "-c",
             f"import importlib.metadata as m; print(m.version({name!r}))"],
            capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            continue
        done = subprocess.run(
            [str(venv_python()), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             requirement], capture_output=True, text=True)
        if done.returncode != 0:
            failures[requirement] = ("pip install failed: "
                                     + (done.stderr.strip().splitlines() or ["?"])[-1])
    return failures


def run_peer(code: str, data: Path, n_resamples: int, seed: int) -> dict[str, float] | str:
    """The peer's RESULT record, or why it failed."""
    try:
        done = subprocess.run([str(venv_python()), "-c", code, str(data), str(n_resamples),
                               str(seed)], capture_output=True, text=True,
                              timeout=PEER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"stopped after {PEER_TIMEOUT} s"
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("RESULT "):
            record: dict[str, float] = json.loads(line[len("RESULT "):])
            return record
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"exit code {done.returncode}: {tail}"


def compare_peers(data: Path, timing: Timing, n_resamples: int, peer_repeat: int) -> None:
    assay_seconds, assay_interval = timing.median, timing.interval
    print(f"\nPeers on workload A (same file {data.relative_to(HERE.parent)}), B = "
          f"{n_resamples:,}, in subprocesses with {venv_python().relative_to(HERE.parent)}.")
    print("Peer seconds time only the computation: imports, reading the file and forming "
          "item means are excluded\n(assay's seconds include its own checks and aggregation "
          "from rows). Ratios = peer seconds / assay seconds,\n"
          f"with assay's median warm call ({assay_seconds:.3f} s) and its first, cold call "
          f"({timing.first:.3f} s); each peer runs once in a fresh process.\n"
          f"Interval: {ARM}'s 95% interval of accuracy.")
    failures = prepare_venv()
    rows = [("assay " + assay.__version__ + " benchmark_report",
             "whole report, 3 arms: studentised cluster bootstrap, contrasts, max-t, ranks, "
             "pass^k, stability, variance, failures", None, assay_seconds, assay_interval)]
    for name, requirement, computes, before, code in PEERS:
        if requirement in failures:
            rows.append((name, computes, before, failures[requirement], None))
            continue
        results = [run_peer(code, data, n_resamples, seed=1) for _ in range(peer_repeat)]
        bad = next((r for r in results if isinstance(r, str)), None)
        if bad is not None:
            rows.append((name, computes, before, bad, None))
            continue
        seconds = min(float(r["seconds"]) for r in results)  # type: ignore[index]
        record = results[0]
        rows.append((name, computes, before, seconds,
                     (float(record["lower"]), float(record["upper"]))))  # type: ignore[index]
    print(f"\n  {'tool':<33} {'seconds':>8} {'/median':>8} {'/first':>7} {'earlier':>8}  "
          f"{'interval (' + ARM + ')':<20}  what it computes")
    for name, computes, before, seconds, interval in rows:
        earlier = f"{before:.1f} s" if before is not None else ""
        shown = f"[{interval[0]:.4f}, {interval[1]:.4f}]" if interval is not None else ""
        if isinstance(seconds, str):
            print(f"  {name:<33} {'failed':>8} {'':>8} {'':>7} {earlier:>8}  {'':<20}  "
                  f"{seconds}")
            continue
        ratio = "" if name.startswith("assay") else f"{seconds / assay_seconds:.1f}x"
        cold = "" if name.startswith("assay") else f"{seconds / timing.first:.1f}x"
        print(f"  {name:<33} {seconds:8.3f} {ratio:>8} {cold:>7} {earlier:>8}  {shown:<20}  "
              f"{computes}")
    print("  (earlier: figures measured before on this kind of machine, from issue 3)")


# ----- pandas, resampling rows per draw ----------------------------------------------------

_PANDAS_LOOP = f"""
import json, sys, time
import numpy as np, pandas as pd
path, B, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
frame = pd.read_csv(path)[["cluster", "arm", "score"]]
rng = np.random.default_rng(seed)
start = time.perf_counter()
rows_of = frame.groupby("cluster", sort=True).indices
clusters = list(rows_of)
arms = pd.unique(frame["arm"])
accuracy = np.empty((B, arms.size))
for b in range(B):
    chosen = rng.integers(0, len(clusters), len(clusters))
    rows = np.concatenate([rows_of[clusters[c]] for c in chosen])
    accuracy[b] = frame.iloc[rows].groupby("arm")["score"].mean().reindex(arms).to_numpy()
lower, upper = np.percentile(accuracy[:, list(arms).index({ARM!r})], [2.5, 97.5])
seconds = time.perf_counter() - start
""" + _EMIT


def compare_pandas(frame: pd.DataFrame, n_clusters: int, n_resamples: int,
                   assay_full: float) -> None:
    codes = frame["cluster"].str.slice(3).astype(int).to_numpy()
    tenth = frame.loc[codes < n_clusters // 10]
    path = OUT / "workload_b_tenth.csv"
    tenth.to_csv(path, index=False)
    print(f"\nThe most direct pandas approach on a tenth of workload B (the first "
          f"{n_clusters // 10} clusters: {len(tenth):,} rows, {tenth['item'].nunique():,} "
          f"items), B = {n_resamples:,}:")
    print("  a Python loop over the draws: sample clusters with replacement, take their rows "
          "(frame.iloc), per-arm accuracy by\n  groupby('arm').mean(); percentile intervals "
          "only. Timed in a subprocess (this python), excluding import and file reading.")
    done = subprocess.run([sys.executable, "-c", _PANDAS_LOOP, str(path), str(n_resamples), "1"],
                          capture_output=True, text=True, timeout=PEER_TIMEOUT)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    if line is None:
        print(f"  failed (exit code {done.returncode}): "
              f"{(done.stderr.strip().splitlines() or ['no output'])[-1]}")
        return
    seconds = float(json.loads(line[len("RESULT "):])["seconds"])
    tenth_assay = time_assay(tenth, n_resamples, repeat=3)
    print(f"  pandas loop, tenth of the data:          {seconds:8.2f} s")
    print(f"  assay whole report, same tenth:          {tenth_assay.median:8.3f} s (median of "
          f"3)  -> pandas / assay = {seconds / tenth_assay.median:,.0f}x")
    print(f"  pandas loop, full data, EXTRAPOLATED x10 (linear in rows, not run): "
          f"{10 * seconds:8.1f} s")
    print(f"  assay whole report, full data (measured): {assay_full:8.3f} s  -> pandas on a "
          f"tenth / assay on all = {seconds / assay_full:,.0f}x; extrapolated full / assay = "
          f"{10 * seconds / assay_full:,.0f}x")


# ----- main --------------------------------------------------------------------------------


def workload(name: str, args: argparse.Namespace) -> None:
    shape, n_resamples = WORKLOADS[name]
    generated = make_frame(**shape, strings=not args.categorical)
    label = "A" if name == "small" else "B"
    print(f"\nWorkload {label}: {len(generated):,} rows, {shape['n_items']:,} items, "
          f"{shape['n_clusters']:,} clusters, {shape['arms']} arms, {shape['runs']} runs, "
          f"B = {n_resamples:,}{', usd and tokens' if shape['cost'] else ''}")
    if name == "small":
        path = OUT / "workload_a.csv"
        generated.to_csv(path, index=False)
        frame = pd.read_csv(path) if not args.categorical else generated
        del generated
    else:
        frame = generated
    timing = time_assay(frame, n_resamples, args.repeat)
    target = 1.1 if name == "small" else 10.0
    print(f"  assay {assay.__version__} benchmark_report, method "
          f"{timing.method}, whole report (target < {target} s"
          f"{'' if name == 'small' else ' and < 2 GB'}):")
    print_timing("wall time", timing)
    print_rss(f"workload {label}")
    verdict = "met" if max(timing.first, timing.median) < target else "MISSED"
    print(f"  target {verdict}: first call and median both under {target} s" if verdict == "met"
          else f"  target MISSED: first call {timing.first:.3f} s, median {timing.median:.3f} s")
    if name == "small" and not args.no_peers:
        compare_peers(OUT / "workload_a.csv", timing, n_resamples, args.peer_repeat)
    if name == "large" and not args.no_peers:
        compare_pandas(frame, shape["n_clusters"], n_resamples, timing.median)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", choices=sorted(WORKLOADS), default=None)
    parser.add_argument("--repeat", type=int, default=5, help="timed calls after the first")
    parser.add_argument("--peer-repeat", type=int, default=1,
                        help="runs of each peer (the best is shown)")
    parser.add_argument("--no-peers", action="store_true",
                        help="time assay only (no venv, no pandas loop)")
    parser.add_argument("--categorical", action="store_true",
                        help="label columns as pandas categoricals instead of Python strings")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    print(f"assay {assay.__version__}, Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"pandas {pd.__version__}, scipy {scipy.__version__}; {os.cpu_count()} cores; "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min)")
    for name in [args.only] if args.only else list(WORKLOADS):
        workload(name, args)
    print(f"\nload average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
