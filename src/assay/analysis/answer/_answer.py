"""``answer(judgments)``: the default of ``assay report``, which system is better and by how much.

The answer puts first what a reader of an evaluation asks: under each judge and criterion,
the systems ranked with their estimate and interval in the data's own units, and every
pair of systems with its paired difference, interval and multiplicity-adjusted p-value
(:mod:`assay.analysis.answer._verdicts`); then what says whether to trust the judges and
what it cost (:mod:`assay.analysis.answer._trust`). It pools no systems together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from assay.analysis.answer._result import Answer, TrustCheck, Verdict
from assay.analysis.answer._trust import failure_checks, judge_checks, position_checks, spend
from assay.analysis.answer._verdicts import pairwise_verdicts, pointwise_verdicts
from assay.data.table import Judgments

__all__ = ["answer"]


def answer(judgments: Judgments, *, conf: float = 0.95,
           calls: Sequence[Mapping[str, Any]] = ()) -> Answer:
    """Which system is better, by how much, whether to trust the judges, and the cost.

    Parameters
    ----------
    judgments : Judgments
    conf : float, default 0.95
        Level of every interval, and 1 - conf the level of the adjusted tests.
    calls : sequence of mappings
        The judges' calls of a run store (:func:`assay.data.run_store.judge_calls`), for
        the judges' spend.

    Returns
    -------
    Answer
        A :class:`~assay.analysis.answer.Verdict` per (judge, criterion) of pointwise
        scores and per (judge, criterion) of pairwise judgments; the trust checks the
        data hold; the spend, or None. Rows of the dev or calibration split are left out
        (a note counts them).

    Examples
    --------
    Two systems on four questions in two topics, one run:

    >>> import pandas as pd
    >>> from assay.data.schema import Scale
    >>> frame = pd.DataFrame({"item": ["q1", "q2", "q3", "q4"] * 2,
    ...     "cluster": ["t1", "t1", "t2", "t2"] * 2, "arm": ["a"] * 4 + ["b"] * 4,
    ...     "run": 1, "judge": "j", "criterion": "score",
    ...     "score": [8.0, 6.0, 7.0, 9.0, 5.0, 6.0, 4.0, 7.0], "reportable": True})
    >>> result = answer(Judgments(frame, {"score": Scale("interval")}))
    >>> v = result.verdicts[0]
    >>> [(s.arm, s.estimate) for s in v.systems]
    [('a', 7.5), ('b', 5.5)]
    >>> v.pairs[0].better, v.pairs[0].difference
    ('a', 2.0)
    """
    if not 0.0 < conf < 1.0:
        raise ValueError(f"conf must be in (0, 1), got {conf}")
    notes: list[str] = []
    frame = judgments.frame.assign(value=judgments.normalised_scores())
    held_back = int((~frame["reportable"].astype(bool)).sum())
    if held_back:
        notes.append(f"{held_back} rows of the dev or calibration split are left out.")
        frame = frame[frame["reportable"].astype(bool)]
    pairwise = frame["opponent"].notna() if "opponent" in frame else None
    pointwise = frame if pairwise is None else frame[~pairwise]
    verdicts: list[Verdict] = pointwise_verdicts(judgments, pointwise, conf=conf, notes=notes)
    trust: list[TrustCheck] = failure_checks(frame)
    if pairwise is not None and pairwise.any():
        from assay.analysis.winrates import win_rates

        report = win_rates(judgments, conf=conf, correction="holm-per-group")
        verdicts += pairwise_verdicts(report, conf=conf, notes=notes)
        trust += position_checks(report.position)
    trust += judge_checks(judgments, conf=conf)
    from assay.analysis.answer._humans import human_lines

    humans, humans_note = human_lines(judgments, conf=conf)
    systems = set(frame["arm"].dropna())
    if pairwise is not None:
        systems |= set(frame["opponent"].dropna())
    return Answer(
        verdicts=tuple(verdicts), trust=tuple(trust), spend=spend(judgments, calls),
        n_judgments=len(frame), n_systems=len(systems),
        n_items=int(frame["item"].nunique()), n_clusters=int(frame["cluster"].nunique()),
        n_runs=int(frame["run"].nunique()), n_judges=int(frame["judge"].nunique()),
        conf=conf, read_notes=judgments.read_notes, notes=tuple(dict.fromkeys(notes)),
        humans=humans, humans_note=humans_note)
