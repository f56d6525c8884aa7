"""The answer computed without scipy prints what it printed with scipy's t functions.

The default report's paired tests take the t tail and quantile from
:mod:`assay.stats._special` (pure Python: importing scipy.special cost a third of a
10,000-row report). Here the same answers are made again with scipy's ``stdtr`` and
``stdtrit`` put back, and every printed figure must be the same, every number within 1e-12.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

import assay.stats.contrasts._paired as contrasts
import assay.stats.significance._paired as significance
from assay.analysis.answer import answer
from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.report.text.answer import format_answer
from tests.analysis.pushdown._tables import assert_same
from tests.cli.test_answer_first import _table as new_users_table


def _boundaries() -> pd.DataFrame:
    """5 systems x 40 questions x 10 runs of 0/1: means on rounding boundaries (k/400)."""
    rng = np.random.default_rng(11)
    rows = [{"item": f"q{q}", "cluster": f"t{q % 8}", "arm": f"arm{a}", "run": run,
             "judge": "j", "criterion": "correct", "reportable": True,
             "score": float(rng.random() < 0.6 + 0.02 * a)}
            for q in range(40) for a in range(5) for run in range(1, 11)]
    return pd.DataFrame(rows)


def _new_users(kind: str) -> pd.DataFrame:
    frame = new_users_table(kind).rename(columns={"question_id": "item", "model": "arm",
                                                  "topic": "cluster"})
    return frame.assign(judge="j", criterion="score", reportable=True,
                        score=frame["score"].astype(float))


TABLES = {
    "boundaries": (_boundaries, {"correct": Scale("binary")}),
    "binary": (lambda: _new_users("binary"), {"score": Scale("binary")}),
    "one to ten": (lambda: _new_users("one_to_ten"), {"score": Scale("interval")}),
}


@pytest.mark.parametrize("name", TABLES)
def test_the_answer_prints_the_same_without_scipy(name, monkeypatch):
    make, scales = TABLES[name]
    judgments = Judgments(make(), scales)
    fast = answer(judgments)
    monkeypatch.setattr(significance, "t_tail", lambda t, df: float(special.stdtr(df, -t)))
    monkeypatch.setattr(contrasts, "t_quantile", lambda q, df: float(special.stdtrit(df, q)))
    slow = answer(judgments)
    assert format_answer(fast) == format_answer(slow)
    assert_same(fast.to_dict(), slow.to_dict(), rel=1e-12)
    assert len(fast.verdicts[0].pairs) >= 3
