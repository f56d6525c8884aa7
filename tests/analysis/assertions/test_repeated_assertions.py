"""A statement repeated within a question is one assertion (BenchmarkQED's
``groupby(["question", "assertion"])`` in ``evaluate_rag_method``), its trials pooled, and the
merge is counted in a note."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from assay.analysis.assertions import assertion_summary


def rows() -> pd.DataFrame:
    # one question, statements A (id a1), B (a2), A again (a3); two trials each:
    # a1 passes both, a3 fails both, a2 passes one
    scores = {"a1": [1.0, 1.0], "a2": [1.0, 0.0], "a3": [0.0, 0.0]}
    statement = {"a1": "A", "a2": "B", "a3": "A"}
    return pd.DataFrame([
        {"item": f"q1#{a}", "cluster": "q1", "arm": "rag", "run": run, "judge": "j",
         "criterion": "assertion", "score": s, "task": "s",
         "attributes": json.dumps({"question_id": "q1", "assertion_id": a, "statement": statement[a]})}
        for a, values in scores.items() for run, s in enumerate(values, start=1)])


def test_a_repeated_statement_is_one_assertion_with_pooled_trials():
    # by hand, as BenchmarkQED: A pools [1, 1, 0, 0], mean 0.5, not above 0.5: fail; B has
    # [1, 0], mean 0.5: fail. Two assertions, none passed (three, one passed, if counted twice)
    summary = assertion_summary(rows(), pass_threshold=0.5)
    by = summary.by_assertion.set_index("assertion")
    assert sorted(by.index) == ["A", "B"]
    assert by.loc["A", "score_mean"] == 0.5 and by.loc["A", "n_trials"] == 4
    assert by.loc["A", "assertion_id"] == "a1"
    overall = summary.overall.iloc[0]
    assert (int(overall["total_assertions"]), int(overall["passed_assertions"])) == (2, 0)
    assert summary.notes == ("j: 1 repeated assertion(s) within a question merged into one (trials "
                             "pooled, as BenchmarkQED groups by question and statement)",)


def test_the_same_statement_in_two_questions_stays_two():
    frame = rows()
    other = frame[frame["item"] == "q1#a1"].assign(
        item="q2#a1", cluster="q2",
        attributes=json.dumps({"question_id": "q2", "assertion_id": "a1", "statement": "A"}))
    summary = assertion_summary(pd.concat([frame, other]), pass_threshold=0.5)
    assert int(summary.overall["total_assertions"].iloc[0]) == 3


def test_the_merge_reaches_the_significance_notes():
    from assay.analysis.assertions import assertion_significance

    frame = pd.concat([rows(), rows().assign(arm="other")])
    result = assertion_significance(frame, n_resamples=0)
    assert any("repeated assertion(s) within a question merged" in n for n in result.notes)


def test_two_arms_with_normal_differences_take_the_paired_t_test():
    # BenchmarkQED's _compare_two_groups_paired: Shapiro-Wilk on the per-question differences,
    # p > alpha -> scipy's ttest_rel (oracle: scipy on the same per-question pass rates)
    import numpy as np
    from scipy import stats

    from assay.analysis.winrates import assertion_comparisons

    a = np.array([0.75, 0.5, 1.0, 0.25, 0.75, 0.5, 1.0, 0.5])
    b = np.array([0.5, 0.5, 0.75, 0.25, 0.25, 0.25, 0.75, 0.5])
    assert stats.shapiro(a - b).pvalue > 0.05
    table = pd.DataFrame({"question": [f"q{i}" for i in range(8)] * 2, "arm": ["a"] * 8 + ["b"] * 8,
                          "pass_rate": np.concatenate([a, b])})
    (pair,) = assertion_comparisons(table, n_resamples=0).pairs
    want = stats.ttest_rel(a, b)
    assert pair.test == "paired_t"
    assert pair.wilcoxon_statistic == want.statistic and pair.wilcoxon_p_value == want.pvalue


def test_passed_metrics_of_the_hierarchical_summary_by_hand():
    # BenchmarkQED's *_passed metrics: over the passed globals only, per question then averaged.
    # q1: g1 passes with 2 supporting (1 passed), no discovery; g2 fails.
    # q2: g1 passes with 1 supporting (1 passed) and discovery.
    # support_level_passed = mean(0.5, 1.0) = 0.75; supporting_pass_rate_passed =
    # mean(1/2, 1/1) = 0.75; discovery_rate_passed = mean(0, 1) = 0.5
    from assay.analysis.assertions import hierarchical_summary

    base = {"arm": "rag", "judge": "j", "run": 1, "task": "s"}
    rows = []
    for q, g, glob, sups, disc in (("q1", "g1", 1.0, [1.0, 0.0], 0.0), ("q1", "g2", 0.0, [0.0], 0.0),
                                   ("q2", "g1", 1.0, [1.0], 1.0)):
        rows.append({**base, "item": f"{q}#{g}", "cluster": q, "criterion": "global_assertion",
                     "score": glob})
        rows.append({**base, "item": f"{q}#{g}", "cluster": q, "criterion": "discovery", "score": disc})
        for k, s in enumerate(sups):
            rows.append({**base, "item": f"{q}#{g}/s{k}", "cluster": q, "criterion": "supporting_assertion",
                         "score": s, "attributes": json.dumps({"supporting_id": f"s{k}"})})
    overall = hierarchical_summary(pd.DataFrame(rows)).overall.iloc[0]
    assert overall["support_level_passed"] == 0.75
    assert overall["supporting_pass_rate_passed"] == 0.75
    assert overall["discovery_rate_passed"] == 0.5


def test_passed_metrics_are_benchmark_qeds_on_the_same_aggregation():
    # oracle: benchmark_qed's compute_hierarchical_eval_summary on assay's per-global aggregation
    # (each global's supporting results as BenchmarkQED lists them)
    import numpy as np

    from assay.analysis.assertions import hierarchical_summary
    from tests.analysis.winrates._qed_oracle import qed, quietly

    rng = np.random.default_rng(4)
    base = {"arm": "rag", "judge": "j", "run": 1, "task": "s"}
    rows = []
    for q in range(6):
        for g in range(3):
            item = f"q{q}#g{g}"
            rows.append({**base, "item": item, "cluster": f"q{q}", "criterion": "global_assertion",
                         "score": float(rng.random() < 0.7)})
            rows.append({**base, "item": item, "cluster": f"q{q}", "criterion": "discovery",
                         "score": float(rng.random() < 0.4)})
            for k in range(int(rng.integers(1, 4))):
                rows.append({**base, "item": f"{item}/s{k}", "cluster": f"q{q}",
                             "criterion": "supporting_assertion", "score": float(rng.random() < 0.6),
                             "attributes": json.dumps({"supporting_id": f"g{g}s{k}"})})
    summary = hierarchical_summary(pd.DataFrame(rows))
    agg = summary.aggregated.assign(support_results=[
        [{"passed": True}] * int(p) + [{"passed": False}] * int(n - p)
        for n, p in zip(summary.aggregated["n_supporting"], summary.aggregated["n_supporting_passed"],
                        strict=True)])
    want = quietly(qed("autoe.assertion.aggregation").compute_hierarchical_eval_summary, agg)
    got = summary.overall.iloc[0]
    for name in ("support_level_passed", "supporting_pass_rate_passed", "discovery_rate_passed"):
        assert got[name] == pytest.approx(want[name], rel=1e-12), name
