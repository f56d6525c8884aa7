"""The stopping rule of a sequential run, the comparisons it watches and the order of the clusters.

The order is a seeded random permutation of the plan's clusters (sorted by name first, so
the same plan and seed give the same order on every machine and on a resume). Every judge
judges every arm on a cluster's items in the same batch, so each look sees the systems on
the same items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal

from assay.errors import ConfigError

if TYPE_CHECKING:
    from assay.judge.config import SequentialConfig
    from assay.judge.plan import JudgePlan, Plan

BOUNDED = ("binary", "range", "ordinal")
"""Scale kinds with a map to [0, 1] (what a bounded confidence sequence needs)."""
LOOKS = 20
"""Looks a run makes by default (``clusters_per_look`` = a twentieth of the clusters)."""


def parse_until(text: str) -> tuple[Literal["decided", "width"], float | None]:
    """``decided`` or ``width=W`` as (kind, W); ValueError in one line otherwise.

    >>> parse_until("decided"), parse_until("width=0.1")
    (('decided', None), ('width', 0.1))
    """
    value = str(text).strip()
    if value == "decided":
        return "decided", None
    head, _, tail = value.partition("=")
    if head.strip() == "width" and tail.strip():
        try:
            width = float(tail)
        except ValueError:
            width = math.nan
        if 0.0 < width <= 2.0:
            return "width", width
    raise ValueError(f"expected decided or width=W with W in (0, 2] (a difference of scores "
                     f"normalised to [0, 1]), got {value!r}")


DEFAULT_METHOD = "betting"
"""The confidence sequence a sequential run uses unless the config's ``sequential.method`` says
otherwise (bench/results/sequential.txt: it keeps the error at most nominal and stops sooner)."""


@dataclass(frozen=True)
class StoppingRule:
    """When a sequential run stops (from ``--until``, ``--conf`` and the config's ``sequential``)."""

    until: Literal["decided", "width"]
    width: float | None
    """W of ``width=W``; None for ``decided``."""
    conf: float
    """Familywise level of the confidence sequences."""
    seed: int
    """Seed of the order of the clusters."""
    clusters_per_look: int | None
    """Clusters between two looks; None: a twentieth of them."""
    method: str = DEFAULT_METHOD
    """The confidence sequence: ``betting`` (hedged capital) or ``empirical_bernstein``."""

    @property
    def words(self) -> str:
        """The rule as ``--until`` spells it."""
        return "decided" if self.width is None else f"width={self.width:g}"

    def per_look(self, clusters: int) -> int:
        return self.clusters_per_look or max(1, math.ceil(clusters / LOOKS))


def stopping_rule(section: SequentialConfig | None, *, until: str | None = None,
                  conf: float | None = None) -> StoppingRule | None:
    """The rule of a run: the config's ``sequential`` section with ``--until``/``--conf`` over it.

    Raises
    ------
    ConfigError
        A bad ``--until`` or ``--conf``, or ``--conf`` without a rule.
    """
    if until is not None:
        try:
            parse_until(until)
        except ValueError as exc:
            raise ConfigError(f"--until: {exc}") from None
    if conf is not None and not 0.0 < conf < 1.0:
        raise ConfigError(f"--conf: expected a level in (0, 1) (0.95 for 95%), got {conf:g}")
    words = until if until is not None else (section.until if section is not None else None)
    if words is None:
        if conf is not None:
            raise ConfigError("--conf: applies to a sequential run; give --until decided or width=W")
        return None
    kind, width = parse_until(words)
    return StoppingRule(until=kind, width=width,
                        conf=conf if conf is not None else (section.conf if section else 0.95),
                        seed=section.seed if section is not None else 0,
                        clusters_per_look=section.clusters_per_look if section is not None else None,
                        method=section.method if section is not None else DEFAULT_METHOD)


@dataclass(frozen=True)
class Comparison:
    """One comparison the rule watches: arm minus opponent, on one judge's criterion."""

    judge: str
    criterion: str
    arm: str
    opponent: str
    pairwise: bool
    """Whether the judge compares the two answers (scores 1/0.5/0 for the arm) rather than
    scoring each answer on its own."""

    @property
    def label(self) -> str:
        return f"{self.judge} {self.criterion}: {self.arm} - {self.opponent}"


def comparisons(plan: Plan) -> list[Comparison]:
    """Every comparison the plan asks for, fixed before anything is looked at.

    A pairwise judge's pairs as it judges them; for a judge that scores each answer, every
    pair of its arms; each on each criterion the judge writes.

    Raises
    ------
    ConfigError
        A judge has a second stage, or writes a criterion with an unbounded scale, or the
        plan has no two arms to compare.
    """
    out: list[Comparison] = []
    for part in plan.judges:
        if part.staged:
            raise ConfigError(f"--until: judge {part.judge.name} has a second stage, built from the "
                              "first; sequential judging takes judges of one stage")
        scales = part.judge.scales()
        for criterion, scale in scales.items():
            if scale.kind not in BOUNDED:
                raise ConfigError(f"--until: judge {part.judge.name} criterion {criterion!r} has the "
                                  f"unbounded scale {scale.spelling()}; the confidence sequence needs "
                                  "bounded scores (binary, range:MIN,MAX or ordinal)")
        pairwise = any("opponent" in r.meta for r in part.requests)
        if pairwise:
            pairs = sorted({tuple(sorted((str(r.meta["arm"]), str(r.meta["opponent"]))))
                            for r in part.requests})
        else:
            pairs = list(combinations(sorted({str(r.meta["arm"]) for r in part.requests}), 2))
        out += [Comparison(judge, criterion, a, b, pairwise)
                for criterion in scales for judge in _judge_columns(part, criterion) for a, b in pairs]
    if not out:
        raise ConfigError("--until: the plan has no two arms to compare (a sequential run stops "
                          "when the comparisons are decided)")
    return out


def _judge_columns(part: JudgePlan, criterion: str) -> list[str]:
    """The ``judge`` column the rows of ``criterion`` are stored under: the judge's name, or
    what its requests name (a metric judge stores each metric under the metric's own name)."""
    names = {str(r.meta.get("judge", part.judge.name)) for r in part.requests
             if r.meta.get("criterion", criterion) == criterion}
    return sorted(names) or [part.judge.name]


def request_cluster(meta: dict[str, object]) -> str:
    """The cluster a request's item is in (the item itself when it has none)."""
    cluster = meta.get("cluster")
    return str(cluster if cluster is not None else meta.get("item"))


def cluster_order(plan: Plan, seed: int) -> list[str]:
    """The plan's clusters in the run's random order (seeded; sorted by name before)."""
    import numpy as np  # here: every run asks stopping_rule, only a sequential one orders clusters

    names = sorted({request_cluster(r.meta) for part in plan.judges for r in part.requests})
    rng = np.random.default_rng(seed)
    return [names[i] for i in rng.permutation(len(names))]


def restricted(plan: Plan, clusters: Sequence[str]) -> Plan:
    """``plan`` with only the requests of the items in ``clusters`` (every judge, every arm)."""
    from assay.judge.plan import JudgePlan
    from assay.judge.plan import Plan as PlanType

    chosen = set(clusters)
    parts = [JudgePlan(judge=p.judge, kind=p.kind,
                       requests=[r for r in p.requests if request_cluster(r.meta) in chosen])
             for p in plan.judges]
    return PlanType(judges=parts, config=plan.config, inputs=plan.inputs)
