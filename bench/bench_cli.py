"""Time the command line's start-up, reports and the demo against importing pandas, in one run
(run by hand, not by the tests: the machine's load moves every figure, the ratios much less).

    python bench/bench_cli.py [--repeat 5] [--rows 10000] [--no-demo] [--src PATH]

Writes a 10,000-row binary-correctness table (200 items in 20 clusters x 5 arms x 10 runs,
plus usd) as Parquet under bench/out/, then runs each command ``--repeat`` times in a fresh
process and prints the median wall time, the median CPU time (user + system of the child)
and both as a ratio to ``python -c "import pandas"`` measured in the same run; then
``assay demo --out DIR`` (``--repeat`` times unless ``--no-demo``). Targets, in wall time on an
idle machine: ``assay --help`` under 0.3 s, ``assay report`` (the score summary, and the
default report) under 1 s, the demo under 20 s; with other work on the machine, the CPU time
(user + system of the child, which the load moves much less) and the ratios say more.
``--src`` times another source tree (for example a main checkout, for before and after).
The first ``assay view`` of the demo's run is timed by ``bench/bench_view.py``.
Modules are read from ``.pyc`` files as an installed package reads them (one untimed run
writes them, even where ``PYTHONDONTWRITEBYTECODE`` is set); ``--no-bytecode`` compiles
every module from source on every run instead (about 0.2 s more for a report).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"assay --help": 0.3, "assay report --kind scores": 1.0, "assay report (default)": 1.0,
           "assay demo --out DIR": 20.0}


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
    parser.add_argument("--no-demo", action="store_true", help="leave the demo out")
    parser.add_argument("--src", type=Path, action="append",
                        help="a source tree to time (default: this checkout's src); given twice "
                        "(a main checkout, then this one), both are timed in the same run, "
                        "interleaved")
    parser.add_argument("--no-bytecode", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE: every module compiled from source")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bench_load import make_table

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    table = out / f"cli_{args.rows}.parquet"
    make_table(args.rows).to_parquet(table)
    sources = [src.resolve() for src in (args.src or [HERE.parent / "src"])]
    assay = [sys.executable, "-m", "assay"]
    commands: dict[str, tuple[list[str], dict[str, str]]] = {}
    for src in sources:
        env = {**os.environ, "PYTHONPATH": str(src), "CI": "true"}
        if not args.no_bytecode:  # as installed: modules compiled once, then read from .pyc
            env.pop("PYTHONDONTWRITEBYTECODE", None)
        tag = f"[{src.parent.name}] " if len(sources) > 1 else ""
        if not commands:
            commands['python -c "import pandas"'] = ([sys.executable, "-c", "import pandas"], env)
        commands[f"{tag}assay --help"] = ([*assay, "--help"], env)
        commands[f"{tag}assay report --kind scores"] = (
            [*assay, "report", str(table), "--kind", "scores"], env)
        commands[f"{tag}assay report (default)"] = ([*assay, "report", str(table)], env)
        if not args.no_demo:  # a fresh folder each time: a rerun would resume the judging
            commands[f"{tag}assay demo --out DIR"] = (
                [*assay, "demo", "--out", str(out / f"demo-{len(commands)}")], env)

    def run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
        if "demo" in command:
            shutil.rmtree(command[-1], ignore_errors=True)
        return timed(command, env)

    if not args.no_bytecode:
        for command, env in commands.values():  # untimed: writes the .pyc files
            run(command, env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeat):  # interleaved: a burst of load hits every command alike
        for name, (command, env) in commands.items():
            runs[name].append(run(command, env))
    load = os.getloadavg()[0]
    print(f"{', '.join(map(str, sources))}: {args.rows:,} rows, median of {args.repeat} runs each, "
          f"load average {load:.1f} "
          f"on {os.cpu_count()} cores, "
          f"{'modules from source' if args.no_bytecode else 'modules from .pyc'}")
    base_wall = statistics.median(w for w, _ in runs['python -c "import pandas"'])
    base_cpu = statistics.median(c for _, c in runs['python -c "import pandas"'])
    print(f"{'command':36s} {'wall s':>7s} {'cpu s':>7s} {'wall/pandas':>12s} {'cpu/pandas':>11s}"
          "  target")
    for name, times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        target = TARGETS.get(name.split("] ")[-1])
        verdict = "" if target is None else (f"< {target:g} s wall: "
                                             f"{'met' if wall < target else 'missed'}")
        print(f"{name:36s} {wall:7.2f} {cpu:7.2f} {wall / base_wall:12.2f} "
              f"{cpu / base_cpu:11.2f}  {verdict}")


if __name__ == "__main__":
    main()
