"""Degenerate score means (--kind scores) fall back as the benchmark report does, with a note.

Issue 26 (4): a bounded 1-10 criterion with no variance between clusters got NaN bounds and
no word, where the benchmark report falls back to Korn-Graubard.
"""

import pytest
from scipy import stats

from assay.analysis.scores import score_summary
from assay.data.schema import Scale
from assay.data.validate import judgments_from_records


def _table(scores: list[float], scale: str):
    rows = [{"item": f"q{i}", "cluster": f"c{i // 2}", "arm": "a", "criterion": "quality",
             "score": s} for i, s in enumerate(scores)]
    return judgments_from_records(rows, list(range(1, len(rows) + 1)), path="t", sources=["t"],
                                  scales={"quality": Scale.parse(scale)})


def test_bounded_scale_without_cluster_variance_gets_korn_graubard_and_a_note():
    # Four clusters, each with a 4 and an 8 on 1-10: normalised 3/9 and 7/9, every cluster
    # mean 5/9, so V = 0 and the logit t is undefined. Korn-Graubard by hand: n* = N (t_{N-1}
    # / t_{C-1})^2 with N = 8, C = 4 at q = 0.975, Clopper-Pearson on x = r n* of n*.
    summary = score_summary(_table([4, 8] * 4, "range:1,10"))
    [row] = summary.rows
    r = 5 / 9
    q = 0.975
    n_star = 8 * (stats.t.ppf(q, 7) / stats.t.ppf(q, 3)) ** 2
    x = r * n_star
    assert row.estimate == pytest.approx(r)
    assert row.method == "korn_graubard_clopper_pearson"
    assert row.lower == pytest.approx(stats.beta.ppf(1 - q, x, n_star - x + 1), rel=1e-9)
    assert row.upper == pytest.approx(stats.beta.ppf(q, x + 1, n_star - x), rel=1e-9)
    assert any("every cluster has the same mean" in n and "Korn-Graubard" in n
               for n in summary.notes)


def test_bounded_scale_at_its_top_gets_a_one_sided_bound_and_a_note():
    summary = score_summary(_table([10] * 8, "range:1,10"))
    [row] = summary.rows
    assert row.estimate == 1.0 and row.upper == 1.0 and 0.0 < row.lower < 1.0
    assert any("the mean is 1" in n for n in summary.notes)


def test_binary_fallback_is_named_too():
    summary = score_summary(_table([1, 0] * 4, "binary"))
    [row] = summary.rows
    assert row.method == "korn_graubard_clopper_pearson"
    assert any("Korn-Graubard" in n for n in summary.notes)
