"""Standings: per criterion, judge and opponent, every system's mean score with its interval
and rank, the data of a leaderboard (``assay export``).

A *board* is one (criterion, judge, opponent) group of :func:`assay.analysis.scores.score_summary`
(the opponent is the baseline of pairwise judgments, empty for pointwise scores). Within a
board the systems are ranked by their estimate (1 = highest; equal estimates share the
best rank), and each gets a *rank range* read from the intervals alone:

    rank_best  = 1 + #{other systems whose lower bound is above this system's upper bound}
    rank_worst = n - #{other systems whose upper bound is below this system's lower bound}

the ranks the system could take if every overlapping pair were ordered either way (the
"non-overlapping intervals" rank range of Goldstein & Spiegelhalter, 1996, *J. R. Stat.
Soc. A* 159:385-443, sec. 4). It is descriptive: it carries no joint coverage guarantee,
and is labelled so. A system without an interval gets the whole range 1..n.

For a bounded pairwise criterion the board also carries the discrete outcomes AlpacaEval's
leaderboard prints (wins: score above 0.5, losses: below, draws: exactly 0.5) and its
standard error, the sample standard deviation of the scores (ddof 1) over the square root
of their number, items treated as independent; assay's own interval beside it respects the
clusters.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from assay.analysis.scores import score_summary
from assay.data.table import Judgments

SCHEMA = "assay.standings/1"
"""Name and version of the exported schema (``docs/export.md``)."""


@dataclass(frozen=True)
class Standing:
    """One system on one board."""

    criterion: str
    judge: str
    opponent: str | None
    """The baseline of pairwise judgments; None for pointwise scores."""
    system: str
    scale: str
    estimate: float
    lower: float
    upper: float
    conf: float
    method: str
    n: int
    n_failed: int
    n_items: int
    n_clusters: int
    rank: int
    rank_best: int
    rank_worst: int
    n_wins: int | None = None
    n_losses: int | None = None
    n_draws: int | None = None
    iid_standard_error: float | None = None
    """Standard error with items independent (AlpacaEval's); None for pointwise boards."""
    discrete_estimate: float | None = None
    """(wins + draws / 2) / scored judgments (AlpacaEval's discrete win rate, on [0, 1])."""


@dataclass(frozen=True)
class Standings:
    """Every board's standings, in the order of the score summary."""

    rows: list[Standing]
    conf: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def clean(value: Any) -> Any:
            return None if isinstance(value, float) and math.isnan(value) else value

        return {"schema": SCHEMA, "conf": self.conf,
                "rank_range": "non-overlapping intervals (descriptive, no joint coverage)",
                "standings": [{k: clean(v) for k, v in asdict(r).items()} for r in self.rows],
                "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def rank_ranges(estimate: np.ndarray, lower: np.ndarray, upper: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Ranks by estimate (1 = highest, ties share the best) and the rank range of the intervals.

    Examples
    --------
    >>> r, best, worst = rank_ranges(np.array([0.8, 0.5, 0.45]), np.array([0.7, 0.4, 0.4]),
    ...                              np.array([0.9, 0.6, 0.5]))
    >>> r.tolist(), best.tolist(), worst.tolist()
    ([1, 2, 3], [1, 2, 2], [1, 3, 3])
    """
    est = np.asarray(estimate, dtype=float)
    lo = np.asarray(lower, dtype=float)
    hi = np.asarray(upper, dtype=float)
    n = len(est)
    key = np.where(np.isnan(est), -np.inf, est)
    rank = np.array([1 + int(np.sum(key > key[i])) for i in range(n)], dtype=int)
    known = ~(np.isnan(lo) | np.isnan(hi))
    best = np.ones(n, dtype=int)
    worst = np.full(n, n, dtype=int)
    for i in range(n):
        if not known[i]:
            continue
        others = known & (np.arange(n) != i)
        best[i] = 1 + int(np.sum(others & (lo > hi[i])))
        worst[i] = n - int(np.sum(others & (hi < lo[i])))
    return rank, best, worst


def standings(judgments: Judgments, *, conf: float = 0.95) -> Standings:
    """Every system's score, interval and rank on every (criterion, judge, opponent) board."""
    summary = score_summary(judgments, conf=conf)
    frame = judgments.frame
    values = np.asarray(judgments.normalised_scores(), dtype=float)  # once, for every board
    boards: dict[tuple[str, str, str], list[Any]] = {}
    for row in summary.rows:
        boards.setdefault((row.criterion, row.judge, row.opponent or ""), []).append(row)
    out: list[Standing] = []
    for (criterion, judge, opponent), rows in boards.items():
        rank, best, worst = rank_ranges(np.array([r.estimate for r in rows]),
                                        np.array([r.lower for r in rows]),
                                        np.array([r.upper for r in rows]))
        for i, r in enumerate(rows):
            extra: dict[str, Any] = {}
            if opponent and not r.scale.startswith("interval"):
                extra = _outcomes(values, frame, criterion, judge, r.arm, opponent)
            out.append(Standing(criterion=criterion, judge=judge, opponent=r.opponent, system=r.arm,
                                scale=r.scale, estimate=r.estimate, lower=r.lower, upper=r.upper,
                                conf=r.conf, method=r.method, n=r.n, n_failed=r.n_failed,
                                n_items=r.n_items, n_clusters=r.n_clusters, rank=int(rank[i]),
                                rank_best=int(best[i]), rank_worst=int(worst[i]), **extra))
    return Standings(rows=out, conf=conf, notes=list(summary.notes))


def _outcomes(normalised: np.ndarray, frame: Any, criterion: str, judge: str, arm: str,
              opponent: str) -> dict[str, Any]:
    """Wins, losses, draws and the items-independent standard error of one system on a
    pairwise board (``normalised``: the table's scores on [0, 1], row by row)."""
    mask = ((frame["criterion"] == criterion) & (frame["judge"] == judge) & (frame["arm"] == arm)
            & (frame["opponent"] == opponent) & frame["score"].notna() & frame["reportable"])
    values = normalised[mask.to_numpy()]
    n = len(values)
    se = float(np.std(values, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    wins, losses, draws = (int(np.sum(values > 0.5)), int(np.sum(values < 0.5)),
                           int(np.sum(values == 0.5)))
    return {"n_wins": wins, "n_losses": losses, "n_draws": draws, "iid_standard_error": se,
            "discrete_estimate": (wins + draws / 2) / n if n else float("nan")}
