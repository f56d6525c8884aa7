"""Which facts of a table the reports' support checks look at, for the answer's last line.

The answer names the other reports the data support (``also available: ...``) and counts
the rest. Asking every report's support check (:mod:`assay.report.kinds._build`) costs a
groupby or a table of units each; what they look at is a handful of facts (which columns
the table has, whether a criterion has two judges, whether a row has an opponent...).
:class:`TableFacts` holds them, computed once from a loaded table (:func:`table_facts`) or
by an engine's queries (:func:`assay.analysis.pushdown.engine_table_facts`), and
:func:`assay.report.kinds._available.supported` answers each check from them, so the pandas
and engine paths name the same reports (``tests/report/kinds/test_available.py`` keeps the
facts equal to the checks).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.data.table import Judgments

__all__ = ["ASSERTION_CRITERIA", "COST_COLUMNS", "TableFacts", "table_facts"]

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
    teacher: bool = False
    """A row names its teacher (a teacher value that is not missing)."""
    criterion_judges: frozenset[tuple[str, str, bool]] = frozenset()
    """(criterion, judge, pairwise) of every valid unit, pointwise or pairwise: reportable
    rows with a score on a scale with a map to [0, 1] (the human report's check pairs human
    labels and a judge within one criterion and kind)."""



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
    mapped = (frame["reportable"].to_numpy(dtype=bool)
              & criteria.map(lambda c: scales[c].kind not in ("interval", "nominal"))
              .to_numpy(dtype=bool))
    if mapped.any():
        mapped &= ~np.isnan(judgments.normalised_scores())
    valid = mapped & ~pairwise
    both = frame.loc[mapped, ["criterion", "judge"]].astype(str).assign(pairwise=pairwise[mapped])
    return TableFacts(
        columns=frozenset(map(str, frame.columns)),
        has_opponent=bool(pairwise.any()),
        multi_judge=bool((judges >= 2).any()),
        correctness=any(is_correctness(scales[c]) for c in pointwise_criteria),
        pointwise_judges=frozenset(map(str, frame.loc[valid, "judge"].unique())),
        reference="reference_score" in frame and bool(frame["reference_score"].notna().any()),
        cost=(any(c in frame and frame[c].notna().any() for c in COST_COLUMNS)
              or any(Path(s).name == STORE_FILENAME for s in judgments.sources)),
        assertions=bool(criteria.isin(ASSERTION_CRITERIA).any()),
        teacher="teacher" in frame and bool(frame["teacher"].notna().any()),
        criterion_judges=frozenset(
            (str(c), str(j), bool(p)) for c, j, p in both.drop_duplicates().itertuples(
                index=False)))
