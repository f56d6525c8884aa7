"""Performance by attribute (CoEval's systems report): composite Q per (arm, attribute, value).

The ``attributes`` column holds a JSON object per row (``{"domain": "biology", "difficulty":
"hard"}``). For every attribute key and every value seen for it, an arm's composite score Q is
the mean of its valid units (:func:`assay.analysis.composite.pointwise_units`: reportable,
pointwise, on a scale with a map to [0, 1], with a score) whose item carries that value, with
the cluster-robust t interval on the logit scale the composite uses
(:func:`~assay.analysis.composite.linearised_composite` and
:func:`~assay.analysis.composite.logit_t_bounds`). Values are compared as text; a value that
is not a string is written as its JSON. A unit whose item lacks the key (or has no attributes,
or attributes that are not a JSON object) is in no stratum of that key and is counted in a
note.

The keys are the target attributes of coverage (:mod:`assay.analysis.coverage._space`): the
declared ones (a run folder's ``criteria.json``, ``attribute_space=``), else those inferred
from the items (no identifiers, numbers or free text, at most 20 values), so the work stays
proportional to the number of labels and an identifier such as ``chunk_id`` does not give a
row per chunk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    clean_record,
    plain_composite,
    pointwise_units,
)
from assay.analysis.coverage._report import _parse as parse_attributes
from assay.analysis.coverage._report import _parse_raw, resolve_space
from assay.analysis.coverage._space import AttributeSpace, infer_target_attributes
from assay.errors import ConfigError


@dataclass(frozen=True)
class AttributeRow:
    """Q of one arm over the units whose item has ``attribute`` = ``value``."""

    arm: str
    attribute: str
    """The attribute key (``domain``)."""
    value: str
    """Its value as text (``biology``)."""
    estimate: float
    """Composite score Q on [0, 1]."""
    lower: float
    upper: float
    standard_error: float
    """Linearised cluster-robust standard error of Q."""
    method: str
    """``logit_cluster_robust_t`` (``logit_cluster_robust_t_independent_df`` in a flagged
    design), ``korn_graubard_clopper_pearson`` where the logit t is undefined (Q at 0 or 1,
    or no variance between clusters), or ``too_few_clusters`` (NaN bounds)."""
    n: int
    """Valid units."""
    n_items: int
    n_clusters: int


@dataclass(frozen=True)
class AttributeReport(Rendered):
    """Composite Q per (arm, attribute, value), with intervals."""

    rows: list[AttributeRow]
    """Ordered by attribute, value, then arm in the table's order."""
    attributes: list[str]
    """The attribute keys, sorted."""
    conf: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({"conf": self.conf, "attributes": list(self.attributes),
                             "by_attribute": [asdict(r) for r in self.rows],
                             "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def performance_by_attribute(judgments: Model, *, conf: float = 0.95,
                             attribute_space: AttributeSpace | Mapping[str, Any] | str | Path
                             | None = None) -> AttributeReport:
    r"""Composite score Q of each arm within each attribute value, with cluster-robust intervals.

    Parameters
    ----------
    judgments : Judgments or path
        The table (or a file or run folder :func:`assay.load` reads); needs an
        ``attributes`` column for any row (without one the report is empty, with a note).
    conf : float, default 0.95
        Level of the intervals.
    attribute_space : AttributeSpace, mapping, path or None
        The declared target attributes (as :func:`assay.analysis.coverage.coverage_report`
        takes them); default: a run folder's ``criteria.json``, else inferred.

    Returns
    -------
    AttributeReport
        A row per (arm, attribute key, value) with at least one valid unit.

    Notes
    -----
    Over the valid units u of arm a whose item has attribute k equal to v, with normalised
    scores y_u, cluster sums S_c and unit counts n_c (N = sum_c n_c, C clusters),

    .. math:: Q_{akv} = \frac{1}{N} \sum_u y_u, \qquad
              V = \frac{C}{C-1} \sum_c \frac{(S_c - Q n_c)^2}{N^2}

    and the interval is expit(logit Q -+ t_{C-1,(1+conf)/2} sqrt(V) / (Q (1 - Q))), the
    composite's (Cochran 1977, ch. 6; Cameron and Miller 2015). sqrt(V) is the standard
    error of statsmodels OLS on a constant with ``cov_type="cluster"``, its oracle in
    tests/systems/. Bounds are NaN where Q is 0 or 1, no cluster varies, or C < 2.
    Strata are not independent of each other (an item sits in one stratum per key), and
    the strata of one key split the clusters: a stratum seen in few clusters has a wide
    interval, as it should.

    Examples
    --------
    Arm ``a`` scores 1, 1, 1, 0 on two items of cluster d1 and 1, 0, 0, 0 on two of d2,
    all tagged ``level = x``: Q = 4/8 = 0.5, S = (3, 1), n = (4, 4), V = 2 ((3 - 2)^2 +
    (1 - 2)^2) / 64 = 1/16, so sqrt(V) = 0.25 and the interval is expit(0 -+ 12.706205 x
    0.25 / 0.25) = expit(-+12.706205) = (3.0e-06, 0.999997):

    >>> import pandas as pd
    >>> from assay.data.schema import Scale
    >>> from assay.data.table import Judgments
    >>> frame = pd.DataFrame({
    ...     "item": ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"],
    ...     "cluster": ["d1"] * 4 + ["d2"] * 4, "arm": "a", "run": [1, 2] * 4,
    ...     "judge": "em", "criterion": "correct", "score": [1.0, 1, 1, 0, 1, 0, 0, 0],
    ...     "reportable": True, "attributes": '{"level": "x"}'})
    >>> row = performance_by_attribute(Judgments(frame, {"correct": Scale("binary")})).rows[0]
    >>> row.value, row.estimate, row.standard_error, round(row.lower, 7), round(row.upper, 6)
    ('x', 0.5, 0.25, 3e-06, 0.999997)
    """
    table = as_judgments(judgments)
    if not 0.0 < conf < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf}")
    conf = float(conf)
    units = pointwise_units(table, extra=("attributes",))
    frame, notes = units.frame, list(units.notes)
    if "attributes" not in table.frame:
        notes.append("The table has no attributes column: there is no performance by attribute.")
        return AttributeReport([], [], conf, notes)
    texts = pd.unique(frame["attributes"].dropna())
    parsed = {text: parse_attributes(text) for text in texts}
    keys = _target_keys(table, texts, attribute_space, notes)
    if not keys:
        notes.append("No valid unit has target attributes (a JSON object with a declared or "
                     "label-like key): there is no performance by attribute.")
        return AttributeReport([], [], conf, notes)
    arms = [a for a in table.arms if a in set(frame["arm"])]
    rows: list[AttributeRow] = []
    for key in keys:
        values = frame["attributes"].map(
            lambda text, key=key: (parsed.get(text) or {}).get(key) if isinstance(text, str)
            else None)
        placed = values.notna()
        if not placed.all():
            notes.append(f"{int((~placed).sum())} of {len(frame)} valid units belong to items "
                         f"without attribute {key!r}; they are in none of its strata.")
        part = frame.loc[placed].assign(attribute_value=values[placed].astype(str))
        for value in sorted(pd.unique(part["attribute_value"])):
            stratum = part[part["attribute_value"] == value]
            for arm in arms:
                mine = stratum[stratum["arm"] == arm]
                if not mine.empty:
                    rows.append(_row(arm, key, str(value), mine, conf=conf))
    return AttributeReport(rows, keys, conf, notes)


def _target_keys(table: Any, texts: Any, attribute_space: Any, notes: list[str]) -> list[str]:
    """The target attributes among the keys the units' items carry (see the module docstring)."""
    raw = [a for a in (_parse_raw(t) for t in texts) if a]
    seen = {k for a in raw for k in a}
    space = resolve_space(table, attribute_space)
    if space is not None and not space.empty:
        declared = set(space.attributes).union(*map(set, space.task_attributes.values()))
        return sorted(seen & declared)
    kept, left_out = infer_target_attributes(raw)
    if left_out:
        notes.append("Attribute keys that are not target attributes are left out of the "
                     "performance by attribute: " + ", ".join(sorted(left_out)[:8])
                     + (" and more" if len(left_out) > 8 else "") + ".")
    return sorted(kept)


def _row(arm: str, key: str, value: str, units: pd.DataFrame, *, conf: float) -> AttributeRow:
    return AttributeRow(arm=arm, attribute=key, value=value, **plain_composite(units, conf=conf))

