"""What an evaluation cost: the judges' spend and tokens (from a run store's calls) per judge,
per arm and per criterion, and the systems' own cost where the judgments carry it.

Counting rule for the judges' spend: each LLM call's tokens and dollars are shared equally
among the judgments-table rows it produced (a joint pairwise call scoring four criteria
gives each criterion a quarter), so every table adds up to the run's total once. In the
per-arm table a pairwise row's share is split again, half to the arm and half to its
opponent: both answers were in the prompt. The systems' own cost comes from the ``usd``,
``tokens_in`` and ``tokens_out`` columns, counted once per answer (item, arm, run) although
several judges and criteria score it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from assay._display import Rendered
from assay.data.table import Judgments
from assay.errors import DesignError

__all__ = ["CostSummary", "SpendRow", "SystemCost", "cost_summary"]


@dataclass(frozen=True)
class SpendRow:
    """The judges' spend of one group (a judge, an arm, a criterion, or the whole run)."""

    name: str
    calls: float
    """LLM calls, counted by their shares (a call split over two criteria is 0.5 in each)."""
    tokens_in: float
    tokens_out: float
    usd: float | None
    """Dollars of the priced calls; None when no call of the group has a price."""
    unpriced_calls: float
    """Calls (by share) with tokens but no price: their dollars are not in ``usd``."""
    cached_calls: float
    """Calls answered from the response cache (paid by an earlier run)."""
    failed_calls: float


@dataclass(frozen=True)
class SystemCost:
    """One arm's own cost: producing its answers, as the judgments table records it."""

    arm: str
    answers: int
    """Answers (item, arm, run) with a cost or token count."""
    usd: float | None
    usd_per_answer: float | None
    tokens_in: float | None
    tokens_out: float | None


@dataclass(frozen=True)
class CostSummary(Rendered):
    """The judges' spend (per judge, arm and criterion, and in total) and the systems' cost."""

    total: SpendRow | None
    """The judges' spend over the whole run; None without a run store."""
    by_judge: list[SpendRow]
    by_arm: list[SpendRow]
    by_criterion: list[SpendRow]
    systems: list[SystemCost]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def clean(record: dict[str, Any]) -> dict[str, Any]:
            return {k: None if isinstance(v, float) and math.isnan(v) else v
                    for k, v in record.items()}

        return {
            "judge_spend_total": None if self.total is None else clean(asdict(self.total)),
            "judge_spend_by_judge": [clean(asdict(r)) for r in self.by_judge],
            "judge_spend_by_arm": [clean(asdict(r)) for r in self.by_arm],
            "judge_spend_by_criterion": [clean(asdict(r)) for r in self.by_criterion],
            "system_cost": [clean(asdict(r)) for r in self.systems],
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def cost_summary(judgments: Judgments, calls: Sequence[Mapping[str, Any]] = ()) -> CostSummary:
    """The judges' spend from ``calls`` and the systems' cost from ``judgments``.

    Parameters
    ----------
    judgments : Judgments
        The table; its ``usd``, ``tokens_in`` and ``tokens_out`` columns, when present, are
        the systems' cost of their answers.
    calls : sequence of mappings
        The records of :func:`assay.data.run_store.judge_calls` (empty without a run store).

    Raises
    ------
    DesignError
        Neither a judge call with tokens or dollars nor a system cost column with a value.
    """
    spent = [c for c in calls if (c.get("tokens_in") or c.get("tokens_out") or c.get("usd"))]
    systems = _systems(judgments)
    if not spent and not systems:
        raise DesignError("no cost to report: the judgments carry no usd or tokens column with a "
                          "value, and no run store holds the judges' calls (assay report RUN_FOLDER)")
    notes: list[str] = []
    total = _spend("all judges", spent) if spent else None
    if total is not None and total.unpriced_calls:
        notes.append(f"{total.unpriced_calls:g} judge calls have tokens but no price in the "
                     "config: their dollars are not counted (add the model to llm.prices).")
    if total is not None and total.cached_calls:
        notes.append(f"{total.cached_calls:g} judge calls came from the response cache: their "
                     "cost was paid by the run that first asked them.")
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for call in spent:
        arms = [a for a in (call.get("arm"), call.get("opponent")) if a is not None]
        for arm in arms:
            by_arm.setdefault(str(arm), []).append({**call, "share": call["share"] / len(arms)})
    return CostSummary(
        total=total,
        by_judge=_grouped(spent, "judge"),
        by_arm=[_spend(arm, group) for arm, group in by_arm.items()],
        by_criterion=_grouped(spent, "criterion"),
        systems=systems,
        notes=notes,
    )


def _grouped(calls: Sequence[Mapping[str, Any]], key: str) -> list[SpendRow]:
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for call in calls:
        groups.setdefault(str(call.get(key) or "(none)"), []).append(call)
    return [_spend(name, group) for name, group in groups.items()]


def _spend(name: str, calls: Sequence[Mapping[str, Any]]) -> SpendRow:
    def total(field_name: str, flag: str | None = None) -> float:
        return float(sum(c["share"] * (1.0 if flag else float(c.get(field_name) or 0.0))
                         for c in calls if flag is None or c.get(flag)))

    priced = [c for c in calls if c.get("usd") is not None]
    unpriced = sum(c["share"] for c in calls if c.get("usd") is None
                   and (c.get("tokens_in") or c.get("tokens_out")))
    return SpendRow(
        name=name, calls=total("share", "share"), tokens_in=total("tokens_in"),
        tokens_out=total("tokens_out"),
        usd=float(sum(c["share"] * float(c["usd"]) for c in priced)) if priced else None,
        unpriced_calls=float(unpriced), cached_calls=total("", "cached"),
        failed_calls=total("", "failed"))


def _systems(judgments: Judgments) -> list[SystemCost]:
    frame = judgments.frame
    columns = [c for c in ("usd", "tokens_in", "tokens_out") if c in frame]
    if not columns:
        return []
    answers = frame.drop_duplicates(["item", "arm", "run"])[["arm", *columns]]
    answers = answers[answers[columns].notna().any(axis=1)]
    out = []
    for arm, group in answers.groupby("arm", sort=False):
        usd = float(group["usd"].sum()) if "usd" in group and group["usd"].notna().any() else None
        counted = int(group["usd"].notna().sum()) if usd is not None else 0

        def tokens(column: str, group: Any = group) -> float | None:
            return (float(group[column].sum()) if column in group and group[column].notna().any()
                    else None)

        out.append(SystemCost(arm=str(arm), answers=len(group), usd=usd,
                              usd_per_answer=usd / counted if usd is not None and counted else None,
                              tokens_in=tokens("tokens_in"), tokens_out=tokens("tokens_out")))
    return out
