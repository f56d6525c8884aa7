"""Each assertion / differential judge end to end against the stand-in server on 127.0.0.1.

Requests are built, sent with LLMClient (real HTTP, JSON-schema response_format), and the
replies turned into rows; the rows are then validated as a judgments table.
"""

from __future__ import annotations

import asyncio
import json

import pandas as pd

from assay.data.validate import judgments_from_records
from assay.judge.judges import (
    DISCOVERY,
    GLOBAL,
    SUPPORTING,
    Answer,
    AssertionJudge,
    ChunkCoverageJudge,
    DifferentialJudge,
    ExtractionVerdict,
    HierarchicalJudge,
    JudgeInputs,
)
from tests.judge.llm_server import Behaviour

ARMS = ("short", "long")
QUESTIONS = {"q1": "What happened to costs?", "q2": "Who coordinated the response?"}
ASSERTIONS = {
    "q1": (
        {
            "statement": "Costs fell by a third.",
            "rank": 2,
            "supporting_assertions": [
                {"id": "s1", "statement": "Five years."},
                {"id": "s2", "statement": "A third."},
            ],
        },
        {
            "statement": "Funding had milestones.",
            "rank": 1,
            "supporting_assertions": [{"id": "s3", "statement": "Milestones."}],
        },
    ),
    "q2": (
        {
            "statement": "Regional agencies coordinated.",
            "rank": 1,
            "supporting_assertions": [{"id": "s4", "statement": "Agencies."}],
        },
    ),
}


def _inputs() -> JudgeInputs:
    answers = {
        arm: {
            q: Answer(item=q, question=text, text=f"{arm} answer to {q}", arm=arm, task="data_local")
            for q, text in QUESTIONS.items()
        }
        for arm in ARMS
    }
    retrieval = {
        "short": {
            q: {
                "question_id": q,
                "text": QUESTIONS[q],
                "context": [{"chunk_id": f"c{i}", "text": f"chunk {i}", "rank": 3 - i} for i in range(3)],
            }
            for q in QUESTIONS
        }
    }
    return JudgeInputs(answers=answers, assertions=ASSERTIONS, retrieval=retrieval)


def _send(make_client, requests):
    async def go():
        client = make_client()
        async with client:
            return await asyncio.gather(*(client.complete(r) for r in requests))

    return asyncio.run(go())


def _table(rows, scales):
    return judgments_from_records(rows, range(1, len(rows) + 1), path="mem", sources=("mem",), scales=scales)


def test_standard_judge_rows_are_valid_binary_judgments(server, make_client):
    judge = AssertionJudge(name="judge-model", trials=2, config_hash="c")
    inputs = _inputs()
    requests = judge.requests(inputs)
    # 2 arms x 3 assertions x 2 trials
    assert len(requests) == 12 and len({r.key for r in requests}) == 12
    assert "Score ID: " + requests[0].key in requests[0].messages[1][1]
    replies = _send(make_client, requests)
    rows = [row for req, rep in zip(requests, replies, strict=True) for row in judge.rows(req, rep)]
    table = _table(rows, judge.scales()).frame
    assert set(table["score"]) <= {0.0, 1.0} and table["score"].notna().all()
    assert set(table["item"]) == {"q1#a1", "q1#a2", "q2#a1"}
    assert set(table["cluster"]) == {"q1", "q2"} and set(table["run"]) == {1, 2}
    assert server.stats.requests == 12


def test_standard_judge_top_k_keeps_lowest_ranks():
    judge = AssertionJudge(name="j", trials=1, top_k=1)
    items = {r.meta["item"] for r in judge.requests(_inputs())}
    # q1's assertion of rank 1 is the second one listed (a2); q2 has only a1
    assert items == {"q1#a2", "q2#a1"}


def test_failed_reply_gives_failure_row_not_a_score(server, make_client):
    server.configure(script=["refusal"] * 10)
    judge = AssertionJudge(name="judge-model", trials=1)
    req = judge.requests(_inputs())[0]
    (reply,) = _send(make_client, [req])
    (row,) = judge.rows(req, reply)
    assert row["score"] is None and row["failure_kind"] == "refusal"


def test_hierarchical_joint_rows(server, make_client):
    judge = HierarchicalJudge(name="judge-model", mode="joint", trials=2)
    requests = judge.requests(_inputs())
    assert len(requests) == 2 * 3 * 2
    replies = _send(make_client, requests)
    assert all(r.ok for r in replies)
    rows = [row for req, rep in zip(requests, replies, strict=True) for row in judge.rows(req, rep)]
    table = _table(rows, judge.scales()).frame
    counts = table.groupby("criterion").size().to_dict()
    # per call: 1 global + (2, 1 or 1) supporting + 1 discovery; 4 calls per assertion (2 arms x 2 trials)
    assert counts == {GLOBAL: 12, SUPPORTING: 4 * (2 + 1 + 1), DISCOVERY: 12}
    sup_items = set(table.loc[table["criterion"] == SUPPORTING, "item"])
    assert sup_items == {"q1#a1/s1", "q1#a1/s2", "q1#a2/s3", "q2#a1/s4"}


def test_hierarchical_staged_asks_stage_two_only_for_passed_globals(server, make_client):
    judge = HierarchicalJudge(name="judge-model", mode="staged", trials=2, pass_threshold=0.5)
    inputs = _inputs()
    stage1 = judge.requests(inputs)
    assert {r.meta["criterion"] for r in stage1} == {GLOBAL} and len(stage1) == 12
    # stage 1 prompts carry the global statement only, no supporting list
    assert "Five years." not in stage1[0].messages[1][1]
    rows1 = [
        row
        for req, rep in zip(stage1, _send(make_client, stage1), strict=True)
        for row in judge.rows(req, rep)
    ]
    means = pd.DataFrame(rows1).groupby(["arm", "item"])["score"].mean()
    passed = {k for k, v in means.items() if v > 0.5}
    stage2 = judge.supporting_requests(inputs, rows1)
    assert {(r.meta["arm"], r.meta["item"]) for r in stage2} == passed
    assert len(stage2) == 2 * len(passed)
    rows2 = [
        row
        for req, rep in zip(stage2, _send(make_client, stage2), strict=True)
        for row in judge.rows(req, rep)
    ]
    assert {r["criterion"] for r in rows2} <= {SUPPORTING, DISCOVERY}
    _table(rows1 + rows2, judge.scales())


def test_hierarchical_staged_stage_two_from_hand_rows():
    judge = HierarchicalJudge(name="j", mode="staged", trials=2)
    base = {"judge": "j", "criterion": GLOBAL, "arm": "short"}
    # q1#a1: trials 1, 1 -> mean 1 > 0.5 passes; q1#a2: 1, 0 -> 0.5, not > 0.5; q2#a1: 0 and a failure
    rows = [
        {**base, "item": "q1#a1", "score": 1.0},
        {**base, "item": "q1#a1", "score": 1.0},
        {**base, "item": "q1#a2", "score": 1.0},
        {**base, "item": "q1#a2", "score": 0.0},
        {**base, "item": "q2#a1", "score": 0.0},
        {**base, "item": "q2#a1", "score": None},
    ]
    stage2 = judge.supporting_requests(_inputs(), rows)
    assert {(r.meta["arm"], r.meta["item"], r.meta["run"]) for r in stage2} == {
        ("short", "q1#a1", 1),
        ("short", "q1#a1", 2),
    }


def test_chunk_judge_rank_order_and_rows(server, make_client):
    judge = ChunkCoverageJudge(name="judge-model", max_chunks=2)
    requests = judge.requests(_inputs())
    # 1 arm x 3 assertions x 2 chunks kept
    assert len(requests) == 6
    first = [json.loads(r.meta["attributes"]) for r in requests if r.meta["item"].startswith("q1#a1@")]
    # ranks are 3, 2, 1 for c0, c1, c2: rank order puts c2 first, then c1; c0 is cut by max_chunks
    assert [(a["chunk_id"], a["position"]) for a in first] == [("c2", 0), ("c1", 1)]
    assert first[0]["n_chunks"] == 3
    replies = _send(make_client, requests)
    rows = [row for req, rep in zip(requests, replies, strict=True) for row in judge.rows(req, rep)]
    table = _table(rows, judge.scales()).frame
    assert set(table["score"]) <= {0.0, 0.5, 1.0} and table["score"].notna().all()


def _differential(make_client, mode):
    judge = DifferentialJudge(name="judge-model", base="short", mode=mode, trials=2)
    inputs = _inputs()
    extract = judge.requests(inputs)
    assert len(extract) == 2 * 2  # 2 questions x 2 trials, one other arm
    ext_replies = _send(make_client, extract)
    assert all(judge.rows(q, r) == [] for q, r in zip(extract, ext_replies, strict=True))
    extractions = {r.key: r.verdict for r in ext_replies if isinstance(r.verdict, ExtractionVerdict)}
    stage2 = judge.judge_requests(inputs, extractions)
    replies = _send(make_client, stage2)
    rows = [row for req, rep in zip(stage2, replies, strict=True) for row in judge.rows(req, rep)]
    return judge, extract, extractions, stage2, rows


def test_differential_joint_one_call_scores_every_criterion(server, make_client):
    judge, extract, extractions, stage2, rows = _differential(make_client, "joint")
    assert len(stage2) == len(extract)
    # the extraction's unique content is what the judge sees
    ext = extractions[extract[0].key]
    assert ext.unique_answer_1 in stage2[0].messages[1][1]
    assert all(r["arm"] == "short" and r["opponent"] == "long" for r in rows)
    assert {r["position"] for r in rows} == {1, 2}
    scored = [r for r in rows if r["failure_kind"] is None]
    assert {r["criterion"] for r in scored} <= {"relevance", "diversity", "comprehensiveness"}
    assert len(rows) == 3 * len(stage2)
    _table(rows, judge.scales())


def test_differential_separate_one_call_per_criterion(server, make_client):
    judge, extract, _, stage2, rows = _differential(make_client, "separate")
    assert len(stage2) == 3 * len(extract)
    assert {r.meta["criterion"] for r in stage2} == {"relevance", "diversity", "comprehensiveness"}
    # a separate call names only its own criterion
    rel = next(r for r in stage2 if r.meta["criterion"] == "relevance")
    assert "diversity" not in rel.messages[0][1].lower()
    assert all(r["failure_kind"] is None for r in rows) and len(rows) == len(stage2)
    _table(rows, judge.scales())


def test_differential_score_reads_through_position(server, make_client):
    server.reset(Behaviour())
    judge = DifferentialJudge(name="j", base="short", mode="separate", trials=2)
    from assay.judge.judges import CriterionVerdict
    from assay.llm import Reply

    ext = ExtractionVerdict(common="c", unique_answer_1="u1", unique_answer_2="u2")
    inputs = _inputs()
    reqs = judge.judge_requests(inputs, {r.key: ext for r in judge.requests(inputs)})
    win1 = CriterionVerdict(reasoning="r", winner=1)
    # trial 1: base shown first, "Answer 1 wins" = base wins -> 1; trial 2: base second -> 0
    by_run = {
        r.meta["run"]: judge.rows(r, Reply(key=r.key, verdict=win1, text="{}"))[0]["score"] for r in reqs
    }
    assert by_run == {1: 1.0, 2: 0.0}


def test_hierarchical_verdicts_read_benchmarkqed_reply_names():
    from assay.judge.judges.assertion_hierarchical import hierarchical_verdict_model, supporting_verdict_model

    # BenchmarkQED's HierarchicalAssertionLLMResponse: global_passed and supporting_results, 0/1 for bools
    reply = {"reasoning": "r", "global_passed": 1, "discovery_reasoning": "", "has_discovery": 0,
             "supporting_results": [{"id": "SA1", "reasoning": "a", "passed": 1},
                                    {"id": "SA2", "reasoning": "b", "passed": 0}]}
    joint = hierarchical_verdict_model(2).model_validate_json(json.dumps(reply))
    assert joint.global_score == 1 and [s.passed for s in joint.supporting] == [True, False]
    reply.pop("reasoning"), reply.pop("global_passed")
    staged = supporting_verdict_model(2).model_validate_json(json.dumps(reply))
    assert [s.id for s in staged.supporting] == ["SA1", "SA2"]
    # what assay's own prompts are sent keeps assay's names
    schema = hierarchical_verdict_model(2).model_json_schema()
    assert {"global_score", "supporting"} <= set(schema["properties"])
    assert not {"global_passed", "supporting_results"} & set(schema["properties"])


def test_hierarchical_staged_stage_two_gets_longest_passing_global_reasoning():
    from assay.judge.judges.assertion import PromptPair

    stage2_prompt = PromptPair("assertion_supporting", "sys", "{{ assertion }}|{{ global_reasoning }}", "h")
    judge = HierarchicalJudge(name="j", mode="staged", trials=3, supporting_prompt=stage2_prompt)
    base = {"judge": "j", "criterion": GLOBAL, "arm": "short", "item": "q1#a1"}
    # BenchmarkQED's _select_best_global_reasoning: the longest of the passing trials, the first on a tie
    rows = [{**base, "run": 3, "score": 1.0, "reasoning": "long two"},
            {**base, "run": 1, "score": 1.0, "reasoning": "long one"},
            {**base, "run": 2, "score": 0.0, "reasoning": "a failing trial, longest of all"}]
    stage2 = judge.supporting_requests(_inputs(), rows)
    assert len(stage2) == 3
    assert {r.messages[1][1] for r in stage2} == {"Costs fell by a third.|long one"}
    # the reasoning is part of the key when the prompt shows it; assay's packaged prompt does not
    other = judge.supporting_requests(_inputs(), [{**r, "reasoning": r["reasoning"] + "!"} for r in rows])
    assert {r.key for r in other}.isdisjoint(r.key for r in stage2)
    packaged = HierarchicalJudge(name="j", mode="staged", trials=3)
    assert [r.key for r in packaged.supporting_requests(_inputs(), rows)] == \
        [r.key for r in packaged.supporting_requests(_inputs(), [{**r, "reasoning": "x"} for r in rows])]
