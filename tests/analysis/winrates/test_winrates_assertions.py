"""assertion_comparisons: Friedman and Wilcoxon against scipy, Holm against statsmodels, the
clustered permutation test against brute-force enumeration of the sign patterns."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.multitest import multipletests

from assay.analysis.winrates import assertion_comparisons
from assay.errors import ConfigError, DesignError

ARMS = ("short", "long", "graph")


def pass_rates(seed: int = 0, questions: int = 24, tasks=("local", "linked")) -> pd.DataFrame:
    """Per-question pass rates of 3 arms: k of n assertions passed, n = 1..6 per question."""
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(questions):
        n = int(rng.integers(1, 7))
        ease = rng.normal(0, 1)
        for a, lift in zip(ARMS, (0.0, 0.4, 0.9), strict=True):
            p = 1 / (1 + math.exp(-(ease + lift - 0.3)))
            k = int(rng.binomial(n, p))
            rows.append({"question": f"q{q}", "arm": a, "pass_rate": k / n, "n_assertions": n,
                         "doc": f"d{q // 3}", "question_set": tasks[q % len(tasks)]})
    return pd.DataFrame(rows)


def test_friedman_and_pairwise_wilcoxon_with_holm() -> None:
    table = pass_rates()
    report = assertion_comparisons(table, task="question_set", n_resamples=2000)
    assert [f.task for f in report.friedman] == ["local", "linked"]
    wilcoxon_p = []
    for f in report.friedman:
        wide = table[table["question_set"] == f.task].pivot(index="question", columns="arm",
                                                           values="pass_rate")[list(ARMS)]
        oracle = stats.friedmanchisquare(*wide.to_numpy().T)
        assert_allclose([f.statistic, f.p_value], [oracle.statistic, oracle.pvalue], rtol=1e-12)
        assert (f.n, f.df, f.arms) == (12, 2, ARMS)
        for p in (x for x in report.pairs if x.task == f.task):
            d = wide[p.arm] - wide[p.opponent]
            w = stats.wilcoxon(d, zero_method="wilcox", correction=False, method="approx")
            assert_allclose(p.wilcoxon_p_value, w.pvalue, rtol=1e-12)
            assert_allclose([p.mean_arm, p.mean_opponent], [wide[p.arm].mean(), wide[p.opponent].mean()])
            wilcoxon_p.append(p.wilcoxon_p_value)
    assert [(p.arm, p.opponent) for p in report.pairs[:3]] == [
        ("short", "long"), ("short", "graph"), ("long", "graph")]
    # Holm over all 6 pairs shown, Wilcoxon and permutation p-values each a family
    expected = multipletests(wilcoxon_p, method="holm")[1]
    assert_allclose([p.wilcoxon_p_adjusted for p in report.pairs], expected, rtol=1e-12)
    expected = multipletests([p.permutation_p_value for p in report.pairs], method="holm")[1]
    assert_allclose([p.permutation_p_adjusted for p in report.pairs], expected, rtol=1e-12)
    per = assertion_comparisons(table, task="question_set", n_resamples=2000,
                                correction="holm-per-group")
    for task in ("local", "linked"):
        members = [p for p in per.pairs if p.task == task]
        expected = multipletests([p.wilcoxon_p_value for p in members], method="holm")[1]
        assert_allclose([p.wilcoxon_p_adjusted for p in members], expected, rtol=1e-12)


def _exact_sign_flip(d: np.ndarray, clusters: np.ndarray) -> float:
    labels = list(dict.fromkeys(clusters.tolist()))
    sums = np.array([d[clusters == c].sum() for c in labels])
    t = abs(sums.sum())
    hits = sum(abs(np.dot(s, sums)) >= t - 1e-12
               for s in itertools.product([-1.0, 1.0], repeat=len(labels)))
    return hits / 2 ** len(labels)


def test_permutation_is_assertion_level_and_matches_enumeration() -> None:
    table = pass_rates(seed=5, questions=11, tasks=("all",))
    report = assertion_comparisons(table, n_assertions="n_assertions", n_resamples=20_000, seed=7)
    wide = table.pivot(index="question", columns="arm", values="pass_rate")
    counts = table.groupby("question")["n_assertions"].first()
    for p in report.pairs:
        # assertion-level differences: each question's difference repeated once per assertion
        d = np.repeat((wide[p.arm] - wide[p.opponent]).to_numpy(), counts.loc[wide.index])
        q = np.repeat(wide.index.to_numpy(), counts.loc[wide.index])
        assert_allclose(p.difference, d.mean(), rtol=1e-12)
        exact = _exact_sign_flip(d, q)
        assert abs(p.permutation_p_value - exact) < 4 * math.sqrt(0.25 / 20_000) + 1 / 20_000
        assert (p.n_clusters, p.n_resamples) == (11, 20_000)
    # clusters of questions (documents) are flipped together
    by_doc = assertion_comparisons(table, cluster="doc", n_resamples=20_000, seed=7)
    docs = table.groupby("question")["doc"].first()
    for p in by_doc.pairs:
        d = (wide[p.arm] - wide[p.opponent]).to_numpy()
        exact = _exact_sign_flip(d, docs.loc[wide.index].to_numpy())
        assert p.n_clusters == 4
        assert abs(p.permutation_p_value - exact) < 4 * math.sqrt(0.25 / 20_000) + 1 / 20_000
    # seeded: the same seed gives the same report
    again = assertion_comparisons(table, n_assertions="n_assertions", n_resamples=20_000, seed=7)
    assert again.pairs == report.pairs


def test_two_arms_incomplete_questions_and_output() -> None:
    table = pass_rates(seed=2, questions=10, tasks=("all",))
    table = table[table["arm"] != "graph"]
    table = table.drop(table.index[0])  # q0 lacks 'short'
    report = assertion_comparisons(table, n_resamples=500)
    assert report.friedman == []  # Friedman needs three arms
    (pair,) = report.pairs
    assert pair.n == 9 and any("left out" in n for n in report.notes)
    assert pair.wilcoxon_p_adjusted == pair.wilcoxon_p_value
    json.loads(report.to_json())
    assert "Pairs" in str(report)
    same = pd.DataFrame({"question": ["a", "a", "b", "b"], "arm": ["x", "y", "x", "y"],
                         "pass_rate": [0.5, 0.5, 1.0, 1.0]})
    tied = assertion_comparisons(same, n_resamples=99)
    assert tied.pairs[0].wilcoxon_p_value == 1.0  # nothing differs: seed 004's p = 1
    assert tied.pairs[0].permutation_p_value == 1.0


def test_errors() -> None:
    table = pass_rates()
    with pytest.raises(ConfigError, match="column"):
        assertion_comparisons(table, value="rate")
    with pytest.raises(ConfigError, match="correction"):
        assertion_comparisons(table, correction="fdr")  # type: ignore[arg-type]
    with pytest.raises(DesignError, match=r"\[0, 1\]"):
        assertion_comparisons(table.assign(pass_rate=2.0))
    with pytest.raises(DesignError, match="more than one row"):
        assertion_comparisons(pd.concat([table, table.iloc[:1]]))
    with pytest.raises(DesignError, match="positive integers"):
        assertion_comparisons(table.assign(n_assertions=0.5), n_assertions="n_assertions")
    with pytest.raises(DesignError, match="2 arms"):
        assertion_comparisons(table[table["arm"] == "short"])
