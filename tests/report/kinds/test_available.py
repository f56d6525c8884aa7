"""The answer's "also available" line comes from the table's facts: they must agree with every
report's own support check, on tables that pass and fail each one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assay.data.schema import Scale
from assay.data.table import Judgments
from assay.report.kinds import REPORTS
from assay.report.kinds._available import supported, table_facts


def _checked(judgments: Judgments) -> tuple[str, ...]:
    others = [k for k in REPORTS if k.name != "answer" and not k.opt_in]
    return tuple(k.name for k in others if k.supports(judgments) is None)


def _frame(**extra: object) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    n = 24
    frame = pd.DataFrame({"item": [f"q{i % 6}" for i in range(n)],
                          "cluster": [f"t{i % 3}" for i in range(n)],
                          "arm": ["a", "b"] * (n // 2), "run": 1, "judge": "j",
                          "criterion": "score", "score": rng.integers(0, 2, n).astype(float),
                          "reportable": True})
    for name, value in extra.items():
        frame[name] = value
    return frame


TABLES = {
    "binary": (_frame(), {"score": Scale("binary")}),
    "interval": (_frame(), {"score": Scale("interval")}),
    "two judges": (pd.concat([_frame(), _frame(judge="k")], ignore_index=True),
                   {"score": Scale("range", minimum=0.0, maximum=1.0)}),
    "pairwise": (_frame(opponent="c"), {"score": Scale("range", minimum=0.0, maximum=1.0)}),
    "cost and reference": (_frame(usd=0.01, reference_score=1.0, attributes="{}"),
                           {"score": Scale("binary")}),
    "assertion": (_frame(criterion="assertion"), {"assertion": Scale("binary")}),
    "held back": (_frame(reportable=False), {"score": Scale("binary")}),
    "human labels": (pd.concat([_frame(), _frame(judge="human:1").iloc[:8]], ignore_index=True),
                     {"score": Scale("binary")}),
    # humans on one criterion, the judge on another only: no human report
    "human labels on another criterion": (
        pd.concat([_frame(), _frame(judge="human:1", criterion="other").iloc[:8]],
                  ignore_index=True), {"score": Scale("binary"), "other": Scale("binary")}),
    # human preferences beside a judge's pairwise verdicts: the human win rates
    "human preferences": (
        pd.concat([_frame(opponent="c"), _frame(opponent="c", judge="human").iloc[:8]],
                  ignore_index=True), {"score": Scale("range", minimum=0.0, maximum=1.0)}),
    # human preferences beside pointwise scores of the criterion only: none
    "human preferences, pointwise judge": (
        pd.concat([_frame(), _frame(opponent="c", judge="human").iloc[:8]],
                  ignore_index=True), {"score": Scale("range", minimum=0.0, maximum=1.0)}),
}


@pytest.mark.parametrize("name", TABLES)
def test_the_facts_name_the_reports_the_support_checks_pass(name: str) -> None:
    frame, scales = TABLES[name]
    judgments = Judgments(frame, scales)
    others = [k for k in REPORTS if k.name != "answer" and not k.opt_in]
    assert supported(others, table_facts(judgments)) == _checked(judgments)


def test_the_demo_table_too(demo_table: Judgments) -> None:
    others = [k for k in REPORTS if k.name != "answer" and not k.opt_in]
    assert supported(others, table_facts(demo_table)) == _checked(demo_table)
