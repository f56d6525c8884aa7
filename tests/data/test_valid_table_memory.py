"""A valid table is read in memory proportional to its size (issue 11, item 10: no input makes
the process use more than ~10x its size).

``assay validate`` on a valid 34 MB CSV grew the process by 16x the file's size: every cell
became its own Python string. The bound is checked on what the records cost: the peak
resident size of ``assay validate`` on the table minus its peak on the table's first items
(the interpreter and the code loaded are the same in both), against the difference in size.
A Parquet file is compressed (about 20:1 here), so its bound is against the size of its
records as Arrow holds them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from tests.cli._subprocess import assay_env

PEAK = """
import sys
import assay.cli
try:
    assay.cli.main(sys.argv[1:])
except SystemExit as exc:
    if exc.code:
        raise
with open("/proc/self/status") as f:  # this process's own peak (ru_maxrss includes the parent's)
    print(next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")), file=sys.stderr)
"""


def _peak_kib(path: Path) -> int:
    result = subprocess.run([sys.executable, "-c", PEAK, "validate", str(path), "--scale",
                             "correct=binary", "--scale", "quality=range:1,10"],
                            capture_output=True, text=True, timeout=600, env=assay_env())
    assert result.returncode == 0, result.stderr[-2000:]
    return int(result.stderr.strip().splitlines()[-1])


def _table(items: int) -> pd.DataFrame:
    """Items x 4 arms x 3 runs x 2 judges x 2 criteria, with the columns a judge run writes."""
    rng = np.random.default_rng(0)
    keys = pd.MultiIndex.from_product(
        [[f"q{i}" for i in range(items)], [f"model-{a}" for a in range(4)], [1, 2, 3],
         ["gpt-4o", "claude"], ["correct", "quality"]],
        names=["item", "arm", "run", "judge", "criterion"]).to_frame(index=False)
    n = len(keys)
    correct = keys["criterion"] == "correct"
    return keys.assign(
        cluster="doc" + (keys["item"].str[1:].astype(int) // 8).astype(str),
        score=np.where(correct, rng.random(n) < 0.7, rng.integers(1, 11, n)).astype(float),
        usd=np.round(rng.random(n) / 1000, 6), tokens_in=rng.integers(200, 900, n),
        reasoning=np.where(rng.random(n) < 0.5, "Correct and complete.", "Misses a step."))


def _write(frame: pd.DataFrame, path: Path) -> int:
    """Write ``frame`` in the format of the suffix; the size the bound is against."""
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    elif path.suffix == ".jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path, index=False)
        return pq.read_table(path).nbytes
    return path.stat().st_size


@pytest.mark.slow
@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_valid_table_costs_at_most_10x_its_size(tmp_path, suffix):
    """About 10 MB of CSV (100,000 rows): two validate runs per format, 10-20 s, hence slow."""
    frame = _table(1050)
    small = _write(frame[frame["item"].isin([f"q{i}" for i in range(20)])],
                   tmp_path / f"small{suffix}")
    size = _write(frame, tmp_path / f"table{suffix}") - small
    growth = (_peak_kib(tmp_path / f"table{suffix}") - _peak_kib(tmp_path / f"small{suffix}")) * 1024
    assert growth <= 10 * size, f"grew by {growth / size:.1f}x the size of its records"
