"""Which other reports the data support, for the answer's last line, from the table's facts.

Each report's support check (:mod:`assay.report.kinds._build`) has a rule here over
:class:`~assay.analysis.answer._facts.TableFacts`, computed once per table by pandas or by
an engine, so both paths name the same reports without running every check
(``tests/report/kinds/test_available.py`` keeps the rules equal to the checks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from assay.analysis.answer._facts import TableFacts, table_facts
from assay.report.kinds import _build as build

__all__ = ["supported", "table_facts"]


_CHECKS: dict[Callable[..., Any], Callable[[TableFacts], bool]] = {
    build.cost_support: lambda f: f.cost,
    build.benchmark_support: lambda f: f.correctness,
    build.agreement_support: lambda f: f.multi_judge or f.has_opponent,
    build.pointwise_support: lambda f: bool(f.pointwise_judges),
    build.coverage_support: lambda f: "attributes" in f.columns,
    build.teacher_support: lambda f: "teacher" in f.columns or "attributes" in f.columns,
    build.reference_support: lambda f: f.reference,
    build.ensemble_support: lambda f: len(f.pointwise_judges) >= 2,
    build.pairwise_support: lambda f: f.has_opponent,
    build.assertions_support: lambda f: f.assertions,
    build.interaction_support: lambda f: f.teacher,
    # human labels and another judge on one criterion, both pointwise or both pairwise
    build.human_support: lambda f: _human_and_judge(f.criterion_judges),
}


def _human_and_judge(units: frozenset[tuple[str, str, bool]]) -> bool:
    humans = {(c, p) for c, j, p in units if _human(j)}
    return any((c, p) in humans for c, j, p in units if not _human(j))


def _human(judge: str) -> bool:
    return judge == "human" or judge.startswith("human:")


def supported(kinds: Iterable[Any], facts: TableFacts) -> tuple[str, ...]:
    """The names of ``kinds`` (report kinds) whose support check passes on the facts.

    Raises
    ------
    KeyError
        A kind's support check has no rule here (add one beside :data:`_CHECKS`).
    """
    out = []
    for kind in kinds:
        check = _CHECKS.get(kind.supports)
        if check is None and kind.supports.__name__ != "<lambda>":
            raise KeyError(f"report {kind.name!r}: its support check has no rule in "
                           "assay.report.kinds._available")
        if check is None or check(facts):
            out.append(kind.name)
    return tuple(out)
