"""The judges' requests and rows, without a server: orders, keys, verdict reading, failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.judge.config import parse_config
from assay.judge.judges import (
    JUDGE_KINDS,
    Answer,
    CriterionSpec,
    Judge,
    JudgeContext,
    JudgeInputs,
    PairwiseJudge,
    PairwiseSettings,
    PairwiseVerdict,
    ReferenceJudge,
    ReferenceSettings,
    RubricJudge,
    RubricSettings,
    joint_pairwise_verdict,
    label_verdict,
    score_verdict,
)
from assay.llm import Reply

CTX = JudgeContext(model="m")


def _inputs(arms=("a", "b", "c"), items=("q1", "q2")) -> JudgeInputs:
    return JudgeInputs(
        answers={
            arm: {q: Answer(q, f"question {q}", f"answer of {arm} to {q}", arm, task="t") for q in items}
            for arm in arms
        }
    )


def test_every_kind_follows_the_protocol():
    inputs = _inputs()
    sections = {
        "pairwise": {"base": "a"},
        "reference": {"reference": "a"},
        "rubric": {"criteria": [{"name": "c", "description": "d"}]},
        "metric": {"reference": "a"},
    }
    for kind, cls in JUDGE_KINDS.items():
        if kind not in sections:
            continue
        judge = cls.from_config(cls.Settings(kind=kind, **sections[kind]), CTX)
        assert isinstance(judge, Judge)
        requests = judge.requests(inputs)
        assert requests and len({r.key for r in requests}) == len(requests)


def test_pairwise_trials_alternate_order_and_scores_read_through_position():
    judge = PairwiseJudge.from_config(
        PairwiseSettings(base="a", others=["b"], trials=4, criteria=["relevance"]), CTX
    )
    requests = judge.requests(_inputs(items=("q1",)))
    assert [r.meta["position"] for r in requests] == [1, 2, 1, 2]
    assert [r.meta["run"] for r in requests] == [1, 2, 3, 4]
    for r in requests:
        user = r.messages[1][1]
        a_first = user.index("answer of a") < user.index("answer of b")
        assert a_first == (r.meta["position"] == 1)
    # trials 1 and 3 show the same order but must not share a cache entry
    assert requests[0].sample != requests[2].sample
    # winner 2 = Answer 2: a wins when shown second, loses when shown first; 0 is a tie
    verdict = PairwiseVerdict(reasoning="r", winner=2)
    scores = [judge.rows(r, Reply(key=r.key, verdict=verdict, text="{}"))[0]["score"] for r in requests]
    assert scores == [0.0, 1.0, 0.0, 1.0]
    tie = judge.rows(
        requests[0], Reply(key=requests[0].key, verdict=PairwiseVerdict(reasoning="r", winner=0), text="{}")
    )
    assert tie[0]["score"] == 0.5


def test_pairwise_failure_rows_have_failure_kind_and_no_score():
    judge = PairwiseJudge.from_config(
        PairwiseSettings(base="a", others=["b"], trials=2, joint=True, criteria=["relevance", "diversity"]),
        CTX,
    )
    request = judge.requests(_inputs(items=("q1",)))[0]
    rows = judge.rows(
        request, Reply(key=request.key, verdict=None, text="not json", failure_kind="parse_error")
    )
    assert [(r["criterion"], r["score"], r["failure_kind"]) for r in rows] == [
        ("relevance", None, "parse_error"),
        ("diversity", None, "parse_error"),
    ]


def test_pairwise_joint_one_call_rows_per_criterion():
    judge = PairwiseJudge.from_config(
        PairwiseSettings(base="a", others=["b"], trials=2, joint=True, criteria=["relevance", "diversity"]),
        CTX,
    )
    requests = judge.requests(_inputs(items=("q1",)))
    assert len(requests) == 2  # one call per trial, not per criterion
    model = joint_pairwise_verdict(("relevance", "diversity"))
    verdict = model(
        relevance=PairwiseVerdict(reasoning="r", winner=1), diversity=PairwiseVerdict(reasoning="d", winner=0)
    )
    rows = judge.rows(requests[0], Reply(key=requests[0].key, verdict=verdict, text="{}"))
    assert [(r["criterion"], r["score"], r["reasoning"]) for r in rows] == [
        ("relevance", 1.0, "r"),
        ("diversity", 0.5, "d"),
    ]


def test_pairwise_pairs_all_and_aa():
    inputs = _inputs()
    judge = PairwiseJudge.from_config(PairwiseSettings(pairs="all", trials=2, criteria=["relevance"]), CTX)
    assert judge.pairs(inputs.arms) == [("a", "b"), ("a", "c"), ("b", "c")]
    aa = PairwiseJudge.from_config(
        PairwiseSettings(base="a", others=["a"], trials=2, criteria=["relevance"]), CTX
    )
    requests = aa.requests(inputs)
    assert {(r.meta["arm"], r.meta["opponent"]) for r in requests} == {("a", "a")}
    assert len({r.key for r in requests}) == len(requests) == 4


def test_prompt_override_changes_hash_and_keys(tmp_path: Path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "system.md").write_text("Compare on {{ criteria[0].name }}. Reply in JSON.", encoding="utf-8")
    settings = PairwiseSettings(base="a", others=["b"], trials=2, criteria=["relevance"])
    plain = PairwiseJudge.from_config(settings, CTX)
    custom = PairwiseJudge.from_config(
        settings.model_copy(update={"prompt": Path("mine")}), JudgeContext(model="m", base_dir=tmp_path)
    )
    assert plain.prompt.sha256 != custom.prompt.sha256
    assert plain.prompt.user == custom.prompt.user  # user.md comes from the package
    inputs = _inputs(items=("q1",))
    keys_plain = {r.key for r in plain.requests(inputs)}
    keys_custom = {r.key for r in custom.requests(inputs)}
    assert keys_plain.isdisjoint(keys_custom)
    assert custom.requests(inputs)[0].messages[0][1] == "Compare on relevance. Reply in JSON."


def test_reference_order_counterbalanced_and_scale():
    judge = ReferenceJudge.from_config(ReferenceSettings(reference="a", generated=["b"], trials=2), CTX)
    requests = judge.requests(_inputs(items=("q1",)))
    assert [(r.meta["criterion"], r.meta["run"]) for r in requests] == [
        ("correctness", 1),
        ("correctness", 2),
        ("completeness", 1),
        ("completeness", 2),
    ]
    firsts = [r.messages[1][1].index("answer of b") < r.messages[1][1].index("answer of a") for r in requests]
    assert firsts == [True, False, True, False]
    assert requests[0].response_model is score_verdict(1, 10)
    assert judge.scales()["correctness"].spelling() == "range:1,10"
    model = score_verdict(1, 10)
    with pytest.raises(ValueError):
        model.model_validate({"reasoning": "r", "score": 11})
    row = judge.rows(
        requests[0], Reply(key=requests[0].key, verdict=model(reasoning="r", score=7), text="{}")
    )[0]
    assert (row["arm"], row["score"], "opponent" in row) == ("b", 7.0, False)


def test_rubric_ordinal_and_range():
    crits = [
        CriterionSpec(name="quality", description="q", scale="range:0,100"),
        CriterionSpec(name="helpfulness", description="h", scale="ordinal:Low,Medium,High"),
    ]
    judge = RubricJudge.from_config(RubricSettings(criteria=crits, arms=["a"]), CTX)
    requests = judge.requests(_inputs(items=("q1",)))
    assert [r.meta["criterion"] for r in requests] == ["quality", "helpfulness"]
    assert requests[0].response_model is score_verdict(0.0, 100.0, integer=True)
    high = label_verdict(("Low", "Medium", "High"))(reasoning="r", score="High")
    assert judge.rows(requests[1], Reply(key=requests[1].key, verdict=high, text="{}"))[0]["score"] == 2.0
    with pytest.raises(ValueError, match=r"criteria\[0\]\.scale"):
        RubricSettings(criteria=[CriterionSpec(name="x", scale="binary")])


def test_config_builds_judges_with_labels_and_refuses_two_with_one_name():
    base = {"version": 1, "llm": {"model": "m", "api_key_env": None}, "inputs": {"jsonl": ["x.jsonl"]}}
    cfg = parse_config(
        {
            **base,
            "judges": [
                {"kind": "pairwise", "base": "a"},
                {"kind": "pairwise", "base": "a", "joint": True, "label": "joint"},
            ],
        }
    )
    assert [j.name for j in cfg.build_judges()] == ["m", "m/joint"]
    twins = parse_config(
        {**base, "judges": [{"kind": "pairwise", "base": "a"}, {"kind": "pairwise", "base": "b"}]}
    )
    from assay.errors import ConfigError

    with pytest.raises(ConfigError, match="label"):
        twins.build_judges()
