"""What the baselines read from a run folder besides the answers' scores: each response's
ground truth (:func:`_ground_truth`), the responses G-Eval scores (:func:`run_targets`) and
the LLM judges' pointwise scores to compare (``evaluations.jsonl``: :func:`_judge_scores`;
the run store of ``assay judge``: :func:`_store_scores`). Imported from
:mod:`assay.pipeline.baselines`.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from assay.data.runfolder import NATIVE_SCORES_FILE, read_part
from assay.errors import InputError
from assay.pipeline.geval import GEvalTarget

ALL_TASKS = "all"


def _ground_truth(folder: Path, datapoints: Mapping[str, Mapping[str, Any]],
                  responses: Sequence[Mapping[str, Any]]) -> tuple[dict[str, float | None], str]:
    native: dict[str, float | None] = {}
    metrics: set[str] = set()
    if (folder / NATIVE_SCORES_FILE).is_file():
        from assay.data.runfolder import _native_scores  # the validated reader of that file

        native = _native_scores(folder)
        for line in (folder / NATIVE_SCORES_FILE).read_text(encoding="utf-8").splitlines():
            if line.strip():
                metrics.add(str(json.loads(line).get("metric")))
    truth: dict[str, float | None] = {}
    for rec in responses:
        rid = str(rec.get("id"))
        value = native.get(rid) if rid in native else \
            datapoints.get(str(rec.get("datapoint_id")), {}).get("reference_score")
        truth[rid] = None if value is None else float(value)
    name = f"native:{'+'.join(sorted(metrics))}" if metrics else "reference_score"
    return truth, name


def run_targets(run_folder: str | Path) -> list[GEvalTarget]:
    """The responses of a run folder G-Eval scores (those with a text and no failure)."""
    folder = Path(run_folder)
    datapoints = {str(rec.get("id")): rec for _, _, rec in read_part(folder, "datapoints")}
    responses = [rec for _, _, rec in read_part(folder, "responses")]
    task_of = {str(r.get("id")): str(datapoints.get(str(r.get("datapoint_id")), {}).get("task")
                                     or ALL_TASKS) for r in responses}
    return _targets(datapoints, responses, task_of)


def _targets(datapoints: Mapping[str, Mapping[str, Any]], responses: Sequence[Mapping[str, Any]],
             task_of: Mapping[str, str]) -> list[GEvalTarget]:
    targets = []
    for rec in responses:
        text = rec.get("text")
        if not isinstance(text, str) or rec.get("failure_kind"):
            continue
        dp = datapoints.get(str(rec.get("datapoint_id")), {})
        targets.append(GEvalTarget(str(rec.get("id")), str(rec.get("datapoint_id")), str(rec.get("arm")),
                                   task_of.get(str(rec.get("id")), ALL_TASKS), str(dp.get("prompt") or ""),
                                   text))
    return targets


def _judge_scores(folder: Path, notes: list[str]) -> dict[str, dict[str, float]]:
    """``judge:NAME/CRITERION`` -> response id -> mean pointwise score over trials."""
    try:
        evaluations = read_part(folder, "evaluations")
    except InputError:  # no evaluations yet: the baselines stand alone
        notes.append("The run folder has no evaluations.jsonl: no LLM judge is compared")
        return {}
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    skipped = 0
    for _, _, ev in evaluations:
        if ev.get("opponent_response_id") or ev.get("failure_kind") or not isinstance(ev.get("scores"), dict):
            continue
        for criterion, value in ev["scores"].items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                skipped += value is not None
                continue
            sums[f"judge:{ev.get('judge')}/{criterion}"][str(ev.get("response_id"))].append(float(value))
    if skipped:
        notes.append(f"{skipped} judge scores are not numbers (labels): left out of the comparison")
    return {name: {rid: sum(v) / len(v) for rid, v in by.items()} for name, by in sorted(sums.items())}


def _store_scores(folder: Path, responses: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """The same from the run store ``assay judge`` wrote into the folder (``judgments.sqlite``).

    A row's (item, arm) is the response of that datapoint and arm, its ``run`` being the
    judge's trial, averaged; when the folder holds several runs of one datapoint and arm,
    (item, arm, run) names the response instead."""
    from assay.data.run_store import STORE_FILENAME, load_store

    if not (folder / STORE_FILENAME).is_file():
        return {}
    frame = load_store(folder).frame
    response_of = {(str(r.get("datapoint_id")), str(r.get("arm")), int(r.get("run") or 1)): str(r.get("id"))
                   for r in responses}
    one_run = len({key[:2] for key in response_of}) == len(response_of)
    keep = frame["score"].notna()
    for column in ("opponent", "failure_kind"):  # optional columns: absent means none
        if column in frame.columns:
            keep &= frame[column].isna()
    pointwise = frame[keep]
    sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item, arm, run, judge, criterion, score in pointwise[
            ["item", "arm", "run", "judge", "criterion", "score"]].itertuples(index=False):
        rid = response_of.get((str(item), str(arm), 1 if one_run or run != run else int(run)))
        if rid is not None:
            sums[f"judge:{judge}/{criterion}"][rid].append(float(score))
    return {name: {rid: sum(v) / len(v) for rid, v in by.items()} for name, by in sorted(sums.items())}
