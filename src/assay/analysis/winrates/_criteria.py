"""BenchmarkQED's per-criterion significance tests (its ``analyze_criteria``), the rows of the
``winrates_sig_tests.csv`` assay writes under BenchmarkQED's name.

For each (judge, question set, criterion, base, other): the question-level mean scores of the
base (mean over the question's scored trials) and of the other (1 - that), the test that
:func:`~assay.stats.significance.normality_gated_paired_test` chooses (paired t test when
both pass Shapiro-Wilk at alpha, else Wilcoxon's signed-rank test, z as scipy reports it),
and the correction (Holm unless set otherwise) within each (judge, question set, criterion),
BenchmarkQED's family. Questions are independent units here (BenchmarkQED's choice); assay's
own tests, cluster-robust and Holm over every comparison shown, are the records of
:class:`~assay.analysis.winrates.WinRateReport` and go to ``winrates_cluster_tests.csv``.
An arm judged against itself (A/A) is left out (BenchmarkQED cannot score it: both score
columns would have one name); a comparison with no scored question too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd

from assay.stats.contrasts import bh_adjust, bonferroni_adjust, holm_adjust
from assay.stats.significance import normality_gated_paired_test

CriteriaCorrection = Literal["holm", "bonferroni", "fdr_bh"]
CRITERIA_CORRECTIONS = ("holm", "bonferroni", "fdr_bh")
_ADJUST = {"holm": holm_adjust, "bonferroni": bonferroni_adjust, "fdr_bh": bh_adjust}


@dataclass(frozen=True)
class CriteriaTest:
    """One row of BenchmarkQED's ``analyze_criteria``."""

    judge: str
    question_set: str | None
    """The task; None when the table has none."""
    criterion: str
    base: str
    other: str
    base_mean: float
    """Mean over questions of the base's question-level mean score."""
    other_mean: float
    shapiro_base: float
    shapiro_other: float
    test: str
    """``paired t-test`` or ``wilcoxon``."""
    statistic: float
    """t, or Wilcoxon's z as scipy reports it (never positive)."""
    p_value: float
    p_adjusted: float
    """Adjusted within (judge, question set, criterion) by ``correction``."""
    n: int
    """Questions."""


def criteria_tests(trials: pd.DataFrame, *, alpha: float = 0.05,
                   correction: CriteriaCorrection = "holm") -> list[CriteriaTest]:
    """BenchmarkQED's tests of the oriented trials of a win-rate report (``arm`` is the base).

    Rows are in the trials' order of (judge, question set, criterion, pair)."""
    if correction not in CRITERIA_CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CRITERIA_CORRECTIONS)}; "
                         f"got {correction!r}")
    scored = trials[trials["score"].notna() & (trials["arm"] != trials["opponent"])]
    scored = scored.assign(question_set=scored["task"].astype(object).where(scored["task"].notna(), ""))
    keys = ["judge", "question_set", "criterion", "arm", "opponent"]
    means = scored.groupby([*keys, "item"], sort=False)["score"].mean()
    out: list[CriteriaTest] = []
    for key, values in means.groupby(level=keys, sort=False):
        judge, task, criterion, arm, opponent = (str(k) for k in key)
        base = values.to_numpy(dtype=np.float64)
        res = normality_gated_paired_test(base, 1.0 - base, alpha=alpha)
        out.append(CriteriaTest(judge=judge, question_set=task or None, criterion=criterion,
                                base=arm, other=opponent, base_mean=res.mean_a,
                                other_mean=res.mean_b, shapiro_base=res.normality_p_a,
                                shapiro_other=res.normality_p_b, test=res.test,
                                statistic=res.statistic, p_value=res.p_value,
                                p_adjusted=math.nan, n=res.n))
    families: dict[tuple[str, str | None, str], list[int]] = {}
    for i, r in enumerate(out):
        families.setdefault((r.judge, r.question_set, r.criterion), []).append(i)
    adjusted = np.full(len(out), math.nan)
    for members in families.values():
        idx = np.array([i for i in members if math.isfinite(out[i].p_value)], dtype=np.int64)
        if idx.size:
            adjusted[idx] = _ADJUST[correction](np.array([out[i].p_value for i in idx]))
    return [replace(r, p_adjusted=float(a)) for r, a in zip(out, adjusted, strict=True)]
