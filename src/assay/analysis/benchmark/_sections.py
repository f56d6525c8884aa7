"""Stability, pass^k, failures and variance components of a benchmark report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from assay.analysis.benchmark._data import BenchData
from assay.analysis.benchmark._resample import ClusterResampler
from assay.stats.intervals import pass_hat_k_per_item

FloatArray = npt.NDArray[np.float64]
Record = dict[str, Any]

RECOMMENDED_RUNS = 10
"""Runs recommended when the within-item share of variance exceeds ``WITHIN_SHARE_LIMIT``."""
WITHIN_SHARE_LIMIT = 0.10
SENSITIVITY_KINDS = ("parse_error", "refusal")
"""Failure kinds left out of ``accuracy_without_parse_refusal``."""
_FAILURE_KEYS = {"arm", "wrong", "accuracy", "accuracy_without_parse_refusal", "n_failures"}


def stability_section(data: BenchData) -> list[Record]:
    """Flip rate, TARa and run-level SD per arm (Atil et al. 2025).

    flip_rate: share of items whose correctness differs across runs. tara: share of items
    whose scored output (outcome, else failure kind, else correctness) is the same on
    every run. run_sd: sample SD (ddof = 1) over runs of each run's accuracy.
    """
    scores = data.scores
    flips = scores.max(axis=2) != scores.min(axis=2)
    agreement = data.agreement
    same = ~flips if agreement is None else (agreement == agreement[:, :, :1]).all(axis=2)
    run_accuracy = scores.mean(axis=0)
    run_sd = (run_accuracy.std(axis=1, ddof=1) if data.n_runs > 1
              else np.full(data.n_arms, np.nan))
    return [{"arm": arm, "flip_rate": float(flips[:, a].mean()), "tara": float(same[:, a].mean()),
             "run_sd": float(run_sd[a])} for a, arm in enumerate(data.arms)]


def pass_k_section(data: BenchData, ks: Sequence[int], resampler: ClusterResampler | None, *,
                   conf: float) -> tuple[list[Record], list[str]]:
    """pass^k per arm and k <= runs, with BCa cluster-bootstrap intervals (Yao et al. 2024)."""
    notes: list[str] = []
    left_out = [k for k in ks if k > data.n_runs]
    if left_out:
        notes.append(f"pass^k for k = {', '.join(map(str, left_out))} is left out: above the "
                     f"{data.n_runs} run(s).")
    kept = [k for k in ks if k <= data.n_runs]
    if not data.binary:
        notes.append("pass^k is left out: it needs binary correctness, and some scores are "
                     "shares.")
        return [], notes
    correct = np.rint(data.scores.sum(axis=2))
    records: list[Record] = []
    per_item = []
    for a, arm in enumerate(data.arms):
        for k in kept:
            values = np.asarray(pass_hat_k_per_item(correct[:, a], data.n_runs, k),
                                dtype=np.float64)
            per_item.append(values)
            records.append({"arm": arm, "k": int(k), "pass_k": float(values.mean()),
                            "lower": None, "upper": None})
    if resampler is not None and per_item:
        replicates = resampler.replicates(data.cluster_sums(np.column_stack(per_item)))
        for record, replicate in zip(records, replicates, strict=True):
            interval = replicate.interval(conf=conf)
            record.update(lower=interval.lower, upper=interval.upper)
    return records, notes


def failures_section(data: BenchData) -> list[Record]:
    """Failure counts by kind, wrong runs, accuracy, and accuracy without parse/refusal rows.

    Every failure counts as wrong (score 0) in ``accuracy``;
    ``accuracy_without_parse_refusal`` leaves runs that failed with a parse error or a
    refusal out instead (mean over an item's remaining runs, then over items with any).
    """
    scores, failure = data.scores, data.failure
    n_runs_total = data.n_items * data.n_runs
    excluded_codes = [c for c, kind in enumerate(data.failure_kinds) if kind in SENSITIVITY_KINDS]
    records: list[Record] = []
    for a, arm in enumerate(data.arms):  # an arm at a time: no cube-sized temporaries
        kept = ~np.isin(failure[:, a, :], excluded_codes)
        kept_runs = kept.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            kept_accuracy = (scores[:, a, :] * kept).sum(axis=1) / kept_runs
        total = float(scores[:, a, :].sum())
        has_any = kept_runs > 0
        without = float(kept_accuracy[has_any].mean()) if has_any.any() else np.nan
        record: Record = {"arm": arm, "wrong": n_runs_total - total,
                          "n_failures": int(np.count_nonzero(failure[:, a, :] >= 0))}
        for code, kind in enumerate(data.failure_kinds):
            key = kind if kind not in _FAILURE_KEYS else f"failure_{kind}"
            record[key] = int(np.count_nonzero(failure[:, a, :] == code))
        record.update(accuracy=total / n_runs_total, accuracy_without_parse_refusal=without)
        records.append(record)
    return records


@dataclass(frozen=True)
class VarianceSection:
    record: Record
    notes: list[str]


def variance_section(data: BenchData) -> VarianceSection:
    """Within-item run variance and between-item variance on the probability scale.

    within: mean of p (1 - p) over item-arm cells; between: population variance
    (ddof = 0) of item accuracy over items, averaged over arms.
    """
    p = data.scores.mean(axis=2)
    within_arm = (p * (1.0 - p)).mean(axis=0)
    between_arm = p.var(axis=0, ddof=0)
    within, between = float(within_arm.mean()), float(between_arm.mean())
    share = _share(within, between)
    per_arm = [{"arm": arm, "within": float(within_arm[a]), "between": float(between_arm[a]),
                "within_share": _share(float(within_arm[a]), float(between_arm[a]))}
               for a, arm in enumerate(data.arms)]
    recommend = RECOMMENDED_RUNS if share > WITHIN_SHARE_LIMIT else None
    notes = []
    if recommend is not None:
        notes.append(f"Run-to-run variance is {100 * share:.0f}% of the total, above "
                     f"{100 * WITHIN_SHARE_LIMIT:.0f}%: use runs = {RECOMMENDED_RUNS}.")
    record = {"within": within, "between": between, "within_share": share,
              "recommend_runs": recommend, "per_arm": per_arm}
    return VarianceSection(record, notes)


def _share(within: float, between: float) -> float:
    total = within + between
    return within / total if total > 0 else float("nan")
