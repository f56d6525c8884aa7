"""A seeded simulator of an LLM evaluation, written as an assay run folder. SIMULATED DATA.

Nothing this module writes was produced by a language model or a human rater: the
questions, answers, costs, latencies and judgments are all drawn from a small statistical
model with ``numpy.random.default_rng(seed)``, so the same arguments give byte-identical
files. It exists to demonstrate and test assay on data whose truth is known.

The model
---------
* ``n_questions`` items in ``n_documents`` documents (clusters of 2-9 items). Each document
  is about one invented entity ("the Meridian Treaty") with six invented facts; its items
  are factoid questions about one fact (``factoid_qa``) or one-sentence summaries of a
  passage stating three facts (``summarisation``), about 60/40. Each document was
  written by one teacher model, cirrus-70b (also an arm) or dolomite-34b.
* Item ``i`` has a logit ``eta_i`` = difficulty effect (easy +3.0, medium 0, hard -3.0)
  + document effect N(0, 2.8^2) + item effect N(0, 2.0^2). Arm ``k`` answers it correctly
  with probability ``p_ik = sigmoid(alpha_k + eta_i + u_ik + s_ik)``, where ``u_ik`` ~
  N(0, 1.25^2) is an item-by-arm effect and ``s_ik`` = +1.0 when the arm is the model that
  wrote the item (self-teaching). Each of the ``runs`` runs draws correctness afresh, so
  about 30% of (item, arm) pairs flip between runs; the rest are mostly (not always)
  stable, as at a low sampling temperature.
* A response fails (timeout, api_error, refusal, parse_error) with a small per-arm
  probability; a failure counts as wrong. ``alpha_k`` is solved for so that the *true
  accuracy* of arm ``k`` - the mean over the simulated items of P(correct), failures
  counting as wrong - equals its target: evenly spaced from 0.62 to 0.80 in the order
  the arms are given (0.62, 0.71, 0.80 for the default three arms).
* Judges: ``exact-match`` scores ``correct`` 0/1; ``judge-lenient`` and ``judge-strict``
  score ``quality`` 0-100 from a latent response quality (about 30 wrong, 72 right) plus
  +8 and -6 points of leniency and N(0, 7^2) and N(0, 9^2) noise; ``judge-ordinal`` maps the
  latent quality plus noise to Low/Medium/High ``helpfulness``; ``judge-pairwise`` compares
  every pair of arms on run 1 twice, the first arm of the pair shown first (position 1)
  in trial 1 and second (position 2) in trial 2, with a bias of +0.5 on the logit scale
  towards the answer shown first.
* An evaluation of a failed response has every score null and ``failure_kind`` copied
  from the response (in a pairwise record: when the record's own response failed; when
  only the opponent failed the record's arm wins, 1.0). A few records are planted invalid
  (:data:`PLANTED`, :data:`ORPHAN_RESPONSES`); :class:`SimulationSummary` lists them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from assay.demo import _texts as texts
from assay.errors import ConfigError

__all__ = ["ORPHAN_RESPONSES", "PLANTED", "SimulationSummary", "simulate_evaluation"]

DEFAULT_ARMS: tuple[str, ...] = ("atlas-7b", "beacon-13b", "cirrus-70b")
TEACHERS: tuple[str, ...] = ("cirrus-70b", "dolomite-34b")
FAILURE_KINDS: tuple[str, ...] = ("timeout", "api_error", "refusal", "parse_error")

CRITERIA: dict[str, dict[str, str]] = {
    "correct": {"scale": "binary",
                "description": "The answer agrees with the reference (1) or not (0)."},
    "quality": {"scale": "range:0,100",
                "description": "Overall quality of the answer: accuracy, completeness, clarity."},
    "helpfulness": {"scale": "ordinal:Low,Medium,High",
                    "description": "How useful the answer would be to the person who asked."},
    "preference": {"scale": "range:0,1",
                   "description": "Pairwise: 1 if this answer is preferred to the opponent's, "
                                  "0.5 for a tie, 0 if the opponent's is preferred."},
}
JUDGES: dict[str, list[str]] = {
    "exact-match": ["correct"], "judge-lenient": ["quality"], "judge-strict": ["quality"],
    "judge-ordinal": ["helpfulness"], "judge-pairwise": ["preference"]}
RUBRICS: dict[str, list[str]] = {task: ["correct", "quality", "helpfulness"]
                                  for task in ("factoid_qa", "summarisation")}
"""The criteria each task is judged on (pairwise preference aside)."""

# The truth of the simulation (see the module docstring).
DIFFICULTY_LOGIT: dict[str, float] = {"easy": 3.0, "medium": 0.0, "hard": -3.0}
DIFFICULTY_P: tuple[float, float, float] = (0.35, 0.40, 0.25)
DOCUMENT_SD, ITEM_SD, ITEM_ARM_SD, SELF_TEACH_LOGIT = 2.8, 2.0, 1.25, 1.0
ACCURACY_RANGE: tuple[float, float] = (0.62, 0.80)
JUDGE_OFFSET: dict[str, float] = {"judge-lenient": 8.0, "judge-strict": -6.0}
JUDGE_NOISE_SD: dict[str, float] = {"judge-lenient": 7.0, "judge-strict": 9.0}
POSITION_BIAS_LOGIT, TIE_HALF_WIDTH = 0.5, 0.9
DEV_FRACTION, REFERENCE_SCORE_FRACTION, ESTIMATED_USD_FRACTION = 0.10, 0.5, 0.02
FILES: dict[str, str] = {"datapoints": "datapoints.jsonl", "responses": "responses.jsonl",
                         "evaluations": "evaluations.jsonl", "criteria": "criteria.json",
                         "readme": "README.md"}
BASE_TIME = datetime(2025, 3, 3, 9, 0, 0, tzinfo=timezone.utc)

PLANTED: dict[str, int] = {
    "MISSING_RESPONSE": 3,  # evaluations whose response_id is in no response
    "INCOMPLETE_SCORES": 3,  # evaluations whose scores lack their judge's criterion
    "INVALID_SCORE_VALUE": 3,  # evaluations with "Excellent" (ordinal) or 140 (0-100)
}
"""How many invalid evaluations of each validity class a simulation writes directly."""
ORPHAN_RESPONSES = 2
"""Responses whose datapoint_id is in no datapoint; each is judged by the four pointwise
judges, so 4 * ORPHAN_RESPONSES evaluations are MISSING_DATAPOINT."""


@dataclass(frozen=True)
class SimulationSummary:
    """What :func:`simulate_evaluation` wrote and the truth behind it. Counts are of
    records written (lines of a JSONL file), the planted invalid ones included."""

    out_dir: Path
    seed: int
    arms: tuple[str, ...]
    runs: int
    n_datapoints: int
    n_clusters: int
    n_responses: int
    n_evaluations: int
    evaluations_by_judge: dict[str, int]
    failures_by_kind: dict[str, int]
    true_accuracy: dict[str, float]
    """Per arm: mean over the simulated items of P(correct), failures counting as wrong."""
    planted: dict[str, tuple[str, ...]]
    """Per validity class, the ids of the evaluations a loader should set aside as such
    (MISSING_DATAPOINT: the evaluations of the orphan responses)."""
    orphan_responses: tuple[str, ...]
    """Ids of the responses whose datapoint_id is in no datapoint."""
    paths: dict[str, Path]
    """Keys datapoints, responses, evaluations, criteria, readme."""

    @property
    def planted_counts(self) -> dict[str, int]:
        return {name: len(ids) for name, ids in self.planted.items()}

    @property
    def counts(self) -> dict[str, int]:
        """Records written per file (criteria.json: the number of criteria)."""
        return {"datapoints.jsonl": self.n_datapoints, "responses.jsonl": self.n_responses,
                "evaluations.jsonl": self.n_evaluations, "criteria.json": len(CRITERIA)}


class _Fact(NamedTuple):
    kind: str  # "year", "person", "city", "count:LOW,HIGH" or a key of texts.VOCAB
    question: str
    clause: str
    value: str


@dataclass
class _Item:
    index: int
    task: str
    prompt: str
    reference: str
    entity: str
    facts: list[_Fact]
    logit: float = 0.0
    teacher: str = ""


@dataclass
class _Response:
    item: _Item | None
    arm: int
    run: int
    correct: bool
    failure: str | None
    quality: float
    record: dict[str, Any]
    orphan: bool = False


def simulate_evaluation(
    out_dir: str | Path, *, seed: int = 7, n_documents: int = 40, n_questions: int = 200,
    arms: Sequence[str] = DEFAULT_ARMS, runs: int = 5,
) -> SimulationSummary:
    """Simulate an evaluation of ``arms`` and write it as a run folder in ``out_dir``.

    The data are SIMULATED (see the module docstring for the model). Files already in
    ``out_dir`` with the same names are overwritten. Raises :class:`ConfigError` for
    arguments that cannot be simulated.
    """
    arms = tuple(arms)
    if not arms or len(set(arms)) != len(arms) or not all(isinstance(a, str) and a for a in arms):
        raise ConfigError(f"arms must be distinct non-empty names, got {arms!r}")
    if runs < 1:
        raise ConfigError(f"runs must be at least 1, got {runs}")
    if not 1 <= n_documents <= n_questions <= 10 * n_documents:
        raise ConfigError("need 1 <= n_documents <= n_questions <= 10 * n_documents, got "
                          f"n_documents={n_documents}, n_questions={n_questions}")
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    datapoints, items = _make_datapoints(rng, n_documents, n_questions)
    accuracy, p_correct, fail_p = _calibrate(rng, items, arms)
    responses = _simulate_responses(rng, items, arms, runs, p_correct, fail_p)
    evaluations, planted = _simulate_evaluations(rng, responses, arms)

    paths = {name: out / file for name, file in FILES.items()}
    _write_jsonl(paths["datapoints"], datapoints)
    _write_jsonl(paths["responses"], [r.record for r in responses])
    _write_jsonl(paths["evaluations"], evaluations)
    paths["criteria"].write_text(
        json.dumps({"criteria": CRITERIA, "judges": JUDGES, "rubrics": RUBRICS}, indent=2,
                   sort_keys=True) + "\n",
        encoding="utf-8", newline="\n")
    summary = SimulationSummary(
        out_dir=out, seed=seed, arms=arms, runs=runs, n_datapoints=len(datapoints),
        n_clusters=n_documents, n_responses=len(responses), n_evaluations=len(evaluations),
        evaluations_by_judge=dict(sorted(Counter(e["judge"] for e in evaluations).items())),
        failures_by_kind={k: sum(r.failure == k for r in responses) for k in FAILURE_KINDS},
        true_accuracy={arm: round(float(a), 4) for arm, a in zip(arms, accuracy, strict=True)},
        planted=planted, orphan_responses=tuple(r.record["id"] for r in responses if r.orphan),
        paths=paths)
    paths["readme"].write_text(_readme(summary, n_documents, n_questions), encoding="utf-8",
                               newline="\n")
    return summary


def _make_datapoints(
    rng: np.random.Generator, n_documents: int, n_questions: int
) -> tuple[list[dict[str, Any]], list[_Item]]:
    """The datapoint records and the items behind them."""
    sizes = _cluster_sizes(rng, n_documents, n_questions)
    width = max(2, len(str(n_documents)))
    name_order = rng.permutation(len(texts.NAMES))
    domains = sorted(texts.DOMAINS)
    dev = set(rng.choice(n_questions, size=round(DEV_FRACTION * n_questions), replace=False)
              .tolist())
    records: list[dict[str, Any]] = []
    items: list[_Item] = []
    for doc, size in enumerate(sizes):
        domain = _pick(rng, domains)
        spec = texts.DOMAINS[domain]
        name = texts.NAMES[int(name_order[doc % len(texts.NAMES)])]
        if doc >= len(texts.NAMES):
            name += f"-{doc // len(texts.NAMES) + 1}"
        kind = _pick(rng, spec["kinds"])
        entity = f"{name} {kind}" if domain == "finance" else f"the {name} {kind}"
        facts = _make_facts(rng, spec["facts"])
        teacher = _pick(rng, TEACHERS)
        doc_effect = rng.normal(0.0, DOCUMENT_SD)
        # a document has 6 factoid and 4 summarisation prompts; its items are a sample of them
        slots = rng.permutation(10)[:size]
        for slot in slots.tolist():
            index = len(items)
            item = (_Item(index, "factoid_qa", facts[slot].question.format(e=entity),
                          facts[slot].value, entity, [facts[slot]]) if slot < 6
                    else _summary_item(rng, index, entity, facts, slot - 6))
            difficulty = ("easy", "medium", "hard")[int(rng.choice(3, p=DIFFICULTY_P))]
            item.logit = (DIFFICULTY_LOGIT[difficulty] + doc_effect
                          + float(rng.normal(0.0, ITEM_SD)))
            item.teacher = teacher
            ref_score = None
            if rng.random() < REFERENCE_SCORE_FRACTION:
                ref_score = round(float(_sigmoid(0.4 * item.logit + rng.normal(0.0, 0.4))), 3)
            items.append(item)
            records.append({
                "id": _dp_id(index, n_questions), "task": item.task,
                "cluster": f"doc-{doc + 1:0{width}d}", "prompt": item.prompt,
                "reference": item.reference, "teacher": teacher,
                "split": "dev" if index in dev else "test",
                "attributes": {"difficulty": difficulty, "domain": domain},
                "reference_score": ref_score,
            })
    return records, items


def _cluster_sizes(rng: np.random.Generator, n_documents: int, n_questions: int) -> list[int]:
    """Uneven document sizes in [2, 9] (wider only when needed) summing to n_questions."""
    low = 2 if n_questions >= 2 * n_documents else 1
    high = 9 if n_questions <= 9 * n_documents else 10
    sizes = rng.integers(low, high + 1, size=n_documents)
    while (gap := int(sizes.sum()) - n_questions) != 0:
        movable = np.flatnonzero(sizes > low) if gap > 0 else np.flatnonzero(sizes < high)
        sizes[movable[int(rng.integers(len(movable)))]] -= 1 if gap > 0 else -1
    return sizes.tolist()


def _make_facts(rng: np.random.Generator, templates: Sequence[tuple[str, ...]]) -> list[_Fact]:
    values = [_draw_value(rng, kind) for _, kind, _, _ in templates]
    pairs = list(zip(templates, values, strict=True))
    years = sorted(int(v) for (_, kind, _, _), v in pairs if kind == "year")
    if len(years) > 1 and years[0] == years[-1]:
        years[-1] += 1
    year_iter = iter(str(y) for y in years)  # a document's events happen in template order
    return [_Fact(kind, question, clause, next(year_iter) if kind == "year" else value)
            for (_, kind, question, clause), value in pairs]


def _draw_value(rng: np.random.Generator, kind: str) -> str:
    if kind == "year":
        return str(int(rng.integers(1700, 1991)))
    if kind == "person":
        return f"{_pick(rng, texts.FIRST_NAMES)} {_pick(rng, texts.LAST_NAMES)}"
    if kind == "city":
        return _pick(rng, texts.CITIES)
    if kind.startswith("count:"):
        low, high = (int(x) for x in kind[6:].split(","))
        return str(int(rng.integers(low, high + 1)))
    return _pick(rng, texts.VOCAB[kind])


def _wrong_value(rng: np.random.Generator, fact: _Fact) -> str:
    """A plausible wrong value of the fact's kind (a near-miss year, a scaled count...)."""
    for _ in range(50):
        if fact.kind == "year":
            value = str(int(fact.value) + int(rng.choice([-1, 1])) * int(rng.integers(1, 40)))
        elif fact.kind.startswith("count:"):
            value = str(max(1, round(int(fact.value) * float(rng.uniform(0.4, 1.8)))))
        else:
            value = _draw_value(rng, fact.kind)
        if value != fact.value:
            return value
    return fact.value + " (approximately)"  # only for a vocabulary of one word


def _summary_item(rng: np.random.Generator, index: int, entity: str, facts: list[_Fact],
                  facet: int) -> _Item:
    chosen = [facts[j] for j in texts.SUMMARY_FACETS[facet]]
    sentences = [f"{_cap(entity) if j == 0 else 'It'} {f.clause.format(v=f.value)}."
                 for j, f in enumerate(chosen)]
    for filler in rng.choice(len(texts.FILLER_SENTENCES), size=2, replace=False).tolist():
        sentences.insert(int(rng.integers(1, len(sentences) + 1)),
                         texts.FILLER_SENTENCES[filler])
    prompt = texts.SUMMARY_PROMPTS[facet].format(e=entity) + "\n\n" + " ".join(sentences)
    return _Item(index, "summarisation", prompt,
                 _summary_text(entity, chosen, [f.value for f in chosen]), entity, chosen)


def _summary_text(entity: str, facts: Sequence[_Fact], values: Sequence[str],
                  opener: str = "") -> str:
    clauses = [f.clause.format(v=v) for f, v in zip(facts, values, strict=True)]
    subject = entity if opener else _cap(entity)
    return f"{opener}{subject} {', '.join(clauses[:-1])} and {clauses[-1]}."



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


def _ghost(rng: np.random.Generator, item: _Item | None, arm: int) -> _Response:
    """A response outside the design: to a deleted question, or itself deleted."""
    correct = bool(rng.random() < 0.7)
    quality = 30.0 + 42.0 * correct + float(rng.normal(0.0, 8.0))
    return _Response(item, arm, 1, correct, None, quality, {}, orphan=item is not None)


def _reason(rng: np.random.Generator, band: int) -> str:
    return _pick(rng, (texts.REASONS_LOW, texts.REASONS_MID, texts.REASONS_HIGH)[band])



def _write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> None:
    lines = [json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n" for record in records]
    path.write_text("".join(lines), encoding="utf-8", newline="\n")


def _readme(s: SimulationSummary, n_documents: int, n_questions: int) -> str:
    acc = "\n".join(f"| {arm} | {a:.2f} |" for arm, a in s.true_accuracy.items())
    judges = "\n".join(f"| {j} | {', '.join(c)} | {s.evaluations_by_judge.get(j, 0)} |"
                       for j, c in JUDGES.items())
    planted = "\n".join(f"| {name} | {n} |" for name, n in s.planted_counts.items())
    fails = ", ".join(f"{k} {n}" for k, n in s.failures_by_kind.items())
    return texts.README.format(
        s=s, n_documents=n_documents, n_questions=n_questions, arms=", ".join(s.arms),
        orphans=", ".join(s.orphan_responses), fails=fails, judges=judges, acc=acc,
        planted=planted, lenient=JUDGE_OFFSET["judge-lenient"],
        strict=JUDGE_OFFSET["judge-strict"], position=POSITION_BIAS_LOGIT,
        self_teach=SELF_TEACH_LOGIT)


def _dp_id(index: int, n_questions: int) -> str:
    return f"dp-{index + 1:0{max(4, len(str(n_questions + 10)))}d}"


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sigmoid(x: Any) -> Any:
    """The logistic function, of a number or elementwise of an array."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))
