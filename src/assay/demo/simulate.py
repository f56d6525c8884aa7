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
* ``judge-biased`` scores ``acceptable`` favouring the second arm, and simulated humans label
  a random 18% of the items (:mod:`assay.demo._humans`).
* An evaluation of a failed response has every score null and ``failure_kind`` copied
  from the response (in a pairwise record: when the record's own response failed; when
  only the opponent failed the record's arm wins, 1.0). A few records are planted invalid
  (:data:`PLANTED`, :data:`ORPHAN_RESPONSES`); :class:`SimulationSummary` lists them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from assay.demo import _texts as texts
from assay.errors import ConfigError

__all__ = ["ORPHAN_RESPONSES", "PLANTED", "SimulationSummary", "simulate_evaluation"]

from assay.demo._evaluations import _simulate_evaluations
from assay.demo._humans import (
    FAVOURED_ARM,
    HUMAN_FRACTION,
    JUDGE_ACCEPT,
    human_evaluations,
    n_labelled,
)
from assay.demo._items import _make_datapoints
from assay.demo._responses import _calibrate, _simulate_responses
from assay.demo._world import (
    CRITERIA,
    DEFAULT_ARMS,
    FAILURE_KINDS,
    FILES,
    JUDGE_OFFSET,
    JUDGES,
    ORPHAN_RESPONSES,
    PLANTED,
    POSITION_BIAS_LOGIT,
    RUBRICS,
    SELF_TEACH_LOGIT,
)


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
    evaluations += human_evaluations(seed, responses, len(arms), len(evaluations) + 1,
                                     len(evaluations[0]["id"]) - 3)

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
        self_teach=SELF_TEACH_LOGIT, accept_right=JUDGE_ACCEPT["others"][0],
        accept_wrong=JUDGE_ACCEPT["others"][1], fav_right=JUDGE_ACCEPT["favoured"][0],
        fav_wrong=JUDGE_ACCEPT["favoured"][1],
        favoured=s.arms[FAVOURED_ARM] if len(s.arms) > FAVOURED_ARM else "no arm",
        human_pct=HUMAN_FRACTION, n_labelled=n_labelled(n_questions))


