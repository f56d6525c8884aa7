"""The pages and text of CoEval's remaining reports, from small hand-made tables (no browser)."""

from __future__ import annotations

import json

from assay.analysis.coverage import sampling_ablation, teacher_report
from assay.analysis.judges import calibration_curves, ensemble_weights
from assay.analysis.systems import factor_breakdown
from assay.report.html import render_html
from tests.analysis.coverage.test_sampling import _table
from tests.analysis.judges.conftest import make_table


def _scored():
    rows = []
    for k in range(6):
        for judge, shift in (("a", 0.0), ("b", 0.05), ("c", -0.4)):
            for arm, base in (("X", 0.8), ("Y", 0.5)):
                rows.append({"item": f"i{k}", "cluster": f"c{k % 3}", "arm": arm, "judge": judge,
                             "task": "t", "teacher": "T" if k < 3 else None,
                             "attributes": json.dumps({"level": "hi" if k % 2 else "lo"}),
                             "score": max(base - 0.1 * (k % 3) + shift, 0.0),
                             "reference_score": 0.1 * k})
    return make_table(rows, {"score": "range:0,1"})


def test_each_new_report_has_a_page_and_a_text(tmp_path):
    table = _scored()
    results = [teacher_report(table), calibration_curves(table, n_bins=3),
               sampling_ablation(_table(), sample_size=4, repeats=3), ensemble_weights(table),
               factor_breakdown(table)]
    paths = {p.name: p for p in render_html(results, tmp_path)}
    expected = {"teachers.html": "(benchmark)", "calibration-curves.html": "diagonal",
                "sampling.html": "stratified", "ensemble.html": "Outlier judges: c",
                "factors.html": "Rubric factor heatmap"}
    for name, text in expected.items():
        assert text in paths[name].read_text(encoding="utf-8"), name
    texts = [str(r) for r in results]
    assert "Teacher report" in texts[0] and "(benchmark)" in texts[0]
    assert "Calibration curves" in texts[1] and "Sampling designs compared" in texts[2]
    assert "Outlier judges: c" in texts[3] and "Percentile bands" in texts[4]
