"""Which other reports the data support, for the answer's last line, from a few facts of the table.

The answer names the reports the data support (``also available: ...``) and counts the
others. Asking every report's support check (:mod:`assay.report.kinds._build`) costs a
groupby or a table of units each; what they look at is a handful of facts about the table
(which columns it has, whether a criterion has two judges, whether a row has an
opponent...). :class:`TableFacts` holds them, computed once from a loaded table
(:func:`table_facts`) or by an engine's queries
(:func:`assay.analysis.pushdown.engine_table_facts`), and :func:`supported` answers each
report's check from them, so the pandas and engine paths name the same reports.
``tests/report/test_available.py`` checks that the facts agree with every support check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.report.kinds import _build as build

if TYPE_CHECKING:
    from assay.data.table import Judgments

__all__ = ["TableFacts", "supported", "table_facts"]

COST_COLUMNS = ("usd", "tokens_in", "tokens_out")
ASSERTION_CRITERIA = ("assertion", "global_assertion")


@dataclass(frozen=True)
class TableFacts:
    """What the support checks of the reports look at."""

    columns: frozenset[str]
    """The table's columns."""
    has_opponent: bool
    """A row has an opponent (a pairwise judgment)."""
    multi_judge: bool
    """A criterion is scored by two or more judges."""
    correctness: bool
    """A criterion of pointwise rows is on a correctness scale (binary or range:0,1)."""
    pointwise_judges: frozenset[str]
    """The judges of valid pointwise units (reportable scores of one answer on a scale
    with a map to [0, 1]); empty when there are none."""
    reference: bool
    """A row has a reference_score."""
    cost: bool
    """A usd or tokens value, or a run store of the judges' calls among the sources."""
    assertions: bool
    """A row of an assertion criterion."""


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
}


def supported(kinds: Any, facts: TableFacts) -> tuple[str, ...]:
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


def table_facts(judgments: Judgments) -> TableFacts:
    """The facts of a loaded table (one pass over a few of its columns)."""
    import numpy as np

    from assay.analysis.benchmark._selection import is_correctness
    from assay.data.run_store import STORE_FILENAME

    frame = judgments.frame
    criteria = frame["criterion"].astype(str)
    pairwise = (frame["opponent"].notna().to_numpy() if "opponent" in frame
                else np.zeros(len(frame), dtype=bool))
    judges = frame.groupby(criteria, sort=False)["judge"].nunique()
    pointwise_criteria = set(criteria[~pairwise].unique())
    scales = {c: judgments.scale(c) for c in criteria.unique()}
    valid = (frame["reportable"].to_numpy(dtype=bool) & ~pairwise
             & criteria.map(lambda c: scales[c].kind not in ("interval", "nominal"))
             .to_numpy(dtype=bool))
    if valid.any():
        valid &= ~np.isnan(judgments.normalised_scores())
    return TableFacts(
        columns=frozenset(map(str, frame.columns)),
        has_opponent=bool(pairwise.any()),
        multi_judge=bool((judges >= 2).any()),
        correctness=any(is_correctness(scales[c]) for c in pointwise_criteria),
        pointwise_judges=frozenset(map(str, frame.loc[valid, "judge"].unique())),
        reference="reference_score" in frame and bool(frame["reference_score"].notna().any()),
        cost=(any(c in frame and frame[c].notna().any() for c in COST_COLUMNS)
              or any(Path(s).name == STORE_FILENAME for s in judgments.sources)),
        assertions=bool(criteria.isin(ASSERTION_CRITERIA).any()))
