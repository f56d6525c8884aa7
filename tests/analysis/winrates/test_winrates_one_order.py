"""Win rates judged in one order only say they are confounded with position (issue 26 item 4)."""

from __future__ import annotations

import pandas as pd

from assay.analysis.winrates import win_rates


def _frame(positions: list[int]) -> pd.DataFrame:
    return pd.DataFrame([dict(item=f"q{i}", arm="a", opponent="b", position=p,
                              score=float(i % 3 != 0), judge="j", criterion="pref", run=1)
                         for i, p in enumerate(positions)])


def test_one_order_only_is_confounded_with_position() -> None:
    report = win_rates(_frame([1] * 12))
    confounded = [n for n in report.notes if "confounded with position" in n]
    assert len(confounded) == 1
    assert "Judge j on pref" in confounded[0] and "shown first" in confounded[0]


def test_orders_varied_across_questions_are_not_called_confounded() -> None:
    report = win_rates(_frame([1, 2] * 6))
    assert not any("confounded with position" in n for n in report.notes)
