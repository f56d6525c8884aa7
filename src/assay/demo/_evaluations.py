"""Draw the judges' simulated evaluations of the responses (pointwise, ordinal, pairwise with
a position bias), planted invalid records among them, with ids and times. SIMULATED DATA."""

from __future__ import annotations

from datetime import timedelta
from itertools import combinations
from typing import Any

import numpy as np

from assay.demo import _texts as texts
from assay.demo._responses import _ghost
from assay.demo._world import (
    BASE_TIME,
    JUDGE_NOISE_SD,
    JUDGE_OFFSET,
    JUDGES,
    PLANTED,
    POSITION_BIAS_LOGIT,
    TIE_HALF_WIDTH,
    _pick,
    _Response,
)


def _simulate_evaluations(
    rng: np.random.Generator, responses: list[_Response], arms: tuple[str, ...]
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, ...]]]:
    records: list[dict[str, Any]] = []
    valid: dict[str, list[dict[str, Any]]] = {j: [] for j in JUDGES}
    for judge in ("exact-match", "judge-lenient", "judge-strict", "judge-ordinal"):
        for resp in responses:
            record = _pointwise(rng, judge, resp)
            if resp.orphan:
                record["_planted"] = "MISSING_DATAPOINT"
            elif resp.failure is None:
                valid[judge].append(record)
            records.append(record)
    first_runs: dict[tuple[int, int], _Response] = {
        (r.item.index, r.arm): r for r in responses
        if r.run == 1 and r.item is not None and not r.orphan}
    n_items = 1 + max(i for i, _ in first_runs)
    for index in range(n_items):
        for a, b in combinations(range(len(arms)), 2):
            for trial in (1, 2):
                records.append(_pairwise(rng, first_runs[index, a], first_runs[index, b], trial))
    for name, judges in (("INCOMPLETE_SCORES", ("judge-lenient", "judge-strict", "judge-ordinal")),
                         ("INVALID_SCORE_VALUE", ("judge-ordinal", "judge-lenient", "judge-strict"))):
        for n in range(PLANTED[name]):  # spoil valid records of judged (not failed) responses
            judge = judges[n % 3]
            record = valid[judge].pop(int(rng.integers(len(valid[judge]))))
            bad = "Excellent" if judge == "judge-ordinal" else 140
            record["scores"] = {} if name == "INCOMPLETE_SCORES" else {JUDGES[judge][0]: bad}
            record["_planted"] = name
    # evaluations of responses that are not in responses.jsonl (e.g. deleted ones)
    last = max(int(r.record["id"].split("-")[1]) for r in responses)
    width = len(responses[0].record["id"]) - 4
    for n in range(PLANTED["MISSING_RESPONSE"]):
        judge = ("exact-match", "judge-lenient", "judge-ordinal")[n % 3]
        ghost = _ghost(rng, None, 0)
        ghost.record = {"id": f"rsp-{last + 1 + n:0{width}d}"}
        record = _pointwise(rng, judge, ghost)
        record["_planted"] = "MISSING_RESPONSE"
        records.insert(int(rng.integers(len(records) + 1)), record)
    return _finish(rng, records)


def _finish(
    rng: np.random.Generator, records: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, tuple[str, ...]]]:
    """Give the records ids and times in file order, and collect the planted ids."""
    width = max(6, len(str(len(records) + 10)))
    clocks = {judge: BASE_TIME + timedelta(hours=2 * j) for j, judge in enumerate(JUDGES)}
    planted: dict[str, list[str]] = {name: [] for name in (
        "MISSING_RESPONSE", "MISSING_DATAPOINT", "INCOMPLETE_SCORES", "INVALID_SCORE_VALUE")}
    for number, record in enumerate(records, start=1):
        record["id"] = f"ev-{number:0{width}d}"
        judge = record["judge"]
        step = int(rng.integers(0, 2)) if judge == "exact-match" else int(rng.integers(1, 6))
        clocks[judge] += timedelta(seconds=step)
        record["evaluated_at"] = clocks[judge].isoformat(timespec="seconds")
        if "_planted" in record:
            planted[record.pop("_planted")].append(record["id"])
    return records, {k: tuple(v) for k, v in planted.items()}


def _pointwise(rng: np.random.Generator, judge: str, resp: _Response) -> dict[str, Any]:
    criterion = JUDGES[judge][0]
    reasoning: str | None = None
    score: int | str | None
    if resp.failure is not None:
        score = None
    elif judge == "exact-match":
        score = int(resp.correct)
    elif judge == "judge-ordinal":
        latent = resp.quality + rng.normal(0.0, 7.0)
        score = "High" if latent >= 62 else "Medium" if latent >= 38 else "Low"
        reasoning = _reason(rng, {"High": 2, "Medium": 1, "Low": 0}[score])
    else:
        latent = resp.quality + JUDGE_OFFSET[judge] + rng.normal(0.0, JUDGE_NOISE_SD[judge])
        score = int(min(100, max(0, round(latent))))
        reasoning = _reason(rng, 2 if score >= 70 else 1 if score >= 40 else 0)
    return {"response_id": resp.record["id"], "judge": judge, "scores": {criterion: score},
            "opponent_response_id": None, "position": None, "trial": 1,
            "reasoning": reasoning, "failure_kind": resp.failure}


def _pairwise(rng: np.random.Generator, first: _Response, second: _Response,
              trial: int) -> dict[str, Any]:
    """The record of ``first``'s arm; shown first (position 1) in trial 1, second in trial 2."""
    position = 1 if trial == 1 else 2
    reasoning: str | None = None
    if first.failure is not None:
        score = None
    elif second.failure is not None:
        score, reasoning = 1.0, "Only one response answers the question."
    else:
        z = ((first.quality - second.quality) / 10.0
             + POSITION_BIAS_LOGIT * (1 if position == 1 else -1) + rng.logistic())
        score = 1.0 if z > TIE_HALF_WIDTH else 0.0 if z < -TIE_HALF_WIDTH else 0.5
        winner = "A" if (score == 1.0) == (position == 1) else "B"  # A was shown first
        reasoning = (_pick(rng, texts.REASONS_TIE) if score == 0.5
                     else _pick(rng, texts.REASONS_PAIRWISE).format(w=winner))
    return {"response_id": first.record["id"], "judge": "judge-pairwise",
            "scores": {"preference": score}, "opponent_response_id": second.record["id"],
            "position": position, "trial": trial, "reasoning": reasoning,
            "failure_kind": first.failure}


def _reason(rng: np.random.Generator, band: int) -> str:
    return _pick(rng, (texts.REASONS_LOW, texts.REASONS_MID, texts.REASONS_HIGH)[band])
