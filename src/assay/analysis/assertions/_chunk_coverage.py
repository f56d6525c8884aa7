"""Chunk-level coverage of assertions (BenchmarkQED): how many of a question's assertions the
first k retrieved chunks support.

Pure pandas over the rows the chunk-level judge writes (``assay.judge.judges.chunk_coverage``):
no I/O (``write_csvs`` hands the tables to :mod:`assay.report.files`). Readings chosen where
BenchmarkQED's documentation leaves it open:

* Chunk coverage at k: per (question, assertion) the best score over chunks at position
  < k; it passes when that best score >= ``pass_threshold`` (so partial support passes at
  0.5); coverage = mean over questions of the passed fraction, strict coverage the same
  with full support only, coverage strength = mean best score over all scored assertions
  (BenchmarkQED's ``mean_score``), ``mean_chunks`` = mean over questions of min(retrieved, k).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay._display import write_files
from assay.analysis.assertions._rows import GROUP, assertion_rows
from assay.data.table import Judgments

__all__ = ["ChunkCoverage", "chunk_coverage"]


@dataclass(frozen=True)
class ChunkCoverage:
    """Chunk-level coverage at each k: one row per (task, arm, judge, k)."""

    table: pd.DataFrame
    """task, arm, judge, k (``"k5"``, ..., ``"all"``), coverage, strict_coverage,
    coverage_strength, mean_chunks, pass_rate, n_questions, n_assertions."""
    per_question: pd.DataFrame
    """task, arm, judge, k, question, coverage, strict_coverage, mean_score."""
    pass_threshold: float

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """``chunk_coverage.csv`` and ``chunk_coverage_by_question.csv``."""
        return write_files(self, out_dir)


def chunk_coverage(
    data: Judgments | pd.DataFrame,
    *,
    k_list: Sequence[int] = (5, 10, 20, 50),
    pass_threshold: float = 0.5,
    criterion: str = "chunk_support",
) -> ChunkCoverage:
    """Coverage, strict coverage and coverage strength at each k (and over all chunks, ``"all"``).

    Examples
    --------
    One question, two assertions, chunks at positions 0 and 1: a1 is partly supported by
    chunk 0 and fully by chunk 1, a2 by neither. At k = 1 only chunk 0 counts: a1 passes
    (0.5 >= 0.5) but not strictly, so coverage 1/2, strict 0, strength (0.5 + 0) / 2.

    >>> import json
    >>> att = lambda a, p: json.dumps({"question_id": "q", "assertion_id": a, "position": p, "n_chunks": 2})
    >>> rows = pd.DataFrame({"item": ["q#a1@c0", "q#a1@c1", "q#a2@c0", "q#a2@c1"], "cluster": "q",
    ...     "arm": "rag", "run": 1, "judge": "j", "criterion": "chunk_support", "score": [0.5, 1.0, 0.0, 0.0],
    ...     "attributes": [att("a1", 0), att("a1", 1), att("a2", 0), att("a2", 1)]})
    >>> t = chunk_coverage(rows, k_list=[1]).table
    >>> t[["k", "coverage", "strict_coverage", "coverage_strength", "mean_chunks"]].values.tolist()
    [['k1', 0.5, 0.0, 0.25, 1.0], ['all', 0.5, 0.5, 0.5, 2.0]]
    """
    if any(int(k) < 1 for k in k_list):
        raise ValueError(f"k_list: expected positive integers, got {list(k_list)}")
    frame = assertion_rows(data, [criterion])
    frame = frame[frame["scored"]]
    frame["position"] = frame["position"].astype(float)
    frame["n_chunks"] = frame["n_chunks"].astype(float)
    tables: list[dict[str, Any]] = []
    per_q: list[pd.DataFrame] = []
    akeys = [*GROUP, "question", "assertion_id"]
    n_chunks = frame.groupby([*GROUP, "question"], dropna=False)["n_chunks"].max()
    for k in [*sorted(int(k) for k in k_list), None]:
        label = "all" if k is None else f"k{k}"
        kept = frame if k is None else frame[frame["position"] < k]
        best = kept.groupby(akeys, dropna=False)["score"].max().reset_index()
        best["passed"] = best["score"] >= pass_threshold
        best["strict"] = best["score"] >= 1.0
        q = best.groupby([*GROUP, "question"], dropna=False).agg(
            coverage=("passed", "mean"), strict_coverage=("strict", "mean"), mean_score=("score", "mean")
        )
        q = q.reset_index()
        q.insert(3, "k", label)
        per_q.append(q)
        chunks = n_chunks if k is None else n_chunks.clip(upper=k)
        for group, sub in best.groupby(GROUP, dropna=False):
            qsub = q[(q[GROUP] == pd.Series(group, index=GROUP)).all(axis=1)]
            csub = chunks.loc[tuple(group)] if len(GROUP) else chunks
            tables.append(
                {
                    **dict(zip(GROUP, group, strict=True)),
                    "k": label,
                    "coverage": float(qsub["coverage"].mean()),
                    "strict_coverage": float(qsub["strict_coverage"].mean()),
                    "coverage_strength": float(sub["score"].mean()),
                    "mean_chunks": float(np.mean(csub.to_numpy(float))),
                    "pass_rate": float(sub["passed"].mean()),
                    "n_questions": len(qsub),
                    "n_assertions": len(sub),
                }
            )
    table = pd.DataFrame(
        tables,
        columns=[
            *GROUP,
            "k",
            "coverage",
            "strict_coverage",
            "coverage_strength",
            "mean_chunks",
            "pass_rate",
            "n_questions",
            "n_assertions",
        ],
    )
    return ChunkCoverage(
        table, pd.concat(per_q, ignore_index=True) if per_q else pd.DataFrame(), pass_threshold
    )
