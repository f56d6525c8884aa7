"""The results aggregator's "don'ts", turned into flags the summary prints.

- a single run (no averaging, no spread, no run-level interval);
- std_dev > 5 points of a 0-100 scale (percent of the scale's width on another declared
  scale; raw points on an interval scale);
- one judge only for a criterion (no inter-rater reliability);
- an evaluator name without a version ("gpt-4" rather than "gpt-4-0613").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

FlagKind = Literal["single_run", "high_variance", "one_judge", "unversioned_evaluator"]

HIGH_VARIANCE_POINTS = 5.0
"""The results aggregator: "High (>5) = high variance", in points of its 0-100 scale."""

_VERSION_PATTERNS = (
    re.compile(r"(19|20)\d{2}-[01]\d-[0-3]\d"),  # 2024-08-06
    re.compile(r"(?<![0-9a-z.])(\d{4}|\d{6}|\d{8})(?![0-9a-z.])"),  # 0613, 240229, 20240229
    re.compile(r"(?<![a-z0-9])v\d+(\.\d+)*(?![a-z])"),  # v1, v2.5
    re.compile(r"(?<![0-9.])\d+\.\d+\.\d+(?![0-9.])"),  # 1.0.3
)


def has_version(name: str) -> bool:
    """Whether an evaluator name pins a version (the results aggregator: "GPT-4-0613, not just 'gpt-4'").

    A name pins a version when it holds a date (``2024-08-06``), a standalone group of 4, 6
    or 8 digits (a snapshot such as ``0613``, ``2407``, ``20240229``), a ``v`` tag (``v2``,
    ``v1.5``) or a three-part version number (``1.0.3``). A model family number (the 4 of
    ``gpt-4``, the 3.5 of ``gpt-3.5-turbo``) is not a version. Human raters
    (``human:<id>``) have no version to pin and pass.

    >>> [has_version(n) for n in ("gpt-4", "gpt-4-0613", "claude-3-opus-20240229",
    ...                           "gpt-4o-2024-08-06", "gpt-3.5-turbo", "my-judge-v2",
    ...                           "human:ann", "judge-strict")]
    [False, True, True, True, False, True, True, False]
    """
    text = name.strip().lower()
    if text.startswith("human:"):
        return True
    return any(p.search(text) for p in _VERSION_PATTERNS)


@dataclass(frozen=True)
class Flag:
    """One of the results aggregator's "don'ts" found in the data."""

    kind: FlagKind
    message: str
    criterion: str | None = None
    judge: str | None = None
