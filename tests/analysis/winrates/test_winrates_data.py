"""win_rates on realistic data: the AlpacaEval leaderboards (real judgments) and the demo
simulator's counterbalanced pairwise judge (its planted position bias)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import assay
from assay.analysis.winrates import win_rates
from assay.data.importers import import_alpaca_eval
from assay.demo import _evaluations, simulate
from tests.conftest import ALPACA


@pytest.fixture(scope="module")
def alpaca() -> assay.Judgments:
    if not (ALPACA / "results").is_dir():
        pytest.skip(f"real AlpacaEval data not found at {ALPACA} (only in the project's workspace)")
    return import_alpaca_eval([ALPACA / "results"])


@pytest.fixture(scope="module")
def alpaca_report(alpaca):
    return win_rates(alpaca)


@pytest.fixture(scope="module")
def demo(demo_table_five_judges) -> assay.Judgments:
    return demo_table_five_judges


# ----- AlpacaEval --------------------------------------------------------------------------


def test_alpaca_reproduces_the_leaderboards(alpaca_report, alpaca_leaderboards: Path) -> None:
    # every instruction is its own cluster (the importer's default): win_rate and
    # standard_error are the leaderboard's / 100, and the counts are its n_wins,
    # n_wins_base, n_draws and n_total
    checked = []
    for rec in alpaca_report.records:
        board = pd.read_csv(alpaca_leaderboards / f"{rec.judge}_leaderboard.csv", index_col=0)
        if rec.task is not None or rec.arm not in board.index:
            continue
        row = board.loc[rec.arm]
        assert_allclose(100 * rec.win_rate, row["win_rate"], rtol=1e-9)
        assert_allclose(100 * rec.standard_error, row["standard_error"], rtol=1e-7)
        assert (rec.n_wins, rec.n_losses, rec.n_ties, rec.n) == (
            row["n_wins"], row["n_wins_base"], row["n_draws"], row["n_total"])
        # one item per cluster: the interval is the t interval on the logit scale (as --kind
        # scores gives it), from the item SE by the delta method, with n - 1 df (CR2 = CR1
        # when every cluster has one item)
        p = rec.win_rate
        half = stats.t.ppf(0.975, rec.n - 1) * rec.standard_error / (p * (1 - p))
        logit = np.log(p / (1 - p))
        assert_allclose([rec.lower, rec.upper], 1 / (1 + np.exp(-np.array([logit - half, logit + half]))),
                        rtol=1e-6)
        checked.append((rec.judge, rec.arm))
    # the leaderboards list cohere under 3 annotators and gpt-3.5-turbo-0301 under 2, one of
    # them the weighted annotator (graded preferences)
    assert len(checked) == 5
    assert ("weighted_alpaca_eval_gpt4_turbo", "gpt-3.5-turbo-0301") in checked
    gpt = next(r for r in alpaca_report.records
               if r.judge == "alpaca_eval_gpt4" and r.arm == "gpt-3.5-turbo-0301" and r.task is None)
    assert gpt.n_failed == 1 and gpt.n == 804  # the null preference is left out, not a loss


def test_alpaca_with_the_dataset_as_cluster_is_wider(alpaca, alpaca_report) -> None:
    # instructions of one dataset (helpful_base, koala, oasst, selfinstruct, vicuna) are not
    # independent draws: with the 5 datasets as clusters (at most 4 df) the interval widens
    frame = alpaca.frame.assign(cluster=alpaca.frame["task"])
    by_task = win_rates(replace(alpaca, frame=frame))
    items = {(r.judge, r.arm): r for r in alpaca_report.records if r.task is None}
    overall = [r for r in by_task.records if r.task is None]
    assert len(overall) == 7
    for rec in overall:
        base = items[(rec.judge, rec.arm)]
        # CR2's Bell-McCaffrey df: below C - 1 = 4 since the datasets differ in size
        assert rec.n_clusters == 5 and 1.0 < rec.df < 4.0
        assert_allclose(rec.win_rate, base.win_rate, rtol=1e-12)
        assert_allclose(rec.standard_error, base.standard_error, rtol=1e-12)  # items as units
        assert rec.upper - rec.lower > base.upper - base.lower
    # a single dataset is a single cluster: no cluster-robust interval there
    one = next(r for r in by_task.records if r.task is not None)
    assert one.interval_method == "too_few_clusters" and math.isnan(one.lower)


def test_alpaca_judges_agree_on_the_same_instructions(alpaca, alpaca_report) -> None:
    f = alpaca.frame
    for cmp in alpaca_report.judges:
        rows = f[(f["arm"] == cmp.arm) & (f["opponent"] == cmp.opponent) & f["score"].notna()]
        wide = rows.pivot(index="item", columns="judge", values="score")[
            [cmp.judge_a, cmp.judge_b]].dropna()
        verdicts = np.sign(wide - 0.5)
        assert cmp.n_trials == len(wide)
        assert_allclose(cmp.agreement_rate, float((verdicts[cmp.judge_a] == verdicts[cmp.judge_b]).mean()),
                        rtol=1e-12)
        d = wide[cmp.judge_a] - wide[cmp.judge_b]
        one = stats.ttest_1samp(d, 0.0)  # one instruction per cluster: the paired t test
        assert_allclose([cmp.difference, cmp.statistic, cmp.p_value],
                        [d.mean(), one.statistic, one.pvalue], rtol=1e-9)
    assert {(c.judge_a, c.judge_b, c.arm) for c in alpaca_report.judges} == {
        ("alpaca_eval_cot_gpt4_turbo_fn", "alpaca_eval_gpt4_turbo_fn", "cohere"),
        ("alpaca_eval_cot_gpt4_turbo_fn", "alpaca_eval_gpt4_turbo_fn", "gpt-3.5-turbo-0301"),
        ("alpaca_eval_cot_gpt4_turbo_fn", "weighted_alpaca_eval_gpt4_turbo", "gpt-3.5-turbo-0301"),
        ("alpaca_eval_gpt4_turbo_fn", "weighted_alpaca_eval_gpt4_turbo", "gpt-3.5-turbo-0301")}


# ----- the demo simulator ------------------------------------------------------------------


def _position_pairs(judgments: assay.Judgments) -> pd.DataFrame:
    f = judgments.frame
    f = f[f["opponent"].notna() & f["reportable"]]
    wide = f.pivot_table(index=["item", "arm", "opponent"], columns="position", values="score",
                         aggfunc="first")
    return wide.dropna()


def test_demo_counterbalanced_trials_are_averaged_per_question(demo) -> None:
    report = win_rates(demo)
    f = demo.frame
    f = f[f["opponent"].notna() & f["reportable"] & f["score"].notna()]
    per_item = f.groupby(["arm", "opponent", "item"])["score"].mean()
    for rec in report.records:
        if rec.task is not None:
            continue
        w = per_item.loc[(rec.arm, rec.opponent)]
        assert rec.n == w.size
        assert_allclose(rec.win_rate, w.mean(), rtol=1e-12)
        assert_allclose(rec.standard_error, w.std(ddof=1) / math.sqrt(w.size), rtol=1e-12)
        assert rec.n_clusters == f[f["arm"] == rec.arm]["cluster"].nunique()
    assert {r.task for r in report.records} == {None, "factoid_qa", "summarisation"}


def test_demo_flip_rate_matches_a_direct_count(demo) -> None:
    report = win_rates(demo)
    (pos,) = report.position
    wide = _position_pairs(demo)
    flips = np.sign(wide[1.0] - 0.5) != np.sign(wide[2.0] - 0.5)
    assert (pos.judge, pos.criterion, pos.n) == ("judge-pairwise", "preference", len(wide))
    assert_allclose(pos.flip_rate, flips.mean(), rtol=1e-12)


def _first_shown(judgments: assay.Judgments) -> tuple[int, int]:
    """Decisive trials, and those the answer shown first won."""
    f = judgments.frame
    f = f[f["opponent"].notna() & f["reportable"] & f["score"].notna() & (f["score"] != 0.5)]
    first_won = ((f["position"] == 1) & (f["score"] == 1)) | ((f["position"] == 2) & (f["score"] == 0))
    return len(f), int(first_won.sum())


@pytest.mark.slow  # runs the whole demo's win rates
def test_demo_planted_position_bias_shows_in_the_flips(demo, tmp_path, monkeypatch) -> None:
    # The simulator adds +0.5 on the logit scale for the answer shown first. Rerun with the
    # same seed (the same noise draws) and the bias set to 0, 1 or 2: the flip rate grows with
    # the bias, but at 0.5 it happens to equal the unbiased rate (259 of 533 pairs both times,
    # the tie band |z| < 0.9 absorbs much of the shift); what the planted bias changes is the
    # direction of the flips, 181 towards the answer shown first and 78 away, against 132 and
    # 127 without bias.
    report = win_rates(demo)
    planted, direction = report.position[0], report.position_direction[0]
    wide = _position_pairs(demo)
    d = np.sign(np.sign(wide[1.0] - 0.5) - np.sign(wide[2.0] - 0.5))
    assert (direction.n_toward_first, direction.n_toward_second) == ((d > 0).sum(), (d < 0).sum())
    assert (direction.n_toward_first, direction.n_toward_second) == (181, 78)
    assert direction.lower > 0 and direction.p_value < 1e-6
    n, won = _first_shown(demo)
    assert_allclose(planted.first_shown_preference, won / n, rtol=1e-12)
    runs = {}
    for bias in (0.0, 1.0, 2.0):
        monkeypatch.setattr(_evaluations, "POSITION_BIAS_LOGIT", bias)  # where the judges use it
        out = tmp_path / f"bias{bias}"
        simulate.simulate_evaluation(out, seed=7)
        runs[bias] = win_rates(assay.load(out))
    flip = {b: r.position[0].flip_rate for b, r in runs.items()}
    assert flip[0.0] == planted.flip_rate < flip[1.0] < flip[2.0]
    unbiased = runs[0.0].position_direction[0]
    assert (unbiased.n_toward_first, unbiased.n_toward_second) == (132, 127)
    assert unbiased.lower < 0 < unbiased.upper and unbiased.p_value > 0.5
    nets = [unbiased.net_toward_first, direction.net_toward_first,
            *(runs[b].position_direction[0].net_toward_first for b in (1.0, 2.0))]
    assert nets == sorted(nets)


def test_demo_seed_csvs_feed_the_seed_notebook(demo, tmp_path) -> None:
    # seed 004's analyze_criteria on our win_rates.csv: per-question means of the base score,
    # then per (question_set, criteria, base, other) their mean and ttest_rel against the
    # other method's; with every question its own cluster, our cluster t test is that test
    frame = demo.frame.assign(cluster=demo.frame["item"])
    report = win_rates(replace(demo, frame=frame))
    trials_csv, _, sig_csv = report.write_csvs(tmp_path)  # assay's own: winrates_cluster_tests.csv
    raw = pd.read_csv(trials_csv)
    sig = pd.read_csv(sig_csv).set_index(["question_set", "base_name", "other_name"])
    for (qs, base, other), group in raw.groupby(["question_set", "base_name", "other_name"]):
        means = group.groupby("question")[[f"{base}_score", f"{other}_score"]].mean().dropna()
        row = sig.loc[(qs, base, other)]
        assert_allclose(row["base_mean"], means[f"{base}_score"].mean(), rtol=1e-12)
        rel = stats.ttest_rel(means[f"{base}_score"], means[f"{other}_score"])
        assert_allclose(row["p_value"], rel.pvalue, rtol=1e-9)
        assert row["test"] == "cluster_robust_t"
