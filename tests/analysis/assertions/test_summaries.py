"""Hand-worked summary tables for assay.analysis.assertions._summaries, plus a plain-Python oracle."""

from __future__ import annotations

import json
import random

import pandas as pd
from numpy.testing import assert_allclose

from assay.analysis.assertions import assertion_summary, chunk_coverage, hierarchical_summary


def _std_rows(scores: dict[tuple[str, str], list[float | None]], arm: str = "rag") -> pd.DataFrame:
    rows = []
    for (q, a), trial_scores in scores.items():
        for run, s in enumerate(trial_scores, start=1):
            rows.append(
                {
                    "item": f"{q}#{a}",
                    "cluster": q,
                    "arm": arm,
                    "run": run,
                    "judge": "j",
                    "criterion": "assertion",
                    "score": s,
                    "failure_kind": None if s is not None else "parse_error",
                    "attributes": json.dumps(
                        {"question_id": q, "assertion_id": a, "rank": int(a[1:]), "statement": a}
                    ),
                }
            )
    return pd.DataFrame(rows)


def test_standard_micro_macro_hand_worked():
    # q1: a1 (1,1) mean 1 pass; a2 (1,0) mean 0.5, not > 0.5: fail; a3 (0,0) fail -> 1/3
    # q2: a1 (1,1) pass; a2 (1, failure) -> mean over scored trials 1: pass -> 2/2
    # q3: a1 (failure, failure) -> unscored, left out; a2 (0,1) fail -> 0/1
    # micro = (1 + 2 + 0) / (3 + 2 + 1) = 0.5; macro = (1/3 + 1 + 0) / 3 = 4/9
    rows = _std_rows(
        {
            ("q1", "a1"): [1, 1],
            ("q1", "a2"): [1, 0],
            ("q1", "a3"): [0, 0],
            ("q2", "a1"): [1, 1],
            ("q2", "a2"): [1, None],
            ("q3", "a1"): [None, None],
            ("q3", "a2"): [0, 1],
        }
    )
    s = assertion_summary(rows, pass_threshold=0.5)
    o = s.overall.iloc[0]
    assert (o.total_assertions, o.passed_assertions, o.failed_assertions, o.num_questions, o.n_unscored) == (
        6,
        3,
        3,
        3,
        1,
    )
    assert_allclose([o.overall_accuracy, o.avg_question_pass_rate], [0.5, 4 / 9])
    q = s.by_question.set_index("question")
    assert q.loc["q1", ["success", "fail"]].tolist() == [1, 2]
    a = s.by_assertion.set_index(["question", "assertion_id"])
    # q1/a2 trials (1, 0): mean 0.5, population SD 0.5
    assert_allclose(a.loc[("q1", "a2"), ["score_mean", "score_std"]].astype(float), [0.5, 0.5])
    assert a.loc[("q2", "a2"), "n_failed"] == 1


def test_standard_top_k_by_rank():
    # top_k = 1 keeps rank 1 (a1) per question: q1 a1 pass, q2 a1 pass, q3 a1 unscored -> 2/2
    rows = _std_rows(
        {
            ("q1", "a2"): [0, 0],
            ("q1", "a1"): [1, 1],
            ("q2", "a1"): [1, 1],
            ("q3", "a1"): [None, None],
            ("q3", "a2"): [1, 1],
        }
    )
    o = assertion_summary(rows, top_k=1).overall.iloc[0]
    assert (o.total_assertions, o.passed_assertions, o.n_unscored) == (2, 2, 1)


def test_standard_matches_plain_python_oracle():
    rng = random.Random(3)
    scores = {
        (f"q{q}", f"a{a}"): [float(rng.random() < 0.6) for _ in range(3)]
        for q in range(12)
        for a in range(1, rng.randint(2, 6))
    }
    o = assertion_summary(_std_rows(scores), pass_threshold=0.5).overall.iloc[0]
    # oracle: plain loops
    per_q: dict[str, list[int]] = {}
    for (q, _), ts in scores.items():
        per_q.setdefault(q, []).append(int(sum(ts) / len(ts) > 0.5))
    micro = sum(sum(v) for v in per_q.values()) / sum(len(v) for v in per_q.values())
    macro = sum(sum(v) / len(v) for v in per_q.values()) / len(per_q)
    assert_allclose([o.overall_accuracy, o.avg_question_pass_rate], [micro, macro])


def _h(item, criterion, run, score, sup=None):
    q = item.split("#")[0]
    attrs = {"question_id": q}
    if sup:
        attrs["supporting_id"] = sup
    return {
        "item": item,
        "cluster": q,
        "arm": "rag",
        "run": run,
        "judge": "j",
        "criterion": criterion,
        "score": score,
        "attributes": json.dumps(attrs),
    }


def test_hierarchical_rule_support_and_discovery_hand_worked():
    rows = []
    # q1#a1: global passes both trials; s1 passes both (rate 1), s2 passes once (0.5, not > 0.5)
    #   -> support_level 1/2, no discovery: stays a pass
    for r in (1, 2):
        rows += [
            _h("q1#a1", "global_assertion", r, 1.0),
            _h("q1#a1/s1", "supporting_assertion", r, 1.0, "s1"),
            _h("q1#a1/s2", "supporting_assertion", r, float(r == 1), "s2"),
            _h("q1#a1", "discovery", r, 0.0),
        ]
    # q1#a2: passes, s3 fails both, discovery both trials (2 > 2/2): support 0 but discovery -> pass
    for r in (1, 2):
        rows += [
            _h("q1#a2", "global_assertion", r, 1.0),
            _h("q1#a2/s3", "supporting_assertion", r, 0.0, "s3"),
            _h("q1#a2", "discovery", r, 1.0),
        ]
    # q2#a1: passes, s4 fails, discovery in 1 of 2 trials (not a majority) -> overridden to fail
    for r in (1, 2):
        rows += [
            _h("q2#a1", "global_assertion", r, 1.0),
            _h("q2#a1/s4", "supporting_assertion", r, 0.0, "s4"),
            _h("q2#a1", "discovery", r, float(r == 1)),
        ]
    # q2#a2: global fails (STAGED: no stage-2 rows): fail, support 0, no discovery, not overridden
    rows += [_h("q2#a2", "global_assertion", r, 0.0) for r in (1, 2)]
    s = hierarchical_summary(pd.DataFrame(rows))
    agg = s.aggregated.set_index(["question", "assertion_id"])
    assert agg["global_score"].to_dict() == {
        ("q1", "a1"): 1,
        ("q1", "a2"): 1,
        ("q2", "a1"): 0,
        ("q2", "a2"): 0,
    }
    assert agg["global_score_overridden"].to_dict() == {
        ("q1", "a1"): False,
        ("q1", "a2"): False,
        ("q2", "a1"): True,
        ("q2", "a2"): False,
    }
    assert_allclose(agg["support_level"].to_numpy(float), [0.5, 0.0, 0.0, 0.0])
    assert agg["has_discovery"].tolist() == [False, True, False, False]
    q = s.by_question.set_index("question")
    # q1: 2/2 pass; unique supporting s1 pass, s2 fail, s3 fail -> 1/3; q2: 0/2, s4 fail -> 0/1
    assert_allclose(
        q.loc["q1", ["global_pass_rate", "supporting_pass_rate", "avg_support_level"]].astype(float),
        [1.0, 1 / 3, 0.25],
    )
    assert q.loc["q1", "n_with_discovery"] == 1 and q.loc["q1", "n_with_support"] == 1
    o = s.overall.iloc[0]
    # micro 2/4, macro (1 + 0) / 2, supporting pooled 1/4, discovery 1/4, one override
    assert_allclose(
        [o.overall_accuracy, o.avg_question_pass_rate, o.supporting_pass_rate, o.discovery_rate],
        [0.5, 0.5, 0.25, 0.25],
    )
    assert o.n_overridden == 1



def test_hierarchical_summary_counts_discovery_of_a_failing_joint_global():
    # JOINT asks discovery of every global: a failing one with discovery in both trials has
    # discovery, as BenchmarkQED's aggregate_hierarchical_scores counts it (majority of trials)
    rows = []
    for r in (1, 2):
        rows += [_h("q1#a1", "global_assertion", r, 0.0),
                 _h("q1#a1/s1", "supporting_assertion", r, 1.0, "s1"),
                 _h("q1#a1", "discovery", r, 1.0)]
    s = hierarchical_summary(pd.DataFrame(rows))
    agg = s.aggregated.iloc[0]
    assert (agg.global_score, bool(agg.has_discovery), bool(agg.global_score_overridden)) == (0, True, False)
    assert s.by_question.iloc[0].n_with_discovery == 1 and s.overall.iloc[0].discovery_rate == 1.0


def _c(q, a, pos, score, n_chunks):
    return {
        "item": f"{q}#{a}@c{pos}",
        "cluster": q,
        "arm": "rag",
        "run": 1,
        "judge": "j",
        "criterion": "chunk_support",
        "score": score,
        "attributes": json.dumps(
            {"question_id": q, "assertion_id": a, "position": pos, "n_chunks": n_chunks}
        ),
    }


def test_chunk_coverage_at_k_hand_worked():
    rows = [
        # q1 (3 chunks): a1 grades by position 0.0, 0.5, 1.0; a2: 1.0, 0.0, 0.0
        _c("q1", "a1", 0, 0.0, 3),
        _c("q1", "a1", 1, 0.5, 3),
        _c("q1", "a1", 2, 1.0, 3),
        _c("q1", "a2", 0, 1.0, 3),
        _c("q1", "a2", 1, 0.0, 3),
        _c("q1", "a2", 2, 0.0, 3),
        # q2 (1 chunk): a1 0.5
        _c("q2", "a1", 0, 0.5, 1),
    ]
    t = chunk_coverage(pd.DataFrame(rows), k_list=[2, 1]).table.set_index("k")
    assert list(t.index) == ["k1", "k2", "all"]
    # k=1: best q1a1 0.0 (fail), q1a2 1.0 (full); q2a1 0.5 (partial pass)
    #   coverage = mean(1/2, 1) = 0.75; strict = mean(1/2, 0) = 0.25
    #   strength = mean(0, 1, 0.5) = 0.5; mean_chunks = mean(min(3,1), min(1,1)) = 1
    # k=2: q1a1 best 0.5 (pass, not strict), q1a2 1.0 -> coverage mean(1, 1) = 1, strict mean(1/2, 0) = 0.25
    #   strength mean(0.5, 1, 0.5) = 2/3; mean_chunks mean(2, 1) = 1.5
    # all: q1a1 1.0 -> strict mean(1, 0) = 0.5, strength mean(1, 1, .5) = 5/6; chunks mean(3, 1) = 2
    cols = ["coverage", "strict_coverage", "coverage_strength", "mean_chunks"]
    assert_allclose(t.loc["k1", cols].astype(float), [0.75, 0.25, 0.5, 1.0])
    assert_allclose(t.loc["k2", cols].astype(float), [1.0, 0.25, 2 / 3, 1.5])
    assert_allclose(t.loc["all", cols].astype(float), [1.0, 0.5, 5 / 6, 2.0])


def test_write_csvs(tmp_path):
    s = assertion_summary(_std_rows({("q1", "a1"): [1, 1]}))
    paths = s.write_csvs(tmp_path)
    back = pd.read_csv(paths[2])
    assert back.loc[0, "overall_accuracy"] == 1.0 and "avg_question_pass_rate" in back.columns
