"""The answer's result: which system is better, by how much, whether to trust the judges, the cost.

Plain frozen dataclasses of numbers and names, full precision, NaN where a number is not
defined (``to_dict`` writes it as null). Renderers (text here, HTML later) read them and
compute nothing: every figure they print, and whether a pair's difference is detected, is
a field.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

from assay._display import Rendered

__all__ = ["Answer", "HumanLine", "PairDifference", "Spend", "SystemEstimate", "TrustCheck",
           "Verdict"]

Units = Literal["share", "raw", "normalised", "win_rate"]
"""What a verdict's numbers are: ``share`` of 1s of a binary score (accuracy), the ``raw``
scale of the scores (interval or range: the data's own units), ``normalised`` to [0, 1]
(an ordinal scale: 0 the lowest label, 1 the highest), or a ``win_rate`` of pairwise
judgments (1 win, 0.5 tie, 0 loss)."""


@dataclass(frozen=True)
class SystemEstimate:
    """One system's estimate under one judge and criterion."""

    arm: str
    """The system (the table's ``arm``)."""
    rank: int
    """1 = highest estimate; equal estimates share the best rank."""
    estimate: float
    """Mean over questions of the question means (runs averaged within a question first), in
    the verdict's ``units``; for win rates, the share of its comparisons it won (ties half)."""
    lower: float
    """Lower bound of the ``conf`` interval (NaN when undefined, see ``method``)."""
    upper: float
    n_items: int
    """Questions with a score."""
    n_clusters: int
    """Clusters (topics) of those questions: the sampling units of the interval."""
    n_failed: int
    """Judgments without a score (failures), left out of the estimate."""
    method: str
    """The interval: ``logit_cluster_robust_t`` (bounded scores), ``cluster_robust_t``
    (raw scale), Korn-Graubard where the logit interval is undefined, or
    ``too_few_clusters`` / ``undefined_no_cluster_variance`` (NaN bounds)."""


@dataclass(frozen=True)
class PairDifference:
    """Two systems compared on the questions both have: ``better`` minus ``worse``."""

    better: str
    """The system with the higher paired mean (the first of the pair when they are equal)."""
    worse: str
    difference: float
    """Mean over shared questions of (``better``'s question mean - ``worse``'s), >= 0; for
    win rates, ``better``'s win rate against ``worse`` minus 1/2."""
    lower: float
    """Lower bound of the pair's own ``conf`` interval (not adjusted); NaN when undefined."""
    upper: float
    p_value: float
    """Two-sided p-value of "no difference" (cluster-robust t); NaN when undefined."""
    p_adjusted: float
    """``p_value`` adjusted by Holm over the verdict's pairs."""
    detected: bool | None
    """``p_adjusted`` <= 1 - conf: the difference is detected; None when the test is
    undefined (no variation between clusters, or fewer than 2)."""
    detected_unadjusted: bool | None
    """``p_value`` <= 1 - conf (the pair's own interval excludes 0): detected before the
    adjustment for the verdict's other pairs."""
    n_items: int
    """Questions both systems have."""
    n_clusters: int
    method: str
    """``paired_cluster_robust_t`` (CR2 variance, Bell-McCaffrey df), ``win_rate_cluster_t``
    (the win-rate report's paired test), or why there is no test: ``too_few_clusters``,
    ``undefined_no_cluster_variance``, ``no_shared_questions``."""
    win_rate: float | None = None
    """Pairwise judgments only: ``better``'s win rate against ``worse`` (ties half)."""


@dataclass(frozen=True)
class Verdict:
    """The systems under one judge and criterion: ranked, and every pair compared."""

    judge: str
    criterion: str
    scale: str
    """The criterion's scale (``binary``, ``interval``, ``range:1,10`` ...)."""
    units: Units
    low: float | None
    """Smallest and largest score of the criterion (None for win rates): the units' span."""
    high: float | None
    systems: tuple[SystemEstimate, ...]
    """Best first."""
    pairs: tuple[PairDifference, ...]
    """Every pair of systems, in rank order of the first then the second."""
    n_judgments: int
    n_items: int
    n_clusters: int
    n_runs: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrustCheck:
    """One thing that says whether to trust a judge: its failures, its agreement with other
    judges or with humans, its position flips."""

    check: Literal["failures", "agreement", "humans", "position"]
    """``failures``: share of judgments without a score; ``agreement``: between the judges
    of a criterion (ICC(2,1) or Krippendorff's alpha); ``humans``: the judge against human
    labels (accuracy, or mean bias for a numeric scale); ``position``: share of verdicts
    that change when the two answers swap places."""
    judge: str
    """The judge, or the judges joined by ``, `` (agreement)."""
    criterion: str | None
    statistic: str
    """The number's name: ``failure rate``, ``ICC``, ``Krippendorff's alpha``, ``accuracy``,
    ``bias (judge minus human)``, ``flip rate``."""
    estimate: float
    lower: float
    """NaN without an interval."""
    upper: float
    count: int
    """Failed judgments, flips, units or comparisons behind the number."""
    n: int
    """Out of how many."""


@dataclass(frozen=True)
class Spend:
    """What the evaluation cost, where the data record it."""

    judges_usd: float | None
    """The judges' dollars from the run store's calls; None without priced calls."""
    judges_calls: float | None
    """The judges' calls; None without a run store."""
    systems: tuple[tuple[str, float | None, float | None], ...]
    """(system, its dollars, dollars per answer) from the table's ``usd`` column."""


@dataclass(frozen=True)
class HumanLine:
    """What humans would say of one system, pair or pairwise win rate, under one judge and
    criterion: the PPI++ estimate of the human metric beside the judge's own."""

    kind: Literal["system", "pair", "win_rate"]
    """``system``: the mean human label; ``pair``: the difference ``arm`` - ``opponent`` of
    the human means; ``win_rate``: the human win rate of ``arm`` over ``opponent``."""
    criterion: str
    judge: str
    arm: str
    opponent: str | None
    estimate: float
    """PPI++ estimate, on [0, 1] (a difference on [-1, 1])."""
    lower: float
    upper: float
    judge_estimate: float
    """The judge's own estimate of the same, over every question it scored."""
    judge_lower: float
    judge_upper: float
    n_labelled: int
    """Questions with a human label."""
    effective_n: float
    """The human labels the humans-only estimate would need for the PPI++ precision."""


@dataclass(frozen=True)
class Answer(Rendered):
    """Which system is better and by how much, whether the judges can be trusted, the cost,
    and what else the data give (``assay report``'s default)."""

    verdicts: tuple[Verdict, ...]
    """One per (judge, criterion) with two or more systems (one system: its estimate only)."""
    trust: tuple[TrustCheck, ...]
    spend: Spend | None
    """None: the data record no cost."""
    n_judgments: int
    n_systems: int
    n_items: int
    n_clusters: int
    n_runs: int
    n_judges: int
    conf: float
    adjustment: str = "holm"
    """How the pairs' p-values are adjusted for multiplicity (within each verdict)."""
    read_notes: tuple[str, ...] = ()
    """How the table was read where nothing declared it: each undeclared scale read from
    the data, runs numbered from 0 (also printed by the CLI)."""
    notes: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    """Parts of the answer the engine that made it does not make (an engine's answer leaves
    out the win rates of pairwise judgments and the agreement between judges): one line
    each, naming the part and how to get it. Empty on the pandas path."""
    available: tuple[str, ...] = ()
    """Other reports (``--kind`` names) the data support; filled by the report registry."""
    n_unsupported: int = 0
    """Reports the data do not support (``assay report --kind list`` says why)."""
    humans: tuple[HumanLine, ...] = ()
    """What humans would say: PPI++ estimates of the human metric, when the table holds
    human labels on a subset of the questions."""
    humans_note: str | None = None
    """What ``humans`` rests on, or why it is empty (no human labels, none sharing a
    criterion with a judge)."""

    def to_dict(self) -> dict[str, Any]:
        """``answer.json``: numbers as numbers, NaN as null."""
        return _clean(asdict(self))

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, ensure_ascii=False)


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    return value

