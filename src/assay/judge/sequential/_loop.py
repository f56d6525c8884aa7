"""A sequential run: the plan in batches of clusters, a look after each, a stop once decided.

This is a layer above the engine: each batch is an ordinary :func:`~assay.judge.plan.execute`
of the plan restricted to the batch's clusters (every judge, every arm), so the store,
the lock, the response cache and resume work as for any run; a judgment stored is never
asked again (exactly-once by key), and the batches of a resumed run are the same (the
order is fixed by the seed and the plan, recorded in ``sequential.json``), so the looks
replay from the store and the run stops where the rule says, buying only what is missing.

The cost limit and ``max_failures`` count over the whole run, not per batch: each batch's
client gets what is left of them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assay.data.run_store import SEQUENTIAL_RECORD
from assay.errors import ConfigError
from assay.judge.sequential._look import Look, Observations
from assay.judge.sequential._rule import (
    StoppingRule,
    cluster_order,
    comparisons,
    restricted,
)
from assay.llm import Progress, RunStore, RunSummary

if TYPE_CHECKING:
    from assay.judge.plan import Plan

@dataclass(frozen=True)
class SequentialRun:
    """How a sequential run went."""

    summary: RunSummary
    """The engine's summary over the batches; ``planned`` counts the judgments of the clusters
    judged (what this run decided to store), ``stored`` those the store holds."""
    rule: StoppingRule
    looks: tuple[Look, ...]
    stopped_early: bool
    """The rule was met before the last cluster."""
    clusters: int
    """Clusters judged."""
    clusters_total: int
    planned_total: int
    """Judgments of the whole plan (every cluster)."""
    usd_saved: float | None
    """Estimated cost of the judgments not made (the ``--dry-run`` estimate); None if unpriced."""


def _record(folder: Path, rule: StoppingRule, order: list[str]) -> None:
    """Write the rule and order to ``sequential.json``, or refuse a different one of an earlier run."""
    path = folder / SEQUENTIAL_RECORD
    mine = {"until": rule.words, "conf": rule.conf, "method": rule.method, "seed": rule.seed,
            "clusters_per_look": rule.per_look(len(order)), "order": order}
    if path.is_file():
        try:
            earlier = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{path}: cannot be read ({exc}); move it away to start anew") from None
        for key in ("until", "conf", "method", "seed", "clusters_per_look", "order"):
            # a record written before ``method`` existed was judged with the empirical-Bernstein CS
            was = earlier.get(key, "empirical_bernstein" if key == "method" else None)
            if was != mine[key]:
                what = "the order of the clusters" if key == "order" else f"{key} {was!r}"
                raise ConfigError(f"{path}: this run folder was judged sequentially with {what}; a resume "
                                  f"must keep it (changing the rule after looking voids its error "
                                  f"control): use the same settings, or another --out")
        mine = {**earlier, **mine}
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(mine, indent=1) + "\n", encoding="utf-8")


def _save_looks(folder: Path, looks: list[Look], ended: str) -> None:
    path = folder / SEQUENTIAL_RECORD
    record = json.loads(path.read_text(encoding="utf-8"))
    record["looks"] = [{"look": x.number, "clusters": x.clusters, "conf_each": x.conf_each, "stop": x.stop,
                        "comparisons": [{"comparison": c.comparison.label, "n_clusters": c.n_clusters,
                                         "estimate": None if math.isnan(c.estimate) else c.estimate,
                                         "lower": c.lower, "upper": c.upper}
                                        for c in x.comparisons]} for x in looks]
    record["ended"] = ended
    path.write_text(json.dumps(record, indent=1, allow_nan=False) + "\n", encoding="utf-8")


async def execute_sequential(plan: Plan, out: str | Path, rule: StoppingRule, *, retry_failed: bool = False,
                             progress: Callable[[Progress], None] | None = None, cache: str | None = None,
                             max_failures: int | None = None,
                             on_look: Callable[[Look], None] | None = None,
                             client_factory: Callable[[], Any] | None = None) -> SequentialRun:
    """Run ``plan`` into ``out`` in batches of clusters until ``rule`` is met (or all is judged).

    Raises
    ------
    ConfigError
        The plan cannot be judged sequentially (:func:`~assay.judge.sequential.comparisons`),
        :func:`~assay.judge.plan.preflight` found a problem, or ``out`` was judged with
        another rule or order.
    """
    from assay.judge.plan import execute, preflight
    from assay.llm import ResponseCache, cache_path

    folder = Path(out)
    watched = comparisons(plan)
    order = cluster_order(plan, rule.seed)
    per = rule.per_look(len(order))
    config = plan.config
    if client_factory is None:
        problems = preflight(plan)
        if problems:
            raise ConfigError("; ".join(problems))
    online = any(part.requests for part in plan.judges if not part.offline)
    if online and client_factory is None and config.llm is None:
        raise ConfigError("llm: the LLM judges need the llm section")
    _record(folder, rule, order)
    responses = None
    if client_factory is None and online:
        where = cache_path(config.cache if cache is None else cache, folder, base_dir=config.base_dir)
        responses = None if where is None else ResponseCache(where)
    summaries: list[RunSummary] = []
    looks: list[Look] = []
    stopped: Literal["cost_limit", "max_failures"] | None = None
    judged: list[str] = []
    taken = Observations(watched)  # the clusters judged so far, a batch's rows added at each look
    try:
        for start in range(0, len(order), per):
            spent = sum(s.usd for s in summaries)
            failed = sum(s.failed for s in summaries)
            factory = client_factory or (_client_factory(plan, responses, spent) if online else None)
            if online and factory is None:
                stopped = "cost_limit"
                break
            left = None if max_failures is None else max_failures - failed
            batch = order[start:start + per]
            part = restricted(plan, batch)
            summary = await execute(part, folder, retry_failed=retry_failed,
                                    progress=progress, client_factory=factory if online else None,
                                    cache=cache, max_failures=left)
            summaries.append(summary)
            judged += batch
            if summary.stopped is not None:
                stopped = summary.stopped
                break
            with RunStore(folder) as store:
                store.set_plan(restricted(plan, judged).keys)  # the store's plan: the clusters judged
                taken.add(store.records(keys=part.keys), store.scales())  # only the new batch's rows
            seen = taken.look(judged, rule, number=len(looks) + 1)
            looks.append(seen)
            if on_look is not None:
                on_look(seen)
            if seen.stop or not summary.complete:
                break
    finally:
        if responses is not None:
            responses.close()
    early = bool(looks) and looks[-1].stop and len(judged) < len(order)
    if early:
        ended = f"stopped early: {rule.words}"
    elif stopped is not None:
        ended = f"stopped: {stopped}"
    elif len(judged) < len(order):
        ended = "stopped: a batch left judgments unstored"
    else:
        ended = "judged every cluster"
    _save_looks(folder, looks, ended)
    return SequentialRun(summary=_combined(plan, judged, summaries, folder, stopped), rule=rule,
                         looks=tuple(looks), stopped_early=early, clusters=len(judged),
                         clusters_total=len(order), planned_total=len(plan.keys),
                         usd_saved=_saved(plan, order[len(judged):]) if early else 0.0)


def _client_factory(plan: Plan, responses: Any, spent: float) -> Callable[[], Any] | None:
    """A factory of the batch's client: the config's, with what is left of the cost limit
    (None when it is spent)."""
    from assay.llm import LLMClient

    llm = plan.config.llm
    if llm is None:
        raise ConfigError("llm: the LLM judges need the llm section")
    if llm.cost_limit_usd is not None:
        if spent >= llm.cost_limit_usd:
            return None
        llm = llm.model_copy(update={"cost_limit_usd": llm.cost_limit_usd - spent})
    settings = llm
    return lambda: LLMClient(settings, cache=responses)


def _combined(plan: Plan, judged: list[str], summaries: list[RunSummary], folder: Path,
              stopped: Literal["cost_limit", "max_failures"] | None) -> RunSummary:
    keys = restricted(plan, judged).keys
    with RunStore(folder) as store:
        status = store.status()
    notes = tuple(dict.fromkeys(n for s in summaries for n in s.notes))
    return RunSummary.total(summaries, planned=len(keys), stopped=stopped,
                            failed_stored=sum(1 for k in keys if status.get(k)),
                            stored=sum(1 for k in keys if k in status), notes=notes)


def _saved(plan: Plan, rest: list[str]) -> float | None:
    """The ``--dry-run`` estimate of the cost of the clusters not judged (None if unpriced)."""
    lines = restricted(plan, rest).lines()
    if any(line.usd is None for line in lines):
        return None
    return sum(line.usd or 0.0 for line in lines)
