"""The notebook's tables on hand-made frames (no model), and its errors."""

from __future__ import annotations

import pandas as pd
import pytest

import assay
from assay.errors import InputError


def pairwise_frame(scores: list[float], reasons: str) -> pd.DataFrame:
    """Two questions x one criterion x two trials of base 'a' against 'b'."""
    return pd.DataFrame({
        "score_id": [f"s{i}" for i in range(4)], "question": ["q1", "q1", "q2", "q2"],
        "criteria": "relevance", "a_score": scores, "b_score": [1 - s for s in scores],
        "reasoning": [f"{reasons} {i}" for i in range(4)], "trial": [0, 1, 0, 1],
        "base_name": "a", "other_name": "b", "question_set": "local", "judge": "m/diff"})


def test_joint_vs_separate_and_disagreements_by_hand():
    joint = pairwise_frame([1.0, 1.0, 0.0, 0.5], "joint")
    separate = pairwise_frame([1.0, 0.0, 0.0, 1.0], "separate")
    table = assay.joint_vs_separate(joint, separate)
    assert list(table["criteria"]) == ["relevance", "ALL"]
    row = table.iloc[-1]
    assert row["n_trials"] == 4 and row["agreement_rate"] == 0.5  # trials 1 and 3 agree
    # question-level: joint (1.0, 0.25), separate (0.5, 0.5)
    assert row["joint_mean_wr"] == pytest.approx(0.625) and row["separate_mean_wr"] == pytest.approx(0.5)
    assert row["mean_diff"] == pytest.approx(-0.125) and row["n"] == 2
    shown = assay.disagreements(joint, separate, n=None)
    assert list(shown["trial"]) == [1, 1]
    assert list(shown["joint_verdict"]) == ["a wins", "tie"]
    assert list(shown["separate_verdict"]) == ["b wins", "a wins"]
    assert list(shown["joint_reasoning"]) == ["joint 1", "joint 3"]
    assert list(shown["separate_reasoning"]) == ["separate 1", "separate 3"]
    assert len(assay.disagreements(joint, separate, n=1)) == 1


def test_identical_verdicts_give_p_one():
    frame = pairwise_frame([1.0, 0.0, 0.5, 1.0], "x")
    row = assay.joint_vs_separate(frame, frame).iloc[-1]
    assert row["agreement_rate"] == 1.0 and row["p_value"] == 1.0 and not row["significant"]


def test_reference_summary_by_hand():
    frame = pd.DataFrame({"criteria": ["correctness"] * 3 + ["completeness"], "score": [2, 4, 9, 7],
                          "reference": "gold", "generated": "rag", "question_set": "local", "judge": "m"})
    summary = assay.reference_summary(frame)
    assert list(summary.columns) == ["question_set", "criteria", "reference", "generated", "judge", "mean",
                                     "std"]
    assert list(summary["criteria"]) == ["completeness", "correctness"]  # sorted, as BenchmarkQED's groupby
    # population SD as BenchmarkQED's np.std: deviations 9 + 1 + 16 = 26, sqrt(26 / 3)
    assert summary.iloc[1]["mean"] == 5.0 and summary.iloc[1]["std"] == pytest.approx(2.943920288775949)
    assert summary.iloc[0]["mean"] == 7.0 and summary.iloc[0]["std"] == 0.0  # one score: np.std gives 0


def test_reference_summary_does_not_follow_the_order_judgments_were_answered_in():
    """Judgments are stored as they are answered (concurrently): the summary must not depend on it."""
    frame = pd.DataFrame({"criteria": ["correctness", "completeness"] * 4, "score": [2, 7, 4, 3, 9, 5, 1, 8],
                          "reference": "gold", "generated": ["rag"] * 4 + ["lc"] * 4,
                          "question_set": ["b", "b", "a", "a", "b", "b", "a", "a"], "judge": "m"})
    first = assay.reference_summary(frame)
    assert list(zip(first["question_set"], first["generated"], first["criteria"], strict=True)) == [
        ("a", "lc", "completeness"), ("a", "lc", "correctness"), ("a", "rag", "completeness"),
        ("a", "rag", "correctness"), ("b", "lc", "completeness"), ("b", "lc", "correctness"),
        ("b", "rag", "completeness"), ("b", "rag", "correctness")]
    for seed in range(5):
        shuffled = assay.reference_summary(frame.sample(frac=1, random_state=seed, ignore_index=True))
        pd.testing.assert_frame_equal(shuffled, first)


def test_chunk_coverage_by_k_orders_k_numerically_all_last():
    frame = pd.DataFrame({"judge": "j", "arm": "rag", "task": "local", "k": ["k10", "all", "k5", "k50"],
                          "coverage": [0.6, 0.9, 0.5, 0.8], "strict_coverage": [0.4, 0.7, 0.3, 0.6],
                          "coverage_strength": [0.5, 0.8, 0.4, 0.7], "mean_chunks": [10, 40, 5, 40],
                          "pass_rate": 0.1, "n_questions": 2, "n_assertions": 4})
    table = assay.chunk_coverage_by_k(frame)
    assert list(table["k"]) == ["k5", "k10", "k50", "all"]
    assert list(table.columns) == ["judge", "arm", "task", "k", "coverage", "strict_coverage",
                                   "coverage_strength", "mean_chunks"]
    assert list(table["coverage"]) == [0.5, 0.6, 0.8, 0.9]


def test_a_frame_of_another_kind_is_one_clear_error():
    with pytest.raises(InputError, match=r"^pairwise scores, column 'trial': missing: expected the frame"):
        assay.winrate_summary(pd.DataFrame({"question": ["q"], "criteria": ["c"]}))


def test_an_answers_frame_without_its_column_is_refused_before_anything_is_sent(tmp_path):
    llm = assay.LLM("http://127.0.0.1:9/v1", "m", api_key_env=None, cache="off")
    answers = pd.DataFrame({"question_id": ["q1"], "answer": ["x"]})
    with pytest.raises(InputError, match=r"^answers of 'base', column 'question': missing \(the frame has "
                       r"question_id, answer; name yours with question_id_key"):
        assay.judge_pairwise(answers, answers, llm=llm, store=tmp_path / "nb")
    assert not (tmp_path / "nb" / "judgments.sqlite").exists()
