"""win_rates on small hand-built tables: hand-worked values, scipy/statsmodels oracles, and
invariances (row order, cluster labels, the side a row is stored from)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.multitest import multipletests

from assay.analysis.winrates import RECORD_FIELDS, win_rates
from assay.errors import ConfigError, DesignError
from assay.stats import bell_mccaffrey_df, working_icc
from assay.stats.significance import cluster_permutation_test

COLUMNS = ["item", "cluster", "arm", "opponent", "position", "run", "judge", "criterion", "score",
           "task"]


def frame(rows: list[tuple], **fixed: object) -> pd.DataFrame:
    """Rows of (item, cluster, arm, opponent, position, run, score[, task]) plus fixed columns."""
    out = []
    for r in rows:
        item, cluster, arm, opp, pos, run, score = r[:7]
        task = r[7] if len(r) > 7 else None
        out.append({"item": item, "cluster": cluster, "arm": arm, "opponent": opp, "position": pos,
                    "run": run, "judge": fixed.get("judge", "j"),
                    "criterion": fixed.get("criterion", "pref"), "score": score, "task": task})
    return pd.DataFrame(out, columns=COLUMNS)


# q1: win, win; q2: win, tie; q3: loss, tie; q4: tie, failed; q5: win, loss.
HAND = [
    ("q1", "c1", "A", "B", 1, 1, 1.0, "t1"), ("q1", "c1", "A", "B", 2, 1, 1.0, "t1"),
    ("q2", "c1", "A", "B", 1, 1, 1.0, "t1"), ("q2", "c1", "A", "B", 2, 1, 0.5, "t1"),
    ("q3", "c2", "A", "B", 1, 1, 0.0, "t1"), ("q3", "c2", "A", "B", 2, 1, 0.5, "t1"),
    ("q4", "c2", "A", "B", 1, 1, 0.5, "t2"), ("q4", "c2", "A", "B", 2, 1, np.nan, "t2"),
    ("q5", "c3", "A", "B", 1, 1, 1.0, "t2"), ("q5", "c3", "A", "B", 2, 1, 0.0, "t2"),
]


def test_hand_worked_record() -> None:
    report = win_rates(frame(HAND), conf=0.5)
    overall, t1, t2 = report.records
    assert (overall.task, t1.task, t2.task) == (None, "t1", "t2")
    # question-level win rates 1, 0.75, 0.25, 0.5 (the failed trial left out), 0.5
    assert_allclose(overall.win_rate, 0.6, rtol=1e-14)
    # deviations 0.4, 0.15, -0.35, -0.1, -0.1: sum of squares 0.325, SD^2 = 0.08125
    assert_allclose(overall.standard_error, math.sqrt(0.08125 / 5), rtol=1e-12)
    assert (overall.n, overall.n_wins, overall.n_losses, overall.n_ties, overall.n_failed) == (
        5, 4, 2, 3, 1)
    # cluster sums of w - 1/2: 0.75, -0.25, 0 (sizes 2, 2, 1); d = 0.1; residuals 0.55, -0.45,
    # -0.1. CR2 weighs each squared residual by 1 / (1 - n_c / N) = 5/3, 5/3, 5/4 (unequal
    # sizes): V2 = (5/3 (0.3025 + 0.2025) + 5/4 0.01) / 25 = 0.0341667, where the C/(C-1)
    # estimator gave 3/2 * 0.515 / 25 = 0.0309.
    se = math.sqrt((5 / 3 * (0.3025 + 0.2025) + 5 / 4 * 0.01) / 25)
    # Bell-McCaffrey df at the working ICC of the question-level win rates (the closed form
    # is checked against the dense matrices in tests/stats/intervals/test_cr2.py)
    w = np.array([1.0, 0.75, 0.25, 0.5, 0.5])
    sums, sumsq = np.array([1.75, 0.75, 0.5]), np.array([1.5625, 0.3125, 0.25])
    assert_allclose(sums, [w[:2].sum(), w[2:4].sum(), w[4]])
    df = bell_mccaffrey_df([2, 2, 1], icc=working_icc(sums, sumsq, [2, 2, 1]))
    assert overall.n_clusters == 3 and overall.df == pytest.approx(df, rel=1e-12) and df < 2
    t = 0.1 / se
    assert_allclose(overall.standard_error_clustered, se, rtol=1e-12)
    assert_allclose(overall.statistic, t, rtol=1e-12)
    assert_allclose(overall.p_value, 2 * stats.t.sf(t, df), rtol=1e-10)
    # the interval of a share is the logit one --kind scores gives (conf = 0.5)
    half = stats.t.ppf(0.75, df) * se / (0.6 * 0.4)
    logit = math.log(0.6 / 0.4)
    assert_allclose([overall.lower, overall.upper],
                    [1 / (1 + math.exp(-(logit - half))), 1 / (1 + math.exp(-(logit + half)))],
                    rtol=1e-12)
    assert (overall.test, overall.interval_method) == ("cluster_robust_t",
                                                       "logit_cluster_robust_t")
    # task t1: q1-q3 (2 clusters), t2: q4-q5
    assert_allclose([t1.win_rate, t2.win_rate], [2 / 3, 0.5], rtol=1e-14)
    assert (t1.n_wins, t1.n_ties, t1.n_losses, t1.n_failed) == (3, 2, 1, 0)
    assert (t2.n_wins, t2.n_ties, t2.n_losses, t2.n_failed) == (1, 1, 1, 1)
    assert report.position[0].n == 4 and report.position[0].n_flips == 3  # q4 lacks a partner
    # direction of the flips: q1 none; q2 win -> tie and q5 win -> loss move towards the answer
    # shown first (+1), q3 loss -> tie towards the second (-1). Cluster sums 1 (c1: q1, q2),
    # -1 (c2: q3), 1 (c3: q5): d = 1/4, residuals 0.5, -1.25, 0.75; CR2 weights 1 / (1 - n_c/N)
    # = 2, 4/3, 4/3 for sizes 2, 1, 1: V2 = (2 x 0.25 + 4/3 (1.5625 + 0.5625)) / 16
    (direction,) = report.position_direction
    assert (direction.n, direction.n_toward_first, direction.n_toward_second) == (4, 2, 1)
    t = 0.25 / math.sqrt((0.5 + 4 / 3 * (1.5625 + 0.5625)) / 16)
    df = bell_mccaffrey_df([2, 1, 1], icc=working_icc([1, -1, 1], [1, 1, 1], [2, 1, 1]))
    assert_allclose(direction.net_toward_first, 0.25, rtol=1e-14)
    assert_allclose(direction.p_value, 2 * stats.t.sf(t, df), rtol=1e-10)


def test_runs_are_averaged_after_positions() -> None:
    # one question: run 1 has both positions (1, 0 -> 0.5), run 2 only position 1 (1): the
    # question's win rate is (0.5 + 1) / 2 = 0.75, not the trial mean 2/3
    rows = [("q1", "c1", "A", "B", 1, 1, 1.0), ("q1", "c1", "A", "B", 2, 1, 0.0),
            ("q1", "c1", "A", "B", 1, 2, 1.0), ("q2", "c2", "A", "B", 1, 1, 0.0)]
    rec = win_rates(frame(rows)).records[0]
    assert_allclose(rec.win_rate, (0.75 + 0.0) / 2, rtol=1e-14)


def test_rows_from_the_opponents_side_and_from_both_sides() -> None:
    base = win_rates(frame(HAND)).to_records()
    # q3 and q5 stored from B's side: score 1 - s, position 3 - p
    flipped = [(i, c, "B", "A", 3 - p, r, 1 - s, t) if i in ("q3", "q5") else (i, c, a, o, p, r, s, t)
               for i, c, a, o, p, r, s, t in HAND]
    report = win_rates(frame(flipped))
    assert report.to_records() == base
    assert any("opponent's side" in n for n in report.notes)
    # every trial stored twice, once from each side
    both = HAND + [(i, c, "B", "A", 3 - p, r, 1 - s, t) for i, c, a, o, p, r, s, t in HAND]
    report = win_rates(frame(both))
    assert report.to_records() == base
    assert any("merged into 10 trials" in n for n in report.notes)


def test_orientation_follows_the_first_row_and_reversed_flips() -> None:
    rows = [(i, c, "B", "A", 3 - p, r, 1 - s, t) for i, c, a, o, p, r, s, t in HAND]
    rec = win_rates(frame(rows)).records[0]
    assert (rec.arm, rec.opponent) == ("B", "A")
    assert_allclose(rec.win_rate, 0.4, rtol=1e-14)
    back = rec.reversed()
    hand = win_rates(frame(HAND)).records[0]
    assert (back.arm, back.opponent, back.n_wins, back.n_losses) == ("A", "B", 4, 2)
    assert_allclose([back.win_rate, back.lower, back.upper, back.statistic, back.p_value],
                    [hand.win_rate, hand.lower, hand.upper, hand.statistic, hand.p_value],
                    rtol=1e-12)


def _random_table(seed: int, arms=("A", "B", "C"), items: int = 30, clusters: int = 30,
                  tasks=("x",), runs: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    skill = dict(zip(arms, rng.normal(0, 0.6, len(arms)), strict=True))
    rows = []
    for q in range(items):
        for i, a in enumerate(arms):
            for b in arms[i + 1:]:
                for run in range(1, runs + 1):
                    for pos in (1, 2):
                        z = skill[a] - skill[b] + 0.3 * (1 if pos == 1 else -1) + rng.logistic()
                        s = 1.0 if z > 0.5 else 0.0 if z < -0.5 else 0.5
                        rows.append((f"q{q}", f"c{q % clusters}", a, b, pos, run, s,
                                     tasks[q % len(tasks)]))
    return frame(rows)


def test_one_item_per_cluster_is_the_t_test_and_alpaca_standard_error() -> None:
    report = win_rates(_random_table(1))
    values = report.trials.groupby(["arm", "opponent", "item"])["score"].mean()
    for rec in report.records:
        w = values.loc[(rec.arm, rec.opponent)].to_numpy()
        one = stats.ttest_1samp(w, 0.5)
        assert_allclose([rec.statistic, rec.p_value], [one.statistic, one.pvalue], rtol=1e-10)
        assert_allclose(rec.standard_error_clustered, rec.standard_error, rtol=1e-12)
        assert_allclose(rec.standard_error, w.std(ddof=1) / math.sqrt(w.size), rtol=1e-12)


def test_wilcoxon_and_auto() -> None:
    table = _random_table(2)
    report = win_rates(table, test="wilcoxon")
    values = report.trials.groupby(["arm", "opponent", "item"])["score"].mean()
    for rec in report.records:
        w = values.loc[(rec.arm, rec.opponent)].to_numpy()
        oracle = stats.wilcoxon(w - 0.5, zero_method="wilcox", correction=False, method="approx")
        assert rec.test == "wilcoxon_signed_rank"
        assert_allclose(rec.p_value, oracle.pvalue, rtol=1e-12)
    # auto: Shapiro-Wilk on the question-level win rates decides; graded scores look normal
    rng = np.random.default_rng(3)
    graded = frame([(f"q{i}", f"c{i}", "A", "B", np.nan, 1, float(np.clip(rng.normal(0.56, 0.12), 0, 1)))
                    for i in range(60)])
    for tab in (table, graded):
        rep = win_rates(tab, test="auto")
        vals = rep.trials.groupby(["arm", "opponent", "item"])["score"].mean()
        for rec in rep.records:
            normal = stats.shapiro(vals.loc[(rec.arm, rec.opponent)].to_numpy()).pvalue > 0.05
            assert rec.test == ("cluster_robust_t" if normal else "wilcoxon_signed_rank")
    assert win_rates(graded, test="auto").records[0].test == "cluster_robust_t"
    assert win_rates(table, test="auto").records[0].test == "wilcoxon_signed_rank"
    two = frame([("q1", "c1", "A", "B", 1, 1, 1.0), ("q2", "c2", "A", "B", 1, 1, 0.5)])
    assert win_rates(two, test="auto").records[0].test == "wilcoxon_signed_rank"  # n < 3


def test_holm_over_the_family_and_per_group() -> None:
    table = pd.concat([_random_table(4, tasks=("x", "y")),
                       _random_table(5, tasks=("x", "y")).assign(judge="k")], ignore_index=True)
    table = pd.concat([table, frame([(f"q{i}", f"c{i}", "A", "A", 1 + i % 2, 1, float(i % 3) / 2)
                                     for i in range(12)], judge="j")], ignore_index=True)
    report = win_rates(table)
    comparisons = [r for r in report.records if not r.is_aa]
    assert len(comparisons) == 2 * 3 * 3  # 2 judges x 3 pairs x (all, x, y)
    expected = multipletests([r.p_value for r in comparisons], method="holm")[1]
    assert_allclose([r.p_adjusted for r in comparisons], expected, rtol=1e-12)
    assert all(r.significant == (r.p_adjusted < 0.05) for r in comparisons)
    aa = [r for r in report.records if r.is_aa]
    assert len(aa) == 1 and aa[0].p_adjusted == aa[0].p_value  # a family of its own
    per = win_rates(table, correction="holm-per-group")
    groups: dict[tuple, list] = {}
    for r in per.records:
        if not r.is_aa:
            groups.setdefault((r.judge, r.criterion, r.task), []).append(r)
    for members in groups.values():
        assert len(members) == 3
        expected = multipletests([r.p_value for r in members], method="holm")[1]
        assert_allclose([r.p_adjusted for r in members], expected, rtol=1e-12)


def test_aa_deviation() -> None:
    # an arm against itself: 12 questions in 4 clusters, the first-shown copy wins more often
    rows = [(f"q{i}", f"c{i % 4}", "A", "A", pos, 1, s)
            for i in range(12) for pos, s in ((1, 1.0 if i % 3 else 0.5), (2, 0.5 if i % 3 else 0.0))]
    report = win_rates(frame(rows))
    (rec,), (aa,) = report.records, report.aa
    assert rec.is_aa and aa.arm == "A"
    # question-level win rates 0.75 (8 questions) and 0.25 (4): mean 7/12
    assert_allclose(aa.deviation, 7 / 12 - 0.5, rtol=1e-12)
    assert_allclose([aa.lower, aa.upper], [rec.lower - 0.5, rec.upper - 0.5], rtol=1e-12)
    assert aa.p_value == rec.p_value == aa.p_adjusted


def test_no_variance_between_clusters_falls_back() -> None:
    # every question won in 3 clusters: V = 0. The exact cluster sign-flip p-value is 2 / 2^3,
    # and the interval is Korn-Graubard's one-sided [(1 - conf)^(1/n*), 1] with
    # n* = N (t_{N-1,conf} / t_{C-1,conf})^2.
    rows = [(f"q{i}", f"c{i % 3}", "A", "B", 1, 1, 1.0) for i in range(9)]
    report = win_rates(frame(rows))
    rec = report.records[0]
    assert rec.test == "cluster_sign_flip_exact" and rec.p_value == 0.25
    exact = cluster_permutation_test(np.full(9, 0.5), [f"c{i % 3}" for i in range(9)], method="exact")
    assert exact.p_value == rec.p_value
    n_star = 9 * (stats.t.ppf(0.95, 8) / stats.t.ppf(0.95, 2)) ** 2
    assert rec.interval_method == "korn_graubard_clopper_pearson"
    assert_allclose([rec.lower, rec.upper], [0.05 ** (1 / n_star), 1.0], rtol=1e-10)
    assert any("sign-flip" in n for n in report.notes)
    ties = win_rates(frame([(f"q{i}", f"c{i % 3}", "A", "B", 1, 1, 0.5) for i in range(9)]))
    assert ties.records[0].p_value == 1.0
    wil = win_rates(frame([(f"q{i}", f"c{i % 3}", "A", "B", 1, 1, 0.5) for i in range(9)]),
                    test="wilcoxon")
    assert wil.records[0].p_value == 1.0  # nothing departs from 1/2 (seed 004: p = 1)
    one = win_rates(frame([(f"q{i}", "c0", "A", "B", 1, 1, float(i % 2)) for i in range(6)]))
    assert one.records[0].interval_method == "too_few_clusters"
    assert math.isnan(one.records[0].p_value) and one.records[0].significant is None


def test_judge_comparison() -> None:
    # judge k agrees with j except on q2's first trial (tie instead of win) and q5's first
    # (loss instead of win): 7 of the 9 trials both scored agree (q4's failed trial is out)
    other = list(HAND)
    other[2] = ("q2", "c1", "A", "B", 1, 1, 0.5, "t1")  # win -> tie
    other[8] = ("q5", "c3", "A", "B", 1, 1, 0.0, "t2")  # win -> loss
    report = win_rates(pd.concat([frame(HAND), frame(other, judge="k")], ignore_index=True),
                       conf=0.5)
    (cmp,) = report.judges
    assert (cmp.judge_a, cmp.judge_b, cmp.n_trials, cmp.n_agree) == ("j", "k", 9, 7)
    assert_allclose(cmp.agreement_rate, 7 / 9, rtol=1e-14)
    # question-level: j = (1, .75, .25, .5, .5), k = (1, .5, .25, .5, 0): d = (0, .25, 0, 0, .5)
    d = np.array([0, 0.25, 0, 0, 0.5])
    assert_allclose([cmp.win_rate_a, cmp.win_rate_b, cmp.difference], [0.6, 0.45, d.mean()],
                    rtol=1e-12)
    # clusters c1 = (0, .25), c2 = (0, 0), c3 = (.5): the CR2 cluster t test on d, each
    # squared residual weighed by 1 / (1 - n_c / N) = 5/3, 5/3, 5/4
    sums, sizes = np.array([0.25, 0.0, 0.5]), np.array([2.0, 2.0, 1.0])
    resid = sums - d.mean() * sizes
    se = math.sqrt(np.sum(np.array([5 / 3, 5 / 3, 5 / 4]) * resid**2) / 25)
    df = bell_mccaffrey_df(sizes, icc=working_icc(sums, [0.0625, 0.0, 0.25], sizes))
    assert_allclose(cmp.statistic, d.mean() / se, rtol=1e-12)
    assert_allclose(cmp.p_value, 2 * stats.t.sf(d.mean() / se, df), rtol=1e-10)
    assert cmp.p_adjusted == cmp.p_value


def test_records_json_and_csvs(tmp_path) -> None:
    report = win_rates(frame(HAND))
    records = json.loads(report.to_json())
    assert list(records[0])[:len(RECORD_FIELDS)] == list(RECORD_FIELDS)
    assert records[0]["task"] is None and records[2]["task"] == "t2"
    one = win_rates(frame([(f"q{i}", "c0", "A", "B", 1, 1, float(i % 2)) for i in range(6)]))
    assert json.loads(one.to_json())[0]["lower"] is None  # NaN as null
    full = report.to_dict()
    assert set(full) == {"records", "aa", "position", "position_direction", "judges", "test",
                         "correction", "alpha", "conf", "notes"}
    json.dumps(full, allow_nan=False)
    paths = report.write_csvs(tmp_path)
    trials = pd.read_csv(paths[0])
    assert list(trials.columns)[:7] == ["score_id", "question", "answer_1_name", "answer_1",
                                        "answer_2_name", "answer_2", "criteria"]
    assert {"A_score", "B_score", "reasoning", "trial", "base_name", "other_name",
            "question_set"} <= set(trials.columns)
    scored = trials["A_score"].notna()
    assert_allclose((trials["A_score"] + trials["B_score"])[scored], 1.0, rtol=1e-15)
    assert (~scored).sum() == 1 and trials.loc[~scored, "B_score"].isna().all()  # q4's failure
    assert trials.loc[trials["question"] == "q1", "trial"].tolist() == [0, 1]
    sig = pd.read_csv(paths[1])
    assert list(sig.columns)[:18] == [
        "question_set", "criteria", "base_name", "other_name", "base_mean", "shapiro_base",
        "base_normal", "other_mean", "shapiro_other", "other_normal", "p_value", "test",
        "statistic", "uncorrected_significance", "formatted_p_value", "corrected_p_value",
        "corrected_significance", "formatted_corrected_p_value"]
    assert sig["question_set"].tolist() == ["t1", "t2"]  # BenchmarkQED's rows: one per question set
    ours = pd.read_csv(paths[2])  # assay's records: all question sets together, then each
    assert ours["question_set"].tolist() == ["ALL", "t1", "t2"]
    text = str(report)
    assert "A" in text and "Notes" in text


def test_errors() -> None:
    with pytest.raises(ConfigError, match="test"):
        win_rates(frame(HAND), test="t")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="correction"):
        win_rates(frame(HAND), correction="bonferroni")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="conf"):
        win_rates(frame(HAND), conf=1.5)
    with pytest.raises(DesignError, match="no pairwise rows"):
        win_rates(frame(HAND).assign(opponent=None))
    with pytest.raises(DesignError, match=r"\[0, 1\]"):
        win_rates(frame(HAND).assign(score=2.0))


@st.composite
def small_tables(draw: st.DrawFn):
    items = draw(st.integers(3, 8))
    clusters = draw(st.integers(2, 4))
    scores = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=2 * items,
                           max_size=2 * items))
    flip = draw(st.lists(st.booleans(), min_size=2 * items, max_size=2 * items))
    rows = []
    for k, s in enumerate(scores):
        q, pos = k // 2, 1 + k % 2
        row = (f"q{q}", f"c{q % clusters}", "A", "B", pos, 1, s)
        if flip[k] and k > 0:  # stored from B's side (the first row fixes the orientation)
            row = (f"q{q}", f"c{q % clusters}", "B", "A", 3 - pos, 1, 1 - s)
        rows.append(row)
    return rows, draw(st.permutations(range(2 * items)))


def _same(a: list[dict], b: list[dict]) -> None:
    """Records equal, numbers up to rounding (summation order may change)."""
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert list(x) == list(y)
        for k in x:
            if isinstance(x[k], float) and isinstance(y[k], float):
                assert_allclose(x[k], y[k], rtol=1e-9, atol=1e-12, err_msg=k)
            else:
                assert x[k] == y[k], k


@pytest.mark.slow  # 25 full win-rate reports (about 20 s on 2 cores): run by .ci/run's slow step
@settings(max_examples=25, deadline=None)
@given(small_tables())
def test_invariances(data) -> None:
    rows, order = data
    base = win_rates(frame(rows)).to_records()
    canonical = [(i, c, "A", "B", p, r, s) if a == "A" else (i, c, "A", "B", 3 - p, r, 1 - s)
                 for i, c, a, o, p, r, s in rows]
    _same(win_rates(frame(canonical)).to_records(), base)  # the side rows are stored from
    first, rest = rows[0], [rows[k] for k in order if k != 0]
    _same(win_rates(frame([first, *rest])).to_records(), base)  # row order
    renamed = [(i, "z" + c[::-1], a, o, p, r, s) for i, c, a, o, p, r, s in rows]
    _same(win_rates(frame(renamed)).to_records(), base)  # cluster labels


def test_one_preference_gets_one_interval_from_scores_and_winrate() -> None:
    # Issue 11, item 12: the same preference got [0.863, 0.987] (logit) from --kind scores
    # and [0.904, 1.000] (a clipped raw-scale t) from --kind winrate.
    from assay.analysis.scores import score_summary
    from assay.data.schema import Scale
    from assay.data.table import Judgments

    rng = np.random.default_rng(4)
    rows = []
    for c, size in enumerate([9, 4, 2, 1, 1, 6]):
        for i in range(size):
            for run in (1, 2):
                for pos in (1, 2):
                    score = float(rng.choice([0.0, 0.5, 1.0], p=[0.1, 0.1, 0.8]))
                    rows.append((f"c{c}q{i}", f"c{c}", "A", "B", pos, run, score))
    table = frame(rows).assign(reportable=True)
    judgments = Judgments(table, {"pref": Scale.parse("range:0,1")})
    (record,) = [r for r in win_rates(judgments).records if r.task is None]
    (row,) = score_summary(judgments).rows
    # six clusters of 9, 4, 2, 1, 1 and 6 questions: a flagged design, so both reports take
    # the independence model's df (one rule, one design flag)
    assert (record.interval_method, row.method) == ("logit_cluster_robust_t_independent_df",) * 2
    assert_allclose([record.win_rate, record.lower, record.upper],
                    [row.estimate, row.lower, row.upper], rtol=1e-12)
    text = win_rates(judgments).to_text()
    assert "SE (clusters)" in text and f"{record.standard_error_clustered:.3f}" in text


def test_records_carry_position_and_judge_agreement() -> None:
    # Everything the text prints is in winrates.json: flip rate and direction, judges.
    other = list(HAND)
    other[2] = ("q2", "c1", "A", "B", 1, 1, 0.5, "t1")
    report = win_rates(pd.concat([frame(HAND), frame(other, judge="k")], ignore_index=True))
    records = json.loads(report.to_json())
    overall = next(r for r in records if r["judge"] == "j" and r["task"] is None)
    position = next(p for p in report.position if p.judge == "j")
    assert overall["position"]["flip_rate"] == pytest.approx(position.flip_rate)
    direction = next(d for d in report.position_direction if d.judge == "j")
    assert overall["position"]["direction_net_toward_first"] == pytest.approx(
        direction.net_toward_first)
    (cmp,) = overall["judges"]
    assert (cmp["judge_a"], cmp["judge_b"]) == ("j", "k")
    assert cmp["agreement_rate"] == pytest.approx(report.judges[0].agreement_rate)
