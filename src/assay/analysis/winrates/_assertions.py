"""Assertion comparisons (BenchmarkQED): arms compared on per-question assertion pass rates.

The input is a per-question pass-rate table, one row per (question, arm): the share of the
question's assertions the arm's answer passed. For each task (question set), on the questions
every arm answered:

* Friedman's test across the arms (three or more arms), BenchmarkQED's omnibus test;
* Wilcoxon's signed-rank test for every pair of arms, Holm-adjusted (BenchmarkQED's post-hoc);
* the clustered permutation test for every pair (BenchmarkQED's secondary analysis): the arms'
  labels are exchanged together for all assertions of a question (a sign flip of the
  question's paired differences), or of a whole cluster of questions when a cluster column is
  given, with a seeded stream per pair; Holm-adjusted as a family of its own.

With a column of assertion counts, the permutation statistic is the mean paired difference over
assertions (each question weighs as many assertions as it has), as in BenchmarkQED's
assertion-level test; without it, over questions.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay._display import Rendered
from assay.analysis.winrates._stats import CORRECTIONS, NAN, Correction
from assay.errors import ConfigError, DesignError
from assay.stats.contrasts import bh_adjust, bonferroni_adjust, holm_adjust
from assay.stats.significance import (
    PairedTestResult,
    cluster_permutation_test,
    friedman_test,
    normality_test,
    pairwise_wilcoxon,
)

_METHODS = {"holm": holm_adjust, "bonferroni": bonferroni_adjust, "fdr_bh": bh_adjust}
"""The adjustments a family of pairs can take (BenchmarkQED's ``significance_correction``)."""


@dataclass(frozen=True)
class FriedmanRecord:
    """Friedman's test across the arms of one task."""

    task: str | None
    arms: tuple[str, ...]
    n: int
    """Questions every arm answered (the blocks)."""
    statistic: float
    p_value: float
    df: int
    significant: bool | None
    """p_value < alpha (one omnibus test per task, not adjusted); None when undefined."""


@dataclass(frozen=True)
class AssertionPair:
    """Two arms of one task compared on per-question pass rates."""

    task: str | None
    arm: str
    opponent: str
    n: int
    """Questions both arms answered (complete questions of the task)."""
    n_clusters: int
    """Units whose labels the permutation test exchanges (questions, or clusters)."""
    mean_arm: float
    """Mean per-question pass rate of ``arm``."""
    mean_opponent: float
    difference: float
    """Permutation statistic: mean paired difference (arm - opponent) over assertions when
    counts are given, else over questions."""
    wilcoxon_statistic: float
    """W+ of the per-question differences arm - opponent."""
    wilcoxon_p_value: float
    wilcoxon_p_adjusted: float
    permutation_p_value: float
    permutation_p_adjusted: float
    n_resamples: int
    significant_wilcoxon: bool | None
    significant_permutation: bool | None
    test: str = "wilcoxon_signed_rank"
    """The paired test behind the ``wilcoxon_*`` fields: ``wilcoxon_signed_rank``, or
    ``paired_t`` (two arms whose per-question differences pass Shapiro-Wilk, as BenchmarkQED
    chooses; ``wilcoxon_statistic`` is then t)."""


@dataclass(frozen=True, eq=False)
class AssertionComparisons(Rendered):
    """Friedman, pairwise Wilcoxon and clustered permutation tests of per-question pass rates."""

    friedman: list[FriedmanRecord]
    pairs: list[AssertionPair]
    alpha: float
    correction: str
    n_resamples: int
    seed: int
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def plain(v: Any) -> Any:
            if isinstance(v, float) and not math.isfinite(v):
                return None
            return list(v) if isinstance(v, tuple) else v

        return {"friedman": [{k: plain(v) for k, v in asdict(r).items()} for r in self.friedman],
                "pairs": [{k: plain(v) for k, v in asdict(r).items()} for r in self.pairs],
                "alpha": self.alpha, "correction": self.correction,
                "n_resamples": self.n_resamples, "seed": self.seed, "notes": list(self.notes)}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def assertion_comparisons(
    pass_rates: pd.DataFrame,
    *,
    question: str = "question",
    arm: str = "arm",
    value: str = "pass_rate",
    n_assertions: str | None = None,
    cluster: str | None = None,
    task: str | None = None,
    alpha: float = 0.05,
    correction: Correction = "holm",
    n_resamples: int = 10_000,
    seed: int = 42,
    method: str = "holm",
) -> AssertionComparisons:
    """Compare arms on per-question assertion pass rates (BenchmarkQED's significance tests).

    Parameters
    ----------
    pass_rates : pandas.DataFrame
        One row per (question, arm) with the pass rate in [0, 1].
    question, arm, value : str
        Column names of the question id, the arm and the pass rate.
    n_assertions : str, optional
        Column of the number of assertions behind each pass rate (a positive integer, the
        same for every arm of a question): the permutation statistic then averages over
        assertions.
    cluster : str, optional
        Column of a cluster of questions (a source document): the permutation test exchanges
        labels for a whole cluster. Default: each question.
    task : str, optional
        Column of the task (question set); the tests run per task.
    alpha : float, default 0.05
        Level of the ``significant`` flags.
    correction : {"holm", "holm-per-group"}, default "holm"
        The family: every pair shown, or the pairs of each task.
    method : {"holm", "bonferroni", "fdr_bh"}, default "holm"
        The adjustment within the family (BenchmarkQED's ``significance_correction``).
    n_resamples : int, default 10_000
        Random sign patterns of each permutation test; 0 switches the permutation tests off
        (``permutation_p_value`` NaN, ``difference`` still the statistic).
    seed : int, default 42
        Seed of the permutation streams (BenchmarkQED's ``permutation_seed``); pair i of the report
        uses the i-th child of ``numpy.random.SeedSequence(seed)``.

    Returns
    -------
    AssertionComparisons

    Raises
    ------
    ConfigError
        A missing column, an unknown option, or `alpha` outside (0, 1).
    DesignError
        Fewer than 2 arms, a duplicated (question, arm), or a pass rate outside [0, 1].
    """
    if correction not in CORRECTIONS:
        raise ConfigError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    if method not in _METHODS:
        raise ConfigError(f"method must be one of {', '.join(_METHODS)}; got {method!r}")
    if not 0 < alpha < 1:
        raise ConfigError(f"alpha must be in (0, 1); got {alpha!r}")
    columns = [c for c in (question, arm, value, n_assertions, cluster, task) if c is not None]
    missing = [c for c in columns if c not in pass_rates]
    if missing:
        raise ConfigError(f"the pass-rate table has no column {', '.join(map(repr, missing))}")
    table = pass_rates[columns].copy()
    rates = pd.to_numeric(table[value], errors="coerce")
    if ((rates < 0) | (rates > 1)).any():
        raise DesignError(f"pass rates in {value!r} must lie in [0, 1]")
    table[value] = rates
    if table.duplicated([question, arm]).any():
        raise DesignError(f"the pass-rate table has more than one row for some ({question}, {arm})")
    notes: list[str] = []
    groups = [(None, table)] if task is None else list(table.groupby(task, sort=False))
    friedman: list[FriedmanRecord] = []
    pending: list[tuple[str | None, str, str, pd.DataFrame, PairedTestResult]] = []
    for name, part in groups:
        label = None if task is None else str(name)
        wide = part.pivot(index=question, columns=arm, values=value)
        arms = [str(a) for a in pd.unique(part[arm])]
        if len(arms) < 2:
            raise DesignError(f"assertion comparisons need at least 2 arms; task {label!r} has {arms}")
        wide = wide[arms]
        complete = wide.dropna()
        if len(complete) < len(wide):
            notes.append(f"task {label}: {len(wide) - len(complete)} question(s) lack a pass rate "
                         "for some arm and are left out (the tests are paired).")
        if len(complete) < 2:
            notes.append(f"task {label}: fewer than 2 complete questions; no test.")
            continue
        if len(arms) >= 3:
            f = friedman_test(complete.to_numpy(dtype=np.float64))
            friedman.append(FriedmanRecord(label, tuple(arms), f.n, f.statistic, f.p_value, f.df,
                                           None if math.isnan(f.p_value) else bool(f.p_value < alpha)))
        for pw in pairwise_wilcoxon(complete.to_numpy(dtype=np.float64)):
            result = pw.result
            if len(arms) == 2:  # BenchmarkQED's two-arm branch: paired t when d looks normal
                result = _paired_t_if_normal(complete[arms[pw.first]].to_numpy(dtype=np.float64),
                                             complete[arms[pw.second]].to_numpy(dtype=np.float64),
                                             alpha=alpha) or result
            pending.append((label, arms[pw.first], arms[pw.second], complete, result))
    rng_streams = np.random.SeedSequence(seed).spawn(len(pending))
    pairs: list[AssertionPair] = []
    keyed = table.set_index([question, arm])
    for (label, a, b, complete, w), stream in zip(pending, rng_streams, strict=True):
        if math.isnan(w.p_value):
            notes.append(f"task {label}: {a} and {b} have the same pass rate on every question; "
                         "Wilcoxon p-value set to 1.")
            w = replace(w, p_value=1.0)
        pairs.append(_pair(label, a, b, complete, keyed, w, n_assertions=n_assertions,
                           cluster=cluster, n_resamples=n_resamples,
                           rng=np.random.default_rng(stream)))
    pairs = _adjust_pairs(pairs, per_group=correction == "holm-per-group", alpha=alpha,
                          method=method)
    return AssertionComparisons(friedman=friedman, pairs=pairs, alpha=float(alpha),
                                correction=correction, n_resamples=int(n_resamples), seed=int(seed),
                                notes=notes)


def _pair(task: str | None, a: str, b: str, complete: pd.DataFrame, keyed: pd.DataFrame,
          w: PairedTestResult, *, n_assertions: str | None, cluster: str | None,
          n_resamples: int, rng: np.random.Generator) -> AssertionPair:
    d = (complete[a] - complete[b]).to_numpy(dtype=np.float64)
    questions = complete.index.to_numpy()
    units = questions if cluster is None else keyed.loc[[(q, a) for q in questions], cluster].to_numpy()
    if n_assertions is None:
        diffs, labels = d, units
    else:
        counts = keyed.loc[[(q, a) for q in questions], n_assertions].to_numpy()
        if not np.all(np.isfinite(counts.astype(float))) or np.any(counts < 1) or np.any(
                counts != np.round(counts)):
            raise DesignError(f"assertion counts in {n_assertions!r} must be positive integers")
        reps = counts.astype(np.int64)
        diffs, labels = np.repeat(d, reps), np.repeat(units.astype(str), reps)
    if n_resamples == 0:  # permutation tests switched off: the statistic, no p-value
        n_clusters, estimate, p_value = len(set(labels.astype(str))), float(np.mean(diffs)), NAN
    else:
        perm = cluster_permutation_test(diffs, labels.astype(str), n_resamples=n_resamples, rng=rng)
        n_clusters, estimate, p_value = perm.n_clusters, perm.estimate, perm.p_value
        n_resamples = perm.n_resamples
    return AssertionPair(
        task=task, arm=a, opponent=b, n=int(d.size), n_clusters=n_clusters,
        mean_arm=float(complete[a].mean()), mean_opponent=float(complete[b].mean()),
        difference=estimate, wilcoxon_statistic=w.statistic, wilcoxon_p_value=w.p_value,
        wilcoxon_p_adjusted=NAN, permutation_p_value=p_value, permutation_p_adjusted=NAN,
        n_resamples=n_resamples, significant_wilcoxon=None, significant_permutation=None,
        test="paired_t" if w.method == "paired_t" else "wilcoxon_signed_rank")


def _paired_t_if_normal(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], *,
                        alpha: float) -> PairedTestResult | None:
    """BenchmarkQED's test of two arms on the same questions (``_compare_two_groups_paired``):
    Student's paired t test (``scipy.stats.ttest_rel``) when the differences a - b pass the
    normality check (Shapiro-Wilk, or Kolmogorov-Smirnov past 5000, p > alpha; fewer than 3
    or constant differences do not), else None (Wilcoxon's test stays)."""
    from scipy import stats

    check = normality_test(a - b)
    if not check.p_value > alpha:  # NaN: undefined, not normal
        return None
    t = stats.ttest_rel(a, b)
    return PairedTestResult(estimate=float(np.mean(a - b)), statistic=float(t.statistic),
                            p_value=float(t.pvalue), method="paired_t", n=int(a.size),
                            df=float(a.size - 1))


def _adjust_pairs(pairs: list[AssertionPair], *, per_group: bool, alpha: float,
                  method: str = "holm") -> list[AssertionPair]:
    adjust_p = _METHODS[method]
    groups = [p.task if per_group else None for p in pairs]

    def holm(p: npt.NDArray[np.float64]) -> list[tuple[float, bool | None]]:
        adjusted = np.full(p.size, NAN)
        for g in dict.fromkeys(groups):
            idx = np.array([i for i, x in enumerate(groups) if x == g and math.isfinite(p[i])],
                           dtype=np.int64)
            if idx.size:
                adjusted[idx] = adjust_p(p[idx])
        return [(float(q), None if math.isnan(q) else bool(q < alpha)) for q in adjusted]

    wil = holm(np.array([x.wilcoxon_p_value for x in pairs], dtype=np.float64))
    per = holm(np.array([x.permutation_p_value for x in pairs], dtype=np.float64))
    return [replace(x, wilcoxon_p_adjusted=w[0], significant_wilcoxon=w[1],
                    permutation_p_adjusted=q[0], significant_permutation=q[1])
            for x, w, q in zip(pairs, wil, per, strict=True)]
