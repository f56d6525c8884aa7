"""Win-rate records: the interval, the paired test and its fallbacks, Holm's adjustment.

Every comparison reduces to question-level values x_i in clusters. Its interval is, for a
win rate (a share in [0, 1]), the logit cluster-robust t interval with the CR2 variance and
Bell-McCaffrey df (``cluster_t_interval(variance="CR2")``), the interval ``--kind scores``
and the benchmark report give the same share; for a difference (positions, judges) the CR2 t
interval of x_i - null (``paired_difference_interval(variance="CR2")``). Its test is the CR2
cluster-robust t test of x_i - null (default), Wilcoxon's signed-rank test of the
question-level differences, or BenchmarkQED's ``auto`` choice between the two. The standard
error beside the interval in the text is the clustered one it rests on; the i.i.d. one
(AlpacaEval's) stays in ``standard_error``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd

from assay.analysis._mean_rule import INDEPENDENT_DF, LOGIT_T, RAW_T, df_sumsq
from assay.analysis.benchmark._design import design_flag_note
from assay.stats._results import Alternative
from assay.stats.contrasts import holm_adjust, paired_difference_interval
from assay.stats.intervals import cluster_t_interval, korn_graubard_interval
from assay.stats.significance import cluster_t_test, normality_test, wilcoxon_signed_rank

Test = Literal["cluster_t", "wilcoxon", "auto"]
Correction = Literal["holm", "holm-per-group"]
NAN = float("nan")
TESTS = ("cluster_t", "wilcoxon", "auto")
CORRECTIONS = ("holm", "holm-per-group")


@dataclass(frozen=True)
class WinRate:
    """Win rate of ``arm`` against ``opponent`` for one judge, criterion and task."""

    judge: str
    criterion: str
    task: str | None
    """The task (question set); None for all tasks together."""
    arm: str
    opponent: str
    win_rate: float
    """Mean over questions of the question-level win rate (ties 1/2); NaN with no scores."""
    standard_error: float
    """Items as units, as AlpacaEval reports it: sample SD (ddof = 1) of the question-level
    win rates / sqrt(n); NaN for n < 2."""
    lower: float
    """Lower bound of the logit cluster-robust (CR2) interval (``interval_method``); NaN when
    undefined (fewer than 2 clusters)."""
    upper: float
    n: int
    """Questions with at least one scored trial."""
    n_wins: int
    """Scored trials the arm won (score above 1/2)."""
    n_losses: int
    """Scored trials the arm lost (score below 1/2)."""
    n_ties: int
    """Scored trials tied (score exactly 1/2)."""
    n_failed: int
    """Trials without a score (failed judgments), left out of the rate."""
    p_value: float
    """Two-sided p-value of win rate = 1/2 by ``test``; NaN when undefined."""
    p_adjusted: float
    """Holm-adjusted p-value within the record's family; NaN when ``p_value`` is."""
    significant: bool | None
    """``p_adjusted < alpha``; None when the p-value is undefined."""
    n_clusters: int
    standard_error_clustered: float
    """sqrt(V), the cluster-robust standard error the interval rests on."""
    interval_method: str
    """``logit_cluster_robust_t`` (CR2), ``korn_graubard_clopper_pearson`` (no variance between
    clusters), ``too_few_clusters`` or ``no_scores``."""
    test: str
    """Test behind ``p_value``: ``cluster_robust_t``, ``wilcoxon_signed_rank``,
    ``cluster_sign_flip_exact`` (the cluster t fallback when V = 0) or ``undefined``."""
    statistic: float
    """t, or W+ for Wilcoxon's test; NaN for the exact sign-flip fallback."""
    df: float | None
    """Degrees of freedom of the t test (C - 1)."""
    normality_p_value: float
    """Shapiro-Wilk p-value of the question-level win rates (BenchmarkQED's check); NaN when
    undefined."""

    @property
    def is_aa(self) -> bool:
        """An A/A comparison: the arm judged against itself."""
        return self.arm == self.opponent

    def reversed(self) -> WinRate:
        """The same comparison read from the opponent's side (win rate 1 - w)."""
        return replace(self, arm=self.opponent, opponent=self.arm, win_rate=1.0 - self.win_rate,
                       lower=1.0 - self.upper, upper=1.0 - self.lower, n_wins=self.n_losses,
                       n_losses=self.n_wins,
                       statistic=-self.statistic if self.test == "cluster_robust_t"
                       else NAN if self.test == "wilcoxon_signed_rank" else self.statistic)


@dataclass(frozen=True)
class AADeviation:
    """How far an arm judged against itself lands from 1/2 (the judge's A/A test)."""

    judge: str
    criterion: str
    task: str | None
    arm: str
    deviation: float
    """Win rate - 1/2."""
    lower: float
    """Bounds of the deviation (the win rate's interval minus 1/2)."""
    upper: float
    n: int
    p_value: float
    p_adjusted: float
    """Holm-adjusted within the A/A family (kept apart from the comparisons of arms)."""
    significant: bool | None


@dataclass(frozen=True)
class PairedOutcome:
    """Interval and test of question-level values against a null value."""

    estimate: float
    lower: float
    upper: float
    standard_error_clustered: float
    interval_method: str
    test: str
    statistic: float
    p_value: float
    df: float | None
    normality_p_value: float
    n_clusters: int


def cluster_sums(values: npt.NDArray[np.float64], clusters: npt.NDArray[np.object_]
                 ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """S_c and n_c of the values by cluster label."""
    _, codes = np.unique(clusters.astype(str), return_inverse=True)
    codes = codes.ravel()
    return (np.bincount(codes, weights=values).astype(np.float64),
            np.bincount(codes).astype(np.float64))


def _flagged_share(share: bool, sums: npt.NDArray[np.float64], sumsq: npt.NDArray[np.float64],
                   sizes: npt.NDArray[np.float64]) -> bool:
    """Whether a share (a win rate: values in [0, 1]) lies in a design the benchmark flags;
    its CR2 interval and test then take the df of the independence working model, the one
    rule's (:func:`assay.analysis._mean_rule.df_sumsq`). A difference (judges, position)
    keeps the working ICC's df: its design is not read from the differences (which can
    cancel a cluster effect both sides share), and its two sides are not at hand here."""
    return share and design_flag_note(sums, sumsq, sizes, what="")[0].flagged


def paired_outcome(values: npt.NDArray[np.float64], clusters: npt.NDArray[np.object_], *,
                   null: float, bounds: tuple[float, float], test: Test, alpha: float,
                   conf: float, fallback_kg: bool, note: Callable[[str], None]) -> PairedOutcome:
    """Interval and test of mean(values) = `null` with the documented fallbacks.

    `bounds` clips the interval (win rate: [0, 1]). With `fallback_kg`, a zero between-cluster
    variance falls back to the Korn-Graubard interval of the values as proportions.
    """
    n = values.size
    if n == 0:
        return PairedOutcome(NAN, NAN, NAN, NAN, "no_scores", "undefined", NAN, NAN, None, NAN, 0)
    sums, sizes = cluster_sums(values, clusters)
    c = sums.size
    estimate = float(values.mean())
    normality = normality_test(values)
    chosen = test
    if test == "auto":
        if n < 3:
            chosen = "wilcoxon"
        elif normality.method == "undefined":  # constant values: the t branch and its fallback
            chosen = "cluster_t"
        else:
            chosen = "cluster_t" if normality.p_value > alpha else "wilcoxon"
    lower = upper = se_c = NAN
    if c < 2:
        interval_method = "too_few_clusters"
        note("fewer than 2 clusters: no cluster-robust interval (too_few_clusters)")
    else:  # the clusters' sums of squares and design, read once for the interval and the t test
        share = bounds == (0.0, 1.0) and values.min() >= 0.0 and values.max() <= 1.0
        sumsq, _ = cluster_sums(values * values, clusters)
        centred_sq = sumsq - 2.0 * null * sums + null * null * sizes
        flagged = _flagged_share(share, sums, sumsq, sizes)
        if share:
            # a share: the logit CR2 t of --kind scores and the benchmark, so one preference
            # gets one interval whichever report shows it
            iv = cluster_t_interval(sums, sizes, conf=conf, variance="CR2",
                                    sumsq=df_sumsq(sumsq, flagged))
            shift = 0.0
        else:
            iv = paired_difference_interval(sums - null * sizes, sizes, conf=conf,
                                            variance="CR2", sumsq=df_sumsq(centred_sq, flagged))
            shift = null
        se_c = iv.standard_error
        if math.isfinite(iv.lower):
            interval_method = (LOGIT_T if shift == 0.0 and bounds == (0.0, 1.0)
                               else RAW_T) + (INDEPENDENT_DF if flagged else "")
            lower = max(shift + iv.lower, bounds[0])
            upper = min(shift + iv.upper, bounds[1])
        elif fallback_kg:
            alternative: Alternative = ("greater" if estimate >= 1 else "less" if estimate <= 0
                                        else "two-sided")
            kg = korn_graubard_interval(sums, sizes, conf=conf, alternative=alternative)
            interval_method, lower, upper = kg.method, kg.lower, kg.upper
            note(f"no variance between clusters: Korn-Graubard interval ({kg.method})")
        else:
            interval_method = "undefined_no_cluster_variance"
            note("no variance between clusters: no interval (undefined_no_cluster_variance)")
    statistic, p, df = NAN, NAN, None
    if chosen == "wilcoxon":
        w = wilcoxon_signed_rank(values - null)
        name, statistic, p = w.method, w.statistic, w.p_value
        if math.isnan(p):
            p = 1.0
            note(f"no question departs from {null:g}: Wilcoxon p-value set to 1")
    elif c < 2:
        name = "undefined"
    else:
        t = cluster_t_test(sums - null * sizes, sizes, variance="CR2",
                           sumsq=df_sumsq(centred_sq, flagged))
        name, statistic, p, df = t.method, t.statistic, t.p_value, t.df
        if math.isnan(p):
            # every cluster has the same mean difference d: of the 2^C sign flips of the
            # clusters, only all-plus and all-minus reach |d| (all do when d = 0)
            name, statistic = "cluster_sign_flip_exact", NAN
            p = 1.0 if abs(estimate - null) <= 1e-12 else min(1.0, 2.0 ** (1 - c))
            note("no variance between clusters: exact cluster sign-flip p-value "
                 "(cluster_sign_flip_exact)")
    return PairedOutcome(estimate, lower, upper, se_c, interval_method, name, statistic, p, df,
                         normality.p_value, c)


def win_rate_record(key: dict[str, str | None], values: npt.NDArray[np.float64],
                    clusters: npt.NDArray[np.object_], counts: dict[str, int], *,
                    test: Test, alpha: float, conf: float, notes: list[str]) -> WinRate:
    """One WinRate (unadjusted) from question-level values and trial counts."""
    label = (f"{key['judge']} / {key['criterion']} / {key['arm']} vs {key['opponent']}"
             + (f" / task {key['task']}" if key["task"] is not None else ""))

    def note(text: str) -> None:
        notes.append(f"win rate {label}: {text}.")

    out = paired_outcome(values, clusters, null=0.5, bounds=(0.0, 1.0), test=test, alpha=alpha,
                         conf=conf, fallback_kg=True, note=note)
    n = int(values.size)
    if out.n_clusters >= 2 and math.isfinite(out.lower):
        sums, sizes = cluster_sums(values, clusters)
        sumsq, _ = cluster_sums(values**2, clusters)
        _, flagged = design_flag_note(sums, sumsq, sizes, what=f"win rate {label}")
        if flagged:
            notes.append(flagged)
    se = float(values.std(ddof=1) / math.sqrt(n)) if n >= 2 else NAN
    return WinRate(
        judge=str(key["judge"]), criterion=str(key["criterion"]), task=key["task"],
        arm=str(key["arm"]), opponent=str(key["opponent"]), win_rate=out.estimate,
        standard_error=se, lower=out.lower, upper=out.upper, n=n, n_wins=counts["wins"],
        n_losses=counts["losses"], n_ties=counts["ties"], n_failed=counts["failed"],
        p_value=out.p_value, p_adjusted=NAN, significant=None, n_clusters=out.n_clusters,
        standard_error_clustered=out.standard_error_clustered,
        interval_method=out.interval_method, test=out.test, statistic=out.statistic, df=out.df,
        normality_p_value=out.normality_p_value)


class _Tested(Protocol):
    @property
    def p_value(self) -> float: ...


R = TypeVar("R", bound=_Tested)


def adjust(records: Sequence[R], groups: Sequence[Hashable], alpha: float) -> list[R]:
    """Holm within each group of records (frozen dataclasses with ``p_value``, ``p_adjusted``
    and ``significant``); `significant` = p_adjusted < alpha, None where p is undefined."""
    p = np.array([r.p_value for r in records], dtype=np.float64)
    adjusted = np.full(p.size, NAN)
    labels = pd.Series(list(groups), dtype=object)
    for _, idx in labels.groupby(labels, sort=False).groups.items():
        positions = np.asarray(idx)
        ok = positions[np.isfinite(p[positions])]
        if ok.size:
            adjusted[ok] = holm_adjust(p[ok])
    return [replace(r, p_adjusted=float(a),  # type: ignore[type-var]
                    significant=None if math.isnan(a) else bool(a < alpha))
            for r, a in zip(records, adjusted, strict=True)]


def aa_deviations(records: Sequence[WinRate]) -> list[AADeviation]:
    """The A/A records (already adjusted within their family) as deviations from 1/2."""
    return [AADeviation(judge=r.judge, criterion=r.criterion, task=r.task, arm=r.arm,
                        deviation=r.win_rate - 0.5, lower=r.lower - 0.5, upper=r.upper - 0.5,
                        n=r.n, p_value=r.p_value, p_adjusted=r.p_adjusted,
                        significant=r.significant)
            for r in records if r.is_aa]
