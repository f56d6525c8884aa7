"""``assay demo --until``: sequential judging on the demo's design, the simulated verdicts replayed.

The simulated evaluation (:mod:`assay.demo.simulate`) holds every verdict its simulated LLM
judges gave; no model is called to make them, and none is called here. To show what ``assay
judge --until`` does on this design (40 documents, 200 items, 3 systems), the judgments of
``judge-lenient`` (quality, five runs) and ``judge-pairwise`` (preference, two trials of each
pair on run 1) are planned as a run of two *replay* judges: offline judges, as the metric
judges are, each of whose answers is the verdict the simulation recorded for that judgment.
That plan is run by :func:`assay.judge.sequential.execute_sequential`, the loop of ``assay
judge --until`` itself (the same stopping rule, order of the clusters, looks, confidence
sequences, store and resume), so what it stops at, and the judgments it does not make, are
what a run buying those verdicts from a model would stop at and not buy. Only the answers are
replayed instead of bought.

A failed response (a system's timeout or refusal) has no verdict and no judge would be asked
about it: it is not planned (the sequential look leaves failed judgments out anyway).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.io import load
from assay.data.schema import Scale
from assay.demo._world import CRITERIA
from assay.judge.config import parse_config
from assay.judge.judges._protocol import JudgeInputs, reply_row
from assay.judge.judges.verdicts import MetricVerdict
from assay.judge.plan import JudgePlan, Plan
from assay.judge.sequential import (
    SequentialRun,
    StoppingRule,
    cluster_order,
    execute_sequential,
    restricted,
)
from assay.llm import ChatRequest, Reply

REPLAYED = {"judge-lenient": "quality", "judge-pairwise": "preference"}
"""The simulated judges replayed, and the criterion each writes."""
REPLAY_VERSION = "demo-replay-1"
SEQUENTIAL_FOLDER = "sequential"
"""The demo's sequential run folders, one per rule (``sequential/width-1.2``), under its output."""
SEQUENTIAL_REPORT = "sequential.txt"
"""What the demo printed about the sequential run, beside its other reports."""


@dataclass(frozen=True)
class ReplayJudge:
    """An offline judge whose answer to each judgment is the verdict the simulation recorded."""

    name: str
    criterion: str
    verdicts: Mapping[str, float] = field(repr=False)
    """judgment key -> the recorded score."""

    def requests(self, inputs: JudgeInputs) -> list[ChatRequest]:  # planned from the records instead
        return []

    def scales(self) -> dict[str, Scale]:
        return {self.criterion: Scale.parse(CRITERIA[self.criterion]["scale"])}

    def answer(self, request: ChatRequest) -> Reply:
        """The recorded verdict (no model: the simulation's own)."""
        return Reply(key=request.key, verdict=MetricVerdict(score=self.verdicts[request.key]), text=None,
                     model=f"replay:{self.name}")

    def rows(self, request: ChatRequest, reply: Reply) -> list[dict[str, Any]]:
        score = None if reply.verdict is None else float(reply.verdict.score)  # type: ignore[attr-defined]
        return [reply_row(request.meta, reply, score=score, reasoning=None, prompt_hash="")]


@dataclass(frozen=True)
class DemoSequential:
    """A sequential run of the replayed judgments, and what the simulation priced the rest at."""

    run: SequentialRun
    folder: Path
    usd_not_spent: float
    """The simulated cost (the evaluation's ``usd`` column) of the judgments not made."""


def replay_plan(example: Path) -> tuple[Plan, dict[str, float]]:
    """The replayed judgments of the simulated run folder ``example`` as a plan of two offline
    judges, and each judgment's simulated cost (key -> USD)."""
    frame = load(example).frame
    frame = frame[frame["judge"].isin(list(REPLAYED)) & frame["score"].notna()]
    parts, usd = [], {}
    for judge, criterion in REPLAYED.items():
        verdicts: dict[str, float] = {}
        requests = []
        for rec in frame[frame["judge"] == judge].to_dict("records"):
            meta = {k: _plain(rec[k]) for k in ("item", "cluster", "arm", "run", "judge", "criterion",
                                                "task", "opponent", "position")}
            meta = {k: v for k, v in meta.items() if v is not None}
            identity = json.dumps(meta, sort_keys=True)
            key = hashlib.sha256(f"{REPLAY_VERSION}\x1f{identity}".encode()).hexdigest()
            verdicts[key] = float(rec["score"])
            usd[key] = float(rec["usd"]) if _plain(rec.get("usd")) is not None else 0.0
            requests.append(ChatRequest(key=key, messages=(("system", f"replay:{judge}"), ("user", identity)),
                                        response_model=MetricVerdict, model=f"replay:{judge}",
                                        prompt_hash=REPLAY_VERSION, meta=meta))
        parts.append(JudgePlan(judge=ReplayJudge(judge, criterion, verdicts), kind="replay",
                               requests=requests))
    return Plan(judges=parts, config=parse_config({"version": 1})), usd


def run_sequential(example: Path, out: Path, rule: StoppingRule) -> DemoSequential:
    """Replay the simulated judgments of ``example`` through ``assay judge --until``'s loop into
    ``out`` (a run folder; a rerun with the same rule resumes from its store)."""
    plan, usd = replay_plan(example)
    run = asyncio.run(execute_sequential(plan, out, rule))
    judged = set(restricted(plan, cluster_order(plan, rule.seed)[:run.clusters]).keys)
    return DemoSequential(run=run, folder=out,
                          usd_not_spent=sum(v for k, v in usd.items() if k not in judged))


def sequential_lines(example: Path, out: Path, rule: StoppingRule) -> list[str]:
    """Run the replayed judgments sequentially into ``out/sequential/RULE`` and say how it went:
    a title, what was simulated, then ``assay judge --until``'s own lines (whether it stopped
    early, why, what was not made, each comparison's interval), what the simulation priced the
    judgments not made at, and the ``assay report`` command of the clusters judged."""
    from assay.data.run_store import sequential_note
    from assay.judge.sequential import ended_lines

    folder = out / SEQUENTIAL_FOLDER / rule.words.replace("=", "-")
    done = run_sequential(example, folder, rule)
    run = done.run
    judges = " and ".join(REPLAYED)
    lines = [f"Sequential judging (assay judge --until {rule.words}) on the demo's design, SIMULATED "
             "verdicts",
             f"simulated: the verdicts of {judges} are the simulated evaluation's, replayed by offline "
             "judges (no model is called); the stopping rule, the random order of the documents, the "
             "looks and the anytime-valid confidence sequences are assay judge --until's own",
             *ended_lines(run)]
    if run.stopped_early:
        saved = run.planned_total - run.summary.planned
        lines.append(f"the replay judges are offline (the dry-run estimate is $0); the simulated evaluation "
                     f"priced the {saved} judgments not made at ${done.usd_not_spent:.4f} (its usd column), "
                     f"{saved / run.planned_total:.1%} of the plan's judge calls")
    if sequential_note(folder) is not None:  # what assay report prints for a run stopped early
        lines.append(f"the clusters judged, reported (with a note that the run stopped early): "
                     f"assay report {shlex.quote(str(folder))} --kind scores")
    return lines


def _plain(value: Any) -> Any:
    """A frame cell as a JSON value (None for a missing one, ints for whole numbers)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    try:
        import pandas as pd

        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    if hasattr(value, "item"):
        value = value.item()
    return value
