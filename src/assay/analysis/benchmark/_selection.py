"""Choosing the part of a judgments table an analysis reads, and the hash of its reference.

The benchmark report (hr_report) reads one judge's correctness scores: one judge and one
criterion whose scale lies in [0, 1] (binary, or a range 0..1 for per-run shares), with
pairwise rows left out. :func:`benchmark_rows` picks them, by name when asked, else the
only candidate, and says which candidates there are when the choice is not clear.
:func:`reference_hash` fingerprints the reference a bench is scored on: its items and
their answers.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

import pandas as pd

from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.errors import ConfigError

REFERENCE_HASH_VERSION = 2
"""Version 1 hashed the (cluster, item) pairs only; version 2 adds each item's answers."""
_HASH_HEADER = f"assay-reference-v{REFERENCE_HASH_VERSION}\x1e"

PREFERRED_CRITERIA = ("correct", "correctness", "accuracy")


def correctness_candidates(judgments: Judgments) -> list[tuple[str, str]]:
    """(judge, criterion) pairs whose scores are correctness in [0, 1], table order."""
    frame = judgments.frame
    pointwise = frame[frame["opponent"].isna()] if "opponent" in frame else frame
    return [(str(judge), str(criterion)) for (judge, criterion), _ in
            pointwise.groupby(["judge", "criterion"], sort=False)
            if is_correctness(judgments.scale(str(criterion)))]


def is_correctness(scale: Scale) -> bool:
    """Whether a criterion on ``scale`` can be correctness: binary, or range 0..1."""
    return scale.kind == "binary" or (scale.kind == "range" and scale.minimum == 0.0
                                      and scale.maximum == 1.0)


def choose_correctness(candidates: Sequence[tuple[str, str]], judge: str | None,
                       criterion: str | None) -> tuple[str, str]:
    """The (judge, criterion) of the correctness scores among ``candidates``.

    Raises
    ------
    ConfigError
        When none fits, or several do and none was named.
    """
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
    return chosen[0]


def benchmark_rows(judgments: Judgments, *, judge: str | None = None,
                   criterion: str | None = None) -> pd.DataFrame:
    """The rows of one judge's correctness criterion, for :func:`benchmark_report`.

    Raises
    ------
    ConfigError
        When no judge and criterion fit, or several do and none was named.
    """
    judge_name, criterion_name = choose_correctness(correctness_candidates(judgments), judge,
                                                    criterion)
    frame = judgments.frame
    mask = (frame["judge"] == judge_name) & (frame["criterion"] == criterion_name)
    pairwise_failures = 0
    if "opponent" in frame:
        pairwise = mask & frame["opponent"].notna()
        if "failure_kind" in frame:
            reportable = frame["reportable"].astype(bool) if "reportable" in frame else True
            pairwise_failures = int((pairwise & frame["failure_kind"].notna() & reportable).sum())
        mask &= ~pairwise
    rows = frame[mask].reset_index(drop=True)
    rows.attrs["sources"] = tuple(judgments.sources)
    rows.attrs["judge"] = judge_name
    rows.attrs["criterion"] = criterion_name
    rows.attrs["pairwise_failures"] = pairwise_failures
    """Reportable rows of this judge and criterion with a failure kind left out as pairwise:
    when there are any, the table's reportable failures of the judge and criterion are more
    than the report's."""
    return rows


def reference_hash(reference: pd.DataFrame | Judgments) -> str:
    r"""SHA-256 of the reference a bench is scored on: its (cluster, item) pairs and answers.

    Parameters
    ----------
    reference : pandas.DataFrame or Judgments
        Rows with ``cluster`` and ``item``. An item's answers are what the table holds of
        its answer key: its ``reference_score`` values (the benchmark-native score) when the
        column is there, and the ``reference`` text of the ``datapoints.jsonl`` of the run
        folder the table was loaded from (``Judgments.sources``, or
        ``frame.attrs["sources"]`` as :func:`benchmark_rows` sets it).

    Returns
    -------
    str
        Hex digest of ``assay-reference-v2`` followed, for each sorted (cluster, item), by
        cluster, item and its answers (``reference_score`` values as ``repr(float)``, sorted,
        then the reference text), separated by control characters; an item without answers
        contributes its ids only. Editing an answer under the same ids changes the hash.
        Version 1 hashed the ids alone: :func:`reference_answers` says what a table holds.

    Examples
    --------
    >>> ids = pd.DataFrame({"cluster": ["d1", "d1"], "item": ["q2", "q1"]})
    >>> reference_hash(ids)[:12]
    '365ab87d30dc'
    >>> keyed = ids.assign(reference_score=[1.0, 0.0])
    >>> reference_hash(keyed) != reference_hash(keyed.assign(reference_score=[0.0, 1.0]))
    True
    """
    frame = reference.frame if isinstance(reference, Judgments) else reference
    answers = reference_answers(reference)
    pairs = sorted({(str(c), str(i)) for c, i in zip(frame["cluster"], frame["item"],
                                                     strict=True)})
    digest = hashlib.sha256(_HASH_HEADER.encode())
    for cluster, item in pairs:
        digest.update(f"{cluster}\x1f{item}\x1f{answers.get(item, '')}\x1e".encode())
    return digest.hexdigest()


def reference_answers(reference: pd.DataFrame | Judgments) -> dict[str, str]:
    """Item -> the text of its answers that :func:`reference_hash` covers (see there);
    empty when the table holds no answer key."""
    if isinstance(reference, Judgments):
        frame, sources = reference.frame, tuple(reference.sources)
    else:
        frame, sources = reference, tuple(reference.attrs.get("sources", ()))
    parts: dict[str, list[str]] = {}
    if "reference_score" in frame:
        scores = frame[["item", "reference_score"]].dropna().drop_duplicates()
        for item, value in sorted((str(i), float(v)) for i, v in
                                  zip(scores["item"], scores["reference_score"], strict=True)
                                  if math.isfinite(float(v))):
            parts.setdefault(item, []).append(f"reference_score={value!r}")
    for item, text in _datapoint_references(sources).items():
        parts.setdefault(item, []).append(f"reference={text}")
    items = set(map(str, frame["item"]))
    return {item: "\x1d".join(values) for item, values in parts.items() if item in items}


def _datapoint_references(sources: Sequence[str]) -> dict[str, str]:
    from pathlib import Path

    from assay.analysis.coverage import read_datapoint_field

    found: dict[str, str] = {}
    for source in sources:
        if Path(source).is_dir():
            found.update(read_datapoint_field(source, "reference"))
    return found
