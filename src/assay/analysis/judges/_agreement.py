"""Agreement between judges on one criterion: the units x judges table and its statistics.

A unit is what every judge of a criterion could score: an (item, arm, run), and for pairwise
rows also the opponent and the position (a judgment's identity without the judge). Which
statistics apply depends on the criterion's scale:

=============  ===================================  =======================================
scale          agreement record                     pair record
=============  ===================================  =======================================
interval,      ICC(2,1); alpha interval, ordinal    rho, tau-b, ICC, MAD, exact agreement
range
binary         every statistic (0 < 1 is ordered    every statistic; the weighted kappas
               and equally spaced)                  equal the plain one for two levels
ordinal        every statistic; ICC, alpha          every statistic; ICC, MAD and the
               interval and MAD on the level        weighted kappas take the levels as
               codes 0..k-1 (equally spaced)        equally spaced
nominal        alpha nominal, Fleiss' kappa,        exact agreement, Cohen's kappa
               mean pairwise agreement
=============  ===================================  =======================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.data.schema import Scale
from assay.stats.agreement import (
    agreement_rate,
    cohen_kappa,
    fleiss_kappa,
    icc_agreement,
    kendall_tau_b_matrix,
    krippendorff_alpha,
    mean_absolute_difference,
    spearman_matrix,
)

NAN = float("nan")


@dataclass(frozen=True)
class AgreementRecord:
    """Agreement of all the judges of a criterion, over one task or all (``task`` None)."""

    criterion: str
    task: str | None
    """None: all tasks together."""
    scale: str
    """The criterion's scale spelling."""
    judges: tuple[str, ...]
    """Judges that share at least one unit with another judge (the raters)."""
    num_raters: int
    n_units: int
    """Units scored by at least two of the judges (Krippendorff's pairable units)."""
    n_complete_units: int
    """Units scored by every judge: ICC(2,1) and Fleiss' kappa need a complete design."""
    icc: float
    """ICC(2,1) = ICC(A,1), absolute agreement of single ratings, on the complete units."""
    icc_lower: float
    icc_upper: float
    krippendorff_alpha_interval: float
    krippendorff_alpha_ordinal: float
    krippendorff_alpha_nominal: float
    fleiss_kappa: float
    """Categorical scales only, on the complete units."""
    mean_pairwise_agreement: float
    """Categorical scales only: the mean over judge pairs of their exact agreement rate."""


@dataclass(frozen=True)
class PairRecord:
    """Agreement of two judges on the units both scored."""

    criterion: str
    task: str | None
    judge_a: str
    judge_b: str
    n: int
    """Units both judges scored."""
    spearman_rho: float
    kendall_tau_b: float
    icc: float
    """ICC(2,1) of the two judges (CoEval's pairwise ICC matrix)."""
    mad: float
    """Mean absolute difference on the criterion's score scale (level codes if ordinal)."""
    agreement_rate: float
    """ACR: share of units with identical scores."""
    cohen_kappa: float
    cohen_kappa_linear: float
    cohen_kappa_quadratic: float


@dataclass(frozen=True)
class DriftRecord:
    """ICC(2,1) over one window of consecutive items (in the table's item order)."""

    criterion: str
    window: int
    """1 for the first window; window w covers items w .. w + size - 1."""
    first_item: str
    last_item: str
    n_items: int
    n_units: int
    """Complete units (every judge scored) of the window's items."""
    icc: float
    icc_lower: float
    icc_upper: float


@dataclass(frozen=True)
class UncertainItem:
    """A unit whose judges disagree: inter-judge standard deviation above the threshold."""

    criterion: str
    task: str | None
    item: str
    arm: str
    opponent: str | None
    position: int | None
    run: int
    n_judges: int
    mean: float
    sd: float
    """Sample standard deviation (ddof = 1) of the judges' scores of the unit."""
    threshold: float
    basis: Literal["normalised", "raw"]
    """``"normalised"`` (scores mapped to [0, 1] by the scale) or ``"raw"`` (the scale's
    own units, for a threshold given per criterion)."""


def categories(scale: Scale) -> npt.NDArray[np.float64] | None:
    """The category codes of a categorical scale, in order; None for a numeric one."""
    if scale.kind == "binary":
        return np.array([0.0, 1.0])
    if scale.kind in ("ordinal", "nominal"):
        return np.arange(len(scale.levels), dtype=np.float64)
    return None


def raters(wide: pd.DataFrame) -> pd.DataFrame:
    """The table restricted to judges sharing a unit with another judge and to units with two
    or more of their scores."""
    present = wide.notna()
    shared = present.sum(axis=1) >= 2
    keep = [j for j in wide.columns if bool((present[j] & shared).any())]
    sub = wide[keep]
    return sub[sub.notna().sum(axis=1) >= 2]


def agreement(
    wide: pd.DataFrame, *, criterion: str, task: str | None, scale: Scale, conf: float,
    notes: list[str],
) -> tuple[AgreementRecord | None, list[PairRecord]]:
    """The agreement record and the pair records of one (criterion, task) table."""
    where = f"criterion {criterion!r}" + (f", task {task!r}" if task is not None else "")
    table = raters(wide)
    judges = tuple(str(j) for j in table.columns)
    alone = [str(j) for j in wide.columns if wide[j].notna().any() and str(j) not in judges]
    if alone and task is None:
        notes.append(f"{where}: judge(s) {', '.join(map(repr, alone))} share no unit with another "
                     "judge (for pairwise rows a unit includes the opponent and position), so they "
                     "are not raters here.")
    if len(judges) < 2:
        notes.append(f"{where}: no two judges scored a common unit, so there is no agreement "
                     "to measure.")
        return None, []
    x = table.to_numpy(dtype=np.float64)
    kind = scale.kind
    numeric = kind != "nominal"
    cats = categories(scale)
    complete = ~np.isnan(x).any(axis=1)
    xc = x[complete]
    icc = _icc(xc, conf, numeric, where, notes)
    alpha = {level: _alpha(x, level, where, notes)
             for level in ("interval", "ordinal", "nominal")
             if (level != "nominal" and numeric) or (level == "nominal" and cats is not None)}
    fleiss = NAN
    if cats is not None and xc.shape[0] >= 1:
        counts = np.stack([np.sum(xc == c, axis=1) for c in cats], axis=1)
        result = fleiss_kappa(counts)
        fleiss = result.estimate
        if result.undefined:
            notes.append(f"{where}: every judge gave every complete unit the same category, so "
                         "Fleiss' kappa is undefined (0/0), not low.")
    _constant_judges(table, where, notes)
    pairs = _pairs(table, criterion=criterion, task=task, scale=scale, conf=conf)
    rates = [p.agreement_rate for p in pairs if not math.isnan(p.agreement_rate)]
    record = AgreementRecord(
        criterion=criterion, task=task, scale=scale.spelling(), judges=judges,
        num_raters=len(judges), n_units=int(x.shape[0]), n_complete_units=int(xc.shape[0]),
        icc=icc[0], icc_lower=icc[1], icc_upper=icc[2],
        krippendorff_alpha_interval=alpha.get("interval", NAN),
        krippendorff_alpha_ordinal=alpha.get("ordinal", NAN),
        krippendorff_alpha_nominal=alpha.get("nominal", NAN),
        fleiss_kappa=fleiss,
        mean_pairwise_agreement=float(np.mean(rates)) if cats is not None and rates else NAN)
    return record, pairs


def _icc(x: npt.NDArray[np.float64], conf: float, numeric: bool, where: str,
         notes: list[str]) -> tuple[float, float, float]:
    if not numeric:
        return NAN, NAN, NAN
    if x.shape[0] < 2:
        notes.append(f"{where}: fewer than 2 units were scored by every judge, so ICC(2,1) "
                     "(which needs a complete design) is not computed.")
        return NAN, NAN, NAN
    result = icc_agreement(x, conf=conf)
    if result.reason:
        notes.append(f"{where}: ICC(2,1): {result.reason}.")
    return result.estimate, result.lower, result.upper


def _alpha(x: npt.NDArray[np.float64], level: str, where: str, notes: list[str]) -> float:
    result = krippendorff_alpha(x, level=level)  # type: ignore[arg-type]
    if result.undefined == "no_variation":
        note = (f"{where}: every judge gave every unit the same score, so Krippendorff's alpha "
                "is undefined (0/0), not low.")
        if note not in notes:
            notes.append(note)
    return result.estimate


def _constant_judges(table: pd.DataFrame, where: str, notes: list[str]) -> None:
    for judge in table.columns:
        values = table[judge].dropna().unique()
        if len(values) == 1:
            notes.append(f"{where}: judge {judge!r} gave every unit it scored the same score "
                         f"({values[0]:g}); its rank correlations are undefined (a constant has "
                         "no order) and its kappas measure only how often the other judge "
                         "agrees with that value.")


def _pairs(table: pd.DataFrame, *, criterion: str, task: str | None, scale: Scale,
           conf: float) -> list[PairRecord]:
    x = table.to_numpy(dtype=np.float64)
    kind = scale.kind
    numeric = kind != "nominal"
    cats = categories(scale)
    rho = spearman_matrix(x).estimate if numeric else None
    tau = kendall_tau_b_matrix(x).estimate if numeric else None
    records: list[PairRecord] = []
    for a, b in combinations(range(x.shape[1]), 2):
        both = ~(np.isnan(x[:, a]) | np.isnan(x[:, b]))
        n = int(both.sum())
        if n == 0:
            continue
        xa, xb = x[both, a], x[both, b]
        icc = mad = NAN
        if numeric:
            mad = mean_absolute_difference(np.column_stack([xa, xb])).estimate
            if n >= 2:
                icc = icc_agreement(np.column_stack([xa, xb]), conf=conf).estimate
        kappas = [NAN, NAN, NAN]
        if cats is not None:
            kappas[0] = cohen_kappa(xa, xb, categories=cats).estimate
            if kind != "nominal":
                kappas[1] = cohen_kappa(xa, xb, weights="linear", categories=cats).estimate
                kappas[2] = cohen_kappa(xa, xb, weights="quadratic", categories=cats).estimate
        records.append(PairRecord(
            criterion=criterion, task=task, judge_a=str(table.columns[a]),
            judge_b=str(table.columns[b]), n=n,
            spearman_rho=float(rho[a, b]) if rho is not None else NAN,
            kendall_tau_b=float(tau[a, b]) if tau is not None else NAN,
            icc=icc, mad=mad, agreement_rate=agreement_rate(xa, xb).estimate,
            cohen_kappa=kappas[0], cohen_kappa_linear=kappas[1], cohen_kappa_quadratic=kappas[2]))
    return records


def drift(
    table: pd.DataFrame, item_index: npt.NDArray[np.int64], items: list[str], *, criterion: str,
    window: int, conf: float,
) -> list[DriftRecord]:
    """ICC(2,1) of the complete units of each run of `window` consecutive items.

    `table` is the criterion's raters table (all tasks), `item_index` each row's position in
    `items`, the criterion's items in the table's order of first appearance.
    """
    x = table.to_numpy(dtype=np.float64)
    complete = ~np.isnan(x).any(axis=1)
    x, position = x[complete], item_index[complete]
    order = np.argsort(position, kind="stable")
    x, position = x[order], position[order]
    records: list[DriftRecord] = []
    for start in range(0, len(items) - window + 1):
        lo, hi = np.searchsorted(position, [start, start + window])
        units = x[lo:hi]
        estimate = lower = upper = NAN
        if units.shape[0] >= 2:
            result = icc_agreement(units, conf=conf)
            estimate, lower, upper = result.estimate, result.lower, result.upper
        records.append(DriftRecord(
            criterion=criterion, window=start + 1, first_item=items[start],
            last_item=items[start + window - 1], n_items=window, n_units=int(units.shape[0]),
            icc=estimate, icc_lower=lower, icc_upper=upper))
    return records


def uncertain(
    table: pd.DataFrame, values: pd.DataFrame, tasks: pd.Series, *, criterion: str,
    threshold: float, basis: Literal["normalised", "raw"],
) -> list[UncertainItem]:
    """Units of `table` whose judges' `values` (same shape: normalised or raw scores) have a
    sample standard deviation above `threshold`, largest first."""
    v = values.to_numpy(dtype=np.float64)
    count = np.sum(~np.isnan(v), axis=1)
    rows = np.flatnonzero(count >= 2)
    sd = np.full(v.shape[0], NAN)
    mean = np.full(v.shape[0], NAN)
    if rows.size:
        sd[rows] = np.nanstd(v[rows], axis=1, ddof=1)
        mean[rows] = np.nanmean(v[rows], axis=1)
    flagged = [i for i in rows if sd[i] > threshold]
    flagged.sort(key=lambda i: -sd[i])
    records = []
    for i in flagged:
        key = dict(zip(table.index.names, table.index[i], strict=True))
        task = tasks.iloc[i]
        records.append(UncertainItem(
            criterion=criterion, task=None if task == "" else str(task), item=str(key["item"]),
            arm=str(key["arm"]), opponent=str(key["opponent"]) or None,
            position=int(key["position"]) or None, run=int(key["run"]),
            n_judges=int(count[i]), mean=float(mean[i]), sd=float(sd[i]), threshold=threshold,
            basis=basis))
    return records
