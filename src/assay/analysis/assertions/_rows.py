"""The rows of assertion judgments as one frame: what the standard, hierarchical
and chunk-level summaries (:mod:`assay.analysis.assertions._summaries`,
:mod:`assay.analysis.assertions._chunk_coverage`) share.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import pandas as pd

from assay.data.table import Judgments

GROUP = ["task", "arm", "judge"]
"""The keys every assertion summary is grouped by."""


def assertion_rows(data: Judgments | pd.DataFrame, criteria: Sequence[str]) -> pd.DataFrame:
    """The rows of ``criteria`` with the attributes the assertion judges store as columns
    (question, assertion_id, assertion, rank, supporting_id, position, n_chunks) and ``scored``."""
    frame = data.frame if isinstance(data, Judgments) else data
    frame = frame[frame["criterion"].isin(list(criteria))].copy()
    if "task" not in frame.columns:
        frame["task"] = None
    if "failure_kind" not in frame.columns:
        frame["failure_kind"] = None
    frame["task"] = frame["task"].astype(object).where(frame["task"].notna(), "all")
    attrs = [
        json.loads(a) if isinstance(a, str) and a else {}
        for a in frame.get("attributes", [None] * len(frame))
    ]
    frame["question"] = [a.get("question_id", c) for a, c in zip(attrs, frame["cluster"], strict=True)]
    frame["assertion_id"] = [
        a.get("assertion_id", str(i).split("#", 1)[-1]) for a, i in zip(attrs, frame["item"], strict=True)
    ]
    frame["assertion"] = [a.get("statement") for a in attrs]
    frame["rank"] = [a.get("rank") for a in attrs]
    frame["supporting_id"] = [a.get("supporting_id") for a in attrs]
    frame["position"] = [a.get("position") for a in attrs]
    frame["n_chunks"] = [a.get("n_chunks") for a in attrs]
    frame["scored"] = frame["score"].notna() & frame["failure_kind"].isna()
    return frame
