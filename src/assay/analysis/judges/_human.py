"""Judge against human labels: accuracy with a cluster-robust interval, Cohen's kappa, and the
judge's bias (mean judge minus human).

Human labels are the rows whose judge is ``human`` or ``human:<id>`` (DESIGN.md's spelling).
Every other judge of the same criterion is compared with them on the units both scored: the
same item, arm, opponent and position (runs are not matched: a judge's every run is compared
with every human label of the unit, and a unit labelled by several humans is compared with
each). Each comparison belongs to its item's cluster.

* ``accuracy``: the share of comparisons where the judge gives the human's value, for
  categorical scales (binary, ordinal, nominal) and pairwise verdicts (1 / 0.5 / 0); the
  comparisons are averaged within the item, and the items summed within clusters, as the
  scores report does (ratio estimator, logit cluster-robust t with CR2 variance and
  Bell-McCaffrey df; Korn-Graubard's effective-n Clopper-Pearson interval where that is
  undefined). Null for a range or interval scale, where exact equality is not the question.
* ``kappa``: Cohen's kappa of the compared pairs (plain; categories observed), for the same
  scales; it corrects the accuracy for the agreement the two marginals give by chance.
* ``bias``: the mean of judge minus human on the [0, 1] scale (the raw scale for an interval
  criterion), with the cluster-robust (CR2) t interval: positive, the judge is more generous.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from assay.stats.agreement import cohen_kappa

__all__ = ["HumanAgreement", "human_agreement", "human_mask", "is_human"]

_MATCH = ["criterion", "item", "arm", "opponent", "position"]
_CATEGORICAL = {"binary", "ordinal", "nominal"}


@dataclass(frozen=True)
class HumanAgreement:
    """One judge against the human labels of one criterion."""

    criterion: str
    judge: str
    scale: str
    n: int
    """Comparisons (judge rating, human label) on shared units."""
    n_items: int
    n_clusters: int
    n_humans: int
    accuracy: float
    """Share of comparisons where the judge gives the human's value; NaN for range or
    interval scales."""
    accuracy_lower: float
    accuracy_upper: float
    accuracy_method: str
    kappa: float
    """Cohen's kappa of the compared pairs; NaN where accuracy is, or without variation."""
    bias: float
    """Mean judge minus human (on [0, 1], raw for an interval criterion)."""
    bias_lower: float
    bias_upper: float
    bias_method: str
    conf: float


def is_human(judge: Any) -> bool:
    """Whether a judge name marks human labels: ``human`` or ``human:<id>``."""
    text = str(judge)
    return text == "human" or text.startswith("human:")


def human_mask(judges: pd.Series) -> pd.Series:
    """:func:`is_human` of every row of ``judges``, the rule applied once per distinct name
    (a table has a handful of judges and up to millions of rows).

    >>> human_mask(pd.Series(["human", "gpt", "human:ann", "gpt", None])).tolist()
    [True, False, True, False, False]
    """
    humans = [name for name in pd.unique(judges) if is_human(name)]
    return judges.isin(humans)


def human_agreement(frame: pd.DataFrame, scales: dict[str, Any], *, conf: float,
                    notes: list[str]) -> list[HumanAgreement]:
    """Every non-human judge against the human labels of its criterion (module docstring).

    ``frame``: scored reportable rows with ``pair_value`` (the [0, 1] value, the raw score
    where there is none), ``cluster``, ``run`` and the match columns; ``scales``: criterion
    -> its Scale.
    """
    from assay.analysis.scores import _row

    human = human_mask(frame["judge"])
    if not human.any() or human.all():
        return []
    out: list[HumanAgreement] = []
    labels = frame[human]
    for (criterion, judge), rows in frame[~human].groupby(["criterion", "judge"], sort=False):
        mine = labels[labels["criterion"] == criterion]
        if mine.empty:
            continue
        both = rows.merge(mine[[*_MATCH, "judge", "pair_value"]], on=_MATCH,
                          suffixes=("", "_human"))
        if both.empty:
            notes.append(f"judge {judge} shares no unit with the human labels of criterion "
                         f"{criterion}; no comparison.")
            continue
        scale = scales[str(criterion)]
        pairwise = both["opponent"].astype(str).ne("").any()
        categorical = scale.kind in _CATEGORICAL or pairwise
        agree = (np.isclose(both["pair_value"], both["pair_value_human"])).astype(np.float64)
        nan = float("nan")
        if categorical:
            acc = _row(str(criterion), str(judge), "", None, scale.spelling(),
                       both.assign(v=agree), n_failed=0, conf=conf, binary=True, bounded=True)
            kappa = cohen_kappa(both["pair_value"].to_numpy(np.float64),
                                both["pair_value_human"].to_numpy(np.float64)).estimate
            accuracy = (acc.estimate, acc.lower, acc.upper, acc.method)
        else:
            kappa = nan
            accuracy = (nan, nan, nan, "not_categorical")
        diff = both["pair_value"] - both["pair_value_human"]
        bias = _row(str(criterion), str(judge), "", None, scale.spelling(), both.assign(v=diff),
                    n_failed=0, conf=conf, binary=False, bounded=False)
        out.append(HumanAgreement(
            str(criterion), str(judge), scale.spelling(), len(both),
            int(both["item"].nunique()), int(both["cluster"].nunique()),
            int(both["judge_human"].nunique()), *accuracy, float(kappa), bias.estimate,
            bias.lower, bias.upper, bias.method, conf))
    return out
