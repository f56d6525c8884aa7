"""One look of a sequential run: the confidence sequence of every comparison from what is stored.

Each comparison's observations are its clusters' mean paired differences, in the run's
order of the clusters: per item, the arm's score minus the opponent's (scores normalised
to [0, 1] by the criterion's scale, runs averaged), or, for a pairwise judge, 2 x the
arm's mean win score - 1 (a tie 0); per cluster, the mean over its items that have both.
Failed judgments are left out (a cluster with none is not an observation yet). The
confidence sequences are at level 1 - (1 - conf)/K for K comparisons (Bonferroni), so that
all K cover at once with probability conf.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.data.schema import Scale
from assay.judge.sequential._rule import Comparison, StoppingRule
from assay.stats.sequential import paired_difference_cs


@dataclass(frozen=True)
class ComparisonLook:
    """A comparison's interval at a look."""

    comparison: Comparison
    n_clusters: int
    """Clusters observed (with both arms judged)."""
    estimate: float
    """Mean paired difference so far (NaN before any cluster)."""
    lower: float
    upper: float

    @property
    def decided(self) -> bool:
        """The interval excludes 0."""
        return self.lower > 0.0 or self.upper < 0.0

    @property
    def width(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True)
class Look:
    """What the rule saw after a batch."""

    number: int
    """1 for the first look."""
    clusters: int
    """Clusters judged so far."""
    comparisons: tuple[ComparisonLook, ...]
    conf_each: float
    """The level of each comparison's sequence (conf, Bonferroni over the comparisons)."""
    stop: bool
    """Whether the rule is met."""


class Observations:
    """Every watched comparison's cluster means so far, fed the stored rows a batch at a time.

    Each :meth:`add` must bring whole clusters (a batch's rows): a cluster's mean is taken from
    the rows of the one call that brings it, so a look reads only the new batch, not again every
    cluster judged before.
    """

    def __init__(self, watched: Sequence[Comparison]) -> None:
        self.watched = tuple(watched)
        self._means: dict[Comparison, dict[str, float]] = {c: {} for c in self.watched}

    def add(self, rows: Iterable[Mapping[str, Any]], scales: Mapping[str, Scale]) -> None:
        """Take in the rows of some whole clusters (their cluster means, comparison by comparison)."""
        # (judge, criterion, arm, opponent or "", item) -> scores in [0, 1]
        scored: dict[tuple[str, str, str, str, str], list[float]] = defaultdict(list)
        cluster_of: dict[str, str] = {}
        for row in rows:
            score = row.get("score")
            if score is None or row.get("failure_kind") is not None:
                continue
            criterion = str(row.get("criterion", "score"))
            opponent = row.get("opponent")
            value = float(score)
            if opponent is None:
                scale = scales.get(criterion)
                value = float(scale.normalise([value])[0]) if scale is not None else value
            item = str(row["item"])
            cluster_of[item] = str(row.get("cluster") if row.get("cluster") is not None else item)
            scored[(str(row.get("judge")), criterion, str(row["arm"]),
                    "" if opponent is None else str(opponent), item)].append(value)
        for c in self.watched:
            by_cluster: dict[str, list[float]] = defaultdict(list)
            for item, d in _differences(scored, c).items():
                by_cluster[cluster_of[item]].append(d)
            self._means[c].update((k, sum(v) / len(v)) for k, v in by_cluster.items())

    def look(self, order: Sequence[str], rule: StoppingRule, *, number: int) -> Look:
        """The rule's look at the clusters taken in (``order`` those judged, in the run's order)."""
        conf_each = 1.0 - (1.0 - rule.conf) / len(self.watched)
        rank = {cluster: i for i, cluster in enumerate(order)}
        out = []
        for c in self.watched:
            ordered = sorted((rank[k], d) for k, d in self._means[c].items() if k in rank)
            obs = [min(1.0, max(-1.0, d)) for _, d in ordered]
            if not obs:
                out.append(ComparisonLook(c, 0, float("nan"), -1.0, 1.0))
                continue
            cs = paired_difference_cs(obs, conf=conf_each, method=rule.method)
            out.append(ComparisonLook(c, len(obs), float(cs.estimate[-1]), float(cs.lower[-1]),
                                      float(cs.upper[-1])))
        width = rule.width
        stop = all(x.decided for x in out) if width is None else all(x.width < width for x in out)
        return Look(number=number, clusters=len(order), comparisons=tuple(out), conf_each=conf_each,
                    stop=stop)


def look(rows: Iterable[Mapping[str, Any]], scales: Mapping[str, Scale], watched: Sequence[Comparison],
         order: Sequence[str], rule: StoppingRule, *, number: int) -> Look:
    """The rule's look at ``rows`` (the stored rows of the clusters judged, ``order`` their order)."""
    seen = Observations(watched)
    seen.add(rows, scales)
    return seen.look(order, rule, number=number)


def _differences(scored: Mapping[tuple[str, str, str, str, str], list[float]],
                 c: Comparison) -> dict[str, float]:
    """item -> the comparison's paired difference on it."""
    def mean(values: list[float]) -> float:
        return sum(values) / len(values)

    if c.pairwise:
        wins: dict[str, list[float]] = defaultdict(list)
        for (judge, criterion, arm, opponent, item), values in scored.items():
            if judge != c.judge or criterion != c.criterion:
                continue
            if (arm, opponent) == (c.arm, c.opponent):
                wins[item] += values
            elif (arm, opponent) == (c.opponent, c.arm):
                wins[item] += [1.0 - v for v in values]
        return {item: 2.0 * mean(v) - 1.0 for item, v in wins.items()}
    mine = {k[4]: mean(v) for k, v in scored.items() if k[:4] == (c.judge, c.criterion, c.arm, "")}
    theirs = {k[4]: mean(v) for k, v in scored.items() if k[:4] == (c.judge, c.criterion, c.opponent, "")}
    return {item: mine[item] - theirs[item] for item in mine if item in theirs}
