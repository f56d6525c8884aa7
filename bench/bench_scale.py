"""Time and peak memory of ``assay report`` on 1 M to 100 M judgments (issue 16), by hand.

    python bench/bench_scale.py --rows 1000000 10000000 30000000 [--pandas-max 3000000]
                                [--spark-max 1000000]

For each size, writes a Parquet folder (20,000 clusters, string ids, 5 arms, 10 runs,
binary scores and a usd column; a file per 1,000 clusters) under ``--data`` (default
bench/out/scale), then runs ``assay report DIR --kind benchmark`` and ``--kind scores``
through DuckDB, each in its own process, and prints the wall time, the CPU time and the
peak resident memory of that process (``os.wait4``). Up to ``--pandas-max`` rows it also writes the
same rows as one Parquet file and runs the pandas path (``--engine pandas``) on it, and
checks that the JSON of both reports agrees to 1e-9. Up to ``--spark-max`` rows (and
when pyspark and Java are there) it runs ``--engine spark`` (``local[2]``) on the folder
too; its peak memory is that of the whole process tree (Python and the JVM it starts),
sampled with psutil every 50 ms. Up to ``--ibis-max`` rows (0 by default) it loads the
folder into a DuckDB database file and an SQLite file as the table ``judgments`` and runs
``--engine ibis://...`` on each (the load is not timed). Up to ``--map-max`` rows (1 M by
default) it writes the folder again with the correctness column named ``correct``, as
benchmark exports name it, and runs ``assay report DIR --map correct=score`` through DuckDB
(the rename is in the engine's scan), checking its JSON against the folder named as assay
names it. On that folder it also runs the issue's command as a user types it,
``assay report DIR --map correct=score`` (the default report, no --scale: the 0/1 column is
read as binary), prints its wall time and peak RSS against the targets (under 60 s and
2 GiB at 30 M rows), and checks the accuracies of the ``--kind scores`` run exactly against a
direct count (pyarrow: the correct rows and all rows of each arm, summed over the files).
Results go to stdout; keep them in bench/results/scale.txt.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ARMS, RUNS, CLUSTERS = 5, 10, 20_000
CLUSTERS_PER_FILE = 1_000


def write_folder(rows: int, folder: Path, single: Path | None, seed: int = 0, *,
                 score: str = "score") -> None:
    """rows = items x 5 arms x 10 runs; items spread evenly over 20,000 clusters (one
    item a cluster below 1 M rows); the scores in the column ``score``."""
    folder.mkdir(parents=True, exist_ok=True)
    n_items = max(1, rows // (ARMS * RUNS))
    n_clusters = min(CLUSTERS, n_items)  # fewer below 1 M rows (--rows for development)
    per_cluster = max(1, n_items // n_clusters)
    rng = np.random.default_rng(seed)
    skill = np.array([0.62, 0.66, 0.7, 0.72, 0.75])
    writer = None
    for start in range(0, n_clusters, CLUSTERS_PER_FILE):
        clusters = np.arange(start, min(start + CLUSTERS_PER_FILE, n_clusters))
        items = np.arange(clusters[0] * per_cluster, (clusters[-1] + 1) * per_cluster)
        n = items.size * ARMS * RUNS
        item = np.repeat(items, ARMS * RUNS)
        arm = np.tile(np.repeat(np.arange(ARMS), RUNS), items.size)
        difficulty = rng.normal(0, 1.0, items.size)[np.repeat(np.arange(items.size), ARMS * RUNS)]
        p = 1 / (1 + np.exp(-(np.log(skill[arm] / (1 - skill[arm])) + difficulty)))
        table = pa.table({
            "cluster": pa.array(np.char.add("doc-", (item // per_cluster).astype(str))),
            "item": pa.array(np.char.add("question-", item.astype(str))),
            "arm": pa.array(np.array([f"model-{a}" for a in range(ARMS)])[arm]),
            "run": pa.array(np.tile(np.arange(1, RUNS + 1), items.size * ARMS)),
            score: pa.array((rng.random(n) < p).astype(np.int64)),
            "usd": pa.array(rng.gamma(2.0, 0.0005, n)),
        })
        pq.write_table(table, folder / f"part-{start // CLUSTERS_PER_FILE:03d}.parquet")
        if single is not None:
            writer = writer or pq.ParquetWriter(single, table.schema)
            writer.write_table(table)
    if writer is not None:
        writer.close()


def direct_accuracies(folder: Path) -> dict[str, tuple[int, int]]:
    """Arm -> (correct rows, rows) of the folder's ``correct`` column, counted file by file."""
    counts: dict[str, list[int]] = {}
    for file in sorted(folder.glob("*.parquet")):
        table = pq.read_table(file, columns=["arm", "correct"])
        grouped = table.group_by("arm").aggregate([("correct", "sum"), ("correct", "count")])
        for arm, right, n in zip(*(grouped[c].to_pylist() for c in ("arm", "correct_sum", "correct_count")),
                                 strict=True):
            total = counts.setdefault(arm, [0, 0])
            total[0] += right
            total[1] += n
    return {arm: (right, n) for arm, (right, n) in counts.items()}


def check_accuracies(scores: dict, counts: dict[str, tuple[int, int]]) -> None:
    """Print each arm's accuracy from the report beside the direct count: the same float
    (the count's k / n) and the same n."""
    rows = {row["arm"]: row for row in scores["scores"]}
    worst = 0.0
    same = rows.keys() == counts.keys()
    for arm, (right, n) in sorted(counts.items()):
        row = rows.get(arm, {})
        estimate = row.get("estimate")
        gap = abs((estimate if estimate is not None else math.inf) - right / n)
        same = same and row.get("n") == n and gap <= 1e-12
        worst = max(worst, gap)
        print(f"    {arm}: report {estimate!r} of n {row.get('n'):,}  direct {right:,} / {n:,} "
              f"= {right / n!r}")
    print(f"  accuracies and n the same as the direct count (to 1e-12: the report sums in another "
          f"order): {same} (largest difference {worst:.1e})")


def timed(args: list[str]) -> tuple[float, float | None, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS MiB, exit status, stderr tail) of ``python -m
    assay ARGS``; the CPU time (user + system) does not grow with the load of shared cores
    as the wall time does."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-m", "assay", *args],
                                   stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
    return (wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status), "".join(tail))


def timed_tree(args: list[str]) -> tuple[float, float | None, float, int, str]:
    """:func:`timed` for a command that starts children (Spark's JVM): the peak of the
    summed RSS of the process and its descendants, sampled every 50 ms; no CPU time."""
    import psutil

    start = time.perf_counter()
    peak = 0
    with tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-m", "assay", *args],
                                   stdout=subprocess.DEVNULL, stderr=err)
        root = psutil.Process(process.pid)
        while process.poll() is None:
            try:
                tree = [root, *root.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in tree if p.is_running()))
            except psutil.Error:
                pass
            time.sleep(0.05)
        wall = time.perf_counter() - start
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
    return wall, None, peak / 2**20, process.returncode, "".join(tail)


def close(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--pandas-max", type=int, default=3_000_000)
    parser.add_argument("--spark-max", type=int, default=1_000_000,
                        help="largest size run on Spark local[2] (0: none)")
    parser.add_argument("--ibis-max", type=int, default=0,
                        help="largest size run through ibis on DuckDB and SQLite files (0: none)")
    parser.add_argument("--map-max", type=int, default=1_000_000,
                        help="largest size run with the score column named 'correct' and "
                        "--map correct=score (0: none)")
    parser.add_argument("--map-only", action="store_true",
                        help="write only the folder with the column named 'correct' and run "
                        "only the --map rows")
    parser.add_argument("--data", type=Path, default=Path(__file__).parent / "out" / "scale")
    parser.add_argument("--keep", action="store_true", help="keep the generated data")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; B = 2000 (the default); "
          f"load average {os.getloadavg()[0]:.1f} at the start (the cores are shared)")
    for rows in args.rows:
        folder = args.data / f"rows-{rows}"
        single = args.data / f"rows-{rows}.parquet" if rows <= args.pandas_max else None
        start = time.perf_counter()
        if args.map_only:
            single, folder = None, args.data / f"rows-{rows}-correct"
        if not folder.exists():
            write_folder(rows, folder, single, score="correct" if args.map_only else "score")
        size = sum(f.stat().st_size for f in folder.iterdir()) / 2**20
        print(f"\n{rows:,} rows: {size:,.0f} MiB of Parquet in {len(list(folder.iterdir()))} "
              f"files (written in {time.perf_counter() - start:.1f} s)")
        databases = (load_databases(folder, args.data / f"rows-{rows}")
                     if rows <= args.ibis_max else {})
        mapped = args.data / f"rows-{rows}-correct" if rows <= args.map_max else None
        if mapped is not None and not mapped.exists():
            write_folder(rows, mapped, None, score="correct")
        for kind in ("benchmark", "scores"):
            runs = [("duckdb", folder)] + ([("pandas", single)] if single else [])
            if args.map_only:
                runs = []
            elif rows <= args.spark_max and spark_runs():
                runs.append(("spark", folder))
            runs += [(url, "judgments") for url in databases.values()] if not args.map_only else []
            runs += [("duckdb --map", mapped)] if mapped is not None else []
            outputs = {}
            for engine, source in runs:
                name = (f"ibis-{engine.split('://')[1]}" if engine.startswith("ibis://")
                        else engine)
                out = args.data / f"out-{rows}-{kind}-{name.replace(' ', '')}"
                options = ["--map", "correct=score"] if name == "duckdb --map" else []
                wall, cpu, rss, code, tail = (timed_tree if engine == "spark" else timed)([
                    "report", str(source), "--kind", kind, "--scale", "score=binary",
                    *options, "--engine", engine.split()[0], "--format", "json",
                    "--out", str(out)])
                engine = name
                status = "" if code == 0 else f"  FAILED ({code}): {tail}"
                cpu_text = f"{'-':>7s}" if cpu is None else f"{cpu:7.1f}"
                print(f"  {kind:9s} {engine:12s} {wall:7.1f} s  cpu {cpu_text} s  "
                      f"peak RSS {rss:7,.0f} MiB  "
                      f"(load {os.getloadavg()[0]:.1f}){status}")
                if code == 0:
                    outputs[engine] = json.loads((out / f"{kind}.json").read_text())
            for other in ("pandas", "spark", "ibis-duckdb", "ibis-sqlite", "duckdb --map"):
                if "duckdb" in outputs and other in outputs:
                    same = close(outputs["duckdb"], outputs[other])
                    print(f"  {kind:9s} duckdb and {other} agree to 1e-9: {same}")
        if mapped is not None:
            out = args.data / f"out-{rows}-default-map"
            wall, cpu, rss, code, tail = timed(["report", str(mapped), "--map", "correct=score",
                                                "--out", str(out)])
            status = "" if code == 0 else f"  FAILED ({code}): {tail}"
            print(f"  assay report DIR --map correct=score (the default report): {wall:.1f} s wall "
                  f"(target < 60 at 30 M), cpu {cpu:.1f} s, peak RSS {rss:,.0f} MiB (target < 2,048) "
                  f"(load {os.getloadavg()[0]:.1f}){status}")
            scores = args.data / f"out-{rows}-scores-duckdb--map" / "scores.json"
            if scores.exists():
                check_accuracies(json.loads(scores.read_text()), direct_accuracies(mapped))
        if not args.keep:
            for path in [folder, single, mapped,
                         *(Path(u.split("://")[2]) for u in databases.values())]:
                if path is not None and path.exists():
                    subprocess.run(["rm", "-rf", str(path)], check=True)


def load_databases(folder: Path, stem: Path) -> dict[str, str]:
    """The Parquet folder as the table ``judgments`` of a DuckDB and an SQLite file:
    backend -> the ``--engine`` URL."""
    import sqlite3

    import duckdb

    urls = {}
    for backend in ("duckdb", "sqlite"):
        path = stem.with_suffix(f".{backend}")
        path.unlink(missing_ok=True)
        start = time.perf_counter()
        if backend == "duckdb":
            with duckdb.connect(str(path)) as connection:
                connection.execute("CREATE TABLE judgments AS SELECT * FROM "
                                   f"read_parquet('{folder}/*.parquet')")
        else:
            with sqlite3.connect(path) as connection:
                connection.execute("CREATE TABLE judgments (cluster TEXT, item TEXT, arm TEXT, "
                                   "run INTEGER, score INTEGER, usd REAL)")
                for file in sorted(folder.iterdir()):
                    rows = pq.read_table(file).to_pylist()
                    connection.executemany("INSERT INTO judgments VALUES (:cluster, :item, "
                                           ":arm, :run, :score, :usd)", rows)
            connection.close()
        print(f"  loaded into {path.name} in {time.perf_counter() - start:.1f} s")
        urls[backend] = f"ibis://{backend}://{path.resolve()}"
    return urls


def spark_runs() -> bool:
    from assay.data.engine import spark_missing

    return spark_missing() is None


if __name__ == "__main__":
    main()
