"""Time the command line's start-up and a small report against importing pandas, in one run
(run by hand, not by the tests: the machine's load moves every figure, the ratios much less).

    python bench/bench_cli.py [--repeat 5] [--rows 10000]

Writes a 10,000-row binary-correctness table (200 items in 20 clusters x 5 arms x 10 runs,
plus usd) as Parquet under bench/out/, then runs each command ``--repeat`` times in a fresh
process and prints the median wall time, the median CPU time (user + system of the child)
and both as a ratio to ``python -c "import pandas"`` measured in the same run. Targets:
``assay --help`` under 0.3 s and ``assay report`` (the score summary) under 1 s of wall time
on an idle machine; with other work on the machine, the CPU time and the ratios say more.
Modules are read from ``.pyc`` files as an installed package reads them (one untimed run
writes them, even where ``PYTHONDONTWRITEBYTECODE`` is set); ``--no-bytecode`` compiles
every module from source on every run instead (about 0.2 s more for a report).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"assay --help": 0.3, "assay report --kind scores": 1.0}


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `command` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE: every module compiled from source")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_load import make_table

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    table = out / f"cli_{args.rows}.parquet"
    make_table(args.rows).to_parquet(table)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src"), "CI": "true"}
    if not args.no_bytecode:  # as installed: modules compiled once, then read from .pyc
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    assay = [sys.executable, "-m", "assay"]
    commands = {
        'python -c "import pandas"': [sys.executable, "-c", "import pandas"],
        "assay --help": [*assay, "--help"],
        "assay report --kind scores": [*assay, "report", str(table), "--kind", "scores"],
        "assay report (every kind)": [*assay, "report", str(table)],
    }
    if not args.no_bytecode:
        for command in commands.values():  # untimed: writes the .pyc files
            timed(command, env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeat):  # interleaved: a burst of load hits every command alike
        for name, command in commands.items():
            runs[name].append(timed(command, env))
    load = os.getloadavg()[0]
    print(f"{args.rows:,} rows, median of {args.repeat} runs each, load average {load:.1f} "
          f"on {os.cpu_count()} cores, "
          f"{'modules from source' if args.no_bytecode else 'modules from .pyc'}")
    base_wall = statistics.median(w for w, _ in runs['python -c "import pandas"'])
    base_cpu = statistics.median(c for _, c in runs['python -c "import pandas"'])
    print(f"{'command':28s} {'wall s':>7s} {'cpu s':>7s} {'wall/pandas':>12s} {'cpu/pandas':>11s}"
          "  target")
    for name, times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        target = TARGETS.get(name)
        verdict = "" if target is None else (f"< {target:g} s wall: "
                                             f"{'met' if wall < target else 'missed'}")
        print(f"{name:28s} {wall:7.2f} {cpu:7.2f} {wall / base_wall:12.2f} "
              f"{cpu / base_cpu:11.2f}  {verdict}")


if __name__ == "__main__":
    main()
