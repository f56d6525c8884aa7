"""Win rates of pairwise judgments (BenchmarkQED's AutoE statistics): ``winrates.json``.

``win_rates`` turns the pairwise rows of a judgments table (``opponent`` set; score 1 win,
0.5 tie, 0 loss for ``arm``, or a graded preference in [0, 1]) into a :class:`WinRateReport`:

* a :class:`WinRate` per (judge, criterion, task, arm, opponent), task None for all tasks
  together (per-task records only when the comparison spans two or more tasks): the mean of
  the question-level win rates (counterbalanced trials averaged within the question first),
  AlpacaEval's item standard error, a cluster-robust paired interval over questions (clusters
  from the table's ``cluster``), trial counts, and the paired test of win rate = 1/2 with
  Holm's adjustment over the family of comparisons shown;
* the A/A deviations (an arm against itself) as a family of their own;
* the positional flip rate per (judge, criterion) from the counterbalanced trials (the same
  records as ``judges.json``'s ``position``), and the direction of the flips (towards the
  answer shown first or second) with its paired test, which shows a position bias that the
  flip rate alone can hide;
* for every two judges scoring the same trials: verdict agreement and the paired test of
  their win rates (BenchmarkQED's joint vs separate judging, and its sweep over judge models).

Orientation. Each unordered pair of arms is reported once, read from the side of its first
row in the table (``arm`` = the arm of that row): BenchmarkQED's base method against the other.
The opponent's win rate is 1 - ``win_rate`` (:meth:`WinRate.reversed`), with the same test.
Reporting both sides would put every test in Holm's family twice.

Multiplicity. ``correction="holm"`` adjusts over every record shown (all judges, criteria,
tasks and pairs; A/A records apart); ``"holm-per-group"`` within each (judge, criterion,
task), as BenchmarkQED's ``analyze_criteria`` does within each (question set, criterion). A/A
records test the judge, not the arms, so they form a family of their own (adjusting them
together with the comparisons would make a biased judge harder to see).

Units and counts. ``n`` counts questions (the unit of the rate, the interval and the test);
``n_wins``, ``n_ties``, ``n_losses`` and ``n_failed`` count trials (judgments), as AlpacaEval's
``n_wins``, ``n_draws``, ``n_wins_base`` do; a graded score counts by its side of 1/2. A trial
without a score is failed: counted in ``n_failed`` and left out of the rate (a failed judgment
is not a loss); a question whose every trial failed drops out of ``n``. Per-task records are
given only when a comparison spans two or more tasks (one task would repeat the overall
record and enter Holm's family twice).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay._display import Rendered, render_text, write_files
from assay.analysis.judges import PositionRecord, position_records
from assay.analysis.winrates._assertions import (
    AssertionComparisons,
    AssertionPair,
    FriedmanRecord,
    assertion_comparisons,
)
from assay.analysis.winrates._criteria import (
    CRITERIA_CORRECTIONS,
    CriteriaCorrection,
    CriteriaTest,
    criteria_tests,
)
from assay.analysis.winrates._data import KEYS, oriented_trials, pairwise_rows, question_values
from assay.analysis.winrates._judges import JudgeComparison, judge_comparisons
from assay.analysis.winrates._position import (
    PositionDirection,
    one_order_notes,
    position_directions,
)
from assay.analysis.winrates._stats import (
    CORRECTIONS,
    TESTS,
    AADeviation,
    Correction,
    Test,
    WinRate,
    aa_deviations,
    adjust,
    win_rate_record,
)
from assay.data.table import Judgments
from assay.errors import ConfigError

__all__ = [
    "AADeviation",
    "AssertionComparisons",
    "AssertionPair",
    "CriteriaTest",
    "FriedmanRecord",
    "JudgeComparison",
    "PositionDirection",
    "PositionRecord",
    "WinRate",
    "WinRateReport",
    "assertion_comparisons",
    "win_rates",
]

RECORD_FIELDS = ("judge", "criterion", "task", "arm", "opponent", "win_rate", "standard_error",
                 "lower", "upper", "n", "n_wins", "n_losses", "n_ties", "n_failed", "p_value",
                 "p_adjusted", "significant")
"""The fields of a ``winrates.json`` record DESIGN.md fixes, in order; the rest follow."""


def _plain(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return _plain(value.item())
    return value


def _fields(row: Any, *, drop: tuple[str, ...], prefix: str = "") -> dict[str, Any]:
    return {f"{prefix}{k}": _plain(v) for k, v in asdict(row).items() if k not in drop}


@dataclass(frozen=True, eq=False)
class WinRateReport(Rendered):
    """Win rates, A/A deviations, position flip rates and judge comparisons of pairwise rows."""

    records: list[WinRate]
    """One per (judge, criterion, task, arm, opponent); A/A records included."""
    aa: list[AADeviation]
    """The A/A records as deviations from 1/2."""
    position: list[PositionRecord]
    """Positional flip rate per (judge, criterion), from trials judged in both orders."""
    position_direction: list[PositionDirection]
    """Which way those verdicts moved (towards the answer shown first or second)."""
    judges: list[JudgeComparison]
    """Verdict agreement and paired win-rate tests of every two judges on shared trials."""
    test: str
    correction: str
    alpha: float
    conf: float
    notes: list[str] = field(default_factory=list)
    trials: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    """The oriented trials (one row per judgment) behind the records, for ``win_rates.csv``."""
    criteria: list[CriteriaTest] = field(default_factory=list)
    """BenchmarkQED's tests of the same trials (its ``analyze_criteria``: normality-chosen
    paired t or Wilcoxon test, questions as units, corrected per judge, question set and
    criterion), for ``winrates_sig_tests.csv``."""
    criteria_correction: str = "holm"

    def to_records(self) -> list[dict[str, Any]]:
        """``winrates.json``: a record per (judge, criterion, task, arm, opponent); NaN as None.

        Besides DESIGN.md's fields, each record carries what the text prints beside it:
        ``position`` (the flip rate of its judge and criterion, and the direction of the
        flips; None without trials in both orders) and ``judges`` (agreement with every
        other judge on the trials they share, for the same criterion, arm and opponent).
        """
        position = {(p.judge, p.criterion): _fields(p, drop=("judge", "criterion"))
                    for p in self.position}
        for d in self.position_direction:
            key = (d.judge, d.criterion)
            direction = _fields(d, drop=("judge", "criterion"), prefix="direction_")
            position[key] = {**position.get(key, {}), **direction}
        out = []
        for r in self.records:
            d = asdict(r)
            ordered = {k: d.pop(k) for k in RECORD_FIELDS}
            record = {k: _plain(v) for k, v in {**ordered, **d}.items()}
            record["position"] = position.get((r.judge, r.criterion))
            record["judges"] = [
                _fields(j, drop=("criterion", "arm", "opponent")) for j in self.judges
                if j.criterion == r.criterion and j.arm == r.arm and j.opponent == r.opponent
                and r.judge in (j.judge_a, j.judge_b) and r.task is None]
            out.append(record)
        return out

    def to_json(self, *, indent: int | None = 2) -> str:
        """The text of ``winrates.json`` (the list of records)."""
        return json.dumps(self.to_records(), indent=indent, allow_nan=False)

    def to_dict(self) -> dict[str, Any]:
        """Everything: records, A/A deviations, position, judge comparisons, settings, notes."""
        def plain(rows: list[Any]) -> list[dict[str, Any]]:
            return [{k: _plain(v) for k, v in asdict(r).items()} for r in rows]

        return {"records": self.to_records(), "aa": plain(self.aa),
                "position": plain(self.position),
                "position_direction": plain(self.position_direction), "judges": plain(self.judges),
                "test": self.test, "correction": self.correction, "alpha": self.alpha,
                "conf": self.conf, "notes": list(self.notes)}

    def to_text(self, *, digits: int = 3) -> str:
        """The report as text, rounded to `digits` (the only rounding)."""
        return render_text(self, digits=digits)

    def write_csvs(self, out_dir: str | Path) -> list[Path]:
        """Write BenchmarkQED's ``win_rates.csv`` (one row per trial) and ``winrates_sig_tests.csv``
        (:attr:`criteria`: BenchmarkQED's tests), and assay's ``winrates_cluster_tests.csv`` (one
        row per record) into `out_dir`; return their paths (:mod:`assay.report.files.qed`)."""
        return write_files(self, out_dir)


def _check_options(test: str, alpha: float, correction: str, conf: float,
                   criteria_correction: str = "holm") -> None:
    if criteria_correction not in CRITERIA_CORRECTIONS:
        raise ConfigError(f"criteria_correction must be one of {', '.join(CRITERIA_CORRECTIONS)}; "
                          f"got {criteria_correction!r}")
    if test not in TESTS:
        raise ConfigError(f"test must be one of {', '.join(TESTS)}; got {test!r}")
    if correction not in CORRECTIONS:
        raise ConfigError(f"correction must be one of {', '.join(CORRECTIONS)}; got {correction!r}")
    for name, value in (("alpha", alpha), ("conf", conf)):
        if not (isinstance(value, (int, float)) and 0 < value < 1):
            raise ConfigError(f"{name} must be a number in (0, 1); got {value!r}")


def win_rates(
    judgments: Judgments | pd.DataFrame,
    *,
    test: Test = "cluster_t",
    alpha: float = 0.05,
    correction: Correction = "holm",
    conf: float = 0.95,
    criteria_correction: CriteriaCorrection = "holm",
) -> WinRateReport:
    """Win rates with intervals and Holm-adjusted paired tests, from pairwise judgments.

    Parameters
    ----------
    judgments : Judgments or pandas.DataFrame
        The table; only reportable rows with an ``opponent`` are read. A frame needs ``item``,
        ``arm``, ``opponent`` and ``score``; ``cluster`` defaults to ``item``, ``run`` to 1,
        ``judge`` to ``unspecified``, ``criterion`` to ``score``.
    test : {"cluster_t", "wilcoxon", "auto"}, default "cluster_t"
        Test of win rate = 1/2: the cluster-robust t test of the question-level win rates
        minus 1/2 (CR2, Bell-McCaffrey df; with no variance between clusters, the exact sign-flip
        test); Wilcoxon's signed-rank test of the same differences (questions as
        independent units; zeros dropped, no continuity correction, normal approximation,
        as BenchmarkQED); or BenchmarkQED's choice: Shapiro-Wilk on the question-level win rates,
        the t test when its p-value exceeds `alpha`, else Wilcoxon's (fewer than 3
        questions: Wilcoxon's).
    alpha : float, default 0.05
        Level of ``significant`` (p_adjusted < alpha) and of the normality check.
    correction : {"holm", "holm-per-group"}, default "holm"
        Holm over every record shown, or within each (judge, criterion, task).
    conf : float, default 0.95
        Confidence level of the intervals.
    criteria_correction : {"holm", "bonferroni", "fdr_bh"}, default "holm"
        The correction of BenchmarkQED's tests (:attr:`WinRateReport.criteria`, at level
        `alpha`), within each judge, question set and criterion.

    Returns
    -------
    WinRateReport

    Raises
    ------
    ConfigError
        An unknown option, or `alpha` / `conf` outside (0, 1).
    DesignError
        No pairwise rows, or a pairwise score outside [0, 1].
    """
    _check_options(test, alpha, correction, conf, criteria_correction)
    frame = judgments.frame if isinstance(judgments, Judgments) else judgments
    notes: list[str] = []
    rows = pairwise_rows(frame, notes)
    trials = oriented_trials(rows, notes)
    values = question_values(trials)
    records = _records(trials, values, test=test, alpha=alpha, conf=conf, notes=notes)
    per_group = correction == "holm-per-group"
    groups = [(r.is_aa, r.judge, r.criterion, r.task) if per_group else (r.is_aa,)
              for r in records]
    records = adjust(records, groups, alpha)
    n_family = sum(1 for r in records if not r.is_aa and math.isfinite(r.p_value))
    if not per_group and n_family > 1:
        notes.append(f"Holm's adjustment runs over all {n_family} comparisons shown "
                     "(A/A records form a family of their own).")
    position: list[PositionRecord] = []
    direction: list[PositionDirection] = []
    if rows["position"].isin([1.0, 2.0]).any():
        position = position_records(rows.assign(value=rows["score"], pair_value=rows["score"]),
                                    conf=conf, notes=notes)
        direction = position_directions(trials, test=test, alpha=alpha, conf=conf, notes=notes)
        notes += one_order_notes(trials)
    judges = judge_comparisons(trials, values, test=test, alpha=alpha, conf=conf, notes=notes)
    judges = adjust(judges, [j.criterion if per_group else "" for j in judges], alpha)
    return WinRateReport(records=records, aa=aa_deviations(records), position=position,
                         position_direction=direction, judges=judges, test=test,
                         correction=correction, alpha=float(alpha), conf=float(conf), notes=notes,
                         trials=trials,
                         criteria=criteria_tests(trials, alpha=alpha, correction=criteria_correction),
                         criteria_correction=criteria_correction)


def _records(trials: pd.DataFrame, values: pd.DataFrame, *, test: Test, alpha: float,
             conf: float, notes: list[str]) -> list[WinRate]:
    s = trials["score"]
    flags = pd.DataFrame({"wins": s > 0.5, "losses": s < 0.5, "ties": s == 0.5,
                          "failed": s.isna(), "task": trials["task"]})
    value_groups = dict(iter(values.groupby(KEYS, sort=False)))
    records: list[WinRate] = []
    for key, group in trials.groupby(KEYS, sort=False):
        base = dict(zip(KEYS, map(str, key), strict=True))
        v = value_groups.get(key, values.iloc[0:0])
        f = flags.loc[group.index]
        tasks = [t for t in pd.unique(group["task"]) if isinstance(t, str)]
        scopes: list[str | None] = [None, *tasks] if len(tasks) >= 2 else [None]
        for task in scopes:
            vt = v if task is None else v[v["task"] == task]
            ft = f if task is None else f[f["task"] == task]
            counts = {k: int(ft[k].sum()) for k in ("wins", "losses", "ties", "failed")}
            records.append(win_rate_record(
                {**base, "task": task}, vt["value"].to_numpy(dtype=np.float64),
                vt["cluster"].to_numpy(dtype=object), counts, test=test, alpha=alpha, conf=conf,
                notes=notes))
    # (judge, criterion) blocks in table order, pairs within a block in table order
    block = {k: i for i, k in enumerate(dict.fromkeys((r.judge, r.criterion) for r in records))}
    return sorted(records, key=lambda r: block[(r.judge, r.criterion)])
