"""Per-(system, task, factor) scores and percentile bands, worked by hand."""

from __future__ import annotations

import pytest

from assay.analysis.systems import factor_breakdown
from tests.analysis.judges.conftest import make_table


def test_cells_and_bands_by_hand() -> None:
    rows = []
    for k, (x, y) in enumerate([(0.0, 1.0), (0.5, 0.5), (1.0, 1.0), (0.5, 0.0)]):
        for criterion, score in (("clarity", x), ("accuracy", y)):
            rows.append({"item": f"i{k}", "cluster": f"c{k}", "arm": "A", "task": "t",
                         "criterion": criterion, "score": score})
    report = factor_breakdown(make_table(rows, {"clarity": "range:0,1", "accuracy": "range:0,1"}))
    cells = {(c.task, c.criterion): c for c in report.cells}
    assert cells[("t", "clarity")].estimate == pytest.approx(0.5)
    assert cells[("t", "accuracy")].estimate == pytest.approx(0.625)
    assert cells[("t", "clarity")].n == 4
    # item scores (mean of the two factors): 0.5, 0.5, 1.0, 0.25; sorted .25 .5 .5 1
    # type 7: p10 at h = 0.3 -> 0.25 + 0.3 * 0.25 = 0.325; p75 at h = 2.25 -> 0.5 + 0.25 * 0.5
    band = report.bands[0]
    assert (band.p10, band.p25, band.p50, band.p75, band.p90) == pytest.approx(
        (0.325, 0.4375, 0.5, 0.625, 0.85))
