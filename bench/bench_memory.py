"""Peak memory of ``assay validate`` and ``assay report`` on a valid table, against its size.

    python bench/bench_memory.py [--mb 30] [--command validate|report|both] [--formats csv,jsonl,parquet]

Writes a valid judgments table of about ``--mb`` megabytes as CSV (items in clusters x arms
x runs x judges x two criteria, with usd, tokens and a short reasoning: the columns a judge
run writes) and the same records as JSONL and Parquet under bench/out/, plus a small table
of its first 50 items in each format. Each command runs in a child process on both; the
table prints the file's size, the child's peak resident size (``VmHWM``), the peak of the
same command on the small table, and the ratio of the difference (what the file's records
cost, not the interpreter and the code the command loads) to the difference in size.
Issue item 10 asks for at most ~10x the file's size.

A Parquet file is compressed (this table 20:1), so its ratio is also given against the
size of its records as Arrow holds them uncompressed (``arrow x``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

MEASURE = """
import sys
def hwm():  # this process's peak resident size in KiB (ru_maxrss would include the parent's)
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
import pandas, pyarrow, pyarrow.csv, pyarrow.parquet, numpy  # what every read imports
import assay.data.io, assay.data.validate, assay.cli
base = hwm()
code = 0
try:
    assay.cli.main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
peak = hwm()
print(f"RSS {base} {peak} {code}", file=sys.stderr)
"""
"""Run in a child: prints its baseline and peak resident size (KiB, VmHWM of
/proc/self/status) and the exit status. ``ru_maxrss`` is not used: Linux carries the
parent's peak into a child across exec, so a large parent would hide the child's growth."""


def make_table(rows: int, seed: int = 0) -> pd.DataFrame:
    """A valid judgments table of about ``rows`` rows (binary ``correct``, 1-10 ``quality``)."""
    arms, runs, judges, criteria = 4, 3, 2, 2
    per_item = arms * runs * judges * criteria
    n_items = max(1, rows // per_item)
    rng = np.random.default_rng(seed)
    n = n_items * per_item
    items = np.repeat(np.arange(n_items), per_item)
    criterion = np.tile(np.array(["correct", "quality"]), n // criteria)
    score = np.where(criterion == "correct", rng.random(n) < 0.7, rng.integers(1, 11, n))
    return pd.DataFrame({
        "item": "q" + pd.Series(items).astype(str),
        "cluster": "doc" + pd.Series(items // 8).astype(str),
        "arm": np.tile(np.repeat([f"model-{i}" for i in range(arms)], runs * judges * criteria),
                       n_items),
        "run": np.tile(np.repeat(np.arange(1, runs + 1), judges * criteria), n_items * arms),
        "judge": np.tile(np.repeat(["gpt-4o", "claude"], criteria), n // (judges * criteria)),
        "criterion": criterion,
        "score": score.astype(float),
        "usd": np.round(rng.random(n) / 1000, 6),
        "tokens_in": rng.integers(200, 900, n),
        "tokens_out": rng.integers(20, 200, n),
        "reasoning": np.where(rng.random(n) < 0.5, "The answer is correct and complete.",
                              "Partly right; misses a step."),
    })


def write_tables(frame: pd.DataFrame, folder: Path, formats: list[str]) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = {fmt: folder / f"memory.{fmt}" for fmt in formats}
    if "csv" in paths:
        frame.to_csv(paths["csv"], index=False)
    if "jsonl" in paths:
        frame.to_json(paths["jsonl"], orient="records", lines=True)
    if "parquet" in paths:
        frame.to_parquet(paths["parquet"], index=False)
    return paths


def peak_kib(args: list[str]) -> int:
    """Peak resident size (KiB) of ``assay ARGS`` in a child; raise if it does not exit 0."""
    _, peak, code, stderr = measure(args)
    if code != 0:
        raise SystemExit(f"assay {' '.join(args)} exited {code}:\n{stderr[-2000:]}")
    return peak


def measure(args: list[str]) -> tuple[int, int, int, str]:
    """Resident size after imports, peak resident size (KiB), exit status and stderr of
    ``assay ARGS`` in a child."""
    result = subprocess.run([sys.executable, "-c", MEASURE, *args], capture_output=True,
                            text=True, timeout=1200)
    last = result.stderr.strip().splitlines()[-1]
    _, base, peak, code = last.split()
    return int(base), int(peak), int(code), result.stderr


def command_args(command: str, path: Path, out: Path) -> list[str]:
    scales = ["--scale", "correct=binary", "--scale", "quality=range:1,10"]
    if command == "validate":
        return ["validate", str(path), *scales]
    return ["report", str(path), *scales, "--out", str(out / f"report-{path.suffix[1:]}")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=30.0, help="size of the CSV, in MB")
    parser.add_argument("--command", choices=["validate", "report", "both"], default="both")
    parser.add_argument("--formats", default="csv,jsonl,parquet")
    args = parser.parse_args()
    out = Path(__file__).parent / "out"
    rows = int(args.mb * 1e6 / 80)  # a CSV row of this table takes about 80 bytes
    frame = make_table(rows)
    formats = args.formats.split(",")
    paths = write_tables(frame, out, formats)
    small = write_tables(frame[frame["item"].isin(frame["item"].unique()[:50])],
                         out / "small", formats)
    print(f"{len(frame):,} rows, {frame['item'].nunique():,} items")
    print(f"{'command':9s} {'format':8s} {'size MB':>8s} {'peak MB':>8s} {'small MB':>8s} "
          f"{'growth MB':>9s} {'growth/size':>11s} {'arrow x':>7s}")
    commands = ["validate", "report"] if args.command == "both" else [args.command]
    for command in commands:
        for fmt, path in paths.items():
            size = path.stat().st_size - small[fmt].stat().st_size
            peak = peak_kib(command_args(command, path, out))
            base = peak_kib(command_args(command, small[fmt], out / "small"))
            growth = (peak - base) * 1024
            arrow = ""
            if fmt == "parquet":
                import pyarrow.parquet as pq

                arrow = f"{growth / pq.read_table(path).nbytes:7.1f}"
            print(f"{command:9s} {fmt:8s} {size / 1e6:8.1f} {peak / 1024:8.0f} {base / 1024:8.0f} "
                  f"{growth / 1e6:9.0f} {growth / size:11.1f} {arrow:>7s}", flush=True)


if __name__ == "__main__":
    main()
