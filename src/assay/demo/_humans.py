"""Human labels on a random subset of the items and a judge biased for one system: the case
where the judge's own scores mislead and a few human labels correct them (issue 28).
SIMULATED DATA; no human rated anything.

Drawn with a random generator of their own (``default_rng([seed, 28])``) and written after
every other evaluation, so the rest of the simulation is the same draw for draw as without
them.

* ``judge-biased`` scores ``acceptable`` (binary) on every system's run-1 answer: it calls a
  right answer acceptable with probability 0.85 and a wrong one with 0.20, except for the
  favoured system (the second arm, beacon-13b by default), whose right answers it accepts
  with 0.98 and wrong ones with 0.75 - a self-preference of the judge's model family.
* ``human:annotator-1`` labels ``acceptable`` on the run-1 answers of a random
  :data:`HUMAN_FRACTION` of the items: a right answer acceptable, a wrong one not, with 8%
  of the labels flipped (the raters' own noise).
* ``human:annotator-2`` gives a preference (1 A, 0.5 tie, 0 B) on each pair of the same
  items' run-1 answers, from the latent quality difference plus logistic noise, with no
  position bias (its records carry no position: the order shown is not recorded);
  ``judge-pairwise`` judged every item (:mod:`._evaluations`).

Failed answers get the judge's failure record and no human label.
"""

from __future__ import annotations

from datetime import timedelta
from itertools import combinations
from typing import Any

import numpy as np

from assay.demo._world import BASE_TIME, TIE_HALF_WIDTH, _Response

__all__ = ["ADDED_JUDGES", "FAVOURED_ARM", "HUMAN_FRACTION", "JUDGE_ACCEPT",
           "human_evaluations", "n_labelled"]

ADDED_JUDGES = ("judge-biased", "human:annotator-1", "human:annotator-2")
"""The judges this module adds to the simulation (the five others are older)."""

HUMAN_FRACTION = 0.18
"""Share of the items (drawn at random) whose answers the simulated humans label."""
FAVOURED_ARM = 1
"""Index of the arm ``judge-biased`` favours (beacon-13b of the default arms)."""
JUDGE_ACCEPT: dict[str, tuple[float, float]] = {"others": (0.85, 0.20),
                                                "favoured": (0.98, 0.75)}
"""P(judge-biased says acceptable) for a (right, wrong) answer."""
HUMAN_FLIP = 0.08


def human_evaluations(seed: int, responses: list[_Response], n_arms: int,
                      first_number: int, width: int) -> list[dict[str, Any]]:
    """The biased judge's and the humans' records, numbered from ``first_number``."""
    rng = np.random.default_rng([seed, 28])
    first = sorted((r for r in responses if r.run == 1 and r.item is not None and not r.orphan),
                   key=lambda r: (r.item.index, r.arm))  # type: ignore[union-attr]
    by_cell = {(r.item.index, r.arm): r for r in first}  # type: ignore[union-attr]
    n_items = 1 + max(i for i, _ in by_cell)
    labelled = set(rng.choice(n_items, size=n_labelled(n_items), replace=False).tolist())
    records: list[dict[str, Any]] = []
    for resp in first:
        right, wrong = JUDGE_ACCEPT["favoured" if resp.arm == FAVOURED_ARM else "others"]
        score = (None if resp.failure is not None
                 else int(rng.random() < (right if resp.correct else wrong)))
        records.append(_record(resp, "judge-biased", "acceptable", score, resp.failure))
    for resp in first:
        if resp.item.index in labelled and resp.failure is None:  # type: ignore[union-attr]
            label = int(resp.correct) ^ int(rng.random() < HUMAN_FLIP)
            records.append(_record(resp, "human:annotator-1", "acceptable", label, None))
    for index in sorted(labelled):
        for a, b in combinations(range(n_arms), 2):
            one, two = by_cell.get((index, a)), by_cell.get((index, b))
            if one is None or two is None or one.failure or two.failure:
                continue
            z = (one.quality - two.quality) / 10.0 + rng.logistic()
            score = 1.0 if z > TIE_HALF_WIDTH else 0.0 if z < -TIE_HALF_WIDTH else 0.5
            record = _record(one, "human:annotator-2", "preference", score, None)
            record.update(opponent_response_id=two.record["id"])  # order not recorded
            records.append(record)
    clocks = {judge: BASE_TIME + timedelta(days=1, hours=2 * j)
              for j, judge in enumerate(ADDED_JUDGES)}
    for number, record in enumerate(records, start=first_number):
        record["id"] = f"ev-{number:0{width}d}"
        clocks[record["judge"]] += timedelta(seconds=int(rng.integers(1, 6)) if
                                             record["judge"] == "judge-biased" else
                                             int(rng.integers(20, 90)))
        record["evaluated_at"] = clocks[record["judge"]].isoformat(timespec="seconds")
    return records


def n_labelled(n_items: int) -> int:
    """How many of ``n_items`` questions the humans label."""
    return min(n_items, max(2, round(HUMAN_FRACTION * n_items)))


def _record(resp: _Response, judge: str, criterion: str, score: float | None,
            failure: str | None) -> dict[str, Any]:
    return {"response_id": resp.record["id"], "judge": judge, "scores": {criterion: score},
            "opponent_response_id": None, "position": None, "trial": 1, "reasoning": None,
            "failure_kind": failure}
