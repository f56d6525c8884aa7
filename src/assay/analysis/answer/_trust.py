"""What says whether to trust the judges, and what the evaluation cost, where the data hold it.

* failures: per judge, the judgments without a score (a count, no model);
* agreement between judges: per criterion two or more judges scored on shared units, the
  agreement report's ICC(2,1) with its interval (Krippendorff's alpha where the design is
  incomplete) (:func:`assay.analysis.judges.judge_agreement`);
* agreement with humans: each judge against the human labels of its criterion (judge
  ``human`` or ``human:<id>``): accuracy with its cluster-robust interval, or the mean bias
  for a numeric scale (the same report);
* position: the share of verdicts that change when the two answers swap places, per judge
  and criterion of counterbalanced pairwise trials (the win-rate report's flip rates);
* cost: the judges' spend from the run store's calls and the systems' own ``usd``
  (:func:`assay.analysis.cost.cost_summary`).

Each is computed by the analysis that owns it; this module only picks the numbers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from assay.analysis.answer._result import Spend, TrustCheck
from assay.data.table import Judgments
from assay.errors import AssayError

__all__ = ["failure_checks", "judge_checks", "position_checks", "spend"]


def failure_checks(frame: pd.DataFrame) -> list[TrustCheck]:
    """Per judge (humans apart): judgments without a score, out of all its judgments."""
    from assay.analysis.judges._human import is_human

    out = []
    for judge, rows in frame.groupby("judge", sort=False):
        if is_human(judge):
            continue
        failed = int(rows["score"].isna().sum())
        out.append(TrustCheck(check="failures", judge=str(judge), criterion=None,
                              statistic="failure rate", estimate=failed / len(rows),
                              lower=math.nan, upper=math.nan, count=failed, n=len(rows)))
    return out


def judge_checks(judgments: Judgments, *, conf: float) -> list[TrustCheck]:
    """Agreement between judges and with humans, when a criterion has two or more judges."""
    frame = judgments.frame
    judges = frame.groupby("criterion", sort=False)["judge"].nunique()
    if not (judges >= 2).any():
        return []
    from assay.analysis.judges import judge_agreement

    report = judge_agreement(judgments, conf=conf)
    out = []
    for a in report.agreement:
        if a.task is not None:
            continue
        use_icc = math.isfinite(a.icc)
        alpha = (a.krippendorff_alpha_nominal if a.scale in ("binary",) or
                 a.scale.startswith("nominal") else a.krippendorff_alpha_ordinal
                 if a.scale.startswith("ordinal") else a.krippendorff_alpha_interval)
        if not use_icc and not math.isfinite(alpha):
            continue
        out.append(TrustCheck(
            check="agreement", judge=", ".join(a.judges), criterion=a.criterion,
            statistic="ICC" if use_icc else "Krippendorff's alpha",
            estimate=a.icc if use_icc else alpha,
            lower=a.icc_lower if use_icc else math.nan,
            upper=a.icc_upper if use_icc else math.nan,
            count=a.n_complete_units if use_icc else a.n_units, n=a.n_units))
    for h in report.human:
        accuracy = math.isfinite(h.accuracy)
        out.append(TrustCheck(
            check="humans", judge=h.judge, criterion=h.criterion,
            statistic="accuracy" if accuracy else "bias (judge minus human)",
            estimate=h.accuracy if accuracy else h.bias,
            lower=h.accuracy_lower if accuracy else h.bias_lower,
            upper=h.accuracy_upper if accuracy else h.bias_upper,
            count=h.n_items, n=h.n))
    return out


def position_checks(position: Sequence[Any]) -> list[TrustCheck]:
    """The flip rates of the win-rate report (:class:`~assay.analysis.judges.PositionRecord`)."""
    return [TrustCheck(check="position", judge=p.judge, criterion=p.criterion,
                       statistic="flip rate", estimate=p.flip_rate, lower=p.lower,
                       upper=p.upper, count=p.n_flips, n=p.n)
            for p in position if p.n]


def spend(judgments: Judgments, calls: Sequence[Mapping[str, Any]]) -> Spend | None:
    """The judges' spend and the systems' dollars; None when the data record no cost."""
    from assay.analysis.cost import cost_summary

    try:
        summary = cost_summary(judgments, calls)
    except AssayError:
        return None
    systems = tuple((s.arm, s.usd, s.usd_per_answer) for s in summary.systems
                    if s.usd is not None)
    total = summary.total
    if total is None and not systems:
        return None
    return Spend(judges_usd=None if total is None else total.usd,
                 judges_calls=None if total is None else total.calls, systems=systems)
