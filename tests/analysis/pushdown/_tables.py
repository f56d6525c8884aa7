"""Judgments tables for the engine tests: unequal clusters, failures, costs, splits, judges."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.errors import ValidationError

SCALES = {"correct": Scale.parse("binary"), "quality": Scale.parse("range:1,5")}


def rich_table(*, seed: int = 3, n_items: int = 120, runs: int = 5) -> pd.DataFrame:
    """Two judges' correctness and one quality criterion on three arms, with every optional
    column the benchmark report reads: failures, outcomes, costs (reported and estimated),
    tokens, a dev split (not reportable), unlabelled rows and a pairwise criterion."""
    rng = np.random.default_rng(seed)
    cluster_of = np.sort(rng.integers(0, 25, n_items))  # unequal cluster sizes
    rows: list[dict[str, Any]] = []
    for i in range(n_items):
        split = "dev" if i % 17 == 0 else "test"
        for arm, p in (("zeta", 0.6), ("alpha", 0.75), ("mid", 0.7)):
            for run in range(1, runs + 1):
                u = rng.random()
                failure = ("parse_error" if u < 0.03 else "timeout" if u < 0.05 else None)
                correct = float(rng.random() < p)
                base = dict(cluster=f"c{cluster_of[i]:02d}", item=f"q{i}", arm=arm, run=run,
                            split=split)
                rows.append(dict(base, judge="gpt", criterion="correct",
                                 score=None if failure else correct, failure_kind=failure,
                                 outcome=f"o{int(correct)}{rng.integers(0, 2)}",
                                 usd=None if u > 0.95 else float(rng.random() / 100),
                                 usd_provenance="estimated" if u > 0.9 else "reported",
                                 tokens_in=float(rng.integers(50, 500)),
                                 tokens_out=None if u > 0.97 else float(rng.integers(5, 50))))
                rows.append(dict(base, judge="claude", criterion="quality",
                                 score=float(rng.integers(1, 6)) if u > 0.02 else None,
                                 failure_kind=None if u > 0.02 else "refusal"))
                if arm != "zeta":
                    rows.append(dict(base, judge="gpt", criterion="pref", opponent="zeta",
                                     position=1 + run % 2, score=float(rng.random() < 0.5)))
    return pd.DataFrame(rows)


HUMAN_SCALES = {"ok": Scale.parse("binary"), "pref": Scale.parse("range:0,1")}


def humans_table(*, seed: int = 5) -> pd.DataFrame:
    """A judge and two humans on 60 items in 12 unequal clusters, three arms, where a
    reduction per judge would go wrong: ``ok`` (binary, 3 runs, failures) labelled by
    ``human:a`` on items 0-19 (run 1) and ``human:b`` on items 10-29 (runs 1 and 2), so
    items 10-19 have three human rows of two humans; ``pref`` (range 0-1, pairs A-B and
    B-C shown both ways, two trials) with human preferences on items 0-24, some given as
    B over A (to be oriented, 1 - value); ``len`` (interval) and dev-split rows with human
    labels, which the estimates leave out. ``labelled``: items 0-29 for ``ok``, 0-24 for
    ``pref``."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for i in range(60):
        base = dict(item=f"q{i:02d}", cluster=f"c{min(i // 3, 11):02d}",
                    split="dev" if i >= 56 else "test")
        for arm, p in (("A", 0.55), ("B", 0.7), ("C", 0.8)):
            right = rng.random() < p
            for run in (1, 2, 3):
                failed = rng.random() < 0.05
                rows.append(dict(base, arm=arm, run=run, judge="j", criterion="ok",
                                 score=None if failed else float(rng.random() < (
                                     0.9 if right else 0.3 if arm != "B" else 0.7)),
                                 failure_kind="parse_error" if failed else None))
                rows.append(dict(base, arm=arm, run=run, judge="j", criterion="len",
                                 score=float(rng.integers(10, 200))))
            for human, items, runs in (("human:a", range(20), (1,)),
                                       ("human:b", range(10, 30), (1, 2))):
                if i in items or i >= 56:
                    for run in runs:
                        rows.append(dict(base, arm=arm, run=run, judge=human, criterion="ok",
                                         score=float(right ^ (rng.random() < 0.1))))
            if i < 25 or i >= 56:
                rows.append(dict(base, arm=arm, run=1, judge="human:a", criterion="len",
                                 score=float(rng.integers(10, 200))))
        for a, b in (("A", "B"), ("B", "C")):
            for trial, (arm, opponent) in enumerate(((a, b), (b, a), (a, b), (b, a))):
                rows.append(dict(base, arm=arm, opponent=opponent, position=1 + trial % 2,
                                 run=1 + trial // 2, judge="j", criterion="pref",
                                 score=float(rng.choice([0.0, 0.5, 1.0]))))
            if i < 25 or i >= 56:
                arm, opponent = (b, a) if i % 3 == 0 else (a, b)
                rows.append(dict(base, arm=arm, opponent=opponent, run=1, judge="human:b",
                                 criterion="pref", score=float(rng.choice([0.0, 0.5, 1.0]))))
    return pd.DataFrame(rows)


def write(frame: pd.DataFrame, path: Path, fmt: str) -> Path:
    """``frame`` as one file, a folder of files, or a hive-partitioned dataset."""
    if fmt == "parquet":
        frame.to_parquet(path / "t.parquet", index=False)
        return path / "t.parquet"
    if fmt == "csv":
        frame.to_csv(path / "t.csv", index=False)
        return path / "t.csv"
    if fmt == "jsonl":
        frame.to_json(path / "t.jsonl", orient="records", lines=True)
        return path / "t.jsonl"
    folder = path / fmt
    folder.mkdir()
    if fmt == "folder":
        for n, start in enumerate(range(0, len(frame), 150)):
            frame.iloc[start:start + 150].to_parquet(folder / f"part-{n:03d}.parquet",
                                                      index=False)
    else:  # hive: one folder per judge
        for judge, part in frame.groupby("judge", sort=False):
            (folder / f"judge={judge}").mkdir()
            part.drop(columns="judge").to_parquet(folder / f"judge={judge}" / "p.parquet",
                                                  index=False)
    return folder


def assert_same(engine: Any, pandas: Any, path: str = "", *, rel: float = 1e-9) -> None:
    """Equal structures, numbers equal to ``rel`` (relative, or absolute near 0)."""
    if isinstance(pandas, dict):
        assert isinstance(engine, dict) and engine.keys() == pandas.keys(), path
        for key in pandas:
            assert_same(engine[key], pandas[key], f"{path}.{key}", rel=rel)
    elif isinstance(pandas, list):
        assert isinstance(engine, list) and len(engine) == len(pandas), path
        for n, (a, b) in enumerate(zip(engine, pandas, strict=True)):
            assert_same(a, b, f"{path}[{n}]", rel=rel)
    elif isinstance(pandas, float) and not isinstance(engine, bool):
        assert isinstance(engine, (int, float)), path
        assert math.isclose(engine, pandas, rel_tol=rel, abs_tol=rel), (path, engine, pandas)
    else:
        assert engine == pandas, (path, engine, pandas)


def problems(call: Any) -> list[str]:
    """The problems ``call`` raises (a ValidationError), as the messages print them."""
    with pytest.raises(ValidationError) as info:
        call()
    return [str(p) for p in info.value.problems]
