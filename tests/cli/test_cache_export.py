"""``assay cache export RUN -o FILE.parquet``: run stores written to Parquet merge into one
dataset; ``assay report`` on a folder of them (DuckDB) equals the report of one run holding
every judgment (pandas, from the store)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.llm import ChatRequest, Reply, RunStore
from tests.cli._judge_helpers import run


def write_run(folder: Path, items: range) -> Path:
    """Two systems judged twice on each item (scores 1-10, clusters of items)."""
    with RunStore(folder, config={"judge": "x"}) as store:
        store.set_scales({"quality": Scale.parse("range:1,10")})
        for i in items:
            for arm in ("base", "rag"):
                for trial in (1, 2):
                    key = f"{i}-{arm}-{trial}"
                    score = float((i * 7 + len(arm) * 3 + trial * (i % 3)) % 10 + 1)
                    row = {"item": f"q{i}", "cluster": f"doc{i % 6}", "arm": arm, "judge": "j1",
                           "criterion": "quality", "run": trial, "score": score, "reasoning": f"r{i}"}
                    store.put(ChatRequest(key=key, messages=(("user", f"rate q{i}"),)),
                              Reply(key, None, str(score)), [row])
    return folder


@pytest.mark.slow  # two reports through DuckDB and pandas: ~4 s of imports and statistics
def test_two_exported_runs_report_as_one_run_with_both(tmp_path, capsys):
    first, second = write_run(tmp_path / "m1", range(0, 20)), write_run(tmp_path / "m2", range(20, 40))
    both = write_run(tmp_path / "both", range(40))
    merged = tmp_path / "merged"
    assert run(["cache", "export", str(first), "-o", str(merged / "m1.parquet")]) == 0
    assert run(["cache", "export", str(second), "-o", str(merged / "m2.parquet")]) == 0
    assert "80 judgments of" in capsys.readouterr().out
    frame = pd.read_parquet(merged / "m1.parquet")
    assert len(frame) == 80 and set(frame["arm"]) == {"base", "rag"} and frame["reasoning"].notna().all()
    assert run(["report", str(merged), "--kind", "scores", "--format", "json", "--out",
                str(tmp_path / "from-folder")]) == 0
    assert "engine: duckdb" in capsys.readouterr().out
    assert run(["report", str(both), "--kind", "scores", "--format", "json", "--out",
                str(tmp_path / "from-store")]) == 0
    merged_report = json.loads((tmp_path / "from-folder" / "scores.json").read_text(encoding="utf-8"))
    one_run = json.loads((tmp_path / "from-store" / "scores.json").read_text(encoding="utf-8"))
    assert same(merged_report, one_run)  # the engines agree to 1e-9, not to the last bit
    assert '"n": 80' in json.dumps(merged_report) and '"upper"' in json.dumps(merged_report)


def same(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers to a relative 1e-9."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-9)
    return a == b


def test_export_errors_are_one_line_and_exit_2(tmp_path, capsys):
    assert run(["cache", "export", str(tmp_path), "-o", str(tmp_path / "x.parquet")]) == 2
    assert "no run store (judgments.sqlite) in this folder" in capsys.readouterr().err
    write_run(tmp_path / "r", range(2))
    assert run(["cache", "export", str(tmp_path / "r"), "-o", str(tmp_path / "x.csv")]) == 2
    assert "expected a .parquet file to write" in capsys.readouterr().err
