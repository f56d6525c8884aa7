"""Draw the arms' simulated responses: each arm's intercept solved for its target accuracy,
correctness per run, failures, latent quality and the answer text. SIMULATED DATA."""

from __future__ import annotations

import re

import numpy as np

from assay.demo import _texts as texts
from assay.demo._items import _summary_text, _wrong_value
from assay.demo._world import (
    ACCURACY_RANGE,
    ESTIMATED_USD_FRACTION,
    FAILURE_KINDS,
    ITEM_ARM_SD,
    ORPHAN_RESPONSES,
    SELF_TEACH_LOGIT,
    _cap,
    _dp_id,
    _Item,
    _pick,
    _Response,
    _sigmoid,
)


def _calibrate(
    rng: np.random.Generator, items: list[_Item], arms: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per arm: its true accuracy, P(correct) per item when not failed, failure probabilities."""
    n_arms = len(arms)
    rank = np.linspace(0.0, 1.0, n_arms) if n_arms > 1 else np.array([0.5])
    targets = ACCURACY_RANGE[0] + (ACCURACY_RANGE[1] - ACCURACY_RANGE[0]) * rank
    # per arm failure probabilities (timeout, api_error, refusal, parse_error): bigger
    # models time out and refuse more, smaller ones break the output format more
    fail_p = np.stack([0.001 + 0.003 * rank, np.full(n_arms, 0.002),
                       0.001 + 0.003 * rank, 0.004 - 0.003 * rank], axis=1)
    eta = np.array([it.logit for it in items])
    self_taught = np.array([[SELF_TEACH_LOGIT * (it.teacher == arm) for arm in arms]
                            for it in items])
    base = eta[:, None] + rng.normal(0.0, ITEM_ARM_SD, size=(len(items), n_arms)) + self_taught
    p_correct = np.empty_like(base)
    for k in range(n_arms):
        keep = 1.0 - fail_p[k].sum()
        lo, hi = -30.0, 30.0
        for _ in range(80):  # bisection: mean P(correct) increases with alpha
            mid = (lo + hi) / 2
            too_low = keep * _sigmoid(mid + base[:, k]).mean() < targets[k]
            lo, hi = (mid, hi) if too_low else (lo, mid)
        p_correct[:, k] = _sigmoid((lo + hi) / 2 + base[:, k])
    accuracy = (1.0 - fail_p.sum(axis=1)) * p_correct.mean(axis=0)
    return accuracy, p_correct, fail_p


def _simulate_responses(
    rng: np.random.Generator, items: list[_Item], arms: tuple[str, ...], runs: int,
    p_correct: np.ndarray, fail_p: np.ndarray,
) -> list[_Response]:
    sizes = [_model_size(arm, k) for k, arm in enumerate(arms)]
    token_factor = rng.uniform(0.95, 1.08, size=len(arms))
    style = np.linspace(0.0, 5.0, len(arms)) if len(arms) > 1 else np.zeros(1)
    item_quality = rng.normal(0.0, 4.0, size=len(items))
    cuts = np.cumsum(fail_p, axis=1)
    responses: list[_Response] = []
    for item in items:
        for k in range(len(arms)):
            for run in range(1, runs + 1):
                correct = bool(rng.random() < p_correct[item.index, k])
                u = rng.random()
                failure = (FAILURE_KINDS[int(np.searchsorted(cuts[k], u, side="right"))]
                           if u < cuts[k, -1] else None)
                quality = (30.0 + 42.0 * correct + style[k] + item_quality[item.index]
                           + rng.normal(0.0, 8.0))
                responses.append(_Response(item, k, run, correct and failure is None, failure,
                                           float(quality), {}))
    for _ in range(ORPHAN_RESPONSES):  # answers to questions since deleted
        orphan = _ghost(rng, items[int(rng.integers(len(items)))], int(rng.integers(len(arms))))
        responses.insert(int(rng.integers(len(responses) + 1)), orphan)
    width, n_orphans = max(5, len(str(len(responses) + 10))), 0
    for number, resp in enumerate(responses, start=1):
        assert resp.item is not None
        index = resp.item.index if not resp.orphan else len(items) + n_orphans
        n_orphans += resp.orphan  # an orphan's datapoint_id is in no datapoint
        dp = _dp_id(index, len(items))
        text = _answer_text(rng, resp)
        t_in = round(token_factor[resp.arm] * (1.3 * len(resp.item.prompt.split()) + 45))
        t_out = 0 if text is None else max(1, round(
            token_factor[resp.arm] * 1.3 * len(text.split()) + rng.integers(0, 4)))
        size = sizes[resp.arm]
        usd = (t_in * 0.04 * size + t_out * 0.12 * size) / 1e6
        provenance = "reported"
        if resp.failure in ("timeout", "api_error"):
            usd, provenance = t_in * 0.04 * size / 1e6, "estimated"  # no usage came back
        elif rng.random() < ESTIMATED_USD_FRACTION:
            provenance = "estimated"
        latency = (60.0 if resp.failure == "timeout"  # the client's time limit
                   else float(rng.uniform(0.2, 1.5)) if resp.failure == "api_error"
                   else (0.25 + 0.01 * size + t_out * (0.004 + 0.0004 * size))
                   * float(rng.lognormal(0.0, 0.25)))
        resp.record = {
            "id": f"rsp-{number:0{width}d}", "datapoint_id": dp,
            "arm": arms[resp.arm], "run": resp.run, "text": text, "usd": round(usd, 8),
            "usd_provenance": provenance, "tokens_in": int(t_in), "tokens_out": int(t_out),
            "latency_s": round(latency, 3), "failure_kind": resp.failure,
        }
    return responses


def _answer_text(rng: np.random.Generator, resp: _Response) -> str | None:
    item = resp.item
    assert item is not None
    if resp.failure in ("timeout", "api_error"):
        return None
    if resp.failure is not None:
        return _pick(rng, texts.REFUSALS if resp.failure == "refusal" else texts.GARBLED)
    if item.task == "factoid_qa":
        fact = item.facts[0]
        value = fact.value if resp.correct else _wrong_value(rng, fact)
        form = _pick(rng, texts.FACTOID_CORRECT_FORMS)
        return form.format(v=value, E=_cap(item.entity), c=fact.clause.format(v=value))
    values = [f.value for f in item.facts]
    if not resp.correct:  # one or two facts hallucinated
        for j in rng.choice(len(values), size=int(rng.integers(1, 3)), replace=False).tolist():
            values[j] = _wrong_value(rng, item.facts[j])
    order = rng.permutation(len(values)).tolist()
    opener = _pick(rng, texts.SUMMARY_OPENERS)
    return _summary_text(item.entity, [item.facts[j] for j in order],
                         [values[j] for j in order], opener)


def _model_size(arm: str, k: int) -> float:
    """Billions of parameters read from the name ("cirrus-70b"), else 10, 20, 30..."""
    found = re.search(r"(\d+(?:\.\d+)?)b$", arm.lower())
    return float(found.group(1)) if found else 10.0 * (k + 1)


def _ghost(rng: np.random.Generator, item: _Item | None, arm: int) -> _Response:
    """A response outside the design: to a deleted question, or itself deleted."""
    correct = bool(rng.random() < 0.7)
    quality = 30.0 + 42.0 * correct + float(rng.normal(0.0, 8.0))
    return _Response(item, arm, 1, correct, None, quality, {}, orphan=item is not None)
