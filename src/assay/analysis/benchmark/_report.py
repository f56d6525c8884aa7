"""The benchmark report (hr_report): accuracy with cluster-respecting intervals and the rest.

:func:`benchmark_report` turns the scored rows of a benchmark (one row per item, arm
and run) into a :class:`BenchmarkReport`: accuracy per arm with an interval that treats
clusters (documents, topics) as the sampling units, paired differences between arms
with simultaneous intervals and rank intervals, stability across runs, pass^k, cost and
the cost-accuracy frontier, failure counts, variance components, and non-inferiority
tests of registered contrasts. Numbers are full precision; only the text renderer
(:mod:`assay.report.text.benchmark`) rounds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered, render_text
from assay.analysis.benchmark._accuracy import accuracy_section
from assay.analysis.benchmark._contrasts import (
    PairedData,
    contrasts_section,
    resolve_contrasts,
    simultaneous_section,
)
from assay.analysis.benchmark._cost import cost_section
from assay.analysis.benchmark._data import BenchData, _reportable, prepare_bench
from assay.analysis.benchmark._design import (
    INTERVALS_HINT,
    MIN_CLUSTERS,
    MIN_ITEMS,
    MIN_RUNS,
    Method,
    choose_method,
    design_of,
    flag_note,
)
from assay.analysis.benchmark._errors import (
    DevNotEvidenceError,
    RegistrationChangedError,
    RegistrationMismatchError,
)
from assay.analysis.benchmark._noninferiority import check_registration, ni_section
from assay.analysis.benchmark._registration import (
    RegisteredContrast,
    Registration,
    register_contrasts,
)
from assay.analysis.benchmark._resample import ClusterResampler
from assay.analysis.benchmark._sections import (
    failures_section,
    pass_k_section,
    stability_section,
    variance_section,
)
from assay.analysis.benchmark._selection import benchmark_rows
from assay.analysis.benchmark._selection import reference_hash as selected_reference_hash
from assay.analysis.categories import category_breakdown
from assay.data.table import Judgments
from assay.errors import ConfigError, DesignError

__all__ = [
    "BenchmarkReport",
    "DevNotEvidenceError",
    "RegisteredContrast",
    "Registration",
    "RegistrationChangedError",
    "RegistrationMismatchError",
    "benchmark_report",
    "register_contrasts",
]

Record = dict[str, Any]

DEFAULT_B = 2000
CONFIRMATORY_B = 5000
MIN_B = 100
_METHODS = ("auto", "bootstrap", "cluster_t", "bayes", "exact")

ROUGH_NOTE = ("Cost, pass^k, frontier share and rank intervals come from the cluster bootstrap, "
              f"which can undercover below {MIN_ITEMS} items or {MIN_CLUSTERS} clusters; read "
              "them as rough.")
FORCED_BOOTSTRAP_NOTE = (f"The bootstrap was asked for below its thresholds ({MIN_ITEMS} items "
                         f"and {MIN_CLUSTERS} clusters), where it is unstable.")


@dataclass(frozen=True)
class BenchmarkReport(Rendered):
    """The benchmark report: settings, design, one table per section, and notes.

    Tables are lists of records (dicts) keyed by ``arm``, by ``arm1`` and ``arm2`` for
    differences (first minus second), by ``arm`` and ``k`` for pass^k, and by ``label``
    for non-inferiority. Missing numbers are None. ``print(report)`` lays it out as text.
    """

    method: str
    """Accuracy interval method: bootstrap, cluster_t, bayes, exact, or descriptive."""
    method_reason: str
    """Why that method."""
    descriptive: bool
    """True below 5 runs under ``method="auto"``: point estimates only."""
    n_items: int
    n_clusters: int
    effective_clusters: float
    """G*, the effective number of clusters (Carter, Schnepel and Steigerwald 2017) at the
    working ICC of item accuracies; n_clusters when the clusters have one size."""
    design_flagged: bool
    """Few effective clusters of unequal size, where no interval held its level in the
    coverage simulation; a note says what the report does instead."""
    runs: int
    """Runs per item."""
    arms: list[str]
    """Arms in benchmark order (first appearance), not ranked."""
    conf: float
    B: int
    """Cluster bootstrap resamples (none are drawn in a descriptive report)."""
    seed: int
    """Seed of the private random stream."""
    confirmatory: bool
    accuracy: list[Record]
    """estimate, lower, upper, standard_error, method, rank_lower, rank_upper per arm."""
    bayes: list[Record] | None
    """posterior_mean, posterior_median, rho_mean per arm with method = "bayes"; else None."""
    contrasts: list[Record]
    """arm1, arm2, estimate, standard_error, lower, upper, df, method, n_eff."""
    simultaneous: list[Record]
    """Every pair: arm1, arm2, estimate, standard_error, lower, upper, method, critical_value."""
    stability: list[Record]
    """flip_rate, tara, run_sd per arm."""
    pass_k: list[Record]
    """arm, k, pass_k, lower, upper."""
    cost: list[Record] | None
    """usd_ and tokens_ per_item / per_correct with _lower, _upper; usd_estimated_share,
    estimated_flag. None without dollars or tokens."""
    frontier: list[Record] | None
    """usd_per_item, accuracy, on_frontier, frontier_share per arm; None without dollars."""
    failures: list[Record]
    """wrong, n_failures, a count per failure kind, accuracy, accuracy_without_parse_refusal."""
    variance: Record
    """within, between, within_share, recommend_runs, and per_arm records."""
    ni: list[Record] | None
    """Non-inferiority per registered contrast; None without a registration."""
    registration: Record | None
    """hash, created_at, reference_hash of the registration; None without one."""
    notes: list[str]
    """What the reader should know."""
    categories: list[Record] | None = None
    """Per (arm, task) when the rows carry two or more tasks: accuracy with its own and a
    simultaneous (max-t over the arm's tasks) cluster-robust interval; None otherwise."""
    category_contrasts: list[Record] | None = None
    """Per (task, arm1, arm2): paired accuracy difference, Holm-adjusted over the tasks and
    pairs; None without tasks."""
    judge: str | None = None
    """The judge whose correctness scores the report reads (chosen from a judgments table);
    None when the rows were given without one."""
    criterion: str | None = None
    """The correctness criterion the report reads; None when the rows were given without one."""
    failures_exact: bool = False
    """Whether the table's reportable rows of ``judge`` and ``criterion`` that carry a failure
    kind are exactly those ``failures`` counts (none of them left out as pairwise), so that
    selecting the judge, criterion, arm, failure kind and the reportable rows (the viewer's
    ``reportable=yes``) finds the rows of a count."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: lists, dicts, str, bool, int, float; NaN becomes None."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    def to_json(self, *, indent: int | None = 2) -> str:
        """The report as JSON (``benchmark.json``), missing numbers as null."""
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    def to_text(self, *, digits: int = 3) -> str:
        """The report laid out as text, rounded to ``digits`` (the only rounding)."""
        return render_text(self, digits=digits)


def benchmark_report(
    frame: pd.DataFrame | Judgments | BenchData,
    *,
    contrasts: Sequence[tuple[str, str]] | None = None,
    B: int | None = None,
    conf: float = 0.95,
    k: Sequence[int] = (1, 3, 5),
    seed: int = 1,
    method: Method = "auto",
    confirmatory: bool | None = None,
    registration: Registration | None = None,
    reference_hash: str | None = None,
) -> BenchmarkReport:
    """Report accuracy, differences, stability, pass^k, cost and failures of a benchmark.

    Parameters
    ----------
    frame : pandas.DataFrame, Judgments or BenchData
        A :class:`~assay.analysis.benchmark._data.BenchData` is a bench already reduced
        (by an engine: :func:`assay.analysis.pushdown.engine_bench_data`); it must have
        been checked as evidence when the report is. A
        :class:`~assay.data.table.Judgments` table is narrowed to its correctness scores
        first (:func:`assay.analysis.benchmark._selection.benchmark_rows`: the one binary or
        range:0,1 judge and criterion, ``correct`` preferred), and its reference hash is
        the hash of its (cluster, item) pairs unless ``reference_hash`` is given.
        Otherwise one row per (item, arm, run): ``cluster`` (defaults to ``item``), ``item``,
        ``arm``, ``run`` and ``score`` (or ``correct``), correctness in [0, 1]. Optional:
        ``reportable`` or ``split`` (only reportable rows are used; dev and calibration
        rows are not reportable), ``outcome``, ``failure_kind`` (a failure counts wrong,
        also when its score is null), ``usd``, ``usd_provenance``, ``tokens_in``,
        ``tokens_out``. A row with neither score nor failure kind is unlabelled and left
        out. Every arm must have every run on every item.
    contrasts : sequence of (arm1, arm2), optional
        Differences arm1 minus arm2 to report; all pairs in benchmark order by default.
    B : int, optional
        Cluster bootstrap resamples, at least 100; 2000 by default, 5000 when confirmatory.
    conf : float, default 0.95
        Confidence level of every interval.
    k : sequence of int, default (1, 3, 5)
        The k of pass^k; values above the number of runs are left out.
    seed : int, default 1
        Seed of the private random stream; the global numpy state is not touched.
    method : {"auto", "bootstrap", "cluster_t", "bayes", "exact"}
        Accuracy interval; "auto" takes the studentised cluster bootstrap from 300 items
        and 30 effective clusters, else the cluster-robust t (CR2) on the logit scale, and
        widens the intervals of a design with few effective clusters of unequal size.
        Elsewhere it gives an arm whose rarer outcome sits in few clusters the
        Korn-Graubard interval (a pair with such an arm MOVER on the arms'
        mid-p intervals on the Korn-Graubard n*), and an arm
        or pair whose run component is material the two-way (cluster x run) interval; see
        docs/statistics.md. Below 5 runs "auto" gives a descriptive report (no intervals); a
        method named explicitly is used at any number of runs (the interval is over items,
        runs averaged within each).
    confirmatory : bool, optional
        A confirmatory report refuses rows outside the test and final splits; by default
        True exactly when ``registration`` has a confirmatory contrast.
    registration : Registration, optional
        From :func:`register_contrasts`; its contrasts are tested for non-inferiority.
    reference_hash : str, optional
        Hash of the reference the bench was scored on; defaults to
        ``frame.attrs["reference_hash"]``. A registration must name this hash.

    Raises
    ------
    InputError
        Missing columns, null keys, scores outside [0, 1].
    ConfigError
        A bad option (B, conf, k, method, contrasts).
    DesignError
        An unbalanced design (naming the missing cells), too few clusters, or a
        confirmatory report below 5 runs; its subclasses DevNotEvidenceError,
        RegistrationMismatchError and RegistrationChangedError for the evidence rules.

    Notes
    -----
    Follows hr_report (``hr_report``) and the readings of ``SPEC-NOTES.md``. Accuracy is
    the ratio estimator r = sum_c S_c / sum_c n_c of the cluster sums of item accuracy
    (runs averaged within the item), with V = C / (C - 1) sum_c (S_c - r n_c)^2 / N^2; the
    cluster-robust t intervals use the CR2 variance sum_c (S_c - r n_c)^2 / (1 - n_c/N) / N^2
    with Bell-McCaffrey degrees of freedom, the same as V with C - 1 df when the clusters
    have one size (``docs/statistics.md``).
    One private ``numpy.random.default_rng(seed)`` stream gives a single (B, C) matrix of
    cluster resampling counts that drives every resampled figure (studentised accuracy
    intervals, rank intervals, BCa intervals of pass^k and cost, the frontier share, the
    non-inferiority cost bound), then the 100 000 max-t draws.

    Examples
    --------
    hr_report's design: 12 documents with 3 questions each, two arms, 5 runs.

    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(2)
    >>> frame = pd.DataFrame([
    ...     {"cluster": f"doc{i // 3 + 1}", "item": f"q{i + 1}", "arm": arm, "run": run,
    ...      "correct": bool(rng.random() < p), "usd": usd}
    ...     for i in range(36) for arm, p, usd in (("short", 0.7, 0.001), ("long", 0.8, 0.004))
    ...     for run in range(1, 6)])
    >>> report = benchmark_report(frame, B=500)
    >>> report.method, report.n_items, report.n_clusters, report.runs
    ('cluster_t', 36, 12, 5)
    >>> report.method_reason
    '36 items in 12 clusters fall short of 300 items and 30 clusters'
    >>> [(r["arm"], r["method"]) for r in report.accuracy]  # the runs' component came out > 0
    [('short', 'logit_cluster_run_t'), ('long', 'logit_cluster_run_t')]
    >>> print(str(report).splitlines()[0])
    <assay benchmark report> 2 arm(s), 36 item(s) in 12 cluster(s), 5 run(s)
    """
    if isinstance(frame, Judgments):
        frame = benchmark_rows(frame)
        if reference_hash is None:
            reference_hash = selected_reference_hash(frame)
    selection = {} if isinstance(frame, BenchData) else _selection(frame)
    if confirmatory is None:
        confirmatory = registration is not None and bool(
            getattr(registration, "has_confirmatory", False))
    evidence = bool(confirmatory) or registration is not None
    n_resamples = _check_options(B, conf, k, method, seed, confirmatory=bool(confirmatory))
    if isinstance(registration, Registration):
        registration.verify()
    if isinstance(frame, BenchData):
        if evidence and not frame.evidence_checked:
            raise ConfigError("a confirmatory or registered report needs a bench checked as "
                              "evidence; this one was prepared without that check")
        data = frame
    else:
        data = prepare_bench(frame, evidence=evidence)
    if registration is not None:
        given = reference_hash if reference_hash is not None or isinstance(frame, BenchData) \
            else frame.attrs.get("reference_hash")
        check_registration(registration, data.arms, given)
    pairs = resolve_contrasts(data.arms, contrasts)
    k = list(dict.fromkeys(int(x) for x in k))
    item_accuracy = data.scores.mean(axis=2)
    design = design_of(data.cluster_sums(item_accuracy), data.cluster_sums(item_accuracy**2),
                       data.sizes, data.n_runs)
    choice = choose_method(method, design)
    if evidence and data.n_runs < MIN_RUNS:
        raise DesignError(f"a confirmatory or registered report needs at least {MIN_RUNS} runs "
                          f"per item; this bench has {data.n_runs}")
    if not choice.descriptive and data.n_clusters < 2:
        raise DesignError("intervals need at least 2 clusters; this bench has 1")

    rng = np.random.default_rng(seed)
    resampler = None if choice.descriptive else ClusterResampler.draw(data.sizes, n_resamples,
                                                                      rng)
    notes = _data_notes(data)
    if choice.descriptive:
        notes.append(f"Below {MIN_RUNS} runs the report is descriptive only by default: point "
                     f"estimates without intervals, resamples or rank intervals; "
                     f"{INTERVALS_HINT}.")
    elif data.n_runs < MIN_RUNS:
        notes.append(f"{data.n_runs} run(s) per item, fewer than {MIN_RUNS}: the intervals asked "
                     "for are over items (runs averaged within each item); stability across runs "
                     "rests on few runs.")
    if choice.flagged and not choice.descriptive:
        notes.append(flag_note(design, choice, binary=data.binary))
    effective = design.effective_clusters if choice.widened else None
    accuracy = accuracy_section(data, choice, resampler, conf=conf, effective=effective)
    notes += accuracy.notes
    if choice.method == "bootstrap" and choice.below_thresholds:
        notes.append(FORCED_BOOTSTRAP_NOTE)

    paired = PairedData.of(data, effective=effective, auto=choice.auto and not choice.widened)
    contrast_records, contrast_notes = contrasts_section(paired, data.arms, pairs, conf=conf,
                                                         descriptive=choice.descriptive)
    simultaneous, simultaneous_notes = simultaneous_section(
        paired, data.arms, conf=conf, rng=None if choice.descriptive else rng,
        descriptive=choice.descriptive)
    notes += contrast_notes + simultaneous_notes

    pass_k, pass_k_notes = pass_k_section(data, k, resampler, conf=conf)
    estimates = np.array([r["estimate"] for r in accuracy.records])
    cost = cost_section(data, resampler, estimates, accuracy.boot_estimates, conf=conf)
    variance = variance_section(data)
    notes += variance.notes
    if not choice.descriptive and choice.below_thresholds:
        notes.append(ROUGH_NOTE)
    notes += pass_k_notes + cost.notes

    ni = None
    if registration is not None and resampler is not None:
        ni, ni_notes = ni_section(data, paired, registration, resampler)
        notes += ni_notes

    return BenchmarkReport(
        method=choice.method, method_reason=choice.reason, descriptive=choice.descriptive,
        n_items=data.n_items, n_clusters=data.n_clusters,
        effective_clusters=design.effective_clusters, design_flagged=design.flagged,
        runs=data.n_runs,
        arms=list(data.arms), conf=conf, B=n_resamples, seed=seed,
        confirmatory=bool(confirmatory), accuracy=accuracy.records, bayes=accuracy.bayes,
        contrasts=contrast_records, simultaneous=simultaneous,
        stability=stability_section(data), pass_k=pass_k, cost=cost.cost,
        frontier=cost.frontier, failures=failures_section(data), variance=variance.record,
        ni=ni, registration=None if registration is None else {
            "hash": registration.hash, "created_at": registration.created_at,
            "reference_hash": registration.reference_hash},
        notes=notes, **selection, **({"categories": None, "category_contrasts": None}
                        if isinstance(frame, BenchData) else
                        _by_task(frame, conf=conf, seed=seed, notes=notes,
                                 descriptive=choice.descriptive)))


def _selection(frame: pd.DataFrame) -> dict[str, Any]:
    """``judge``, ``criterion`` and ``failures_exact`` of rows chosen by
    :func:`benchmark_rows` (it names them in ``frame.attrs``); empty for other rows."""
    if not isinstance(frame, pd.DataFrame):
        return {}  # refused by prepare_bench
    judge, criterion = frame.attrs.get("judge"), frame.attrs.get("criterion")
    if judge is None or criterion is None:
        return {}
    exact = frame.attrs.get("pairwise_failures") == 0
    return {"judge": str(judge), "criterion": str(criterion), "failures_exact": exact}


def _by_task(frame: pd.DataFrame, *, conf: float, seed: int, notes: list[str],
             descriptive: bool) -> dict[str, list[Record] | None]:
    """The per-task breakdown of the reportable rows (a failure counts wrong), or Nones."""
    if "task" not in frame or frame["task"].nunique() < 2:
        return {"categories": None, "category_contrasts": None}
    if descriptive:
        notes.append("The per-task breakdown is left out of a descriptive report (it is made of "
                     "intervals); name an interval method to get it.")
        return {"categories": None, "category_contrasts": None}
    rows = frame[_reportable(frame)].copy()
    column = rows["score"] if "score" in rows else rows["correct"]
    score = pd.to_numeric(column.astype(object), errors="coerce").astype(np.float64)
    if "failure_kind" in rows:
        score = score.where(rows["failure_kind"].isna(), 0.0)
    rows["value"] = score
    if "cluster" not in rows:
        rows["cluster"] = rows["item"]
    rows["cluster"] = rows["cluster"].where(rows["cluster"].notna(), rows["item"]).astype(str)
    rows["item"] = rows["item"].astype(str)
    categories, contrasts, more = category_breakdown(rows, group=[], category="task", conf=conf,
                                                     seed=seed, bounded=True)
    notes += more
    return {"categories": categories, "category_contrasts": contrasts}



def _check_options(B: int | None, conf: float, k: Sequence[int], method: str, seed: int, *,
                   confirmatory: bool) -> int:
    if method not in _METHODS:
        raise ConfigError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    if not isinstance(conf, (int, float)) or not 0.0 < float(conf) < 1.0:
        raise ConfigError(f"conf must be in (0, 1), got {conf!r}")
    if isinstance(k, (int, np.integer)):
        raise ConfigError(f"k must be a sequence of positive integers, e.g. (1, 3, 5), got {k!r}")
    if any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1 for x in k):
        raise ConfigError(f"k must hold positive integers, got {list(k)!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"seed must be a non-negative integer, got {seed!r}")
    if B is None:
        return CONFIRMATORY_B if confirmatory else DEFAULT_B
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < MIN_B:
        raise ConfigError(f"B must be an integer of at least {MIN_B}, got {B!r}")
    return int(B)


def _data_notes(data: BenchData) -> list[str]:
    notes = []
    if data.n_rows_not_reportable:
        notes.append(f"{data.n_rows_not_reportable} row(s) not reportable (such as the dev "
                     "split) were left out.")
    if data.n_items_unlabelled:
        notes.append(f"{data.n_items_unlabelled} item(s) with no label were left out.")
    return notes


def _plain(value: Any) -> Any:
    """JSON-ready copy: numpy scalars to Python, NaN and inf to None, tuples to lists."""
    if isinstance(value, dict):
        return {str(key): _plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    return value

