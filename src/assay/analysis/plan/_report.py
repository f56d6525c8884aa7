"""``assay plan``: the questions, clusters, runs and trials a comparison (or an interval) needs,
their judge calls and cost, and the trade-offs between more questions, more runs and more
trials.

The ingredients come from a pilot table (:func:`~assay.analysis.plan._pilot.pilot_components`)
or from stated assumptions (a score's SD or a binary rate, the correlation between the two
systems' scores, or a win rate and its tie rate; the ICC, the within-question share, the run
SD); any stated assumption replaces the pilot's estimate of it. The sizes are those of
:mod:`assay.stats.power`: the t test on C - 1 degrees of freedom (Satterthwaite's with a run
shift), the test the reports run on a paired difference, and the win-rate report's test of
win rate = 1/2 (the CR2 cluster t of the question-level win rates minus 1/2): a win rate is
the one-sample mean of the questions' counterbalanced preferences, planned with the same
design variance.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from assay._display import Rendered
from assay.analysis.composite import clean_record
from assay.analysis.plan._pilot import (
    PilotEstimate,
    pilot_call_cost,
    pilot_components,
    pilot_estimand,
)
from assay.stats.power import (
    DesignSize,
    VarianceComponents,
    paired_variance,
    preference_variance,
    size_for_difference,
    size_for_width,
    variance_components,
)

if TYPE_CHECKING:
    from assay.data.table import Judgments

__all__ = ["EvaluationPlan", "PlanRow", "plan_evaluation"]

Estimand = Literal["difference", "mean", "win_rate"]
ESTIMANDS = ("difference", "mean", "win_rate")

TRADE_OFFS: tuple[tuple[int, int], ...] = ((1, 1), (2, 1), (5, 1), (10, 1), (1, 2), (1, 5),
                                           (1, 10))
"""(runs, trials) of the trade-off rows besides the chosen design."""


@dataclass(frozen=True)
class PlanRow:
    """One design: its counts, what it reaches, its calls and cost."""

    label: str
    """``chosen`` (the runs and trials asked for), ``questions`` (1 run, 1 trial: only more
    questions), ``runs`` or ``trials`` (more of those, fewer questions)."""
    questions: int
    clusters: int
    runs: int
    trials: int
    judge_calls: float
    """questions x scores per trial x runs x trials x calls per score (scores per trial: 2
    arms for a difference, 1 for a mean, the 2 orders of a counterbalanced judgment for a win
    rate)."""
    usd: float | None
    """judge_calls x USD per call; None without a price."""
    power: float
    """Planned power at the difference (NaN for a width target)."""
    width: float
    """Expected full width of the interval."""
    standard_error: float
    df: float
    reachable: bool
    """False when no number of questions reaches the target with these runs (the run shift
    alone is too large): the counts are then meaningless and the row says so."""


@dataclass(frozen=True)
class EvaluationPlan(Rendered):
    """What an evaluation needs; ``rows[0]`` is the chosen design, the others its trade-offs."""

    difference: float | None
    """The difference to detect (for a win rate: its distance from 1/2); None for a width
    target."""
    width: float | None
    power: float
    conf: float
    estimand: Estimand
    components: VarianceComponents
    """The variance of one score (one question, run and trial) split by its sources."""
    cluster_size: float
    size_cv: float
    calls_per_score: float
    usd_per_call: float | None
    method: str
    rows: tuple[PlanRow, ...]
    pilot: PilotEstimate | None
    notes: tuple[str, ...]

    @property
    def target(self) -> Literal["difference", "width"]:
        """``difference`` (a difference to detect) or ``width`` (an interval's width)."""
        return "difference" if self.difference is not None else "width"

    @property
    def source(self) -> Literal["pilot", "assumptions"]:
        """``pilot`` (a pilot table) or ``assumptions`` (stated ones only)."""
        return "pilot" if self.pilot is not None else "assumptions"

    @property
    def arms_scored(self) -> int:
        """Arms judged on every question (2 for a difference or a win rate)."""
        return 1 if self.estimand == "mean" else 2

    @property
    def scores_per_trial(self) -> int:
        """Table rows a question costs per run and trial: one per arm (a difference, a mean),
        or one per order of a counterbalanced pairwise judgment (a win rate: 2)."""
        return 1 if self.estimand == "mean" else 2

    @property
    def chosen(self) -> PlanRow:
        return self.rows[0]

    @property
    def cheapest(self) -> PlanRow | None:
        """The reachable row with the fewest judge calls."""
        rows = [r for r in self.rows if r.reachable]
        return min(rows, key=lambda r: r.judge_calls) if rows else None

    def to_dict(self) -> dict[str, Any]:
        """``plan.json``: numbers as numbers, NaN as null."""
        pilot = None
        if self.pilot is not None:
            pilot = {k: v for k, v in asdict(self.pilot).items()
                     if k not in ("components", "notes")}  # its notes are the plan's
        cheapest = self.cheapest
        return clean_record({
            "target": self.target, "difference": self.difference, "width": self.width,
            "power": self.power, "conf": self.conf, "estimand": self.estimand,
            "source": self.source, "components": asdict(self.components),
            "cluster_size": self.cluster_size, "size_cv": self.size_cv,
            "arms_scored": self.arms_scored, "scores_per_trial": self.scores_per_trial,
            "calls_per_score": self.calls_per_score,
            "usd_per_call": self.usd_per_call, "method": self.method,
            "rows": [asdict(r) for r in self.rows],
            "cheapest": None if cheapest is None else cheapest.label
            + f" (runs {cheapest.runs}, trials {cheapest.trials})",
            "pilot": pilot, "notes": list(self.notes)})

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)


def _check(value: float | None, name: str, *, low: float = 0.0, high: float = math.inf,
           open_low: bool = False) -> float | None:
    if value is None:
        return None
    v = float(value)
    if not (math.isfinite(v) and (v > low if open_low else v >= low) and v <= high):
        raise ValueError(f"{name} must be {'>' if open_low else '>='} {low:g}"
                         + (f" and <= {high:g}" if math.isfinite(high) else "")
                         + f", got {value!r}")
    return v


def _assumed_preference(*, sd: float | None, p: float | None, win_rate: float | None,
                        tie_rate: float | None, difference: float | None,
                        correlation: float | None, notes: list[str]) -> float:
    """The variance of one counterbalanced preference from the stated assumptions."""
    if p is not None or correlation is not None:
        raise ValueError("p and correlation describe pointwise scores: for a win rate give "
                         "win_rate (and tie_rate), or sd")
    if sd is not None:
        if win_rate is not None or tie_rate is not None:
            raise ValueError("give sd (of a graded preference) or win_rate and tie_rate, not "
                             "both")
        return float(sd) ** 2
    if win_rate is None:
        win_rate = 0.5 + (difference or 0.0)
        notes.append(f"no win rate given: its variance is taken at {win_rate:g}"
                     + (" (1/2 + the difference, the alternative)." if difference is not None
                        else " (1/2, the largest variance)."))
    if tie_rate is None:
        notes.append("no tie rate given: taken as 0 (ties lower the variance, so the plan errs "
                     "towards more questions).")
    variance = preference_variance(win_rate, tie_rate=tie_rate or 0.0)
    notes.append(f"the variance of one counterbalanced judgment is taken as that of one verdict, "
                 f"P (1 - P) - ties / 4 = {variance:.4g}: an upper bound (a judge whose two "
                 "orders disagree, or a position bias, averages some of it away); a pilot "
                 "estimates it.")
    return variance


def _assumed(*, estimand: str, sd: float | None, p: float | None, difference: float | None,
             correlation: float | None, notes: list[str]) -> float:
    """The variance of one score (or paired difference) from the stated assumptions."""
    if (sd is None) == (p is None):
        raise ValueError("without a pilot table, give exactly one of sd (a scored outcome) and "
                         "p (a binary one)")
    if p is None:
        var_a = var_b = float(sd or 0.0) ** 2
    else:
        other = min(max(p + (difference or 0.0), 0.0), 1.0)
        var_a, var_b = p * (1.0 - p), other * (1.0 - other)
    if estimand == "mean":
        return var_a
    if correlation is None:
        notes.append("no correlation between the systems' scores given: taken as 0. Systems "
                     "scored on the same questions are usually positively correlated, which "
                     "would make a paired comparison need fewer questions.")
    return paired_variance(var_a, var_b, correlation=correlation or 0.0)


def _override(base: VarianceComponents, *, icc: float | None, within_share: float | None,
              run_sd: float | None) -> VarianceComponents:
    total = base.total
    cluster = base.cluster if icc is None else icc * total
    within = base.within if within_share is None else within_share * total
    if cluster + within > total * (1 + 1e-12):
        raise ValueError(f"icc and within_share leave no between-question variance "
                         f"({cluster:g} + {within:g} > {total:g})")
    return VarianceComponents(cluster=cluster, question=max(total - cluster - within, 0.0),
                              within=within, run=base.run if run_sd is None else run_sd**2)


def plan_evaluation(
    judgments: Judgments | None = None, *,
    difference: float | None = None, width: float | None = None, power: float = 0.8,
    conf: float = 0.95, estimand: Estimand | None = None,
    arms: Sequence[str] | None = None, judge: str | None = None, criterion: str | None = None,
    sd: float | None = None, p: float | None = None, correlation: float | None = None,
    win_rate: float | None = None, tie_rate: float | None = None,
    icc: float | None = None, within_share: float | None = None, run_sd: float | None = None,
    cluster_size: float | None = None, size_cv: float | None = None, runs: int = 1,
    trials: int = 1, calls: Sequence[Mapping[str, Any]] = (), usd_per_call: float | None = None,
    calls_per_score: float | None = None, method: Literal["t", "normal"] = "t",
    pilot: PilotEstimate | None = None,
) -> EvaluationPlan:
    """Plan an evaluation: the questions, clusters, runs and trials that reach a target.

    Parameters
    ----------
    judgments : Judgments, optional
        A pilot table; without it the ingredients are the stated assumptions.
    difference, width : float
        Exactly one: the difference to detect (two-sided test at level 1 - conf with
        `power`; for a win rate, its distance from 1/2), or the full width of the interval
        at `conf`.
    power, conf : float
        Default 0.8 and 0.95.
    estimand : {"difference", "mean", "win_rate"}, optional
        Two systems' paired difference, one system's mean, or the win rate of one system
        against another from counterbalanced pairwise judgments (tested against 1/2 as the
        win-rate report tests it). Default: the win rate for a pilot whose (judge, criterion)
        has only pairwise rows, or without a pilot when `win_rate` or `tie_rate` is given;
        else the difference.
    arms, judge, criterion
        Which arms (for a win rate, the arm and its opponent) and which (judge, criterion)
        of the pilot to plan for.
    sd, p, correlation, icc, within_share, run_sd
        Stated assumptions: a score's SD (scored) or mean (binary), the correlation between
        the two systems' question scores, the ICC of single scores, the share of a score's
        variance that is within-question (trial) noise, and the SD of a run's shift. With a
        pilot each replaces the pilot's estimate (sd and p are the pilot's, not options).
    win_rate, tie_rate
        Stated assumptions of a win rate without a pilot: the win rate P its variance is
        taken at (default 1/2 + difference, or 1/2 for a width) and the share of ties t
        (default 0): the variance of one counterbalanced judgment is taken as
        :func:`assay.stats.power.preference_variance`, P (1 - P) - t / 4, an upper bound.
        `sd` instead states a graded preference's SD.
    cluster_size, size_cv
        Mean questions per cluster and the coefficient of variation of cluster sizes
        (default the pilot's, else 1 and 0).
    runs, trials
        The chosen design's runs and trials per question and run (for a win rate a trial is
        a counterbalanced judgment: both orders, 2 rows).
    calls, usd_per_call, calls_per_score
        The pilot's run-store call records (:func:`assay.data.run_store.judge_calls`), or a
        stated USD per judge call and calls per score (default the pilot's, else 1).
    method : {"t", "normal"}
        The t test assay runs (default) or the normal approximation.
    pilot : PilotEstimate, optional
        ``pilot_components(judgments, arms=arms, estimand=estimand, judge=judge,
        criterion=criterion)`` when the caller has read it already (``assay plan`` reads it to
        price a call by the pilot's tokens); default read here.

    Returns
    -------
    EvaluationPlan

    Raises
    ------
    ValueError
        Both or neither targets, a bad number, or assumptions that contradict each other.
    DesignError
        A pilot that cannot be read for the estimand (see ``pilot_components``).

    Examples
    --------
    Two binary systems near 0.7, correlated 0.5, to detect 0.05 in clusters of 5 at ICC 0.1:

    >>> plan = plan_evaluation(difference=0.05, p=0.7, correlation=0.5, icc=0.1,
    ...                        cluster_size=5)
    >>> plan.chosen.questions, plan.chosen.clusters
    (885, 177)

    A win rate of 0.6 against the baseline with 20% ties, under the normal: variance
    0.24 - 0.05 = 0.19, n = 7.848879 x 0.19 / 0.1^2 = 149.1, 150 questions, 300 judge calls
    (both orders of each):

    >>> plan = plan_evaluation(difference=0.1, tie_rate=0.2, method="normal")
    >>> plan.estimand, plan.chosen.questions, plan.chosen.judge_calls
    ('win_rate', 150, 300.0)
    """
    notes: list[str] = []
    if (difference is None) == (width is None):
        raise ValueError("give exactly one target: difference or width")
    if difference is not None and not (math.isfinite(difference) and difference != 0.0):
        raise ValueError(f"difference must be non-zero and finite, got {difference!r}")
    _check(width, "width", open_low=True)
    for name, value in (("power", power), ("conf", conf)):
        _check(value, name, open_low=True, high=1.0 - 1e-12)
    if estimand is not None and estimand not in ESTIMANDS:
        raise ValueError(f"estimand must be 'difference', 'mean' or 'win_rate', got "
                         f"{estimand!r}")
    _check(sd, "sd")
    _check(p, "p", high=1.0)
    _check(correlation, "correlation", low=-1.0, high=1.0)
    _check(win_rate, "win_rate", high=1.0)
    _check(tie_rate, "tie_rate", high=1.0)
    _check(icc, "icc", high=1.0)
    _check(within_share, "within_share", high=1.0)
    _check(run_sd, "run_sd")
    _check(cluster_size, "cluster_size", low=1.0)
    _check(size_cv, "size_cv")
    _check(usd_per_call, "usd_per_call")
    _check(calls_per_score, "calls_per_score", open_low=True)
    if int(runs) < 1 or int(trials) < 1:
        raise ValueError(f"runs and trials must be at least 1, got {runs}, {trials}")
    if estimand is None:
        estimand = (pilot_estimand(judgments, judge=judge, criterion=criterion)
                    if judgments is not None else
                    "win_rate" if win_rate is not None or tie_rate is not None
                    else "difference")  # type: ignore[assignment]
    if estimand == "win_rate" and difference is not None and not abs(difference) < 0.5:
        raise ValueError(f"difference must be below 1/2 in size for a win rate (its distance "
                         f"from 1/2), got {difference!r}")
    if judgments is not None:
        if any(v is not None for v in (sd, p, correlation, win_rate, tie_rate)):
            raise ValueError("sd, p, correlation, win_rate and tie_rate come from the pilot "
                             "table: leave them out when a table is given")
        if pilot is None:
            pilot = pilot_components(judgments, arms=arms, estimand=estimand, judge=judge,
                                     criterion=criterion)
        notes.extend(pilot.notes)
        base = pilot.components
        m = pilot.cluster_size if cluster_size is None else cluster_size
        cv = pilot.size_cv if size_cv is None else size_cv
        cost = pilot_call_cost(judgments, calls, judge=pilot.judge, criterion=pilot.criterion)
        if cost is not None:
            calls_per_score = cost.calls_per_score if calls_per_score is None else calls_per_score
            usd_per_call = cost.usd_per_call if usd_per_call is None else usd_per_call
    else:
        pilot = None
        if estimand != "win_rate" and (win_rate is not None or tie_rate is not None):
            raise ValueError("win_rate and tie_rate describe pairwise preferences: plan them "
                             "with the estimand win_rate")
        total = (_assumed_preference(sd=sd, p=p, win_rate=win_rate, tie_rate=tie_rate,
                                     difference=difference, correlation=correlation,
                                     notes=notes)
                 if estimand == "win_rate" else
                 _assumed(estimand=estimand, sd=sd, p=p, difference=difference,
                          correlation=correlation, notes=notes))
        base = variance_components(total)
        m = 1.0 if cluster_size is None else cluster_size
        cv = 0.0 if size_cv is None else size_cv
    components = _override(base, icc=icc, within_share=within_share, run_sd=run_sd)
    if not components.total + components.run > 0.0:
        raise ValueError("every score is the same (variance 0): nothing to plan; state an sd "
                         "or p instead of the pilot's")
    scores_per_trial = 1 if estimand == "mean" else 2
    per_score = 1.0 if calls_per_score is None else float(calls_per_score)
    if usd_per_call is None:
        notes.append("no price: give --usd-per-call, a judge config (--config) with prices and "
                     "--tokens-in/--tokens-out, or a pilot run folder whose store priced its "
                     "calls, to see the cost.")

    def row(label: str, r: int, k: int) -> PlanRow:
        kw = dict(cluster_size=m, size_cv=cv, runs=r, trials=k, method=method)
        size: DesignSize = (size_for_difference(components, difference, power=power, conf=conf,
                                                **kw)  # type: ignore[arg-type]
                            if difference is not None else
                            size_for_width(components, width, conf=conf, **kw))  # type: ignore[arg-type]
        calls_total = float(size.questions * scores_per_trial * r * k) * per_score
        return PlanRow(label=label, questions=size.questions, clusters=size.clusters, runs=r,
                       trials=k, judge_calls=calls_total,
                       usd=None if usd_per_call is None else calls_total * usd_per_call,
                       power=size.power, width=size.width, standard_error=size.standard_error,
                       df=size.df, reachable=size.reachable)

    rows = [row("chosen", int(runs), int(trials))]
    for r, k in TRADE_OFFS:
        if (r, k) != (int(runs), int(trials)):
            rows.append(row("questions" if (r, k) == (1, 1) else "runs" if k == 1 else "trials",
                            r, k))
    if not rows[0].reachable:
        notes.append(f"with {runs} run(s) no number of questions reaches the target: a run's "
                     "shift is shared by every question, and only more runs average it away.")
    if estimand == "win_rate":
        notes.append("a trial is one counterbalanced judgment (both orders, 2 rows): assay's "
                     "pairwise judge counts orders in its trials setting, so set it to 2 x the "
                     "trials planned.")
        if components.run > 0.0:
            notes.append("the win-rate report's test averages the runs and counts no run "
                         "shift (the CR2 t over questions); the plan's power, with the run "
                         "shift, is that of a test that does count it.")
    if (components.within > 0.0 and pilot is not None and pilot.n_runs > 1
            and pilot.replicates == "runs"):
        notes.append("the trials rows credit a trial with all the within-question variance the "
                     "pilot's runs show; a trial that re-judges the same answer averages only "
                     "the judge's share of it, so for such trials those rows are optimistic.")
    if components.within == 0.0 and components.run == 0.0:
        notes.append("no within-question variance and no run shift: more runs or trials buy "
                     "nothing, only more questions do.")
    return EvaluationPlan(
        difference=None if difference is None else float(difference),
        width=None if width is None else float(width), power=float(power), conf=float(conf),
        estimand=estimand, components=components, cluster_size=float(m), size_cv=float(cv),
        calls_per_score=per_score, usd_per_call=usd_per_call,
        method="t (C - 1 df; Satterthwaite with a run shift)" if method == "t" else "normal",
        rows=tuple(rows), pilot=pilot, notes=tuple(notes))
