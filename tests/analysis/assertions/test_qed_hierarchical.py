"""BenchmarkQED's hierarchical files (``qed_hierarchical``) on small hand-worked cases, beside
assay's own summary of the same rows, so each BenchmarkQED rule shows where it counts otherwise.

The side-by-side test (``tests/judge/test_qed_side_by_side.py``) checks the same files against
BenchmarkQED 0.4.0 itself; these values are worked out by hand from its rules.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from assay.analysis.assertions import QedTexts, hierarchical_summary, qed_hierarchical
from assay.analysis.assertions._qed_hierarchical import (
    BY_QUESTION_COLUMNS,
    SUMMARY_COLUMNS,
    TRIAL_COLUMNS,
)


def _row(q: str, aid: str, criterion: str, run: int, score: float, sid: str | None = None) -> dict:
    item = f"{q}#{aid}" + (f"/{sid}" if sid else "")
    attrs = {"question_id": q, "assertion_id": aid, **({"supporting_id": sid} if sid else {})}
    why = " ".join([criterion, aid, *([sid] if sid else []), str(run)])
    return {"cluster": q, "arm": "rag", "judge": "j", "task": "set", "item": item, "criterion": criterion,
            "run": run, "score": score, "reasoning": why,
            "attributes": json.dumps(attrs), "failure_kind": None}


def _texts(records: dict) -> QedTexts:
    return QedTexts(questions={"q1": "Q1", "q2": "Q2"},
                    answers={("rag", "q1"): "ans 1", ("rag", "q2"): "ans 2"}, assertions=records)


STAGED_RECORDS = {
    "q1": ({"statement": "Alpha", "supporting_assertions": [{"id": "sx", "statement": "X"},
                                                             {"id": "sy", "statement": "Y"}]},
           {"statement": "Beta", "supporting_assertions": [{"id": "sx", "statement": "X"},
                                                            {"id": "sz", "statement": "Z"}]}),
    "q2": ({"statement": "Gamma", "supporting_assertions": [{"id": "sw", "statement": "W"}]},),
}


@pytest.fixture
def staged() -> pd.DataFrame:
    """q1: Alpha passes stage 1 (1, 1), Beta does not (1, 0: mean 0.5 is not above 0.5); q2:
    Gamma fails (0, 0). Stage 2 of Alpha: trial 1 X yes, Y no, no discovery; trial 2 X, Y yes,
    discovery."""
    rows = [_row("q1", "a1", "global_assertion", r, 1.0) for r in (1, 2)]
    rows += [_row("q1", "a2", "global_assertion", r, s) for r, s in ((1, 1.0), (2, 0.0))]
    rows += [_row("q2", "a1", "global_assertion", r, 0.0) for r in (1, 2)]
    for run, (x, y, d) in ((1, (1.0, 0.0, 0.0)), (2, (1.0, 1.0, 1.0))):
        rows += [_row("q1", "a1", "supporting_assertion", run, x, "sx"),
                 _row("q1", "a1", "supporting_assertion", run, y, "sy"),
                 _row("q1", "a1", "discovery", run, d)]
    return pd.DataFrame(rows)


def test_staged_per_trial_rows_repeat_the_stage_one_pass_and_list_failed_supports(staged):
    out = qed_hierarchical(staged, mode="staged", texts=_texts(STAGED_RECORDS))
    t = out.trials
    assert list(t.columns) == [*TRIAL_COLUMNS["staged"], "task", "arm", "judge"]
    assert list(zip(t["question"], t["assertion"], t["trial"], strict=True)) == [
        ("Q1", "Alpha", 0), ("Q1", "Alpha", 1), ("Q1", "Beta", 0), ("Q1", "Beta", 1),
        ("Q2", "Gamma", 0), ("Q2", "Gamma", 1)]
    # Beta's trial 1 scored 1, yet both its rows carry the aggregated fail
    assert t["global_passed"].tolist() == [True, True, False, False, False, False]
    assert t["supporting_passed"].tolist()[:2] == [[True, False], [True, True]]
    assert t["supporting_results"].iloc[2] == [
        {"id": "SA1", "passed": False, "reasoning": "Global assertion failed"},
        {"id": "SA2", "passed": False, "reasoning": "Global assertion failed"}]
    assert t["support_total"].tolist() == [2, 2, 2, 2, 1, 1]
    assert t["reasoning"].iloc[3] == "global_assertion a2 2"  # stage 1's reasoning of that trial
    assert t["has_discovery"].tolist() == [False, True, False, False, False, False]


def test_staged_summaries_by_hand(staged):
    out = qed_hierarchical(staged, mode="staged", texts=_texts(STAGED_RECORDS))
    agg = out.aggregated
    assert list(agg.columns) == [*SUMMARY_COLUMNS, "task", "arm", "judge"]
    assert agg["assertion"].tolist() == ["Alpha", "Beta", "Gamma"]
    # Alpha: SA1 2/2 passes, SA2 1/2 does not (not above 0.5): 1 of 2; discovery 1 of 2 votes
    # is no majority. Beta: the repeated fail gives mean 0, and its 2 supports count as failed.
    assert agg["global_score_mean"].tolist() == [1.0, 0.0, 0.0]
    assert agg["global_score"].tolist() == [1, 0, 0]
    assert agg["n_supporting"].tolist() == [2, 2, 1]
    assert agg["n_supporting_passed"].tolist() == [1, 0, 0]
    assert agg["support_level"].tolist() == [0.5, 0.0, 0.0]
    assert agg["has_discovery"].tolist() == [False, False, False]
    assert agg["support_results"].iloc[0][1] == {"id": "SA2", "passed": False, "pass_rate": 0.5,
                                                  "reasoning": "supporting_assertion a1 sy 1"}
    # assay's own counts the stage-1 trials (Beta 0.5) and no support of a global never asked
    own = hierarchical_summary(staged).aggregated
    assert own["global_score_mean"].tolist() == [1.0, 0.5, 0.0]
    assert own["n_supporting"].tolist() == [2, 0, 0]

    by_q = out.by_question
    assert list(by_q.columns) == [*BY_QUESTION_COLUMNS, "task", "arm", "judge"]
    q1 = by_q.iloc[0]
    assert (q1.assertions_passed, q1.assertions_failed, q1.assertions_total) == (1, 1, 2)
    assert (q1.avg_support_level, q1.n_with_support, q1.n_support_only) == (0.25, 1, 1)
    assert q1.pct_with_support == 50.0
    # positional ids: Beta's SA1, SA2 (failed, sorted after Alpha) overwrite Alpha's: 2 unique, 0 passed
    unique = (q1.n_supporting_unique, q1.n_supporting_passed_unique, q1.supporting_pass_rate)
    assert unique == (2.0, 0.0, 0.0)
    own_q1 = hierarchical_summary(staged).by_question.iloc[0]  # real ids: sx passed, sy not
    assert (own_q1.n_supporting_unique, own_q1.n_supporting_passed_unique, own_q1.supporting_pass_rate) == (
        2, 1, 0.5)

    (summary,) = out.eval_summary
    # supporting_pass_rate: Q1 every global's results 1 of 4, Q2 0 of 1 -> mean(0.25, 0) = 0.125
    assert summary == {
        "total_assertions": 3, "passed_assertions": 1, "failed_assertions": 2,
        "global_pass_rate": pytest.approx(1 / 3), "avg_global_pass_rate": 0.25,
        "avg_support_level": 0.125, "supporting_pass_rate": 0.125, "discovery_rate": 0.0,
        "support_level_passed": 0.5, "supporting_pass_rate_passed": 0.5, "discovery_rate_passed": 0.0,
        "discovery_count": 0, "overridden_count": 0, "num_questions": 2,
        "task": "set", "arm": "rag", "judge": "j"}


def test_staged_with_no_global_passing_lists_no_supporting_results(staged):
    failing = staged[staged["criterion"] == "global_assertion"].assign(score=0.0)
    out = qed_hierarchical(failing, mode="staged", texts=_texts(STAGED_RECORDS))
    assert "supporting_assertions" not in out.trials.columns
    assert out.trials["supporting_results"].map(len).tolist() == [0] * 6
    assert out.aggregated["n_supporting"].tolist() == [0, 0, 0]


JOINT_RECORDS = {"q1": ({"statement": "A", "supporting_assertions": [{"id": "s1", "statement": "one"}]},
                        {"statement": "B", "supporting_assertions": [{"id": "s2", "statement": "two"}]})}


def test_joint_positional_ids_merge_the_sa1_of_every_global(tmp_path):
    """One trial: A passes with its support; B passes, its support fails and no discovery, so it
    is overridden to a fail. Both supports are SA1: BenchmarkQED counts one (B's, failed)."""
    rows = [_row("q1", "a1", "global_assertion", 1, 1.0),
            _row("q1", "a1", "supporting_assertion", 1, 1.0, "s1"), _row("q1", "a1", "discovery", 1, 0.0),
            _row("q1", "a2", "global_assertion", 1, 1.0),
            _row("q1", "a2", "supporting_assertion", 1, 0.0, "s2"), _row("q1", "a2", "discovery", 1, 0.0)]
    frame = pd.DataFrame(rows)
    out = qed_hierarchical(frame, mode="joint", texts=_texts(JOINT_RECORDS))
    t = out.trials
    assert list(t.columns) == [*TRIAL_COLUMNS["joint"], "task", "arm", "judge"]
    assert t["answer"].tolist() == ["ans 1", "ans 1"] and t["trial"].tolist() == [0, 0]
    assert t["supporting_assertions"].iloc[1] == [{"id": "s2", "statement": "two"}]
    assert out.aggregated["global_score_overridden"].tolist() == [False, True]
    q1 = out.by_question.iloc[0]
    unique = (q1.n_supporting_unique, q1.n_supporting_passed_unique, q1.supporting_pass_rate)
    assert unique == (1.0, 0.0, 0.0)
    own = hierarchical_summary(frame).by_question.iloc[0]
    assert (own.n_supporting_unique, own.n_supporting_passed_unique, own.supporting_pass_rate) == (2, 1, 0.5)
    # overall: every global's results, 1 of 2 (assay's own pools unique ids: also 1 of 2 here)
    assert out.eval_summary[0]["supporting_pass_rate"] == 0.5
    paths = out.write_csvs(tmp_path)
    assert [p.name for p in paths] == ["hierarchical_assertion_scores.csv",
                                       "hierarchical_assertion_summary.csv",
                                       "hierarchical_summary_by_question.csv", "eval_summary.json"]
    summary = json.loads((tmp_path / "eval_summary.json").read_text(encoding="utf-8"))
    assert "judge" not in summary and summary["overridden_count"] == 1  # one group: BenchmarkQED's dict
    written = pd.read_csv(tmp_path / "hierarchical_assertion_scores.csv")
    assert written["supporting_results"].iloc[0] == "[{'id': 'SA1', 'passed': True, 'reasoning': " \
        "'supporting_assertion a1 s1 1'}]"  # pandas writes a list as its repr, as BenchmarkQED's file has it
