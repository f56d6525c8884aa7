"""The answer's "What humans would say": when the table holds human labels on a subset of the
items, the prediction-powered estimate of the human metric per system and per pair beside the
judge's own (:func:`assay.analysis.human.human_calibrated`), or why there is none."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.analysis.answer._result import HumanLine

if TYPE_CHECKING:
    import pandas as pd

    from assay.analysis.human import HumanEstimate
    from assay.data.table import Judgments

__all__ = ["human_lines", "human_lines_of_units"]

NO_HUMANS = ("no human labels: rows with judge `human` or `human:<id>` on a random subset "
             "of the items give the human metric (--kind human)")


def human_lines(judgments: Judgments, *, conf: float) -> tuple[tuple[HumanLine, ...], str]:
    """The lines of the block, and a note naming why there are none (or what they rest on)."""
    from assay.analysis.human._pairwise import preference_units
    from assay.analysis.human._report import pointwise_units
    from assay.analysis.judges._human import human_mask

    if not human_mask(judgments.frame["judge"]).any():
        return (), NO_HUMANS
    return human_lines_of_units(pointwise_units(judgments), preference_units(judgments),
                                conf=conf)


def human_lines_of_units(units: pd.DataFrame, preferences: pd.DataFrame, *,
                         conf: float) -> tuple[tuple[HumanLine, ...], str]:
    """:func:`human_lines` of a table holding human labels, from its units (those of
    :func:`~assay.analysis.human._report.human_calibrated_units`): the engine paths send
    them reduced to one row per unit."""
    from assay.analysis.human._report import human_calibrated_units
    from assay.errors import DesignError

    try:  # the report's own support check, so its units are built once
        report = human_calibrated_units(units, preferences, conf=conf)
    except DesignError as error:
        return (), str(error)
    lines = tuple([*(_line("system", r) for r in report.arms),
                   *(_line("pair", r) for r in report.pairs),
                   *(_line("win_rate", r) for r in report.win_rates)])
    if not lines:
        return (), "human labels, but too few on any system for an estimate (--kind human)"
    return lines, ("PPI++ (power-tuned, cluster-robust t): the judge's scores on every "
                   "question corrected by the human labels; valid when the labelled questions "
                   "are a random subset (--kind human has every column)")


def _line(kind: str, r: HumanEstimate) -> HumanLine:
    return HumanLine(kind, r.criterion, r.judge, r.arm, r.opponent,  # type: ignore[arg-type]
                     r.estimate, r.lower, r.upper, r.judge_estimate, r.judge_lower,
                     r.judge_upper, r.n, r.effective_n)
