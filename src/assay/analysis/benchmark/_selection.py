"""Choosing the part of a judgments table an analysis reads.

The benchmark report (hr_report) reads one judge's correctness scores: one judge and one
criterion whose scale lies in [0, 1] (binary, or a range 0..1 for per-run shares), with
pairwise rows left out. :func:`benchmark_rows` picks them, by name when asked, else the
only candidate, and says which candidates there are when the choice is not clear.
"""

from __future__ import annotations

import hashlib

import pandas as pd

from assay.data.table import Judgments
from assay.errors import ConfigError

PREFERRED_CRITERIA = ("correct", "correctness", "accuracy")


def correctness_candidates(judgments: Judgments) -> list[tuple[str, str]]:
    """(judge, criterion) pairs whose scores are correctness in [0, 1], table order."""
    frame = judgments.frame
    pointwise = frame[frame["opponent"].isna()] if "opponent" in frame else frame
    out = []
    for (judge, criterion), _ in pointwise.groupby(["judge", "criterion"], sort=False):
        scale = judgments.scale(str(criterion))
        if scale.kind == "binary" or (scale.kind == "range" and scale.minimum == 0.0
                                      and scale.maximum == 1.0):
            out.append((str(judge), str(criterion)))
    return out


def benchmark_rows(judgments: Judgments, *, judge: str | None = None,
                   criterion: str | None = None) -> pd.DataFrame:
    """The rows of one judge's correctness criterion, for :func:`benchmark_report`.

    Raises
    ------
    ConfigError
        When no judge and criterion fit, or several do and none was named.
    """
    candidates = correctness_candidates(judgments)
    chosen = [(j, c) for j, c in candidates
              if (judge is None or j == judge) and (criterion is None or c == criterion)]
    if len(chosen) > 1 and criterion is None:
        preferred = [(j, c) for j, c in chosen if c.lower() in PREFERRED_CRITERIA]
        chosen = preferred or chosen
    listing = ", ".join(f"{j}/{c}" for j, c in candidates) or "none"
    if not chosen:
        raise ConfigError(
            "the benchmark report needs one judge's correctness scores (a binary or range:0,1 "
            f"criterion, not pairwise); judge/criterion pairs that fit: {listing}. Name one "
            "with --judge and --criterion, or declare the scale with --scale NAME=binary")
    if len(chosen) > 1:
        raise ConfigError("several judge/criterion pairs could be the correctness scores "
                          f"({', '.join(f'{j}/{c}' for j, c in chosen)}): name one with "
                          "--judge and --criterion")
    judge_name, criterion_name = chosen[0]
    frame = judgments.frame
    mask = (frame["judge"] == judge_name) & (frame["criterion"] == criterion_name)
    if "opponent" in frame:
        mask &= frame["opponent"].isna()
    rows = frame[mask].reset_index(drop=True)
    rows.attrs["judge"] = judge_name
    rows.attrs["criterion"] = criterion_name
    return rows


def reference_hash(frame: pd.DataFrame) -> str:
    """SHA-256 of the sorted (cluster, item) pairs: the reference set a bench was scored on.

    >>> reference_hash(pd.DataFrame({"cluster": ["d1", "d1"], "item": ["q2", "q1"]}))[:12]
    'a5759aa8c264'
    """
    pairs = sorted({(str(c), str(i)) for c, i in zip(frame["cluster"], frame["item"], strict=True)})
    digest = hashlib.sha256()
    for cluster, item in pairs:
        digest.update(f"{cluster}\x1f{item}\x1e".encode())
    return digest.hexdigest()
