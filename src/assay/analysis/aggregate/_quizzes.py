"""Per-quiz breakdowns of the results aggregator: the run-level statistics per quiz.

A quiz is a ``task`` (or, without one, a ``cluster``), as for ``quiz_ids``. For each quiz
and each (criterion, judge) aggregated over runs, the same statistics as the whole run
(:func:`assay.analysis.aggregate._runs.run_statistics`: per-run means over the quiz's
scored rows, their mean, median, standard deviation, range and the percentile bootstrap
over the run means with the report's seed and resamples).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from assay.analysis.aggregate._runs import RunStatistics, run_statistics


@dataclass(frozen=True)
class QuizAggregation(RunStatistics):
    """The run-level statistics of one (quiz, criterion, judge)."""

    quiz: str
    criterion: str
    judge: str
    num_runs: int
    n_scores: int
    arm: str | None = None
    """The system these statistics are of; None for all systems together (aggregated.json's
    per_quiz, in the results aggregator's layout)."""


def per_quiz(scored: pd.DataFrame, quiz_source: str, pairs: list[tuple[str, str]], *,
             n_resamples: int, seed: int, conf: float,
             by_arm: bool = False) -> tuple[QuizAggregation, ...]:
    """One :class:`QuizAggregation` per quiz and (criterion, judge) of ``pairs`` it scored;
    with ``by_arm``, one per quiz, (criterion, judge) and arm instead (each system apart)."""
    out = []
    quizzes = scored[quiz_source].astype(object)
    for quiz in pd.unique(quizzes.dropna()):
        own = scored[quizzes == quiz]
        for criterion, judge in pairs:
            rows = own[(own["criterion"].astype(str) == criterion)
                       & (own["judge"].astype(str) == judge)]
            groups = ([(str(arm), rows[rows["arm"] == arm]) for arm in pd.unique(rows["arm"])]
                      if by_arm else [(None, rows)])
            for arm, group in groups:
                if group.empty:
                    continue
                stats = run_statistics(group, n_resamples=n_resamples, seed=seed, conf=conf)
                out.append(QuizAggregation(**vars(stats), quiz=str(quiz), criterion=criterion,
                                           judge=judge, num_runs=len(stats.runs),
                                           n_scores=len(group), arm=arm))
    return tuple(out)
