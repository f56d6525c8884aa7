"""CoEval's Table 7: random vs frequency-weighted vs stratified sampling of the items.

Each design (:mod:`assay.stats.sampling`: ``random`` a simple random sample,
``frequency`` proportional allocation over the strata, ``stratified`` equal allocation)
draws ``sample_size`` of the table's reportable items, ``repeats`` times with seeds
``seed``, ``seed + 1``, ... For each sample:

* **ACR** = strata covered by the sample / |Omega|, and **RAR** = rare strata covered /
  rare strata, over the strata of every task together (Omega, the rare strata and each
  item's stratum are those of :func:`assay.analysis.coverage.coverage_report`; items in no
  stratum are one more stratum for sampling and count for neither).
* **Ranking.** Each arm's mean normalised score over the valid units of the sampled items.

Per design the report gives the mean ACR and RAR over the repeats with their 2.5% and
97.5% percentiles, the ranking's stability (mean pairwise Kendall tau-b between the
repeats' rankings, :func:`assay.stats.summaries.ranking_stability`) and the mean tau-b
with the ranking on all items. The sample is drawn from the items the table holds, so it
says how the designs would have done had the benchmark been this pool.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered
from assay.analysis.composite import Model, as_judgments, clean_record, pointwise_units
from assay.analysis.coverage._report import ALL_TASKS, _items, coverage_report
from assay.analysis.coverage._space import AttributeSpace, label
from assay.errors import ConfigError, DesignError
from assay.stats.sampling import STRATEGIES, sample_indices
from assay.stats.summaries import kendall_tau_b, percentile_bands, ranking_stability

DEFAULT_REPEATS = 20


@dataclass(frozen=True)
class DesignRow:
    """One sampling design over its repeats."""

    design: str
    sample_size: int
    repeats: int
    acr: float
    acr_low: float
    acr_high: float
    rar: float
    rar_low: float
    rar_high: float
    stability: float
    """Mean pairwise Kendall tau-b between the repeats' rankings of the arms."""
    stability_min: float
    tau_with_all_items: float
    """Mean Kendall tau-b between a repeat's ranking and the ranking on all items."""
    n_undefined: int
    """Pairs of repeats without a tau (all arms tied in a repeat)."""


@dataclass(frozen=True)
class SamplingAblation(Rendered):
    """Table 7: coverage and ranking stability of three sampling designs."""

    designs: list[DesignRow]
    population: int
    """Reportable items sampled from."""
    n_strata: int
    n_rare: int
    acr_all_items: float
    arms: list[str]
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return clean_record({
            "population": self.population, "n_strata": self.n_strata, "n_rare": self.n_rare,
            "acr_all_items": self.acr_all_items, "arms": self.arms, "seed": self.seed,
            "designs": [asdict(d) for d in self.designs], "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def sampling_ablation(model: Model, *, sample_size: int | None = None,
                      repeats: int = DEFAULT_REPEATS, seed: int = 42,
                      attribute_space: AttributeSpace | Mapping[str, Any] | str | Path | None
                      = None) -> SamplingAblation:
    """Table 7; see the module docstring.

    Parameters
    ----------
    model : Judgments or path
        Needs an ``attributes`` column.
    sample_size : int, optional
        Items per sample; default half the reportable items (at least 2).
    repeats : int, default 20
        Samples per design (at least 2, for a stability).
    seed : int, default 42
    attribute_space : AttributeSpace, mapping, path or None
        As in :func:`assay.analysis.coverage.coverage_report`.
    """
    table = as_judgments(model)
    if "attributes" not in table.frame:
        raise DesignError("the table has no attributes column: sampling designs differ only "
                          "over attribute strata")
    if int(repeats) < 2:
        raise ConfigError(f"repeats must be at least 2, got {repeats}")
    units = pointwise_units(table).frame
    if units.empty:
        raise DesignError("no valid pointwise units to rank the arms on")
    coverage = coverage_report(table, prompts={}, attribute_space=attribute_space)
    items = _items(table)
    items = items[items["item"].astype(str).isin(set(units["item"]))].reset_index(drop=True)
    strata: dict[tuple[str, str], bool] = {}  # (task, stratum key) -> rare
    keys_of: dict[str, list[str]] = {}
    for row in coverage.rows:
        keys_of[row.task] = row.attributes
        for s in row.strata:
            strata[(row.task, json.dumps([s.values[a] for a in row.attributes]))] = s.rare
    labels = [_stratum(str(t), a, keys_of.get(str(t), []), strata)
              for t, a in zip(items["task"], items["attributes"], strict=True)]
    n = len(items)
    size = max(2, n // 2) if sample_size is None else int(sample_size)
    if not 2 <= size <= n:
        raise ConfigError(f"sample_size must be between 2 and the {n} reportable items, "
                          f"got {size}")
    notes: list[str] = []
    if not strata:
        notes.append("No attribute strata (no target attributes): ACR and RAR are undefined.")
    rare = {k for k, is_rare in strata.items() if is_rare}
    item_ids = items["item"].astype(str).tolist()
    per_item = units.groupby(["item", "arm"], sort=True)["value"].agg(["sum", "count"])
    arms = sorted(map(str, units["arm"].unique()))
    full = _scores(per_item, set(item_ids), arms)
    designs = []
    for design in STRATEGIES:
        acrs, rars, rows = [], [], []
        for r in range(int(repeats)):
            chosen = sample_indices([json.dumps(list(lab)) for lab in labels], size, design,
                                    int(seed) + r)
            covered = {labels[i] for i in chosen if labels[i] in strata}
            acrs.append(len(covered) / len(strata) if strata else math.nan)
            rars.append(len(covered & rare) / len(rare) if rare else math.nan)
            rows.append(_scores(per_item, {item_ids[i] for i in chosen}, arms))
        matrix = np.array(rows)
        stable = ranking_stability(matrix)
        taus = [kendall_tau_b(row, full) for row in matrix]
        finite = [t for t in taus if math.isfinite(t)]
        a_band = percentile_bands(acrs, percentiles=(2.5, 97.5)) if strata else None
        r_band = percentile_bands(rars, percentiles=(2.5, 97.5)) if rare else None
        designs.append(DesignRow(
            design, size, int(repeats), float(np.mean(acrs)),
            *(a_band.values if a_band else [math.nan, math.nan]), float(np.mean(rars)),
            *(r_band.values if r_band else [math.nan, math.nan]), stable.mean_tau,
            stable.min_tau, float(np.mean(finite)) if finite else math.nan, stable.n_undefined))
    if strata and not rare:
        notes.append("No stratum is rare (fewer than 3 natural occurrences): RAR is undefined.")
    if len(arms) < 2:
        notes.append("One arm only: there is no ranking, so stability is undefined.")
    covered_all = {lab for lab in labels if lab in strata}
    return SamplingAblation(designs, n, len(strata), len(rare),
                            len(covered_all) / len(strata) if strata else math.nan, arms,
                            int(seed), notes)


def _stratum(task: str, attributes: dict[str, Any] | None, keys: list[str],
             strata: Mapping[tuple[str, str], bool]) -> tuple[str, str]:
    if attributes and keys and all(k in attributes for k in keys):
        key = (task, json.dumps([label(attributes[k]) for k in keys]))
        if key in strata:
            return key
    return (task if task else ALL_TASKS, "unplaced")


def _scores(per_item: pd.DataFrame, items: set[str], arms: list[str]) -> list[float]:
    part = per_item[per_item.index.get_level_values("item").isin(items)]
    totals = part.groupby(level="arm").sum()
    return [float(totals.loc[a, "sum"] / totals.loc[a, "count"]) if a in totals.index
            and totals.loc[a, "count"] else math.nan for a in arms]
