"""The teacher report (CoEval's teacher-report): coverage, diversity and item quality per teacher.

Per task and teacher (the ``teacher`` column: the model that wrote the item; an item
without one comes from a benchmark or human source and is shown as ``(benchmark)``):

* **Coverage.** The strata of the task's target attributes the teacher's items cover, over
  |Omega| (ACR per teacher, as in :mod:`assay.analysis.coverage._report`, same space; over
  (attribute, value) pairs when the coverage report counts pairs).
* **Diversity across nuanced attributes.** CoEval gives no formula for its "diversity
  score"; assay reports, per attribute, Pielou's evenness J = H / ln K of the teacher's
  items over the attribute's K values and the share of the K values used
  (:func:`assay.stats.summaries.attribute_diversity`), and the teacher's diversity is the
  mean J over the attributes. The *nuanced* attributes are the label-valued attribute keys
  that are not target attributes of a declared space; when there are none (no declared
  space, or every key is a target), every label-valued key is used and a note says so. K
  is the number of values the key takes over all teachers of the task (the declared values
  for a declared target attribute).
* **Item quality.** The mean normalised judge score of the answers to the teacher's
  items (every arm, judge and criterion: CoEval's valid units), with the cluster-robust
  logit t interval of :func:`assay.analysis.composite.plain_composite` (clusters as in
  the table).
* **Synthetic vs benchmark.** A teacher is *synthetic* when it is a named model, and
  *benchmark* when the items have no teacher or their teacher is listed in
  ``benchmark_teachers`` (dataset loaders named as teachers). The same quality and
  diversity are reported per kind.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import (
    Model,
    as_judgments,
    check_conf,
    clean_record,
    plain_composite,
    pointwise_units,
)
from assay.analysis.coverage._report import (
    ALL_TASKS,
    _items,
    _pair_counts,
    _strata_counts,
    coverage_report,
    resolve_space,
)
from assay.analysis.coverage._space import AttributeSpace, infer_target_attributes, label
from assay.stats.summaries import Diversity, attribute_diversity

BENCHMARK = "(benchmark)"
"""The teacher shown for items that have none."""


@dataclass(frozen=True)
class TeacherRow:
    """One teacher's items in one task."""

    task: str
    teacher: str
    kind: str
    """``synthetic`` or ``benchmark``."""
    n_items: int
    acr: float
    """Strata covered by the teacher's items / |Omega| (NaN without target attributes)."""
    diversity: float
    """Mean normalised entropy over the nuanced attributes (NaN when none is defined)."""
    distinct_share: float
    """Mean share of each nuanced attribute's values used."""
    quality: float
    """Mean normalised judge score of the answers to the teacher's items."""
    lower: float
    upper: float
    method: str
    n_units: int
    n_clusters: int


@dataclass(frozen=True)
class AttributeDiversityRow:
    task: str
    teacher: str
    attribute: str
    n_items: int
    n_levels: int
    n_distinct: int
    normalised_entropy: float
    distinct_share: float


@dataclass(frozen=True)
class KindRow:
    """Synthetic or benchmark teachers of a task, together."""

    task: str
    kind: str
    teachers: list[str]
    n_items: int
    diversity: float
    quality: float
    lower: float
    upper: float
    method: str
    n_units: int


@dataclass(frozen=True)
class TeacherReport(Rendered):
    """Coverage, diversity and item quality per teacher, and synthetic vs benchmark."""

    teachers: list[TeacherRow]
    diversity: list[AttributeDiversityRow]
    kinds: list[KindRow]
    nuanced_attributes: dict[str, list[str]]
    """Task -> the attributes diversity is measured over."""
    conf: float
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({
            "conf": self.conf, "nuanced_attributes": self.nuanced_attributes,
            "teachers": [asdict(r) for r in self.teachers],
            "diversity": [asdict(r) for r in self.diversity],
            "kinds": [asdict(r) for r in self.kinds], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def teacher_report(model: Model, *, conf: float = 0.95,
                   benchmark_teachers: Collection[str] = (),
                   attribute_space: AttributeSpace | Mapping[str, Any] | str | Path | None = None
                   ) -> TeacherReport:
    """Coverage, diversity and item quality per teacher; see the module docstring.

    Parameters
    ----------
    model : Judgments or path
        Needs a ``teacher`` or an ``attributes`` column; ``task`` is used when present.
    conf : float, default 0.95
        Level of the item-quality intervals.
    benchmark_teachers : collection of str
        Teachers that are benchmark sources (dataset loaders), not models, besides those the
        table lists (``Judgments.benchmark_teachers``: a CoEval import's ingested benchmarks).
    attribute_space : AttributeSpace, mapping, path or None
        As in :func:`assay.analysis.coverage.coverage_report`.
    """
    from assay.errors import DesignError

    table = as_judgments(model)
    conf = check_conf(conf)
    frame = table.frame
    if "teacher" not in frame and "attributes" not in frame:
        raise DesignError("the table has neither a teacher nor an attributes column: the "
                          "teacher report needs to know who wrote each item")
    notes: list[str] = []
    benchmark = {str(t) for t in benchmark_teachers}
    declared = set(table.benchmark_teachers) - benchmark
    if declared:
        notes.append("Benchmark teachers as the source declared them (CoEval's ingest: "
                     "config.yaml interface: benchmark, meta.json ingest_log): "
                     f"{', '.join(sorted(declared))}.")
        benchmark |= declared
    items = _items(table)
    items["teacher"] = _teacher_names(items["teacher"])
    if "teacher" not in frame:
        notes.append("The table has no teacher column: every item is counted as benchmark.")
    kind_of = {t: "benchmark" if t == BENCHMARK or t in benchmark else "synthetic"
               for t in pd.unique(items["teacher"])}
    coverage = coverage_report(table, prompts={}, attribute_space=attribute_space)
    # per task: the target values, |Omega| and whether coverage counts (attribute, value)
    # pairs (items carrying a sampled subset of the attributes: one key per stratum)
    strata = {row.task: ({a: sorted({s.values[a] for s in row.strata if a in s.values})
                          for a in row.attributes},
                         row.n_strata if row.strata else 0,
                         len(row.attributes) > 1 and all(len(s.values) == 1 for s in row.strata))
              for row in coverage.rows}
    space = resolve_space(table, attribute_space)
    units = pointwise_units(table, extra=("teacher",)).frame
    units["teacher"] = _teacher_names(units["teacher"])
    units["task"] = units["task"].astype(object).where(units["task"].notna(), ALL_TASKS)
    if units.empty:
        notes.append("No valid pointwise units: item quality is undefined.")
    rows: list[TeacherRow] = []
    diversity_rows: list[AttributeDiversityRow] = []
    kinds: list[KindRow] = []
    nuanced_by_task: dict[str, list[str]] = {}
    for task in sorted(map(str, pd.unique(items["task"]))):
        own = items[items["task"] == task]
        levels = _nuanced_levels(task, own, space, notes)
        nuanced_by_task[task] = list(levels)
        task_units = units[units["task"] == task]
        mean_j: dict[str, float] = {}
        for teacher in sorted(pd.unique(own["teacher"])):
            mine = own[own["teacher"] == teacher]
            js, ds = [], []
            for attribute, values in levels.items():
                d = _diversity(mine, attribute, values)
                diversity_rows.append(AttributeDiversityRow(
                    task, teacher, attribute, d.n, d.n_levels, d.n_distinct,
                    d.normalised_entropy, d.distinct_share))
                js.append(d.normalised_entropy)
                ds.append(d.distinct_share)
            mean_j[teacher] = _nanmean(js)
            quality = _quality(task_units[task_units["teacher"] == teacher], conf)
            target, size, pairs = strata.get(task, ({}, 0, False))
            count = _pair_counts if pairs else _strata_counts
            raw_acr = len(count(mine, target)) / size if size else math.nan
            rows.append(TeacherRow(task, teacher, kind_of[teacher], len(mine), raw_acr,
                                   mean_j[teacher], _nanmean(ds), **quality))
        for kind in ("synthetic", "benchmark"):
            names = [t for t in sorted(pd.unique(own["teacher"])) if kind_of[t] == kind]
            if not names:
                continue
            quality = _quality(task_units[task_units["teacher"].isin(names)], conf)
            kinds.append(KindRow(task, kind, names, int(own["teacher"].isin(names).sum()),
                                 _kind_diversity(own[own["teacher"].isin(names)], levels),
                                 quality["quality"], quality["lower"], quality["upper"],
                                 quality["method"], quality["n_units"]))
    if {k.kind for k in kinds} == {"synthetic"}:
        notes.append("Every item has a named teacher, so there is no benchmark side to compare "
                      "with (items without a teacher, or teachers listed as benchmark sources, "
                      "are benchmark items).")
    notes += [n for n in coverage.notes if "surface bias" not in n and "prompt" not in n]
    return TeacherReport(rows, diversity_rows, kinds, nuanced_by_task, conf, notes)


def _teacher_names(teachers: pd.Series) -> list[str]:
    """Each teacher as text; a missing one is :data:`BENCHMARK`."""
    return [BENCHMARK if t is None or (isinstance(t, float) and math.isnan(t)) else str(t)
            for t in teachers]


def _nanmean(values: list[float]) -> float:
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.nan


def _kind_diversity(items: pd.DataFrame, levels: Mapping[str, list[str]]) -> float:
    return _nanmean([_diversity(items, attribute, values).normalised_entropy
                     for attribute, values in levels.items()])


def _diversity(items: pd.DataFrame, attribute: str, values: list[str]) -> Diversity:
    """The diversity of the items' values of one attribute over its K = len(values) values."""
    counts = Counter(label(a[attribute]) for a in items["attributes"] if a and attribute in a)
    return attribute_diversity([counts.get(v, 0) for v in values], n_levels=len(values))


def _quality(units: pd.DataFrame, conf: float) -> dict[str, Any]:
    if units.empty:
        return {"quality": math.nan, "lower": math.nan, "upper": math.nan,
                "method": "no_units", "n_units": 0, "n_clusters": 0}
    row = plain_composite(units, conf=conf)
    return {"quality": row["estimate"], "lower": row["lower"], "upper": row["upper"],
            "method": row["method"], "n_units": row["n"], "n_clusters": row["n_clusters"]}


def _nuanced_levels(task: str, items: pd.DataFrame, space: AttributeSpace | None,
                    notes: list[str]) -> dict[str, list[str]]:
    """The nuanced attributes of a task with their values (see the module docstring)."""
    attrs = [a for a in items["attributes"] if a]
    observed, _ = infer_target_attributes(attrs)
    targets = space.for_task(task) if space is not None and not space.empty else {}
    nuanced = {k: v for k, v in observed.items() if k not in targets}
    if nuanced and targets:
        return nuanced
    if observed or targets:
        why = "no declared target attributes" if not targets else \
            "no nuanced attributes apart from the target attributes"
        notes.append(f"Task {task}: {why}; diversity is measured over every label-valued "
                     "attribute.")
    merged = {k: sorted(set(v) | set(targets.get(k, []))) for k, v in observed.items()}
    return merged or {k: list(v) for k, v in targets.items()}
