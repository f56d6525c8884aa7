"""The sequential layer's pieces: the rule's spelling, the order of the clusters, the
comparisons a plan asks for, and a look computed from hand-made rows."""

from __future__ import annotations

import math

import pytest
from numpy.testing import assert_allclose

from assay.data.schema import Scale
from assay.errors import ConfigError
from assay.judge.config import parse_config
from assay.judge.sequential import Comparison, StoppingRule, look, parse_until, stopping_rule
from assay.stats.sequential import paired_difference_cs


@pytest.mark.parametrize(("text", "parsed"), [
    ("decided", ("decided", None)), (" width=0.25 ", ("width", 0.25)), ("width = 2", ("width", 2.0))])
def test_parse_until(text, parsed):
    assert parse_until(text) == parsed


@pytest.mark.parametrize("text", ["", "decide", "width", "width=", "width=-1", "width=3", "width=nan",
                                  "width=0", "height=0.1"])
def test_parse_until_refuses(text):
    with pytest.raises(ValueError, match="expected decided or width=W"):
        parse_until(text)


def test_the_command_line_wins_over_the_config():
    cfg = parse_config({"version": 1, "inputs": {}, "judges": [],
                        "sequential": {"until": "decided", "conf": 0.9, "seed": 4, "clusters_per_look": 3}})
    rule = stopping_rule(cfg.sequential, until="width=0.2", conf=0.99)
    assert rule == StoppingRule("width", 0.2, 0.99, 4, 3)
    assert stopping_rule(cfg.sequential) == StoppingRule("decided", None, 0.9, 4, 3)
    assert stopping_rule(None) is None
    assert rule.method == "betting"
    eb = parse_config({"version": 1, "inputs": {}, "judges": [],
                       "sequential": {"until": "decided", "method": "empirical_bernstein"}})
    assert stopping_rule(eb.sequential).method == "empirical_bernstein"
    refused = r"sequential\.method: Input should be 'betting' or 'empirical_bernstein'"
    with pytest.raises(ConfigError, match=refused):
        parse_config({"version": 1, "inputs": {}, "judges": [], "sequential": {"method": "hoeffding"}})
    with pytest.raises(ConfigError, match="--conf: applies to a sequential run"):
        stopping_rule(None, conf=0.9)


def test_a_twentieth_of_the_clusters_a_look():
    rule = StoppingRule("decided", None, 0.95, 0, None)
    assert (rule.per_look(40), rule.per_look(41), rule.per_look(5)) == (2, 3, 1)
    assert StoppingRule("decided", None, 0.95, 0, 7).per_look(40) == 7


def row(item, cluster, arm, score, *, judge="j", criterion="quality", opponent=None, failure_kind=None):
    return {"item": item, "cluster": cluster, "arm": arm, "opponent": opponent, "judge": judge,
            "criterion": criterion, "score": score, "failure_kind": failure_kind}


def test_a_look_at_scores_uses_cluster_means_in_the_order():
    # range:0,10: A - B per item, normalised: q1 (8-2)/10 = 0.6, q2 (5-5)/10 = 0 -> cluster c1 0.3;
    # q3 (two runs of A: 10 and 6 -> 8; B 4) 0.4 -> cluster c2 0.4; q4 has no B (failed): c3 absent
    rows = [row("q1", "c1", "A", 8), row("q1", "c1", "B", 2),
            row("q2", "c1", "A", 5), row("q2", "c1", "B", 5),
            row("q3", "c2", "A", 10), row("q3", "c2", "A", 6), row("q3", "c2", "B", 4),
            row("q4", "c3", "A", 9), row("q4", "c3", "B", None, failure_kind="timeout")]
    rule = StoppingRule("decided", None, 0.9, 0, None)
    watched = [Comparison("j", "quality", "A", "B", False), Comparison("j", "quality", "B", "A", False)]
    seen = look(rows, {"quality": Scale.parse("range:0,10")}, watched, ["c2", "c3", "c1"], rule, number=1)
    first, mirrored = seen.comparisons
    assert first.n_clusters == 2 and seen.conf_each == pytest.approx(0.95)
    cs = paired_difference_cs([0.4, 0.3], conf=0.95, method="betting")  # c2 first: the run's order
    assert_allclose([first.estimate, first.lower, first.upper], [0.35, cs.lower[-1], cs.upper[-1]])
    assert_allclose([mirrored.lower, mirrored.upper], [-first.upper, -first.lower], atol=1e-12)
    assert not seen.stop


def test_a_look_at_a_pairwise_judge_reads_both_directions():
    # A vs B on q1: A wins (1) shown first, tie (0.5) shown second -> mean 0.75 -> 2*0.75 - 1 = 0.5;
    # the row of B vs A on q2 with B's score 0 is A winning: 1 -> d = 1
    rows = [row("q1", "c1", "A", 1.0, opponent="B", criterion="preference"),
            row("q1", "c1", "A", 0.5, opponent="B", criterion="preference"),
            row("q2", "c2", "B", 0.0, opponent="A", criterion="preference")]
    rule = StoppingRule("width", 2.0, 0.95, 0, None)
    seen = look(rows, {}, [Comparison("j", "preference", "A", "B", True)], ["c1", "c2"], rule, number=1)
    [c] = seen.comparisons
    cs = paired_difference_cs([0.5, 1.0], conf=0.95, method="betting")
    assert_allclose([c.estimate, c.lower, c.upper], [0.75, cs.lower[-1], cs.upper[-1]])
    assert seen.stop == (c.upper - c.lower < 2.0)


def test_a_comparison_with_nothing_yet_is_undecided_and_as_wide_as_can_be():
    rule = StoppingRule("decided", None, 0.95, 0, None)
    seen = look([], {}, [Comparison("j", "quality", "A", "B", False)], ["c1"], rule, number=1)
    [c] = seen.comparisons
    assert c.n_clusters == 0 and math.isnan(c.estimate) and (c.lower, c.upper) == (-1.0, 1.0)
    assert not c.decided and not seen.stop


class _Judge:
    def __init__(self, name, scales):
        self.name, self._scales = name, scales

    def scales(self):
        return self._scales


class _Part:
    def __init__(self, judge, metas, staged=False):
        from assay.llm import ChatRequest

        self.judge, self.staged = judge, staged
        self.requests = [ChatRequest(key=f"k{i}", messages=(("user", "x"),), meta=m)
                         for i, m in enumerate(metas)]


class _Plan:
    def __init__(self, *parts):
        self.judges = list(parts)


def test_comparisons_are_every_pair_of_a_scoring_judge_and_the_pairs_of_a_pairwise_one():
    from assay.judge.sequential import comparisons

    bounded = {"quality": Scale.parse("range:0,10")}
    scoring = _Part(_Judge("m/rubric", bounded), [{"arm": a, "item": "q1"} for a in ("c", "a", "b")])
    pairs = _Part(_Judge("m/pairwise", {"preference": Scale.parse("range:0,1")}),
                  [{"arm": "b", "opponent": "a", "item": "q1"}, {"arm": "a", "opponent": "b", "item": "q2"}])
    labels = [c.label for c in comparisons(_Plan(scoring, pairs))]
    assert labels == ["m/rubric quality: a - b", "m/rubric quality: a - c", "m/rubric quality: b - c",
                      "m/pairwise preference: a - b"]


def test_comparisons_refuse_what_a_bounded_sequence_cannot_watch():
    from assay.judge.sequential import comparisons

    unbounded = _Part(_Judge("m/metric", {"length": Scale.parse("interval")}),
                      [{"arm": a, "item": "q1"} for a in ("a", "b")])
    with pytest.raises(ConfigError, match="criterion 'length' has the unbounded scale interval"):
        comparisons(_Plan(unbounded))
    staged = _Part(_Judge("m/differential", {"q": Scale.parse("binary")}), [{"arm": "a", "item": "q1"}],
                   staged=True)
    with pytest.raises(ConfigError, match="has a second stage"):
        comparisons(_Plan(staged))
    alone = _Part(_Judge("m/rubric", {"q": Scale.parse("binary")}), [{"arm": "a", "item": "q1"}])
    with pytest.raises(ConfigError, match="no two arms to compare"):
        comparisons(_Plan(alone))


def test_a_metric_judge_is_watched_under_the_judge_column_its_rows_are_stored_with():
    """A metric judge stores each metric's rows with the metric's name as ``judge`` (not the
    judge's own name): the comparisons must name it so, or a look never finds a row."""
    from assay.judge.sequential import comparisons

    scales = {"exact_match": Scale.parse("binary"), "token_f1": Scale.parse("range:0,1")}
    metas = [{"arm": a, "item": "q1", "judge": m, "criterion": m} for a in ("a", "b") for m in scales]
    watched = comparisons(_Plan(_Part(_Judge("metric", scales), metas)))
    assert [c.label for c in watched] == ["exact_match exact_match: a - b", "token_f1 token_f1: a - b"]
    rows = [{"item": "q1", "arm": "a", "judge": "token_f1", "criterion": "token_f1", "score": 0.75},
            {"item": "q1", "arm": "b", "judge": "token_f1", "criterion": "token_f1", "score": 0.25}]
    seen = look(rows, scales, watched, ["q1"], StoppingRule("decided", None, 0.95, 0, None), number=1)
    assert [c.n_clusters for c in seen.comparisons] == [0, 1]
    assert seen.comparisons[1].estimate == pytest.approx(0.5)  # 0.75 - 0.25, by hand


def test_a_metric_run_is_watched_end_to_end(demo_example, tmp_path):
    """``assay judge --until`` over offline metric judges (the demo's answers): every look sees
    the clusters judged (it saw none, and ran to the end, before the judge column was read)."""
    import asyncio

    from assay.demo.judging import write_metric_inputs
    from assay.judge.config import load_config
    from assay.judge.inputs import load_inputs
    from assay.judge.plan import build_plan
    from assay.judge.sequential import execute_sequential

    _, path = write_metric_inputs(demo_example, tmp_path / "in")
    config = load_config(path)
    plan = build_plan(config, load_inputs(config))
    run = asyncio.run(execute_sequential(plan, tmp_path / "run", stopping_rule(None, until="width=1.2")))
    assert run.stopped_early and run.clusters < run.clusters_total == 40
    assert len(run.looks[-1].comparisons) == 4 * 3  # four metrics, three pairs of systems
    assert all(x.n_clusters == x_look.clusters for x_look in run.looks for x in x_look.comparisons)
