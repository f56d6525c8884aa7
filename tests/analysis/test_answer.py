"""The answer's analysis: each system's own numbers in the data's units, every pair compared,
the degenerate cases named, the trust checks and the cost where the data hold them."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from assay.analysis.answer import answer
from assay.analysis.judges import judge_agreement
from assay.data.schema import Scale
from assay.data.table import Judgments


def _table(*, judges=("j",), usd=False, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(24):
        for arm, shift in (("a", 0.0), ("b", 1.0), ("c", 2.5)):
            base = 5 + shift + rng.normal(0, 1)
            for judge in judges:
                rows.append({"item": f"q{q}", "cluster": f"t{q // 4}", "arm": arm, "run": 1,
                             "judge": judge, "criterion": "quality",
                             "score": float(np.clip(np.round(base + rng.normal(0, 0.7)), 1, 10)),
                             "reportable": True, **({"usd": 0.002} if usd else {})})
    return pd.DataFrame(rows)


def test_a_declared_range_is_answered_on_its_own_scale_not_on_0_1():
    frame = _table()
    result = answer(Judgments(frame, {"quality": Scale.parse("range:1,10")}))
    (verdict,) = result.verdicts
    assert verdict.units == "raw" and verdict.scale == "range:1,10"
    means = frame.groupby("arm")["score"].mean()  # one run, one judge: the plain means
    assert {s.arm: s.estimate for s in verdict.systems} == pytest.approx(means.to_dict())
    assert [s.arm for s in verdict.systems] == ["c", "b", "a"] and verdict.systems[0].rank == 1
    assert all(s.method == "cluster_robust_t" for s in verdict.systems)


def test_relabelling_the_systems_changes_no_number():
    frame = _table()
    scales = {"quality": Scale("interval")}
    one = answer(Judgments(frame, scales)).verdicts[0]
    renamed = frame.assign(arm=frame["arm"].map({"a": "z", "b": "y", "c": "x"}))
    two = answer(Judgments(renamed, scales)).verdicts[0]
    assert [(s.estimate, s.lower, s.upper) for s in one.systems] == \
        [(s.estimate, s.lower, s.upper) for s in two.systems]
    assert [(p.difference, p.lower, p.upper, p.p_adjusted) for p in one.pairs] == \
        [(p.difference, p.lower, p.upper, p.p_adjusted) for p in two.pairs]


def test_a_pair_without_variation_between_clusters_gets_no_test():
    frame = pd.DataFrame({"item": ["q1", "q2", "q3", "q4"] * 2,
                          "cluster": ["t1", "t1", "t2", "t2"] * 2, "arm": ["a"] * 4 + ["b"] * 4,
                          "run": 1, "judge": "j", "criterion": "s",
                          "score": [3.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0, 5.0], "reportable": True})
    (pair,) = answer(Judgments(frame, {"s": Scale("interval")})).verdicts[0].pairs
    assert pair.difference == 1.0 and pair.method == "undefined_no_cluster_variance"
    assert pair.detected is None and math.isnan(pair.lower) and math.isnan(pair.p_adjusted)
    one_cluster = frame.assign(cluster="t1")
    (pair,) = answer(Judgments(one_cluster, {"s": Scale("interval")})).verdicts[0].pairs
    assert pair.method == "too_few_clusters" and pair.detected is None


def test_two_judges_get_their_agreement_and_a_cost_column_its_spend():
    frame = _table(judges=("j1", "j2"), usd=True)
    judgments = Judgments(frame, {"quality": Scale("interval")})
    result = answer(judgments)
    assert [v.judge for v in result.verdicts] == ["j1", "j2"]  # one verdict per judge
    (agreement,) = [c for c in result.trust if c.check == "agreement"]
    (record,) = [a for a in judge_agreement(judgments).agreement if a.task is None]
    assert agreement.statistic == "ICC" and agreement.estimate == record.icc
    assert result.spend is not None
    assert {arm: usd for arm, usd, _ in result.spend.systems} == pytest.approx(
        {"a": 0.048, "b": 0.048, "c": 0.048})  # 24 answers of $0.002, counted once per answer


def test_no_trust_check_is_invented_and_failures_are_counted():
    frame = _table()
    frame.loc[:2, "score"] = np.nan
    frame["failure_kind"] = np.where(frame["score"].isna(), "parse_error", None)
    result = answer(Judgments(frame, {"quality": Scale("interval")}))
    (failures,) = result.trust
    assert (failures.check, failures.count, failures.n) == ("failures", 3, len(frame))
    assert result.spend is None
